"""Goofspiel with a fixed prize order, as OpenSpiel's ``goofspiel`` plays it (turn-based).

Each player holds the cards 1..N; round r auctions the prize card shown by the prize order
(descending: N first). Both players bid a card from their hands; player 1 bids without
seeing player 0's bid. The higher bid wins the prize's points, a tie discards the prize.
With one card left in each hand the last round plays itself. In the imperfect-information
version (IIGS, used by the continual-responses paper) a round reveals only who won it;
otherwise both bids are revealed. Returns: ``win_loss`` (+1/−1/0 for more points) or
``point_difference``.

Action ids: bidding card c is action c − 1, as in OpenSpiel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import GameDefinitionError
from .base import TERMINAL, Game

Bids = tuple[tuple[int, ...], tuple[int, ...]]


class Goofspiel(Game[Bids]):
    """Two-player Goofspiel; a state is ``(bids_0, bids_1)``, the cards bid so far (0-based)."""

    name = "goofspiel"

    def __init__(self, num_cards: int = 4, imp_info: bool = True, points_order: str = "descending",
                 returns_type: str = "win_loss"):
        if not 2 <= num_cards <= 8:
            raise GameDefinitionError(f"goofspiel: num_cards must be between 2 and 8, got {num_cards}")
        if points_order not in ("descending", "ascending"):
            raise GameDefinitionError(
                f"goofspiel: points_order must be 'descending' or 'ascending' (a random order is not supported), got {points_order!r}"
            )
        if returns_type not in ("win_loss", "point_difference"):
            raise GameDefinitionError(f"goofspiel: returns_type must be 'win_loss' or 'point_difference', got {returns_type!r}")
        self.n, self.imp_info, self.order, self.returns_type = num_cards, bool(imp_info), points_order, returns_type

    @property
    def params(self) -> Mapping[str, Any]:
        return {"num_cards": self.n, "imp_info": self.imp_info, "points_order": self.order, "returns_type": self.returns_type}

    def prize(self, r: int) -> int:
        return self.n - r if self.order == "descending" else r + 1

    def root(self) -> Bids:
        return ((), ())

    def actor(self, s: Bids) -> int:
        b0, b1 = s
        if len(b1) >= self.n - 1 and len(b0) == len(b1):
            return TERMINAL
        return 0 if len(b0) == len(b1) else 1

    def legal_actions(self, s: Bids) -> tuple[int, ...]:
        used = s[self.actor(s)]
        return tuple(c for c in range(self.n) if c not in used)

    def next_state(self, s: Bids, a: int) -> Bids:
        b0, b1 = s
        return (b0 + (a,), b1) if len(b0) == len(b1) else (b0, b1 + (a,))

    def _result(self, c0: int, c1: int) -> str:
        return "p0 wins" if c0 > c1 else "p1 wins" if c1 > c0 else "draw"

    def observations(self, s: Bids, a: int) -> tuple[str, str, str]:
        b0, b1 = s
        if len(b0) == len(b1):
            return ("p0 bid", str(a + 1), "")
        c0 = b0[-1]
        public = self._result(c0, a) if self.imp_info else f"{c0 + 1}:{a + 1}"
        return (public, "", str(a + 1))

    def action_name(self, s: Bids, a: int) -> str:
        return str(a + 1)

    def _points(self, s: Bids) -> tuple[int, int]:
        b0, b1 = s
        last0 = [c for c in range(self.n) if c not in b0]
        last1 = [c for c in range(self.n) if c not in b1]
        bids = list(zip(b0 + tuple(last0), b1 + tuple(last1)))
        pts = [0, 0]
        for r, (c0, c1) in enumerate(bids):
            if c0 != c1:
                pts[0 if c0 > c1 else 1] += self.prize(r)
        return pts[0], pts[1]

    def utility(self, s: Bids) -> float:
        p0, p1 = self._points(s)
        if self.returns_type == "point_difference":
            return float(p0 - p1)
        return 1.0 if p0 > p1 else -1.0 if p1 > p0 else 0.0

    def utility_bound(self) -> float:
        return float(self.n * (self.n + 1) // 2) if self.returns_type == "point_difference" else 1.0
