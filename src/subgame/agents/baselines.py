"""Baseline agents: uniform random play and always check/call."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..games.poker.game import CALL
from ..strategy import Strategy
from ..tree.public_tree import PublicTree
from .base import Decision, View


@dataclass
class RandomAgent:
    """Every legal action with equal probability."""

    name: str = "random"

    def new_hand(self, player: int, seed: int) -> None:
        pass

    def act(self, view: View) -> Decision:
        return Decision.uniform(view.legal)

    def behaviour(self, tree: PublicTree) -> Strategy:
        return Strategy.uniform(tree)


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

    def behaviour(self, tree: PublicTree) -> Strategy:
        probs = []
        for pa in tree.players:
            is_call = pa.legal & (pa.action_ids == CALL)
            # the call slot where there is one, else the lowest legal action id (slots are in id order)
            slot = np.where(is_call.any(axis=1), is_call.argmax(axis=1), pa.legal.argmax(axis=1))
            x = np.zeros(pa.legal.shape)
            x[np.arange(pa.num_infosets), slot] = 1.0
            probs.append(x)
        return Strategy(tree.game_id, (probs[0], probs[1]))
