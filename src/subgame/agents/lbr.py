"""Local best response (Lisý & Bowling 2017) and its deeper look-ahead, continual depth-limited best response
(Milec, Kubíček & Lisý §3), as agents.

Both play a no-limit poker game against an opponent *model* that gives its action
probabilities at every one of its hands (:class:`RangeModel`; the implicit blueprint as the
blueprint agent plays it, :class:`~.beliefs.BlueprintModel`). They need no compiled tree, so
they measure and exploit a HUNL blueprint by play (``subgame match lbr:BP blueprint:BP``).

**LBR's rule** (their §3, Algorithm 1), exactly as :func:`subgame.exploit.continual.lbr`
defines it on a compiled tree. At each of its decisions LBR holds the opponent's range
over every hand by Bayes' rule from the model (hands meeting its own cards or the board
excluded), and values each of its candidate actions assuming the model's reply to it is
the model's for one move and that both players then check/call to the end of the game:

* fold: ``−c``, minus what it has put in;
* check/call, or a bet: if the model acts next, each of his replies is weighted by the
  range-weighted probability of that reply: his fold wins his contribution, any other
  reply (a call, a check, a raise, which LBR then calls) goes to the showdown with both
  contributions at the largest; if the model does not act next (the call closes the
  round), the showdown at the current contributions. A showdown at contribution ``M``
  against weights ``w`` is worth ``(2·eq(w) − 1)·M``, ``eq`` LBR's equity against ``w``
  with the rest of the board dealt uniformly (ties half).

So a bet is worth ``fp·pot + (1 − fp)·(showdown against the range that does not fold)`` as
in the paper, with the model's raises split out as the compiled-tree definition does.
Values are per unit of the range's weight; the action of highest value is played, pure,
ties (within :data:`TIE_CHIPS` chips) to the lowest action id (fold, then check/call, then
raises by size). The candidates are fold, check/call and the legal raise nearest in pot
fraction to each of :attr:`LBRConfig.sizes` (default 0.5 and 1 pot and all-in; ``None``:
every legal action). Preflop LBR checks/calls by default (:attr:`LBRConfig.call_preflop`),
as Lisý & Bowling did to keep it cheap (the compiled-tree ``lbr(..., calls=)`` does the
same). Where the model's range is empty given LBR's hand (a state the model never plays to
with the hands left), every action is a best response to it and LBR checks/calls; the
compiled tree's LBR is arbitrary there (every action has value zero), and only there may the
two differ.

**CDBR: a deeper look-ahead** (:attr:`LBRConfig.depth`). CDBR with look-ahead ``d`` solves,
at each decision, the game ``d`` moves below it (moves of either player and of chance) with
the model fixed and a value function at the limit, and plays its best action there; LBR is
CDBR with ``d = 1`` and the check/call-down value function above, which "CDBR is a
generalization of" (Milec et al. §7). With the model fixed and a value function that values
each of her hands alone, her best strategy in the look-ahead is an expectimax at her own
hand: the maximum over her candidates at her decisions, the model's replies weighted by his
Bayes range at his, a one-card deal averaged over its cards (each hand of his meets
``deck − board − 2·hole`` of them), and the value function at the limit: the check/call-down
showdown of LBR (she calls what is outstanding; a deal at the look-ahead's last move is valued
so directly, the same number with the card averaged inside the equity). A deal of several
cards (the flop) and a state where both are all-in end the look-ahead too. ``depth=None``
looks to the end of the game: there, with every legal action a candidate, her play is a best
response to the model. The paper's HUNL experiment (its Table 2) does not say which value
function it used; this one is LBR's, so the two differ only by the look-ahead.

**Equity.** One score vector per decision and board, LBR's own hand against every opponent
hand over the board's completions, then one dot product per weight vector: on the 52-card deck by
:func:`subgame.games.poker.showdown.hand_scores` (compiled: about 40 ms on a flop, 2 ms on
a turn; preflop, where the completions are 1.7 million boards, over :data:`PREFLOP_BOARDS`
boards drawn at random, seeded by the hand), elsewhere (reduced decks, or where it was not
built) by enumeration with :func:`~subgame.tree.poker_operators.strength_keys`, exact and
cheap on small decks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Protocol

import numpy as np

from ..blueprint.actions import ALL_IN, MIN_RAISE, Size
from ..errors import SubgameError
from ..games.base import CHANCE, TERMINAL
from ..games.poker.game import CALL, FOLD, PokerGame, PokerState
from ..games.poker.spec import PokerSpec
from ..tree.poker_operators import strength_keys
from .base import Decision, View
from .beliefs import meets

#: two action values closer than this (chips) are a tie, broken toward the lowest action id
TIE_CHIPS = 1e-9
#: completions of the board scored in one batch by the enumerated equity
ENUM_CHUNK = 64
#: boards sampled for a preflop equity on the 52-card deck, and the seed of their draw (with the hand)
PREFLOP_BOARDS, PREFLOP_SEED = 400, 20170517


class ModelBelief(Protocol):
    """A model's knowledge of the opponent after some public moves."""

    @property
    def state(self) -> PokerState:
        """The real public state (hole cards unknown)."""
        ...

    @property
    def range(self) -> np.ndarray:
        """[H] the opponent's reach of every hand (unnormalised, zero where the board blocks it)."""
        ...

    def after(self, name: str) -> ModelBelief:
        """The belief after public move ``name`` (board cards or a betting action)."""
        ...

    def replies(self) -> tuple[tuple[int, ...], np.ndarray]:
        """At the opponent's decision: his legal actions and [H, A] the joint probability of hand and action."""
        ...


class RangeModel(Protocol):
    """An opponent whose policy is known at every one of his hands (hands in ``combinations`` order)."""

    @property
    def name(self) -> str: ...

    @property
    def hands(self) -> np.ndarray:
        """[H, k] every hand, ascending cards."""
        ...

    def start(self, player: int) -> ModelBelief:
        """The belief about seat ``player`` after the deal."""
        ...


@dataclass(frozen=True)
class LBRConfig:
    """How LBR (Lisý & Bowling 2017 §3) or CDBR (Milec et al. §3) chooses.

    Attributes:
        sizes: the bets it considers, pot fractions (of the pot after calling), ``"min"``
            or ``"allin"``, each played as the legal raise nearest in pot fraction;
            ``None``: every legal action (what the compiled-tree LBR does).
        call_preflop: check/call in the first round instead of the rule (the paper's choice).
        depth: moves looked at below each decision before the value function (1: LBR; more:
            CDBR with that look-ahead; ``None``: to the end of the game).
    """

    sizes: tuple[Size, ...] | None = (0.5, 1.0, ALL_IN)
    call_preflop: bool = True
    depth: int | None = 1

    def __post_init__(self) -> None:
        for s in self.sizes or ():
            if isinstance(s, str) and s not in (ALL_IN, MIN_RAISE) or not isinstance(s, str) and not s > 0:
                raise SubgameError(f"LBR: bet size {s!r} is not a positive pot fraction, {MIN_RAISE!r} or {ALL_IN!r}")
        d = self.depth
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < 1):
            raise SubgameError(f"the look-ahead depth must be a whole number >= 1 or None (to the end), got {d!r}")


#: the sizes of the paper's HUNL responses: fold, call, pot and all-in (FCPA; Milec et al. §6, Table 2)
FCPA: tuple[Size, ...] = (1.0, ALL_IN)


class HandEquity:
    """LBR's equity against weights over the opponent's hands (module docstring, "Equity")."""

    def __init__(self, spec: PokerSpec, hands: np.ndarray) -> None:
        self.spec, self.hands = spec, hands
        self.kernel = _kernel(spec)
        self._scores: tuple[tuple[tuple[int, ...], int], np.ndarray] | None = None

    def __call__(self, board: tuple[int, ...], hand: int, weights: np.ndarray) -> np.ndarray:
        """[T] the equity of hand ``hand`` against each row of ``weights`` [T, H] (rows of zero weight: 0)."""
        free = ~meets(self.hands, board + tuple(int(c) for c in self.hands[hand]))
        w = weights * free
        total = w.sum(axis=1)
        out = np.zeros(w.shape[0])
        scores = self.scores(board, hand)
        np.divide(w @ scores, total, out=out, where=total > 0)
        return out

    def scores(self, board: tuple[int, ...], hand: int) -> np.ndarray:
        """[H] each opponent hand's share of the wins (ties half) of hand ``hand`` over the uniform completions of
        ``board`` (zero for hands meeting the board or the hand): the equity against weights ``w`` is
        ``w · scores / Σ w``. Enumerated; kept for the last (board, hand)."""
        if self._scores is not None and self._scores[0] == (board, hand):
            return self._scores[1]
        if self.kernel is not None and not board:
            scored = self._sampled_preflop(hand)
            self._scores = ((board, hand), scored)
            return scored
        if self.kernel is not None:
            scored = self.kernel(np.array(board, np.int64), self.hands[hand], hands=self.hands)
            self._scores = ((board, hand), scored)
            return scored
        s, hands = self.spec, self.hands
        mine = hands[hand]
        need = sum(s.board_cards) - len(board)
        rest = [c for c in range(s.deck_size) if c not in board and c not in mine]
        listed = list(combinations(rest, need))
        comps = np.array(listed, np.int64).reshape(len(listed), need)
        full = np.concatenate([np.broadcast_to(np.array(board, np.int64), (comps.shape[0], len(board))), comps], axis=1)
        mine_keys = strength_keys(np.concatenate([np.broadcast_to(mine, (full.shape[0], mine.size)), full], axis=1),
                                  s.num_ranks, s.num_suits)
        opp = np.flatnonzero(~meets(hands, board + tuple(int(c) for c in mine)))
        out = np.zeros(hands.shape[0])
        for lo in range(0, full.shape[0], ENUM_CHUNK):
            f, c = full[lo : lo + ENUM_CHUNK], comps[lo : lo + ENUM_CHUNK]
            cards = np.concatenate([np.broadcast_to(hands[opp][None], (f.shape[0],) + hands[opp].shape),
                                    np.broadcast_to(f[:, None], (f.shape[0], opp.size, f.shape[1]))], axis=2)
            apart = ~(hands[opp][None, :, :, None] == c[:, None, None, :]).any(axis=(2, 3))  # [c, n]
            ci, hi = np.nonzero(apart)
            keys = strength_keys(cards[ci, hi], s.num_ranks, s.num_suits)
            mk = mine_keys[lo + ci]
            np.add.at(out, opp[hi], (mk > keys) + 0.5 * (mk == keys))
        out /= comb(s.deck_size - len(board) - 2 * s.hole_cards, need)
        self._scores = ((board, hand), out)
        return out


    def _sampled_preflop(self, hand: int) -> np.ndarray:
        """Preflop on the 52-card deck: the scores over :data:`PREFLOP_BOARDS` boards drawn without her cards (seeded by
        the hand), each opponent hand's over the boards it does not meet (the enumeration takes 1.7 million boards)."""
        assert self.kernel is not None
        mine = self.hands[hand]
        rng = np.random.default_rng([PREFLOP_SEED, hand])
        rest = np.setdiff1d(np.arange(self.spec.deck_size), mine)
        wins = np.zeros(self.hands.shape[0])
        seen = np.zeros(self.hands.shape[0])
        for _ in range(PREFLOP_BOARDS):
            board = rng.choice(rest, sum(self.spec.board_cards), replace=False)
            wins += self.kernel(board, mine, hands=self.hands)
            seen += ~meets(self.hands, tuple(int(c) for c in board))
        out = np.zeros_like(wins)
        np.divide(wins, seen, out=out, where=seen > 0)
        out[meets(self.hands, tuple(int(c) for c in mine))] = 0.0
        return out


def _kernel(spec: PokerSpec) -> Callable[..., np.ndarray] | None:
    """The compiled scores of the 52-card hold'em deck (:func:`~subgame.games.poker.showdown.hand_scores`); ``None``
    for other decks or where they were not built."""
    from ..games.poker import showdown

    if (spec.num_ranks, spec.num_suits, spec.hole_cards, sum(spec.board_cards)) != (13, 4, 2, 5) or not showdown.available():
        return None
    return showdown.hand_scores


class LocalBestResponse:
    """Lisý & Bowling's local best response to ``model`` in ``game``, or CDBR with a deeper look-ahead (module docstring).

    Args:
        game: the real no-limit game.
        model: the opponent model (its hands those of ``game``).
        config: sizes, the preflop rule and the look-ahead.

    Attributes:
        values: the value (chips) of each candidate action at the last decision (empty where it checked/called by rule).
        decision_seconds: ``(round, seconds)`` of every decision.
    """

    def __init__(self, game: PokerGame, model: RangeModel, config: LBRConfig = LBRConfig(), *, name: str = "lbr") -> None:
        if game.spec.betting != "nolimit":
            raise SubgameError(f"LBR plays no-limit poker games; {game.name} has {game.spec.betting} betting")
        self.game, self.model, self.config, self.name = game, model, config, name
        self.hands = model.hands
        self.index = {tuple(int(c) for c in h): i for i, h in enumerate(self.hands.tolist())}
        self.equity = HandEquity(game.spec, self.hands)
        self.values: dict[int, float] = {}
        self.decision_seconds: list[tuple[int, float]] = []

    def new_hand(self, player: int, seed: int) -> None:
        if player not in (0, 1):
            raise SubgameError(f"the seat must be 0 or 1, got {player!r}")

    def act(self, view: View) -> Decision:
        started = time.perf_counter()
        belief = self.model.start(1 - view.player)
        for move in view.moves[2:]:  # the hole deals first
            belief = belief.after(move.public)
        st = belief.state
        self.values = {}
        if not (st.round == 0 and self.config.call_preflop or st.to_act != view.player):
            cards = self.game.spec.hole_cards
            hand = self.index.get(tuple(sorted(_cards(self.game, view.private_label, cards))), -1)
            if hand < 0:
                raise SubgameError(f"LBR: {view.private_label!r} is not a hand of {self.game.name}")
            self.values = self.action_values(belief, hand, self.candidates(st, view.legal))
        if self.values:
            best = max(self.values.values())
            decision = Decision.pure(min(a for a, v in self.values.items() if v >= best - TIE_CHIPS))
        else:
            decision = Decision.pure(CALL if CALL in view.legal else view.legal[0])
        self.decision_seconds.append((st.round, time.perf_counter() - started))
        return decision

    def candidates(self, st: PokerState, legal: tuple[int, ...]) -> list[int]:
        """The actions LBR values at ``st``: fold, check/call and the raises nearest each size, by action id."""
        out = {a for a in legal if a in (FOLD, CALL)}
        raises = [(a, amount) for a, amount in self.game._betting_actions(st) if a in legal and a not in (FOLD, CALL)]
        if self.config.sizes is None:
            out |= {a for a, _ in raises}
        elif raises:
            top, p = max(st.contrib), st.to_act
            pot = sum(st.contrib) + top - st.contrib[p]
            for s in self.config.sizes:
                if s == ALL_IN:
                    out.add(max(raises, key=lambda x: x[1])[0])
                elif s == MIN_RAISE:
                    out.add(min(raises, key=lambda x: x[1])[0])
                else:
                    out.add(min(raises, key=lambda x: (abs((x[1] - top) / max(pot, 1) - float(s)), x[1]))[0])
        return sorted(out)

    def action_values(self, belief: ModelBelief, hand: int, actions: list[int]) -> dict[int, float]:
        """The value (chips) of each action at the belief's state, per unit of the range: the model's replies and
        her own best play for :attr:`LBRConfig.depth` moves, then the value function (module docstring). Empty where
        the model's range is empty given her hand (a state it never plays to: she checks/calls)."""
        free = (~meets(self.hands, tuple(int(c) for c in self.hands[hand]))).astype(np.float64)
        total = float((belief.range * free).sum())
        if not total > 0:
            return {}
        look = _LookAhead(self, hand, free, belief.state.to_act)
        return {a: look.after(belief, a, self.config.depth) / total for a in actions}


class _LookAhead:
    """The expectimax of one decision at her hand (module docstring, "CDBR"): values in chips × the model's weight."""

    def __init__(self, lbr: LocalBestResponse, hand: int, free: np.ndarray, me: int) -> None:
        self.lbr, self.hand, self.free, self.me = lbr, hand, free, me
        self.scores: dict[tuple[int, ...], np.ndarray] = {}  #: per board, her hand's score against every hand

    def after(self, belief: ModelBelief, action: int, left: int | None) -> float:
        """Her value after her ``action`` at the belief's state, ``left`` moves still looked at (``None``: all)."""
        st, g = belief.state, self.lbr.game
        if action == FOLD:
            return -float(st.contrib[self.me]) * float((belief.range * self.free).sum())
        return self.value(belief.after(g.action_name(st, action)), left)

    def value(self, belief: ModelBelief, left: int | None) -> float:
        """Her value at the belief's state with ``left`` moves still to look at."""
        g, st = self.lbr.game, belief.state
        who = g.actor(st)
        if who == TERMINAL or left == 0 or st.betting_over:
            return self.showdown(belief)
        below = None if left is None else left - 1
        if who == CHANCE:
            if g._cards_to_deal(st) > 1 or left == 1:
                return self.showdown(belief)
            mine = set(int(c) for c in self.lbr.hands[self.hand])
            cards = [c for c in range(g.spec.deck_size) if c not in st.board and c not in mine]
            unseen = g.spec.deck_size - len(st.board) - 2 * g.spec.hole_cards
            return sum(self.value(belief.after(g.cards_str((c,))), below) for c in cards) / unseen
        if who == self.me:
            return max(self.after(belief, a, below) for a in self.lbr.candidates(st, g.legal_actions(st)))
        legal, joint = belief.replies()
        out = 0.0
        for k, r in enumerate(legal):
            mass = float((joint[:, k] * self.free).sum())
            if not mass > 0:
                continue
            out += mass * st.contrib[who] if r == FOLD else self.value(belief.after(g.action_name(st, r)), below)
        return out

    def showdown(self, belief: ModelBelief) -> float:
        """The value function: she calls what is outstanding and both check to the showdown, ``M·(2·w·s − Σw)`` at the
        larger contribution ``M`` (module docstring)."""
        st = belief.state
        w = belief.range * self.free
        board = tuple(int(c) for c in st.board)
        scores = self.scores.get(board)
        if scores is None:
            scores = self.scores[board] = self.lbr.equity.scores(board, self.hand)
        return float(max(st.contrib)) * (2.0 * float(w @ scores) - float(w.sum()))


def _cards(game: PokerGame, label: str, count: int) -> tuple[int, ...]:
    """The hole cards a private label names (``"AsKd"``)."""
    names = {game.cards_str((c,)): c for c in range(game.spec.deck_size)}
    cards = tuple(names.get(label[i : i + 2], -1) for i in range(0, len(label), 2))
    if len(cards) != count or -1 in cards:
        raise SubgameError(f"LBR: {label!r} is not a hand of {count} cards of {game.name}")
    return cards
