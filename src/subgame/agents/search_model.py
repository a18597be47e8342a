"""The HUNL search agent as an opponent model: local best response against what search plays.

LBR (Lisý & Bowling 2017, §3) needs its opponent's strategy at every one of his hands. Against
a blueprint that is the blueprint's row of each hand's bucket (:class:`~.beliefs.BlueprintModel`);
against :class:`~.hunl_search.HunlSearchAgent` it is what the agent computes itself. A solve
gives every hand's row at once (the subgame is solved for the whole range), and the agent keeps
its own range by Bayes' rule along the hand, so the model is a twin of the agent asked at the
public path: the blueprint's rows before the searched rounds, the solve's rows in them, the
blueprint's where a solve falls back, as the agent plays.

The twin has its own seed (:attr:`SearchModel.seed`): where the agent samples (the turn's river
cards, randomized translation), the model is one draw of the agent's policy, not the draw the
agent made in the hand being played, which LBR cannot know.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import SubgameError
from ..games.poker.game import PokerState
from . import beliefs
from .base import Move, View
from .beliefs import BlueprintModel
from .hunl_search import HunlSearchAgent

#: solves the twin keeps (each a compiled subgame and its strategies): the oldest are dropped beyond this
KEPT_SOLVES = 64


class SearchModel:
    """A search agent as LBR's model of the opponent (module docstring).

    Args:
        agent: the twin: a search agent configured as the one played against (not the object that plays).
        seed: the twin's seed in every hand.
        keep: the solves the twin keeps across hands, the newest (``None``: all; each is a compiled subgame).
    """

    def __init__(self, agent: HunlSearchAgent, *, seed: int = 0, keep: int | None = KEPT_SOLVES,
                 name: str | None = None) -> None:
        self.agent, self.seed, self.keep = agent, seed, keep
        self.name = name or agent.name
        self.game = agent.game
        self.blueprint = BlueprintModel(agent.game, agent.base.blueprint, agent.base.abstraction, name=self.name,
                                        rows=agent.blueprint_rows)  # one cache of the blueprint's bucket rows
        self.hands = self.blueprint.hands
        self._beliefs: dict[tuple[int, tuple[str, ...]], SearchBelief] = {}

    def __getstate__(self) -> dict[str, object]:
        return self.__dict__ | {"_beliefs": {}}  # a copy sent to a worker reaches its own beliefs

    def start(self, player: int) -> SearchBelief:
        """The belief about seat ``player`` after the deal."""
        if player not in (0, 1):
            raise SubgameError(f"the modelled seat must be 0 or 1, got {player!r}")
        return self._belief(player, ())

    def _belief(self, player: int, moves: tuple[str, ...]) -> SearchBelief:
        """The belief after ``moves``, kept: the twin's belief is a function of the public path and its seed, and LBR
        meets the same paths from every hand it is asked at. Up to :data:`~.beliefs.BELIEF_BYTES` of ranges and
        replies (counted as a range and eight actions' rows each), then they are let go."""
        key = (player, moves)
        hit = self._beliefs.get(key)
        if hit is None:
            hit = SearchBelief(self, player, moves)
            if (len(self._beliefs) + 1) * 9 * self.hands.shape[0] * 8 > beliefs.BELIEF_BYTES:
                self._beliefs.clear()
            self._beliefs[key] = hit
        return hit

    def twin(self, player: int) -> HunlSearchAgent:
        """The twin in seat ``player`` with the model's seed, its solves kept across hands (:attr:`keep`)."""
        if self.agent.player != player or self.agent.seed != self.seed:
            self.agent.new_hand(player, self.seed)
        if self.keep is not None:
            self.agent.keep_solves(self.keep)
        return self.agent


@dataclass(frozen=True, eq=False)
class SearchBelief:
    """What :class:`SearchModel` knows of seat ``player`` after the public moves ``moves`` (after the hole cards)."""

    model: SearchModel
    player: int  #: the modelled seat
    moves: tuple[str, ...]

    def view(self, legal: tuple[int, ...] = ()) -> View:
        """The modelled seat's view of the public moves (its hole cards unknown)."""
        return View(self.player, (Move("", ""), Move("", "")) + tuple(Move(m, "") for m in self.moves), legal)

    @cached_property
    def _public(self) -> tuple[PokerState, int, np.ndarray]:
        return self.model.twin(self.player).public_belief(self.view())

    @property
    def state(self) -> PokerState:
        """The real public state (hole cards unknown)."""
        return self._public[0]

    @property
    def range(self) -> np.ndarray:
        """[H] the modelled player's reach of every hand, the agent's own Bayes range (zero where the board blocks)."""
        return self._public[2]

    def after(self, name: str) -> SearchBelief:
        """The belief after the public move ``name`` (board cards or a betting action of either player)."""
        return self.model._belief(self.player, self.moves + (name,))

    def replies(self) -> tuple[tuple[int, ...], np.ndarray]:
        """At the modelled player's decision: his legal actions and [H, A] the joint probability of hand and action
        (read-only: computed once)."""
        if self.model.game.actor(self.state) != self.player:
            raise SubgameError(f"the modelled player {self.player} is not to act here")
        return self._replies

    @cached_property
    def _replies(self) -> tuple[tuple[int, ...], np.ndarray]:
        game, (state, node, reach) = self.model.game, self._public
        legal = game.legal_actions(state)
        probs = self.model.twin(self.player).searched_rows(self.view(legal))
        if probs is None:
            _, probs = self.model.blueprint.policy(self.player, node, state)
        joint = reach[:, None] * probs
        joint.setflags(write=False)
        return legal, joint
