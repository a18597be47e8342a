"""Baseline agents: uniform random play and always check/call."""

from __future__ import annotations

from dataclasses import dataclass

from ..games.poker.game import CALL
from .base import Decision, View


@dataclass
class RandomAgent:
    """Every legal action with equal probability."""

    name: str = "random"

    def new_hand(self, player: int, seed: int) -> None:
        pass

    def act(self, view: View) -> Decision:
        return Decision.uniform(view.legal)


@dataclass
class CallAgent:
    """Always check or call (poker's action :data:`~subgame.games.poker.game.CALL`).

    In a game without that action id it plays its lowest legal action.
    """

    name: str = "call"

    def new_hand(self, player: int, seed: int) -> None:
        pass

    def act(self, view: View) -> Decision:
        return Decision.pure(CALL if CALL in view.legal else view.legal[0])
