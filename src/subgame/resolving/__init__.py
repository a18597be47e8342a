"""Safe and unsafe subgame solving (Brown & Sandholm 2017; Burch, Johanson & Bowling 2014).

* :class:`SubgameProblem` / :func:`resolve_subgame` — one re-solving problem (a forest of
  subgames, the re-solver's root range, the opponent's alternative payoffs, a gadget) and
  the one function that solves it, whoever produced it.
* :func:`blueprint_problem` / :func:`solve_subgames` / :func:`resolve_all` — the problems a
  blueprint produces, for every method of :data:`METHODS`.
* :class:`BetAbstraction` / :func:`restrict` / :func:`translation_strategy` — a bet-size
  abstraction of a no-limit game and randomized pseudo-harmonic action translation.
* :func:`nested_strategy` / :func:`solve_off_tree` — nested solving for off-tree actions (§6).
"""

from .gadgets import DistributionalGadget, FixedRange, MaxMarginGadget, ResolveGadget
from .nested import NESTED_METHODS, NestedResult, nested_strategy, solve_off_tree
from .problem import GADGETS, GadgetSpec, SubgameProblem, SubgameSolution, resolve_subgame
from .solving import (
    METHODS,
    SAFE_METHODS,
    BlueprintValues,
    Method,
    SubgameParams,
    blueprint_problem,
    blueprint_values,
    public_node,
    resolve_all,
    solve_subgames,
    subgame_forest,
    subgame_roots,
)
from .translation import BetAbstraction, pseudo_harmonic, restrict, translate, translation_branches, translation_strategy

__all__ = [
    "GADGETS", "METHODS", "SAFE_METHODS", "BlueprintValues", "DistributionalGadget", "FixedRange", "GadgetSpec",
    "MaxMarginGadget", "Method", "ResolveGadget", "SubgameParams", "SubgameProblem", "SubgameSolution",
    "blueprint_problem", "blueprint_values", "public_node", "resolve_all", "resolve_subgame",
    "solve_subgames", "subgame_forest", "subgame_roots",
    "NESTED_METHODS", "NestedResult", "nested_strategy", "solve_off_tree",
    "BetAbstraction", "pseudo_harmonic", "restrict", "translate", "translation_branches", "translation_strategy",
]
