"""Continual re-solving as an agent: play a trunk strategy, re-solve each subgame when play reaches it.

Two sources of what is re-solved, one agent:

* **CFR-D files** (Burch, Johanson & Bowling 2014, "Subgame Strategy Re-Solving"): the
  trunk average strategy is played in the trunk; on reaching a subgame the agent re-solves
  its own strategy there with the follow/terminate gadget from CFR-D's stored root values
  (:func:`~subgame.decompose.stored_value_problem`).
* **A blueprint** with any subgame-solving method of the safe-and-nested paper (§4–5):
  the blueprint is played until a betting round starts; there the agent re-solves the
  round's subgame from the blueprint's values (:func:`~subgame.resolving.blueprint_problem`).

Every re-solve is :func:`~subgame.resolving.resolve_subgame` run for the agent's
:class:`~subgame.solve.driver.Budget` per decision, and cached per (subgame, seat): the
same subgame reached again is answered from the cache. CFR is deterministic, so with an
iteration budget the agent's play does not depend on its seed or on the order in which it
meets subgames; a budget in seconds makes it depend on the machine's speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..decompose.cfr_d import CFRDSolution
from ..decompose.reconstruct import chunk_at, stored_value_problem
from ..errors import StrategyFileError, SubgameError
from ..games.base import Game
from ..resolving.problem import SubgameProblem, resolve_subgame
from ..resolving.solving import METHODS, BlueprintValues, blueprint_problem, blueprint_values, subgame_forest, subgame_roots
from ..solve.cfr import CFR_PLUS, CFRConfig
from ..solve.driver import Budget
from ..strategy import Strategy
from ..tree.lookup import InfosetLookup, lookups
from ..tree.part import Part, assemble, at_or_below, place
from ..tree.public_tree import DECISION, LEAF, PublicKey, PublicTree
from .base import Decision, View, infoset_key


@dataclass(frozen=True, eq=False)
class ResolveSource:
    """Where a re-solving agent's trunk strategy and subgame problems come from.

    Attributes:
        trunk: the tree played without re-solving (CFR-D's trunk, or the blueprint's
            whole tree, whose decisions above the subgame roots are played as they are).
        strategy: a strategy of ``trunk``.
        roots: [S] public keys of the subgame roots, where re-solving starts.
        problem: ``problem(root key, player)`` is the problem of re-solving ``player``
            in the subgame at that root (a picklable callable, so agents travel to
            worker processes).
        label: what is re-solved from: ``"cfr-d"`` or the subgame-solving method.

    Where roots nest (a blueprint of a game with three or more rounds), play below a
    deeper root uses that root's re-solve, each made from the blueprint's values.
    """

    trunk: PublicTree
    strategy: Strategy
    roots: tuple[PublicKey, ...]
    problem: Callable[[PublicKey, int], SubgameProblem]
    label: str

    def root_of(self, key: PublicKey) -> PublicKey | None:
        """The deepest subgame root that is a prefix of public state ``key`` (``None`` above every root)."""
        for n in range(len(key), -1, -1):
            if key[:n] in self._root_set:
                return key[:n]
        return None

    @cached_property
    def _root_set(self) -> frozenset[PublicKey]:
        return frozenset(self.roots)


@dataclass(frozen=True, eq=False)
class _StoredValueProblems:
    """``(root key, player) -> problem`` from CFR-D's stored values (a picklable callable)."""

    solution: CFRDSolution

    def __call__(self, key: PublicKey, player: int) -> SubgameProblem:
        return stored_value_problem(self.solution, chunk_at(self.solution, key), player)


@dataclass(frozen=True, eq=False)
class _BlueprintProblems:
    """``(root key, player) -> problem`` from a blueprint's values with ``method`` (a picklable callable)."""

    game: Game
    values: BlueprintValues
    method: str

    def __call__(self, key: PublicKey, player: int) -> SubgameProblem:
        tree = self.values.tree
        return blueprint_problem(self.values, subgame_forest(self.game, tree, [tree.node_of_key[key]]), player, self.method)


def cfr_d_source(solution: CFRDSolution) -> ResolveSource:
    """Re-solving from a CFR-D solution: the subgames are the trunk's leaves."""
    trunk = solution.trunk
    roots = tuple(trunk.public_key[n] for n in np.flatnonzero(trunk.kind == LEAF))
    return ResolveSource(trunk, solution.average, roots, _StoredValueProblems(solution), "cfr-d")


def blueprint_source(game: Game, tree: PublicTree, blueprint: Strategy, method: str) -> ResolveSource:
    """Re-solving a blueprint with ``method`` at the start of every betting round after the first.

    Raises:
        SubgameError: an unknown method.
    """
    if method not in METHODS:
        raise SubgameError(f"unknown subgame-solving method {method!r}; methods are: {', '.join(METHODS)}")
    problems = _BlueprintProblems(game, blueprint_values(tree, blueprint.check(tree)), method)
    return ResolveSource(tree, blueprint, tuple(tree.public_key[n] for n in subgame_roots(tree)), problems, method)


@dataclass(frozen=True, eq=False)
class _Solved:
    """One re-solved subgame of one player: its forest, its information sets by observation and strategy [I_sub, A]."""

    part: Part
    index: InfosetLookup
    probs: np.ndarray


@dataclass
class ResolvingAgent:
    """Plays ``source.strategy`` in the trunk and re-solves each subgame it reaches (see the module docstring).

    Attributes:
        source: the trunk strategy and the subgame problems.
        budget: iterations (and/or seconds) of each re-solve.
        config: the CFR variant of the re-solves.
    """

    source: ResolveSource
    budget: Budget = field(default_factory=lambda: Budget(iterations=200))
    config: CFRConfig = CFR_PLUS
    name: str = "resolve"
    _cache: dict[tuple[PublicKey, int], _Solved] = field(default_factory=dict, init=False, repr=False)

    @cached_property
    def _trunk_index(self) -> tuple[InfosetLookup, InfosetLookup]:
        return lookups(self.source.trunk)

    def new_hand(self, player: int, seed: int) -> None:
        pass  # CFR is deterministic: nothing to seed

    def solved(self, root: PublicKey, player: int) -> _Solved:
        """The re-solve of ``player`` in the subgame at ``root`` (from the cache after the first time)."""
        hit = self._cache.get((root, player))
        if hit is None:
            solution = resolve_subgame(self.source.problem(root, player), config=self.config, budget=self.budget)
            hit = _Solved(solution.part, InfosetLookup(solution.tree, player), solution.probs)
            self._cache[(root, player)] = hit
        return hit

    def act(self, view: View) -> Decision:
        key = infoset_key(view)
        trunk = self.source.trunk
        node = trunk.node_of_key.get(key[0])
        root = self.source.root_of(key[0])
        if root is None and node is not None and trunk.kind[node] == DECISION:
            tree, row, probs = trunk, self._trunk_index[view.player].at(node, key[1]), self.source.strategy.probs[view.player]
        elif root is not None:
            solved = self.solved(root, view.player)
            tree, row, probs = solved.part.tree, solved.index(*key), solved.probs
        else:
            row = -1
        if row < 0:
            raise StrategyFileError(
                f"{self.name}: no information set of player {view.player} at public observations {list(key[0])!r} "
                f"with private observations {key[1]!r} in the trunk or a subgame"
            )
        pa = tree.players[view.player]
        return Decision({int(pa.action_ids[row, k]): float(probs[row, k]) for k in np.flatnonzero(pa.legal[row])})

    def behaviour(self, tree: PublicTree) -> Strategy:
        """The full strategy: the trunk strategy plus every subgame re-solved for both seats.

        Solves (and caches) every subgame the agent could meet, so a match afterwards plays
        from the cache.
        """
        trunk = self.source.trunk
        in_full = place(tree, trunk)
        roots = [trunk.node_of_key[k] for k in self.source.roots if k in trunk.node_of_key]
        above = ~at_or_below(trunk, roots)  # trunk nodes played as they are
        probs = []
        for p in (0, 1):
            pa = trunk.players[p]
            parts: list[tuple[Part, np.ndarray, np.ndarray | None]] = [
                (in_full, self.source.strategy.probs[p], above[pa.node[pa.infoset_priv]])]
            for root in self.source.roots:
                solved = self.solved(root, p)
                parts.append((place(tree, solved.part.tree), solved.probs, None))
            probs.append(assemble(tree, p, parts, f"{self.name} re-solving"))
        return Strategy(tree.game_id, (probs[0], probs[1])).check(tree)
