"""Poker rules over a :class:`PokerSpec`, in the factored-observation form.

Moves: chance deals player 0's hole cards, then player 1's (each seen only by its owner),
then each round's board cards (seen by both; a spec's known ``board`` is there from the
start); betting actions are public. Action ids: 0 fold, 1 check/call, 2 raise (limit) or
2.. one per pot fraction of the round and then all-in (no-limit). A chance action deals a
sorted combination of cards encoded as ``sum(card_i * deck_size**i)``, so one dealt card's
action id is the card itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict
from functools import cache
from itertools import combinations
from typing import Any, NamedTuple

from ...errors import GameDefinitionError
from ..base import CHANCE, TERMINAL, Game
from .hands import card_name, hand_strength
from .spec import PokerSpec

FOLD, CALL, RAISE = 0, 1, 2
#: betting states whose legal actions one game keeps (:meth:`PokerGame._betting`); past it they are computed afresh
BETTING_MEMO = 1 << 14
#: Spec fields added after strategy files first recorded game fingerprints, with their defaults.
_LATER_FIELDS: dict[str, Any] = {"board": (), "raise_cap": 0, "round_bet_fractions": (), "round_raise_caps": (),
                                 "start": ()}


class PokerState(NamedTuple):
    hole: tuple[tuple[int, ...], ...]  # dealt hole cards, player 0 first
    board: tuple[int, ...]
    round: int
    contrib: tuple[int, int]
    raises: int  # bets and raises this round
    acted: int  # voluntary actions this round
    to_act: int
    last_raise: int  # size of the last raise this round (no-limit minimum raise)
    folded: int  # player who folded, -1 if none
    betting_over: bool  # a player is all-in (no-limit) or the last round closed


class PokerGame(Game[PokerState]):
    """A two-player poker game of the family described by :class:`PokerSpec`."""

    tree_compiler = "poker"

    def __init__(self, spec: PokerSpec, name: str = "poker"):
        self.spec = spec
        self.name = name
        # a betting state's legal (action, contribution) pairs, ids and amounts: searches and walks replay the same
        # few betting states over and over (keyed by what _betting_actions reads)
        self._bets: dict[tuple[Any, ...], tuple[tuple[tuple[int, int], ...], tuple[int, ...], dict[int, int]]] = {}
        self._boards = tuple(sum(spec.board_cards[: r + 1]) for r in range(len(spec.board_cards)))
        self._root, self.start_names = self._started()
        out = asdict(spec)
        for field, default in _LATER_FIELDS.items():
            if out[field] == default:
                del out[field]
        self._params = out

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the kept betting states (a task sent to a worker carries the rules, not this process's memo)."""
        return {**self.__dict__, "_bets": {}}

    @property
    def params(self) -> Mapping[str, Any]:
        """The spec's fields; those added after the first file format are left out at their defaults,
        so the fingerprints of games that do not use them stay those older files carry."""
        return dict(self._params)  # a copy: the caller's to change

    # -- structure -------------------------------------------------------------------
    def root(self) -> PokerState:
        return self._root

    def _started(self) -> tuple[PokerState, tuple[str, ...]]:
        """The root (the betting of ``spec.start`` taken) and those actions' names, the public state it stands for.

        Raises:
            GameDefinitionError: a start action that is a fold or not legal where it is taken.
        """
        s = self.spec
        contrib = (s.ante + s.blinds[0], s.ante + s.blinds[1])
        st = PokerState((), s.board, 0, contrib, 0, 0, s.first_player[0], max(s.blinds), -1, False)
        names = []
        for i, action in enumerate(s.start):
            legal = self._betting_actions(st)
            if st.betting_over or st.round > 0 or action not in dict(legal) or action == FOLD:
                where = "after the first round's betting" if st.betting_over or st.round > 0 else \
                    f"where {', '.join(f'{a} ({self._bet_name(st, a)})' for a, _ in legal if a != FOLD)} are"
                raise GameDefinitionError(f"{self.name}: start action {i + 1} ({action}) is not a check, call or bet "
                                          f"{where}; start takes first-round betting only")
            names.append(self._bet_name(st, action))
            st = self._bet(st, action)
        return st, tuple(names)

    def _board_needed(self, rnd: int) -> int:
        return self._boards[rnd] if rnd < len(self._boards) else self._boards[-1]

    def actor(self, st: PokerState) -> int:
        if len(st.hole) < 2:
            return CHANCE
        if st.folded >= 0:
            return TERMINAL
        if st.betting_over:
            return CHANCE if len(st.board) < self._boards[-1] else TERMINAL
        if len(st.board) < self._board_needed(st.round):
            return CHANCE
        return st.to_act

    def chance_outcomes(self, st: PokerState) -> tuple[tuple[int, float], ...]:
        return _deal_outcomes(self.spec.deck_size, self._dealt(st), self._cards_to_deal(st))

    def _dealt(self, st: PokerState) -> tuple[int, ...]:
        return tuple(c for h in st.hole for c in h) + st.board

    def _cards_to_deal(self, st: PokerState) -> int:
        if len(st.hole) < 2:
            return self.spec.hole_cards
        rnd = st.round if not st.betting_over else self._next_board_round(st)
        return self._board_needed(rnd) - len(st.board)

    def _next_board_round(self, st: PokerState) -> int:
        rnd = 0
        while self._board_needed(rnd) <= len(st.board):
            rnd += 1
        return rnd

    def decode_deal(self, action: int, count: int) -> tuple[int, ...]:
        n = self.spec.deck_size
        return tuple((action // n**i) % n for i in range(count))

    # -- betting ---------------------------------------------------------------------
    def legal_actions(self, st: PokerState) -> tuple[int, ...]:
        return self._betting(st)[1]

    def _betting_actions(self, st: PokerState) -> tuple[tuple[int, int], ...]:
        """Legal ``(action id, contribution after the action)`` pairs."""
        return self._betting(st)[0]

    def _amount(self, st: PokerState, action: int) -> int:
        """The player's contribution after betting action ``action`` (legal at ``st``)."""
        return self._betting(st)[2][action]

    def _betting(self, st: PokerState) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...], dict[int, int]]:
        key = (st.contrib, st.to_act, st.raises, st.round, st.last_raise)
        hit = self._bets.get(key)
        if hit is None:
            pairs = _betting_actions(self.spec, *key)
            if len(self._bets) >= BETTING_MEMO:
                self._bets.clear()
            hit = self._bets[key] = (pairs, tuple(a for a, _ in pairs), dict(pairs))
        return hit

    def next_state(self, st: PokerState, action: int) -> PokerState:
        who = self.actor(st)
        if who == CHANCE:
            cards = self.decode_deal(action, self._cards_to_deal(st))
            if len(st.hole) < 2:
                return st._replace(hole=st.hole + (cards,))
            return st._replace(board=st.board + cards)
        return self._bet(st, action)

    def _bet(self, st: PokerState, action: int) -> PokerState:
        """The state after betting ``action`` of the player to act."""
        p = st.to_act
        if action == FOLD:
            return st._replace(folded=p)
        amount = self._amount(st, action)
        contrib = list(st.contrib)
        raise_size = amount - max(st.contrib)
        contrib[p] = amount
        contrib_t = (contrib[0], contrib[1])
        if action == CALL:
            acted = st.acted + 1
            if acted >= 2 or (st.contrib[0] != st.contrib[1] and st.acted >= 1):
                return self._close_round(st, contrib_t)
            return st._replace(contrib=contrib_t, acted=acted, to_act=1 - p)
        return st._replace(
            contrib=contrib_t, acted=st.acted + 1, raises=st.raises + 1, to_act=1 - p,
            last_raise=max(st.last_raise, raise_size),
        )

    def _close_round(self, st: PokerState, contrib: tuple[int, int]) -> PokerState:
        s = self.spec
        all_in = s.betting == "nolimit" and max(contrib) >= s.stack
        if st.round + 1 >= s.num_rounds or all_in:
            return st._replace(contrib=contrib, betting_over=True)
        nxt = st.round + 1
        return st._replace(
            contrib=contrib, round=nxt, raises=0, acted=0, to_act=s.first_player[nxt], last_raise=max(s.blinds),
        )

    # -- payoffs and observations ------------------------------------------------------
    def utility(self, st: PokerState) -> float:
        c0, c1 = st.contrib
        if st.folded == 0:
            return -float(c0)
        if st.folded == 1:
            return float(c1)
        s0 = self.strength(st.hole[0] + st.board)
        s1 = self.strength(st.hole[1] + st.board)
        return float(c1) if s0 > s1 else (-float(c0) if s0 < s1 else 0.0)

    def strength(self, cards: tuple[int, ...]) -> tuple[int, ...]:
        return _strength(tuple(sorted(cards)), self.spec.num_ranks, self.spec.num_suits)

    def cards_str(self, cards: Iterable[int]) -> str:
        return "".join(card_name(c, self.spec.num_ranks, self.spec.num_suits) for c in cards)

    def action_name(self, st: PokerState, action: int) -> str:
        if self.actor(st) == CHANCE:
            return self.cards_str(self.decode_deal(action, self._cards_to_deal(st)))
        return self._bet_name(st, action)

    def _bet_name(self, st: PokerState, action: int) -> str:
        if action == FOLD:
            return "f"
        if action == CALL:
            return "c"
        amount = self._amount(st, action)
        return "r" if self.spec.betting == "limit" else f"r{amount}"

    def observations(self, st: PokerState, action: int) -> tuple[str, str, str]:
        name = self.action_name(st, action)
        if self.actor(st) == CHANCE and len(st.hole) < 2:
            return ("", name, "") if len(st.hole) == 0 else ("", "", name)
        return (name, "", "")

    def utility_bound(self) -> float:
        return float(self.spec.max_contribution())


def _betting_actions(
    spec: PokerSpec, contrib: tuple[int, int], p: int, raises: int, rnd: int, last_raise: int
) -> tuple[tuple[int, int], ...]:
    top = max(contrib)
    to_call = top - contrib[p]
    out = []
    if to_call > 0:
        out.append((FOLD, contrib[p]))
    out.append((CALL, top))
    if spec.betting == "limit":
        if raises < spec.max_raises[rnd]:
            amount = top + spec.raise_sizes[rnd]
            if spec.stack <= 0 or amount <= spec.stack:
                out.append((RAISE, amount))
        return tuple(out)
    cap = spec.cap(rnd)
    if top >= spec.stack or (cap and raises >= cap):
        return tuple(out)
    pot = contrib[0] + contrib[1]
    min_to = top + max(last_raise, 1)
    seen = set()
    fractions = spec.fractions(rnd)
    shove = spec.all_in
    for k, f in enumerate(fractions):
        amount = max(min_to, int(round(top + f * (pot + to_call))))
        if amount >= spec.stack:  # a bet of the whole stack or more is the all-in, listed or not
            shove = True
            continue
        if amount in seen:
            continue
        seen.add(amount)
        out.append((RAISE + k, amount))
    if shove:
        out.append((RAISE + len(fractions), spec.stack))
    return tuple(out)


@cache
def _deal_outcomes(deck: int, dealt: tuple[int, ...], count: int) -> tuple[tuple[int, float], ...]:
    rest = [c for c in range(deck) if c not in dealt]
    combos = list(combinations(rest, count))
    p = 1.0 / len(combos)
    return tuple(sorted((sum(c * deck**i for i, c in enumerate(cs)), p) for cs in combos))


@cache
def _strength(cards: tuple[int, ...], num_ranks: int, num_suits: int) -> tuple[int, ...]:
    return hand_strength(cards, num_ranks, num_suits)
