"""Card abstractions as the implicit solver sees them: a bucket per (round, hand, board), for many deals at once.

A :class:`DealAbstraction` maps hands [n, k] and the board dealt so far [n, b] (in the order
the rounds dealt it) to [n] buckets of the round, vectorized: a batch of sampled deals is
bucketed by a few numpy calls, never one per deal. Three kinds:

* :class:`ExactCards`: no abstraction at all (perfect recall, one bucket per hand and
  board sequence); the real game itself on a small deck, which is what makes the
  reduced-deck checks exact.
* :class:`TableBuckets`: the buckets of a :class:`~subgame.blueprint.card_abstraction.CardBuckets`
  (canonical boards, exact features; decks whose rounds fit its limits).
* the buckets of the full 52-card game (:mod:`subgame.blueprint.buckets4`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Protocol

import numpy as np

from ..errors import GameDefinitionError
from ..games.poker.spec import PokerSpec
from ..tree.poker_operators import colex_rank, strength_keys
from .buckets4 import BUCKETS4_FORMAT, Buckets4Config, FourRoundBuckets
from .card_abstraction import CardBuckets


class DealAbstraction(Protocol):
    """What the implicit solver needs of a card abstraction."""

    @property
    def name(self) -> str:
        """Names the abstraction in files (a blueprint of another abstraction is refused)."""
        ...

    @property
    def num_buckets(self) -> tuple[int, ...]:
        """[R] buckets of each round."""
        ...

    def buckets(self, rnd: int, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
        """[n] the round-``rnd`` bucket of each hand [n, k] with its board [n, b] (dealt order)."""
        ...


@dataclass(frozen=True)
class ExactCards:
    """Every hand and every board sequence its own bucket: the game without card abstraction.

    The bucket of round ``r`` is the mixed-radix number of the hand's colex rank and each
    round's board cards' colex rank (cards of a round sorted; rounds in order), so an
    information set's key is its whole private and public card history.
    """

    spec: PokerSpec

    @property
    def name(self) -> str:
        return "exact"

    @property
    def num_buckets(self) -> tuple[int, ...]:
        s = self.spec
        out, n = [], comb(s.deck_size, s.hole_cards)
        for b in s.board_cards:
            n *= comb(s.deck_size, b)
            out.append(n)
        return tuple(out)

    def buckets(self, rnd: int, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
        s = self.spec
        out = colex_rank(np.sort(np.asarray(hands, np.int64), axis=1))
        at = 0
        for b in s.board_cards[: rnd + 1]:
            out = out * comb(s.deck_size, b) + (colex_rank(np.sort(boards[:, at : at + b], axis=1)) if b else 0)
            at += b
        return out.astype(np.int64)


@dataclass(frozen=True, eq=False)
class TableBuckets:
    """The buckets of a :class:`CardBuckets` (imperfect recall: a round's bucket forgets earlier ones)."""

    table: CardBuckets
    spec: PokerSpec

    @property
    def name(self) -> str:
        return f"card-buckets:{self.table.game_id}:{'-'.join(map(str, self.table.num_buckets))}"

    @property
    def num_buckets(self) -> tuple[int, ...]:
        sizes = [b.shape[1] for b in self.table.boards]
        at = np.cumsum(self.spec.board_cards)
        return tuple(self.table.num_buckets[sizes.index(int(b))] for b in at)

    def buckets(self, rnd: int, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
        size = int(sum(self.spec.board_cards[: rnd + 1]))
        per_board = self.table.boards_buckets(np.asarray(boards, np.int64)[:, :size])  # [n, H]
        col = self.table._iso.hand_rows(np.sort(np.asarray(hands, np.int64), axis=1))
        out: np.ndarray = per_board[np.arange(per_board.shape[0]), col]
        return out


@dataclass(frozen=True)
class Deals:
    """A batch of sampled deals: both players' hole cards, the whole board, buckets and showdown results.

    Attributes:
        hole: [n, 2, k] each player's hole cards.
        board: [n, T] the board, in dealt order.
        buckets: [n, 2, R] int32 each player's bucket in each round.
        outcome: [n] int8 0 player 0 wins the showdown, 1 player 1 wins, 2 tie.
    """

    hole: np.ndarray
    board: np.ndarray
    buckets: np.ndarray
    outcome: np.ndarray


def sample_deals(spec: PokerSpec, abstraction: DealAbstraction, n: int, rng: np.random.Generator) -> Deals:
    """``n`` uniform deals of ``spec`` (hole cards and every board card), bucketed and showdown-ranked."""
    k, total = spec.hole_cards, sum(spec.board_cards)
    cards = np.argsort(rng.random((n, spec.deck_size)), axis=1)[:, : 2 * k + total]
    hole = cards[:, : 2 * k].reshape(n, 2, k)
    board = cards[:, 2 * k :]
    buckets = np.empty((n, 2, spec.num_rounds), dtype=np.int32)
    at = 0
    for r, b in enumerate(spec.board_cards):
        at += b
        for p in (0, 1):
            buckets[:, p, r] = abstraction.buckets(r, hole[:, p], board[:, :at])
    keys = [strength_keys(np.hstack([hole[:, p], board]), spec.num_ranks, spec.num_suits) for p in (0, 1)]
    outcome = np.where(keys[0] > keys[1], 0, np.where(keys[0] < keys[1], 1, 2)).astype(np.int8)
    return Deals(hole, board, buckets, outcome)


def check_counts(spec: PokerSpec, abstraction: DealAbstraction) -> tuple[int, ...]:
    """The abstraction's bucket counts, checked against the game's rounds."""
    counts = tuple(int(c) for c in abstraction.num_buckets)
    if len(counts) != spec.num_rounds or min(counts) < 1:
        raise GameDefinitionError(f"card abstraction {abstraction.name!r} has bucket counts {list(counts)}; the game has "
                                  f"{spec.num_rounds} rounds")
    return counts


def load_deal_abstraction(text: str, spec: PokerSpec, *, rollouts: int = 16, fit_boards: int = 60,
                          seed: int = 0) -> DealAbstraction:
    """The card abstraction ``--buckets`` names: ``exact`` (no abstraction), bucket counts per round
    (``169,200,200,200``: a four-round abstraction fitted now, :mod:`subgame.blueprint.buckets4`), or a bucket file
    of this deck (``subgame abstract``, or a four-round file).

    Raises:
        GameDefinitionError, StrategyFileError: another word, a file that is not a bucket
            file, or a bucket file of another deck or game.
    """
    if text == "exact":
        return ExactCards(spec)
    if all(part.strip().isdigit() for part in text.split(",")):
        counts = tuple(int(part) for part in text.split(","))
        return FourRoundBuckets.build(Buckets4Config.of(spec, counts, rollouts=rollouts, fit_boards=fit_boards, seed=seed))
    if _format_of(text) == BUCKETS4_FORMAT:
        four = FourRoundBuckets.load(text)
        c = four.config
        if (c.num_ranks, c.num_suits, c.hole_cards, c.board_cards) != (spec.num_ranks, spec.num_suits, spec.hole_cards,
                                                                       spec.board_cards):
            raise GameDefinitionError(f"{text}: four-round buckets of another deck or deal ({c.num_ranks} ranks, "
                                      f"{c.num_suits} suits, boards {list(c.board_cards)}), not this game's")
        return four
    table = CardBuckets.load(text)
    deck, sizes = int(table.hands.max()) + 1, [b.shape[1] for b in table.boards]
    if deck != spec.deck_size or table.num_suits != spec.num_suits or table.hands.shape[1] != spec.hole_cards \
            or any(int(n) not in sizes for n in np.cumsum(spec.board_cards)):
        raise GameDefinitionError(f"{text}: buckets of another deck or deal ({deck} cards, {table.num_suits} suits, boards "
                                  f"of {sizes} cards), not this game's ({spec.deck_size} cards, {spec.num_suits} suits, "
                                  f"boards of {np.cumsum(spec.board_cards).tolist()} cards)")
    return TableBuckets(table, spec)


def _format_of(path: str) -> str | None:
    """The format tag of a library ``.npz`` file, ``None`` for anything else (read errors come later, from the loader)."""
    import json

    try:
        with np.load(path, allow_pickle=False) as z:
            tag = json.loads(str(z["header"])).get("format")
    except Exception:  # noqa: BLE001 - any unreadable file: the loader that follows says what is wrong
        return None
    return tag if isinstance(tag, str) else None
