"""A blueprint of a bet abstraction playing the real no-limit game, off-tree bets translated.

The agent is given its own game (the real no-limit game with fewer bet sizes, the
abstraction its blueprint was solved in) and that game's strategy. Public keys name bets by
their chip amounts, so every information set of the abstract game is an information set of
the real game where only abstract bets were made; the blueprint is carried over to those by
action name. An opponent's off-tree bet is answered by randomized pseudo-harmonic action
translation (Ganzfried & Sandholm 2013; the baseline of safe-and-nested §6):
:func:`~subgame.resolving.translation.translation_strategy` writes the agent's behaviour,
with the translation's randomness folded in, as a strategy of the real game, so the agent
plays it exactly and a match knows its strategy (exact expected value, AIVAT).

Writing the behaviour out needs the real game's compiled tree: this agent is for games
whose tree fits in memory (the poker family up to no-limit Leduc and small hold'em
subgames).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..errors import GameDefinitionError
from ..games.poker.game import PokerGame
from ..resolving.translation import BetAbstraction, restrict, translation_strategy
from ..strategy import Strategy
from ..tree.part import place
from ..tree.public_tree import PublicTree
from .base import Decision, View
from .strategy import StrategyAgent


def bet_abstraction_of(game: PokerGame, abstract: PokerGame) -> BetAbstraction:
    """The :class:`BetAbstraction` of ``game`` that ``abstract`` is.

    Raises:
        GameDefinitionError: ``abstract`` is not ``game`` with some bet sizes removed.
    """
    if not isinstance(game, PokerGame) or not isinstance(abstract, PokerGame):
        raise GameDefinitionError("bet-size translation needs two games of the poker family")
    real, small = game.spec, abstract.spec
    same_rules = replace(small, bet_fractions=real.bet_fractions, all_in=real.all_in) == real
    if real.betting != "nolimit" or not same_rules:
        raise GameDefinitionError(
            f"the strategy's game {abstract.describe()} is not a bet abstraction of {game.describe()}: "
            "both must be no-limit with the same rules except bet_fractions and all_in"
        )
    return BetAbstraction(game, tuple(small.bet_fractions), small.all_in)


def lift_blueprint(tree: PublicTree, restricted: PublicTree, abstract_tree: PublicTree, blueprint: Strategy) -> Strategy:
    """``blueprint`` of the abstract game as a strategy of the real tree that plays only abstract actions.

    The abstract tree is placed in the real one (public keys and bets name chip amounts;
    :func:`~subgame.tree.part.place`), actions matched by name within each information
    set; real information sets the abstract game never reaches get the uniform
    strategy over the abstract actions there (``restricted``: the real tree with the
    off-abstraction bets illegal), which translation replaces where it matters.
    """
    part = place(tree, abstract_tree, abstraction=True)
    probs = []
    for p in (0, 1):
        pa, ra, aa = tree.players[p], restricted.players[p], abstract_tree.players[p]
        out = ra.legal / np.maximum(ra.legal.sum(axis=1, keepdims=True), 1)
        rows = part.infosets[p]
        if (rows < 0).any():
            missing = aa.label[aa.infoset_priv[int(np.flatnonzero(rows < 0)[0])]]
            raise GameDefinitionError(f"the bet abstraction: information set {missing!r} of player {p} has no match in the full game")
        for i, r in enumerate(rows):  # one row per abstract information set, at setup
            slot = {name: k for k, name in enumerate(pa.action_names[r])}
            out[r] = 0.0
            for k, name in enumerate(aa.action_names[i]):
                out[r, slot[name]] = blueprint.probs[p][i, k]
        probs.append(out)
    return Strategy(tree.game_id, (probs[0], probs[1]))


@dataclass
class TranslationAgent:
    """Plays a bet-abstraction blueprint in the real game; off-tree bets by pseudo-harmonic translation.

    Attributes:
        game: the real game.
        tree: its compiled tree.
        abstract_game: the game the blueprint was solved in (fewer bet sizes).
        abstract_tree: that game's compiled tree.
        blueprint: a strategy of ``abstract_tree``.
    """

    game: PokerGame
    tree: PublicTree
    abstract_game: PokerGame
    abstract_tree: PublicTree
    blueprint: Strategy
    name: str = "translation"
    _seat: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.abstraction = bet_abstraction_of(self.game, self.abstract_game)
        self.blueprint.check(self.abstract_tree)

    @cached_property
    def _real(self) -> StrategyAgent:
        restricted = restrict(self.game, self.tree, self.abstraction)
        lifted = lift_blueprint(self.tree, restricted, self.abstract_tree, self.blueprint)
        probs = [translation_strategy(self.game, self.tree, self.abstraction, lifted, p) for p in (0, 1)]
        return StrategyAgent(self.tree, Strategy(self.tree.game_id, (probs[0], probs[1])), name=self.name)

    def new_hand(self, player: int, seed: int) -> None:
        self._seat = player

    def act(self, view: View) -> Decision:
        return self._real.act(view)

    def behaviour(self, tree: PublicTree) -> Strategy:
        return self._real.behaviour(tree)
