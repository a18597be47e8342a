"""Cards, boards and ranges of the 52-card deck in the notation of poker solvers.

Cards are named ``Js`` (rank ``23456789TJQKA``, suit ``shdc``) and numbered
``rank * 4 + suit`` as in :class:`~subgame.games.poker.PokerGame`; a board is written
``Js Ks 5c`` (spaces optional). A :class:`Range` weighs each of the 1,326 two-card hands,
in the order :data:`HANDS` (``2s2h, 2s2d, 2s2c, 2s3s, …, AdAc``: pairs of cards in
ascending order, the order of the Libratus endgame files), and is read and written as
PioSolver, TexasSolver and postflop-solver write ranges::

    AA,KK,AQs:0.75,A5s-A2s,KQo,TT+,A9s+,AsKs:0.5

Items are separated by commas: a pair (``AA``), suited (``AKs``), offsuit (``AKo``) or
both (``AK``) hand classes, a class with ``+`` (``TT+``: TT up to AA; ``A9s+``: A9s up to
AKs), a span of one kind (``A5s-A2s``, ``99-55``), or one combination (``AsKs``); a weight
in [0, 1] follows a colon (default 1). A hand named twice is an error, not an override.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from ...errors import GameDefinitionError, InvalidRangeError
from ...files import read_text_file

RANK_CHARS, SUIT_CHARS = "23456789TJQKA", "shdc"
NUM_CARDS = 52
#: [1326, 2] the cards of every two-card hand, ascending, in range order.
HANDS = np.array(list(combinations(range(NUM_CARDS), 2)), dtype=np.int64)
NUM_HANDS = HANDS.shape[0]
_INDEX = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
_INDEX[HANDS[:, 0], HANDS[:, 1]] = _INDEX[HANDS[:, 1], HANDS[:, 0]] = np.arange(NUM_HANDS)


def card_name(card: int) -> str:
    return RANK_CHARS[card // 4] + SUIT_CHARS[card % 4]


def hand_name(hand: int) -> str:
    """``AsKs``, ``KhKd``: the higher rank first, a pair's suits in the order s, h, d, c."""
    low, high = (int(c) for c in HANDS[hand])
    if low // 4 == high // 4:
        return card_name(low) + card_name(high)
    return card_name(high) + card_name(low)


def hand_index(cards: np.ndarray) -> np.ndarray:
    """[...] the :data:`HANDS` row of each pair of distinct cards [..., 2] (either order)."""
    cards = np.asarray(cards, dtype=np.int64)
    out: np.ndarray = _INDEX[cards[..., 0], cards[..., 1]]
    return out


def parse_card(text: str) -> int:
    """``"Js"`` -> 37; raises :class:`GameDefinitionError` naming the bad card."""
    if len(text) != 2 or text[0].upper() not in RANK_CHARS or text[1].lower() not in SUIT_CHARS:
        raise GameDefinitionError(f"{text!r} is not a card; write a rank of {RANK_CHARS} then a suit of {SUIT_CHARS}, e.g. 'Js'")
    return RANK_CHARS.index(text[0].upper()) * 4 + SUIT_CHARS.index(text[1].lower())


def parse_cards(text: str) -> tuple[int, ...]:
    """``"Js Ks 5c"`` or ``"JsKs5c"`` -> the cards, in the order written (duplicates refused)."""
    compact = re.sub(r"[\s,]+", "", text)
    if len(compact) % 2:
        raise GameDefinitionError(f"{text!r} is not a list of cards: each card is two characters, e.g. 'Js Ks 5c'")
    cards = tuple(parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2))
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise GameDefinitionError(f"{text!r} holds {card_name(c)} twice; every card of a deck is unique")
        seen.add(c)
    return cards


def parse_board(text: str | Sequence[int]) -> tuple[int, ...]:
    """A board of 3, 4 or 5 distinct cards (flop, turn, river), from text or card numbers."""
    cards = parse_cards(text) if isinstance(text, str) else tuple(int(c) for c in text)
    if len(set(cards)) != len(cards):
        dup = next(c for c in cards if cards.count(c) > 1)
        raise GameDefinitionError(f"the board holds {card_name(dup) if 0 <= dup < NUM_CARDS else dup} twice; "
                                  "every card of a deck is unique")
    if any(not 0 <= c < NUM_CARDS for c in cards):
        raise GameDefinitionError(f"board cards must be 0..{NUM_CARDS - 1}, got {list(cards)}")
    if len(cards) not in (3, 4, 5):
        raise GameDefinitionError(f"a board has 3 (flop), 4 (turn) or 5 (river) cards, got {len(cards)}: {format_board(cards)!r}")
    return cards


def format_board(cards: Iterable[int]) -> str:
    return " ".join(card_name(int(c)) for c in cards)


# -- ranges --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Range:
    """One player's weight on each two-card hand (her reach of it, in [0, 1]).

    Attributes:
        weights: [1326] in :data:`HANDS` order.
    """

    weights: np.ndarray

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (NUM_HANDS,):
            raise InvalidRangeError(f"a range has one weight per hand ({NUM_HANDS}), got shape {w.shape}")
        if not np.all(np.isfinite(w)) or w.min() < 0 or w.max() > 1:
            raise InvalidRangeError("range weights must be numbers in [0, 1]")
        w.setflags(write=False)
        object.__setattr__(self, "weights", w)

    @staticmethod
    def uniform(board: Sequence[int] = ()) -> Range:
        """Weight 1 on every hand that holds no card of ``board``."""
        return Range(~_blocked(board) * 1.0)

    @staticmethod
    def parse(text: str, board: Sequence[int] = ()) -> Range:
        return parse_range(text, board)

    def __str__(self) -> str:
        return format_range(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Range) and np.array_equal(self.weights, other.weights)

    __hash__ = None  # type: ignore[assignment]

    def check_board(self, board: Sequence[int], who: str = "the range") -> Range:
        """This range, or an :class:`InvalidRangeError` if it weighs a hand that holds a board card."""
        bad = np.flatnonzero(_blocked(board) & (self.weights > 0))
        if bad.size:
            names = ", ".join(hand_name(int(h)) for h in bad[:5]) + (", …" if bad.size > 5 else "")
            raise InvalidRangeError(
                f"{who} weighs {bad.size} hand(s) holding a card of the board {format_board(board)} ({names}); "
                "no such hand can be dealt: give them weight 0 or leave them out"
            )
        if not (self.weights > 0).any():
            raise InvalidRangeError(f"{who} is empty (every weight is 0); give at least one hand a positive weight")
        return self


def _blocked(board: Sequence[int]) -> np.ndarray:
    """[1326] bool: the hands holding a card of ``board``."""
    on = np.zeros(NUM_CARDS, dtype=bool)
    on[list(board)] = True
    return np.asarray(on[HANDS].any(axis=1))


def _class_hands(high: int, low: int, kind: str) -> list[int]:
    """The hands of a hand class: ranks ``high >= low``, kind ``s``, ``o`` or ``""`` (both)."""
    out = []
    for s1 in range(4):
        for s2 in range(4):
            a, b = high * 4 + s1, low * 4 + s2
            if a == b or (high == low and s1 > s2):
                continue
            if (kind == "s" and s1 != s2) or (kind == "o" and s1 == s2):
                continue
            out.append(int(_INDEX[a, b]))
    return sorted(set(out))


_CLASS = re.compile(r"([2-9TJQKAtjqka])([2-9TJQKAtjqka])([so]?)")


def _parse_class(text: str, item: str) -> tuple[int, int, str]:
    m = _CLASS.fullmatch(text)
    if m is None:
        raise InvalidRangeError(f"range item {item!r}: {text!r} is not a hand class such as 'AA', 'AKs', 'AKo' or 'AK'")
    high, low, kind = RANK_CHARS.index(m.group(1).upper()), RANK_CHARS.index(m.group(2).upper()), m.group(3).lower()
    if high < low:
        high, low = low, high
    if high == low and kind:
        raise InvalidRangeError(f"range item {item!r}: a pair is neither suited nor offsuit; write {text[:2]!r}")
    return high, low, kind


def _item_hands(body: str, item: str, blocked: np.ndarray) -> list[int]:
    """The hands one range item (without its weight) names, those in ``blocked`` left out of classes."""
    if len(body) == 4 and body[1].lower() in SUIT_CHARS and body[3].lower() in SUIT_CHARS and body[1].isalpha():
        a, b = parse_card(body[:2]), parse_card(body[2:])
        if a == b:
            raise InvalidRangeError(f"range item {item!r} holds one card twice")
        if blocked[_INDEX[a, b]]:
            raise InvalidRangeError(f"range item {item!r} holds a card of the board; no such hand can be dealt")
        return [int(_INDEX[a, b])]
    hands = [h for h in _class_items(body, item) if not blocked[h]]
    if not hands:
        raise InvalidRangeError(f"range item {item!r}: every one of its hands holds a card of the board")
    return hands


def _class_items(body: str, item: str) -> list[int]:
    """The hands of a class, ``+`` or span item."""
    if body.endswith("+"):
        high, low, kind = _parse_class(body[:-1], item)
        if high == low:
            return [h for r in range(low, 13) for h in _class_hands(r, r, "")]
        return [h for r in range(low, high) for h in _class_hands(high, r, kind)]
    if "-" in body:
        left, _, right = body.partition("-")
        h1, l1, k1 = _parse_class(left, item)
        h2, l2, k2 = _parse_class(right, item)
        if h1 == l1 and h2 == l2:  # pairs: 99-55
            return [h for r in range(min(h1, h2), max(h1, h2) + 1) for h in _class_hands(r, r, "")]
        if h1 != h2 or k1 != k2 or h1 == l1 or h2 == l2:
            raise InvalidRangeError(
                f"range item {item!r}: a span keeps the first rank and the kind and moves the second, e.g. 'A5s-A2s' or '99-55'"
            )
        return [h for r in range(min(l1, l2), max(l1, l2) + 1) for h in _class_hands(h1, r, k1)]
    high, low, kind = _parse_class(body, item)
    return _class_hands(high, low, kind)


def parse_range(text: str, board: Sequence[int] = ()) -> Range:
    """A :class:`Range` from solver notation (see the module docstring); unnamed hands weigh 0.

    With a ``board``, classes (``KK``, ``AKs``, ``TT+``) name only their hands that hold
    no board card, as solvers read them; a combination holding a board card, or a class
    all of whose hands do, is an error.

    Raises:
        InvalidRangeError: an item that is not a hand, class, span or combination; a weight
            outside [0, 1]; a hand named twice; an item over board cards. The message
            quotes the item.
    """
    blocked = _blocked(board)
    weights = np.zeros(NUM_HANDS)
    named_by: dict[int, str] = {}
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        body, sep, weight_text = item.partition(":")
        body = body.strip()
        weight = 1.0
        if sep:
            try:
                weight = float(weight_text)
            except ValueError:
                raise InvalidRangeError(f"range item {item!r}: weight {weight_text.strip()!r} is not a number") from None
            if not 0.0 <= weight <= 1.0:
                raise InvalidRangeError(f"range item {item!r}: weight {weight!r} is outside [0, 1]")
        for h in _item_hands(body, item, blocked):
            if h in named_by:
                raise InvalidRangeError(
                    f"range item {item!r} names {hand_name(h)}, already named by {named_by[h]!r}; name each hand once"
                )
            named_by[h] = item
            weights[h] = weight
    return Range(weights)


def _classes() -> list[tuple[str, list[int]]]:
    """The 169 hand classes in the grid's reading order: AA, AKs, …, 22 (pairs, suited, offsuit)."""
    out = []
    for high in range(12, -1, -1):
        for low in range(high, -1, -1):
            if high == low:
                out.append((RANK_CHARS[high] * 2, _class_hands(high, low, "")))
            else:
                for kind in "so":
                    out.append((RANK_CHARS[high] + RANK_CHARS[low] + kind, _class_hands(high, low, kind)))
    return out


def format_range(r: Range) -> str:
    """Solver notation of ``r``: classes with one weight as ``AKs:0.5``, the others hand by hand.

    Weights are written exactly (Python's shortest round-trip form), so
    ``parse_range(format_range(r)) == r``.
    """
    items = []
    w = r.weights
    for name, hands in _classes():
        ws = w[hands]
        if not ws.any():
            continue
        if np.all(ws == ws[0]):
            items.append(name if ws[0] == 1.0 else f"{name}:{float(ws[0])!r}")
            continue
        for h in hands:
            if w[h] > 0:
                items.append(hand_name(h) if w[h] == 1.0 else f"{hand_name(h)}:{float(w[h])!r}")
    return ",".join(items)


def read_ranges(path: str | Path, board: Sequence[int] = ()) -> tuple[Range, Range]:
    """Both players' ranges from a text file: one range line for both, or two lines (player 0, then 1).

    ``#`` starts a comment; blank lines are skipped; ``board`` as in :func:`parse_range`.
    Errors name the file and the line.
    """
    path = Path(path)
    text = read_text_file(path, "range", InvalidRangeError)
    lines = [(n, line.split("#", 1)[0].strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line]
    if len(lines) not in (1, 2):
        raise InvalidRangeError(f"{path}: expected one range line (both players) or two (player 0, then player 1), "
                                f"found {len(lines)} non-comment lines")
    out = []
    for n, line in lines:
        try:
            out.append(parse_range(line, board))
        except (InvalidRangeError, GameDefinitionError) as exc:  # a bad weight or class, or a bad card
            raise InvalidRangeError(f"{path}, line {n}: {exc}") from None
    return (out[0], out[-1])
