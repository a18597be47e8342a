"""Continual counter-strategies as agents: CDBR and CDRNR playing against an opponent model
(Milec, Kubíček & Lisý §3–5, the continual setting).

The agent holds a model of the opponent (a strategy file of the game; the seat it does not
sit in is read) and re-solves as play reaches its decisions: at a decision whose count of
her own decisions on the path is c, it first makes sure every earlier level is solved, then
solves level c with her play above frozen (:func:`~subgame.exploit.continual.cdbr_step`,
:func:`~subgame.exploit.continual.cdrnr_step`) and answers from the solution. Decisions of
one level never lie below one another and their problems separate (the batching of
:mod:`subgame.exploit.continual`), so a level is one solve covering every decision of that
level; it is solved once per seat and kept across hands. What the agent plays is therefore
exactly the offline continual response, and :meth:`CounterAgent.behaviour` gives it for
exact match values and AIVAT.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import StrategyFileError, SubgameError
from ..exploit.continual import cdbr_step, cdrnr_step, continual_steps
from ..exploit.lp import Frozen
from ..strategy import Strategy
from ..tree.lookup import InfosetLookup
from ..tree.public_tree import PublicTree
from .base import Decision, View, infoset_key

Step = Callable[[int, Frozen], np.ndarray]


@dataclass
class CounterAgent:
    """CDBR (``p is None``) or CDRNR(p) with look-ahead ``depth`` against ``model``; see the module docstring.

    Args:
        tree: the full game's compiled tree (the model's).
        model: the opponent model, a strategy of ``tree``.
        depth: moves looked at below each decision (>= 1, ``None``: to the end).
        p: CDRNR's weight of the model in [0, 1]; ``None`` plays CDBR.
    """

    tree: PublicTree
    model: Strategy
    depth: int | None = 1
    p: float | None = None
    name: str = "cdbr"
    player: int = field(default=0, init=False)
    _steps: list[Step] = field(default_factory=list, init=False)
    _probs: list[np.ndarray] = field(default_factory=list, init=False)
    _solved: list[int] = field(default_factory=list, init=False)  #: levels solved so far, per seat
    _level: list[np.ndarray] = field(default_factory=list, init=False)
    _index: list[InfosetLookup] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.model.check(self.tree)
        for seat in (0, 1):
            step = (cdbr_step(self.tree, self.model, seat, self.depth) if self.p is None
                    else cdrnr_step(self.tree, self.model, seat, self.p, self.depth))
            pa = self.tree.players[seat]
            self._steps.append(step)
            self._probs.append(pa.legal / pa.legal.sum(axis=1, keepdims=True))
            self._solved.append(0)
            self._level.append(continual_steps(self.tree, seat).level)
            self._index.append(InfosetLookup(self.tree, seat))

    def new_hand(self, player: int, seed: int) -> None:
        """A hand starts in seat ``player``; solved levels stay cached across hands."""
        if player not in (0, 1):
            raise SubgameError(f"the seat must be 0 or 1, got {player!r}")
        self.player = player

    def _solve_to(self, seat: int, c: int) -> np.ndarray:
        """Her strategy [I, A] with every level up to ``c`` solved, each once, in order (her play above frozen)."""
        level = self._level[seat]
        for k in range(self._solved[seat] + 1, c + 1):
            probs = self._probs[seat]
            out = self._steps[seat](k, Frozen(level < k, probs))
            self._probs[seat] = np.where((level == k)[:, None], out, probs)
            self._solved[seat] = k
        return self._probs[seat]

    def act(self, view: View) -> Decision:
        """Her action probabilities at ``view``, solving the levels up to its own first if play has not yet reached them."""
        if view.player != self.player:
            raise SubgameError(f"the view is player {view.player}'s but the agent sits in seat {self.player}; "
                               "call new_hand with the seat first")
        row = self._index[view.player](*infoset_key(view))
        if row < 0:
            raise StrategyFileError(f"{self.name}: the game has no information set for player {view.player} at public "
                                    f"observations {list(view.public_key)!r} with private observations {view.private_label!r}")
        probs = self._solve_to(view.player, int(self._level[view.player][row]))[row]
        pa = self.tree.players[view.player]
        ids = pa.action_ids[row]
        return Decision({int(ids[k]): float(probs[k]) for k in range(len(ids)) if pa.legal[row, k]})

    def behaviour(self, tree: PublicTree) -> Strategy:
        """The continual response it plays in each seat (every level solved), on ``tree``."""
        if tree.game_id != self.tree.game_id:
            raise SubgameError(f"the {self.name} agent plays {self.tree.game_id!r}, not {tree.game_id!r}")
        both = [self._solve_to(s, int(self._level[s].max(initial=0))) for s in (0, 1)]
        return Strategy(tree.game_id, (both[0], both[1]), {"algo": f"agent: {self.name}"})
