"""AIVAT without a tree, for poker: the value of the cards with both hands known (Burch et al., AAAI 2018, §4).

AIVAT subtracts, at every chance event and every decision whose probabilities are known, the
correction ``v(h·a) − Σ_b σ(b|h)·v(h·b)``; each has expectation zero given ``h``, so the
estimate is unbiased for *any* value function ``v``. Where the game's tree is compiled the
match takes the exact history values of reference strategies (:mod:`.match`); a game too large
to compile (heads-up no-limit hold'em) has none, and this module gives the value of the cards:

* at a history where both hands are dealt, player 0's expected utility if the pot as it stands
  went to the showdown, any outstanding bet called, the rest of the board dealt uniformly:
  ``v = M·(2·eq − 1)``, ``eq`` player 0's share of the wins (ties half) over the completions and
  ``M`` the larger contribution; a terminal history, its utility;
* a board deal's correction is ``v(h·a) − v(h)``: a deal changes no contribution, so the mean of
  ``v`` over its outcomes is ``v`` before it (the equity before a card is the mean of the
  equities after it), and the luck of the board is removed exactly (an all-in's hand is scored
  by its equity when the chips went in);
* a decision's correction weighs every action the agent gave probability: a fold by its
  utility, a call or a bet by its value called down. The match draws each action from the
  agent's answer, so its probabilities are known whatever the agent;
* the hole cards are not corrected (no value is given before both hands are known): their luck
  stays, which the duplicate deals mostly remove.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from math import comb

import numpy as np

from ..games.base import TERMINAL
from ..games.poker import showdown
from ..games.poker.game import PokerGame, PokerState


class CardValues:
    """AIVAT's corrections along a hand of a poker game from the value of the cards (module docstring)."""

    description = "the cards' value: the pot called down to the showdown with both hands known (no tree)"

    def __init__(self, game: PokerGame) -> None:
        self.game = game
        self._equity: dict[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], float] = {}

    @staticmethod
    def of(game: object) -> CardValues | None:
        """The corrections of ``game`` if it is poker whose equities this machine can compute: the 52-card deck needs
        the compiled showdown pass (a preflop equity enumerates 1.7 million boards); ``None`` otherwise."""
        if not isinstance(game, PokerGame):
            return None
        s = game.spec
        if s.deck_size == 52 and not showdown.available():
            return None
        return CardValues(game)

    def value(self, st: PokerState) -> float:
        """Player 0's value of ``st`` (both hands dealt): its utility if terminal, else the pot called down."""
        if self.game.actor(st) == TERMINAL:
            return float(self.game.utility(st))
        return float(max(st.contrib)) * (2.0 * self.equity(st.hole[0], st.hole[1], st.board) - 1.0)

    def chance(self, hist: tuple[int, ...], st: PokerState, outcomes: Sequence[tuple[int, float]], a: int) -> float:
        """The correction of chance outcome ``a`` at ``st``: zero for a hole-card deal, ``v(after) − v(st)`` for a board deal."""
        if len(st.hole) < 2:
            return 0.0
        return self.value(self.game.next_state(st, a)) - self.value(st)

    def decision(self, hist: tuple[int, ...], st: PokerState, probs: Mapping[int, float], a: int) -> float:
        """The correction of action ``a`` at ``st`` given the acting agent's probabilities ``probs``."""
        g = self.game
        return self.value(g.next_state(st, a)) - sum(p * self.value(g.next_state(st, b)) for b, p in probs.items() if p > 0)

    def equity(self, mine: tuple[int, ...], theirs: tuple[int, ...], board: tuple[int, ...]) -> float:
        """Player 0's share of the wins, ties half, with hole cards ``mine`` against ``theirs`` over the uniform
        completions of ``board`` (kept per hand and board)."""
        key = (tuple(mine), tuple(theirs), tuple(board))
        hit = self._equity.get(key)
        if hit is None:
            hit = self._equity[key] = self._compute(*key)
            if len(self._equity) > 64:  # a hand meets four boards: keep the last few hands'
                self._equity.pop(next(iter(self._equity)))
        return hit

    def _compute(self, mine: tuple[int, ...], theirs: tuple[int, ...], board: tuple[int, ...]) -> float:
        s = self.game.spec
        if s.deck_size == 52 and s.hole_cards == 2 and sum(s.board_cards) == 5:
            scores = showdown.hand_scores(np.array(board, np.int64), np.array(mine, np.int64),
                                          hands=np.array([sorted(theirs)], np.int64))
            return float(scores[0])
        need = sum(s.board_cards) - len(board)
        used = set(mine) | set(theirs) | set(board)
        rest = [c for c in range(s.deck_size) if c not in used]
        total = 0.0
        for extra in combinations(rest, need):
            full = board + extra
            a, b = self.game.strength(mine + full), self.game.strength(theirs + full)
            total += 1.0 if a > b else 0.5 if a == b else 0.0
        return total / comb(len(rest), need)
