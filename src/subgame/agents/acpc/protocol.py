"""The ACPC protocol's text: match states, actions and log lines.

The Annual Computer Poker Competition's dealer talks to players over TCP in lines ended by
``\\r\\n`` (protocol version 2.0.0). A player first sends ``VERSION:2.0.0``; the dealer then
sends, after every event of every hand, the *match state* as that player sees it::

    MATCHSTATE:<position>:<hand number>:<betting>:<cards>

* ``position``: the player's seat in this hand, 0 or 1. Seat ``k`` of the game definition
  (``blind``, ``firstPlayer``, ``stack`` list seats in order) is our player ``k``, so the
  position *is* the :class:`~subgame.agents.base.View`'s ``player``; the dealer moves the
  match's players through the positions from hand to hand.
* ``betting``: the actions of each betting round, rounds separated by ``/`` (a round that
  just closed is followed by ``/``). ``f`` fold, ``c`` check or call, ``r`` raise in limit
  games; ``rN`` in no-limit games raises *to* ``N``, the chips the player has put in over
  the whole hand after the raise (blinds included) — the names :class:`PokerGame` gives
  its actions.
* ``cards``: the hole cards of position 0 and position 1 separated by ``|`` (empty where
  the player does not see them: an opponent's cards show only at a showdown), then the
  board: the first round's board cards directly, each later round's after a ``/``. A card
  is a rank ``23456789TJQKA`` and a suit ``cdhs``.

A player whose turn it is answers with the match state it received, ``:`` and its action.
Lines from the dealer that start with ``#`` or ``;`` are comments. The dealer's log has one
line per hand, ``STATE:<hand>:<betting>:<all hole cards and board>:<v0>|<v1>:<name0>|<name1>``
(values in chips and names by position), and ends with ``SCORE:<total>|<total>:<n>|<n>``
(totals and names by the match's players).

Cards of a small deck: the ACPC dealer deals a game with ``numRanks`` ranks and ``numSuits``
suits from the highest ranks and suits (Leduc's deck is ``Qh Qs Kh Ks Ah As``, Kuhn's ``Qs Ks
As``), while OpenSpiel's ``universal_poker`` names the same deck from the lowest (``2c 2d 3c 3d
4c 4d``). :class:`Deck` reads and writes either (``naming="acpc"``, the default, or
``"openspiel"``); ranks and suits keep their order, so card ``rank * num_suits + suit`` of
:class:`PokerGame` is the same card under both names.

Every malformed text is refused with one :class:`ProtocolError` that quotes it and says
what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...errors import SubgameError
from ...games.poker.spec import PokerSpec

VERSION = "VERSION:2.0.0"
RANKS, SUITS = "23456789TJQKA", "cdhs"
Naming = Literal["acpc", "openspiel"]
NAMINGS: tuple[Naming, ...] = ("acpc", "openspiel")


class ProtocolError(SubgameError, ValueError):
    """A message, response or log line that does not follow the ACPC protocol or the game's rules."""


class NamingError(ProtocolError):
    """Cards named the other way (:data:`NAMINGS`): every message of the match will be refused alike."""


@dataclass(frozen=True)
class Action:
    """One betting action as the protocol writes it: ``f``, ``c``, ``r`` or ``rN``."""

    kind: str  #: ``"f"`` fold, ``"c"`` check/call, ``"r"`` bet/raise
    size: int | None = None  #: no-limit raise: the raiser's total chips in the pot after it

    def __str__(self) -> str:
        return self.kind + ("" if self.size is None else str(self.size))


_ACTION = re.compile(r"([fcr])([0-9]*)")
_TOKENS = re.compile(r"[fcr][0-9]*")


def parse_action(text: str, betting: str) -> Action:
    """One action of a ``betting`` (``"limit"`` or ``"nolimit"``) game.

    Raises:
        ProtocolError: not ``f``, ``c``, ``r`` (limit) or ``rN`` (no-limit).
    """
    m = _ACTION.fullmatch(text)
    if m is None:
        raise ProtocolError(f"bad action {text!r}: expected f, c or {'rN (raise to N chips)' if betting == 'nolimit' else 'r'}")
    kind, digits = m.groups()
    if kind != "r" and digits:
        raise ProtocolError(f"bad action {text!r}: only a raise takes a size")
    if kind == "r" and betting == "nolimit":
        if not digits:
            raise ProtocolError(f"bad action {text!r}: a no-limit raise names its size, e.g. r300 (raise to 300 chips in all)")
        return Action("r", int(digits))
    if digits:
        raise ProtocolError(f"bad action {text!r}: a limit raise is the single letter r")
    return Action(kind)


def parse_betting(text: str, betting: str) -> tuple[tuple[Action, ...], ...]:
    """The actions of each round of a betting string (``"rc/r"`` -> two rounds)."""
    rounds = []
    for part in text.split("/"):
        tokens = _TOKENS.findall(part)
        if "".join(tokens) != part:
            raise ProtocolError(f"bad betting {text!r}: {part!r} is not a sequence of actions f, c, r"
                                f"{'N' if betting == 'nolimit' else ''}")
        rounds.append(tuple(parse_action(t, betting) for t in tokens))
    return tuple(rounds)


def format_betting(rounds: tuple[tuple[Action, ...], ...]) -> str:
    return "/".join("".join(map(str, r)) for r in rounds)


@dataclass(frozen=True)
class Deck:
    """Card names of a game's deck: card ``rank * num_suits + suit`` <-> ``"Kh"``."""

    num_ranks: int
    num_suits: int
    naming: Naming = "acpc"

    def __post_init__(self) -> None:
        if self.naming not in NAMINGS:
            raise ProtocolError(f"unknown card naming {self.naming!r}: use 'acpc' (the ACPC dealer's, from the ace down) "
                                "or 'openspiel' (OpenSpiel's universal_poker, from the deuce up)")
        if self.num_ranks > len(RANKS) or self.num_suits > len(SUITS):
            raise ProtocolError(f"a deck of {self.num_ranks} ranks and {self.num_suits} suits has no ACPC card names "
                                f"(at most {len(RANKS)} ranks and {len(SUITS)} suits)")

    @property
    def _offsets(self) -> tuple[int, int]:
        if self.naming == "openspiel":
            return 0, 0
        return len(RANKS) - self.num_ranks, len(SUITS) - self.num_suits

    def name(self, card: int) -> str:
        rank, suit = divmod(card, self.num_suits)
        r0, s0 = self._offsets
        return RANKS[r0 + rank] + SUITS[s0 + suit]

    def names(self, cards: tuple[int, ...]) -> str:
        return "".join(self.name(c) for c in cards)

    def _card(self, name: str) -> int | None:
        """The card a two-character name names in this deck (``None``: not in it)."""
        r0, s0 = self._offsets
        rank, suit = RANKS.find(name[0].upper()) - r0, SUITS.find(name[1].lower()) - s0
        return rank * self.num_suits + suit if 0 <= rank < self.num_ranks and 0 <= suit < self.num_suits else None

    def parse(self, text: str) -> tuple[int, ...]:
        """The cards of a run of two-character names (``"KhAs"``).

        Raises:
            NamingError: a card of this deck under the other naming.
            ProtocolError: any other text that is not cards of this deck.
        """
        if len(text) % 2:
            raise ProtocolError(f"bad cards {text!r}: each card is two characters, a rank {RANKS} and a suit {SUITS}")
        out = []
        for i in range(0, len(text), 2):
            name = text[i : i + 2]
            if name[0].upper() not in RANKS or name[1].lower() not in SUITS:
                raise ProtocolError(f"bad card {name!r} in {text!r}: a card is a rank {RANKS} and a suit {SUITS}")
            card = self._card(name)
            if card is None:
                other: Naming = "openspiel" if self.naming == "acpc" else "acpc"
                theirs = Deck(self.num_ranks, self.num_suits, other)
                raise (NamingError if theirs._card(name) is not None else ProtocolError)(
                    f"card {name!r} is not in this game's deck as the {self.naming!r} naming names it "
                    f"({self.names(tuple(range(self.num_ranks * self.num_suits)))}); if the dealer names a small deck "
                    f"{'from the deuce up, as OpenSpiel does' if other == 'openspiel' else 'from the ace down, as the ACPC dealer does'}, "
                    f"use the {other!r} naming (--cards {other})"
                )
            out.append(card)
        if len(set(out)) != len(out):
            raise ProtocolError(f"bad cards {text!r}: a card appears twice")
        return tuple(out)


@dataclass(frozen=True)
class MatchState:
    """One ``MATCHSTATE`` message: a hand as the player in ``position`` sees it.

    Cards are :class:`~subgame.games.poker.game.PokerGame` card ids.
    """

    position: int  #: the receiving player's seat in this hand (our player id)
    hand: int  #: the hand number
    betting: tuple[tuple[Action, ...], ...]  #: actions per round, up to the current round
    hole: tuple[tuple[int, ...], tuple[int, ...]]  #: hole cards by position; ``()`` where not shown
    board: tuple[tuple[int, ...], ...]  #: board cards per round, up to the current round

    @property
    def round(self) -> int:
        return len(self.betting) - 1


@dataclass(frozen=True)
class Codec:
    """Reads and writes the protocol's lines for one game (its betting type and its deck)."""

    spec: PokerSpec
    naming: Naming = "acpc"

    @property
    def deck(self) -> Deck:
        return Deck(self.spec.num_ranks, self.spec.num_suits, self.naming)

    # -- match states ------------------------------------------------------------------
    def format(self, ms: MatchState) -> str:
        """The ``MATCHSTATE:...`` text (no line end)."""
        return f"MATCHSTATE:{ms.position}:{ms.hand}:{format_betting(ms.betting)}:{self.cards(ms.hole, ms.board)}"

    def cards(self, hole: tuple[tuple[int, ...], ...], board: tuple[tuple[int, ...], ...]) -> str:
        d = self.deck
        return "|".join(d.names(h) for h in hole) + "/".join(d.names(b) for b in board)

    def parse(self, line: str) -> MatchState:
        """A ``MATCHSTATE`` line (a trailing ``\\r\\n`` is ignored).

        Checks the syntax and the card counts of the game; whether the betting follows the
        rules is checked when the hand is replayed (:mod:`.hand`).
        """
        text = line.rstrip("\r\n")
        parts = text.split(":")
        if len(parts) != 5 or parts[0] != "MATCHSTATE":
            raise ProtocolError(f"bad match state {_quote(text)}: expected MATCHSTATE:position:hand:betting:cards")
        _, pos, hand, betting, cards = parts
        if pos not in ("0", "1"):
            raise ProtocolError(f"bad match state {_quote(text)}: position {pos!r} is not 0 or 1 (two-player games only)")
        if not hand.isdigit():
            raise ProtocolError(f"bad match state {_quote(text)}: hand number {hand!r} is not a non-negative integer")
        try:
            rounds = parse_betting(betting, self.spec.betting)
            if len(rounds) > self.spec.num_rounds:
                raise ProtocolError(f"{len(rounds)} betting rounds in a game of {self.spec.num_rounds}")
            hole, board = self._parse_cards(cards, len(rounds))
        except ProtocolError as exc:
            raise type(exc)(f"bad match state {_quote(text)}: {exc}") from None
        return MatchState(int(pos), int(hand), rounds, hole, board)

    def _parse_cards(self, text: str, rounds: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], ...]]:
        s, d = self.spec, self.deck
        sections = text.split("/")
        if len(sections) != rounds:
            raise ProtocolError(f"cards {text!r} have {len(sections)} section(s) separated by '/' but the betting "
                                f"reaches round {rounds}; expected hole cards and one board section per round")
        holes = sections[0].split("|")
        if len(holes) != 2:
            raise ProtocolError(f"hole cards {sections[0]!r}: expected two players' cards separated by one '|'")
        first = d.parse(holes[0])
        rest = d.parse(holes[1])  # position 1's hole cards (if shown), then the first round's board
        b0 = s.board_cards[0]
        if len(rest) not in (b0, b0 + s.hole_cards) or len(first) not in (0, s.hole_cards):
            raise ProtocolError(f"cards {text!r}: each player shows 0 or {s.hole_cards} hole card(s) and the first "
                                f"round has {b0} board card(s)")
        second = rest[: len(rest) - b0]
        board = [rest[len(rest) - b0 :]]
        for r, section in enumerate(sections[1:], start=1):
            cards = d.parse(section)
            if len(cards) != s.board_cards[r]:
                raise ProtocolError(f"board {section!r} of round {r + 1}: expected {s.board_cards[r]} card(s)")
            board.append(cards)
        every = first + second + tuple(c for b in board for c in b)
        if len(set(every)) != len(every):
            raise ProtocolError(f"cards {text!r}: a card is dealt twice")
        return (first, second), tuple(board)

    # -- log lines ---------------------------------------------------------------------
    def state_line(self, hand: int, betting: tuple[tuple[Action, ...], ...], hole: tuple[tuple[int, ...], ...],
                   board: tuple[tuple[int, ...], ...], values: tuple[float, float], names: tuple[str, str]) -> str:
        """The dealer's log line of a finished hand (values and names by position)."""
        return (f"STATE:{hand}:{format_betting(betting)}:{self.cards(hole, board)}:"
                f"{format_chips(values[0])}|{format_chips(values[1])}:{names[0]}|{names[1]}")


@dataclass(frozen=True)
class LogHand:
    """One ``STATE`` line of a dealer's log, read back."""

    hand: int
    betting: str
    cards: str
    values: tuple[float, float]  #: chips won, by position
    names: tuple[str, str]  #: the match's players, by position


def parse_log(text: str) -> tuple[tuple[LogHand, ...], tuple[float, float] | None, tuple[str, str] | None]:
    """The hands of a dealer log, and its ``SCORE`` totals and names (``None`` when absent).

    ``#`` lines (comments: the header, warnings and errors) are skipped.
    """
    hands, score, names = [], None, None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line or line[0] in "#;":
            continue
        parts = line.split(":")
        try:
            if parts[0] == "STATE" and len(parts) == 6:
                v0, v1 = parts[4].split("|")
                n0, n1 = parts[5].split("|")
                hands.append(LogHand(int(parts[1]), parts[2], parts[3], (float(v0), float(v1)), (n0, n1)))
                continue
            if parts[0] == "SCORE" and len(parts) == 3:
                t0, t1 = parts[1].split("|")
                n0, n1 = parts[2].split("|")
                score, names = (float(t0), float(t1)), (n0, n1)
                continue
        except ValueError:
            pass
        raise ProtocolError(f"log line {number} {_quote(line)}: expected STATE:hand:betting:cards:v0|v1:name0|name1, "
                            "SCORE:total0|total1:name0|name1 or a '#' comment")
    return tuple(hands), score, names


def format_chips(value: float) -> str:
    """Chips as the ACPC dealer writes them: an integer without a decimal point when whole."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6f}".rstrip("0")


def _quote(text: str, limit: int = 200) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


__all__ = [
    "NAMINGS", "VERSION", "Action", "Codec", "Deck", "LogHand", "MatchState", "Naming", "NamingError", "ProtocolError",
    "format_betting", "format_chips", "parse_action", "parse_betting", "parse_log",
]
