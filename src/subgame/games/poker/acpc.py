"""ACPC game-definition files: read one into a :class:`PokerSpec`, write a spec as one.

The format is the plain text read by the ACPC dealer and by OpenSpiel's
``universal_poker``. One block between ``GAMEDEF`` and ``END GAMEDEF`` (any case) holds a
betting line (``limit`` or ``nolimit``) and ``key = values`` lines (the ``=`` is optional,
keys are case-insensitive, values are whitespace-separated integers)::

    GAMEDEF
    limit
    numPlayers = 2
    numRounds = 2
    blind = 1 1
    raiseSize = 2 4
    firstPlayer = 1 1
    maxRaises = 2 2
    numSuits = 2
    numRanks = 3
    numHoleCards = 1
    numBoardCards = 0 1
    END GAMEDEF

``#`` starts a comment that runs to the end of the line. Keys and their values:

======================  ==========  ===========================================================
key                     values      meaning
======================  ==========  ===========================================================
``numPlayers``          1           must be 2
``numRounds``           1           betting rounds, 1 to 4
``numSuits``            1           1 to 4
``numRanks``            1           1 to 13 (ACPC ranks hands as standard poker)
``numHoleCards``        1           1 to 3
``numBoardCards``       per round   public cards dealt at the start of each round
``blind``               per seat    forced bets of seat 1 and seat 2 (required, may be 0)
``firstPlayer``         per round   seat (1 or 2) that acts first; default 1 in every round
``raiseSize``           per round   limit: the fixed raise; no-limit: ignored, as by ACPC
``maxRaises``           per round   limit: raises allowed per round (required here)
``stack``               per seat    no-limit: chips of each seat (required, equal)
``ante``                1           not standard ACPC (its readers ignore the line); default 0
======================  ==========  ===========================================================

Conventions:
    * Seats and players: seat 1 is player 0 and seat 2 is player 1, in every per-seat list
      and in ``firstPlayer`` (1-based in the file, 0-based in :attr:`PokerSpec.first_player`).
      OpenSpiel's ``universal_poker`` numbers its players the same way. The ACPC heads-up
      hold'em files (``blind = 100 50``, ``firstPlayer = 2 1 1 1``) thus make player 0 the
      big blind, who acts first after the flop, and player 1 the small blind (the dealer),
      who acts first before it.
    * Cards: ACPC numbers a card ``rank * numSuits + suit``, as :class:`PokerGame` does, so
      deals and hand strengths agree; the ACPC dealer deals a small deck's highest ranks
      and suits (Leduc: Q, K, A of h, s), OpenSpiel's ``universal_poker`` names them from
      the deuce up (2, 3, 4 of c, d) and :mod:`.hands` as J, Q, K, which changes names only.
    * ``maxRaises`` counts raise actions (the blinds are not raises), like
      :attr:`PokerSpec.max_raises`.
    * Limit games: ACPC's default for a missing ``maxRaises`` is 255 raises per round,
      effectively unbounded, which makes the game tree explode, so this reader requires
      the line. A ``stack`` line is accepted when the stack can never run out (ACPC would
      allow a short all-in raise there, which :class:`PokerGame` does not model).
    * No-limit games: ACPC allows any integer bet; :class:`PokerGame` abstracts them into
      pot-fraction bets and all-in, chosen by the ``bet_fractions`` and ``all_in``
      arguments, which are not part of the file. ``maxRaises`` is rejected because
      :class:`PokerGame` has no raise cap in no-limit betting.

Rejected with an error that says why: pot-limit betting, more than two players, unequal
stacks, a limit game without ``maxRaises`` or with a stack that can run out, a no-limit
game with ``maxRaises`` or without ``stack``, unknown keys, and text outside the block.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import GameDefinitionError
from ...files import read_text_file
from .game import PokerGame
from .spec import PokerSpec

#: Limits of the ACPC dealer, which this reader and writer keep.
MAX_ROUNDS, MAX_SUITS, MAX_RANKS, MAX_HOLE_CARDS, MAX_RAISES = 4, 4, 13, 3, 255

_ONE, _ROUND, _SEAT = "one value", "one value per round", "one value per seat"


@dataclass(frozen=True)
class _Key:
    """A key of the format: its spelling, how many values it takes and their range."""

    name: str
    arity: str
    low: int
    high: int | None
    example: str


_KEYS: dict[str, _Key] = {
    k.name.lower(): k
    for k in (
        _Key("numPlayers", _ONE, 2, 2, "2"),
        _Key("numRounds", _ONE, 1, MAX_ROUNDS, "2"),
        _Key("blind", _SEAT, 0, None, "2 1"),
        _Key("raiseSize", _ROUND, 1, None, "2 4"),
        _Key("maxRaises", _ROUND, 0, MAX_RAISES, "2 2"),
        _Key("firstPlayer", _ROUND, 1, 2, "1 1"),
        _Key("numSuits", _ONE, 1, MAX_SUITS, "4"),
        _Key("numRanks", _ONE, 1, MAX_RANKS, "13"),
        _Key("numHoleCards", _ONE, 1, MAX_HOLE_CARDS, "2"),
        _Key("numBoardCards", _ROUND, 0, None, "0 3 1 1"),
        _Key("stack", _SEAT, 1, None, "20000 20000"),
        _Key("ante", _ONE, 0, None, "1"),
    )
}
_BETTING = ("limit", "nolimit")
_RANGE_NOTES = {
    "numPlayers": " (only two-player games are supported)",
    "numRounds": " (the ACPC limit)",
    "numSuits": " (the ACPC limit)",
    "numRanks": " (the ACPC limit: hands are ranked as standard poker)",
    "numHoleCards": " (the ACPC limit)",
    "firstPlayer": " (a seat number, 1-based)",
    "maxRaises": " (ACPC stores it in one byte)",
}
_INT = re.compile(r"[+-]?[0-9]+")
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)\s*=?\s*(.*)")


@dataclass(frozen=True)
class _Entry:
    """The values of one ``key = values`` line."""

    line: int
    tokens: tuple[str, ...]
    values: tuple[int, ...]


@dataclass(frozen=True)
class _Block:
    """The raw content of a GAMEDEF block, before interpretation."""

    start: int
    betting: str
    entries: dict[str, _Entry]


def _error(source: str, line: int | None, message: str) -> GameDefinitionError:
    where = source if line is None else f"{source}, line {line}"
    return GameDefinitionError(f"{where}: {message}")


def _strip_comment(raw: str) -> str:
    return raw.split("#", 1)[0].strip()


def _read_block(text: str, source: str) -> _Block:
    """Split the GAMEDEF block into a betting type and ``key -> values`` entries."""
    start: int | None = None
    end: int | None = None
    betting, betting_line = "limit", None  # ACPC's default betting is limit
    entries: dict[str, _Entry] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw)
        if not line:
            continue
        words = line.lower().split()
        if end is not None:
            raise _error(source, number, f"text after END GAMEDEF: {line!r}; a file holds one game definition, "
                         "so remove it or turn it into a '#' comment")
        if words == ["end", "gamedef"]:
            if start is None:
                raise _error(source, number, "END GAMEDEF before any GAMEDEF line; start the block with GAMEDEF")
            end = number
            continue
        if words == ["gamedef"]:
            if start is not None:
                raise _error(source, number, f"a second GAMEDEF inside the block opened at line {start}; "
                             "close the first block with END GAMEDEF or remove this line")
            start = number
            continue
        if start is None:
            raise _error(source, number, f"expected GAMEDEF, found {line!r}; the definition must be a block "
                         "that starts with a line GAMEDEF and ends with a line END GAMEDEF")
        if words[0].replace("-", "").replace("_", "") == "potlimit":
            raise _error(source, number, f"{line!r}: pot-limit betting is not supported (the ACPC format has "
                         "only 'limit' and 'nolimit'); use one of those")
        if words[0] in _BETTING:
            if len(words) > 1:
                raise _error(source, number, f"unexpected {line.split(None, 1)[1]!r} after {words[0]!r}; "
                             f"the betting line is the single word {words[0]!r}")
            if betting_line is not None:
                raise _error(source, number, f"betting type given twice (line {betting_line} and here); "
                             "keep one 'limit' or 'nolimit' line")
            betting, betting_line = words[0], number
            continue
        key, entry = _parse_entry(line, number, source)
        if key in entries:
            raise _error(source, number, f"{_KEYS[key].name} given twice (line {entries[key].line} and here); "
                         "keep one of the two lines")
        entries[key] = entry
    if start is None:
        raise _error(source, None, "no GAMEDEF line; an ACPC game definition is a block that starts with "
                     "a line GAMEDEF and ends with a line END GAMEDEF")
    if end is None:
        raise _error(source, None, f"no END GAMEDEF line closes the block opened at line {start}; "
                     "add a line END GAMEDEF after the last key")
    return _Block(start, betting, entries)


def _parse_entry(line: str, number: int, source: str) -> tuple[str, _Entry]:
    match = _LINE.fullmatch(line)
    word = match.group(1) if match else line.split()[0]
    key = word.lower()
    if match is None or key not in _KEYS:
        choices = [k.name for k in _KEYS.values()] + list(_BETTING)
        close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
        close = close or difflib.get_close_matches(key, [c.lower() for c in choices], n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise _error(source, number, f"unknown key {word!r}; {hint}known keys are {', '.join(choices)}")
    tokens = tuple(match.group(2).split())
    name = _KEYS[key].name
    if not tokens:
        raise _error(source, number, f"{name} has no value; write it as '{name} = {_KEYS[key].example}'")
    for token in tokens:
        if not _INT.fullmatch(token):
            raise _error(source, number, f"{name}: {token!r} is not an integer; "
                         f"values are whitespace-separated integers, as in '{name} = {_KEYS[key].example}'")
    return key, _Entry(number, tokens, tuple(int(t) for t in tokens))


class _Reader:
    """Interprets a :class:`_Block`: counts, ranges and defaults, with line numbers in errors."""

    def __init__(self, block: _Block, source: str):
        self.block = block
        self.source = source
        self.rounds = 0

    def get(self, name: str, default: tuple[int, ...] | None = None) -> tuple[int, ...]:
        """Values of key ``name`` after checking their count and range; ``default`` when absent."""
        key = _KEYS[name.lower()]
        entry = self.block.entries.get(name.lower())
        if entry is None:
            if default is not None:
                return default
            raise _error(self.source, None, f"missing {key.name}; add a line '{key.name} = {key.example}' "
                         f"inside the GAMEDEF block (line {self.block.start})")
        want = {_ONE: 1, _ROUND: self.rounds, _SEAT: 2}[key.arity]
        if len(entry.values) != want:
            count = {_ONE: "", _ROUND: f" (numRounds = {self.rounds})", _SEAT: " (seat 1, then seat 2)"}[key.arity]
            raise _error(self.source, entry.line, f"{key.name} takes {key.arity}{count}, got {len(entry.values)}: "
                         f"{' '.join(entry.tokens)!r}; write exactly {want} value{'s' * (want > 1)}")
        for token, value in zip(entry.tokens, entry.values):
            if value < key.low or (key.high is not None and value > key.high):
                if key.low == key.high:
                    span = f"{key.low}"
                elif key.high is not None:
                    span = f"from {key.low} to {key.high}"
                else:
                    span = f"at least {key.low}"
                raise _error(self.source, entry.line, f"{key.name}: {token!r} is out of range; "
                             f"each value must be {span}{_RANGE_NOTES.get(key.name, '')}")
        return entry.values

    def line(self, name: str) -> int | None:
        entry = self.block.entries.get(name.lower())
        return entry.line if entry else None


def parse_acpc(
    text: str,
    source: str = "<string>",
    *,
    bet_fractions: Sequence[float] = (0.5, 1.0),
    all_in: bool = True,
) -> PokerSpec:
    """Parse the text of an ACPC game definition into a :class:`PokerSpec`.

    Args:
        text: the file's content.
        source: the name used in error messages (the file name).
        bet_fractions, all_in: no-limit games only: the bet abstraction of
            :class:`PokerSpec` (pot fractions and whether all-in is an action); limit
            games keep the spec's defaults.

    Raises:
        GameDefinitionError: the text is not a valid definition, or one this library
            cannot represent; the message names ``source``, the line and the bad token.
    """
    block = _read_block(text, source)
    r = _Reader(block, source)
    r.get("numPlayers")
    (r.rounds,) = r.get("numRounds")
    (num_suits,) = r.get("numSuits")
    (num_ranks,) = r.get("numRanks")
    (hole,) = r.get("numHoleCards")
    board = r.get("numBoardCards")
    first = r.get("firstPlayer", default=(1,) * r.rounds)
    b0, b1 = r.get("blind")
    (ante,) = r.get("ante", default=(0,))
    stacks = r.get("stack", default=(0, 0))
    if stacks[0] != stacks[1]:
        raise _error(source, r.line("stack"), f"unequal stacks {stacks[0]} and {stacks[1]}; both players "
                     f"share one stack here, so write equal values, e.g. 'stack = {stacks[0]} {stacks[0]}'")
    raise_sizes: tuple[int, ...] = ()
    max_raises: tuple[int, ...] = ()
    fractions, allin = PokerSpec.bet_fractions, PokerSpec.all_in  # the defaults: unused in limit games
    if block.betting == "limit":
        raise_sizes = r.get("raiseSize")
        if r.line("maxRaises") is None:
            raise _error(source, None, "limit game without maxRaises: ACPC's default of 255 raises per round "
                         f"makes betting effectively unbounded; add a line such as 'maxRaises = "
                         f"{' '.join(['3'] * r.rounds)}' inside the GAMEDEF block (line {block.start})")
        max_raises = r.get("maxRaises")
        need = _limit_need(ante, (b0, b1), raise_sizes, max_raises)
        if 0 < stacks[0] < need:
            raise _error(source, r.line("stack"), f"stack {stacks[0]} can run out in this limit game, where a "
                         f"player may put in up to {need} chips; ACPC then allows a short all-in raise, which "
                         f"this library does not model; use a stack of at least {need} or remove the line")
    else:
        if r.line("maxRaises") is not None:
            raise _error(source, r.line("maxRaises"), "maxRaises in a no-limit game is not supported: no-limit "
                         "betting here is bounded by the stack only; remove the line")
        if r.line("stack") is None:
            raise _error(source, None, "no-limit game without a stack (ACPC's default is unbounded chips); "
                         f"add a line such as 'stack = 20000 20000' inside the GAMEDEF block (line {block.start})")
        r.get("raiseSize", default=())  # checked, then ignored, as ACPC does in no-limit games
        fractions, allin = tuple(float(f) for f in bet_fractions), bool(all_in)
    try:
        return PokerSpec(
            num_ranks=num_ranks, num_suits=num_suits, hole_cards=hole, board_cards=board,
            betting=block.betting, ante=ante, blinds=(b0, b1), stack=stacks[0],
            raise_sizes=raise_sizes, max_raises=max_raises, bet_fractions=fractions, all_in=allin,
            first_player=tuple(p - 1 for p in first),
        )
    except GameDefinitionError as exc:
        message = str(exc).removeprefix("poker: ")
        raise _error(source, None, f"{message} (in the GAMEDEF block at line {block.start})") from None


def load_acpc_game(
    path: str | os.PathLike[str],
    *,
    bet_fractions: Sequence[float] = (0.5, 1.0),
    all_in: bool = True,
) -> PokerGame:
    """Read an ACPC ``.game`` file into a :class:`PokerGame`.

    The game is named ``"poker"``, like ``load_game("poker", ...)`` with the same
    parameters, so its fingerprint depends on the rules and not on the file name.

    Args:
        path: the file.
        bet_fractions, all_in: no-limit games only: the bets the abstraction offers (ACPC
            allows any integer bet); see :class:`PokerSpec`.

    Raises:
        GameDefinitionError: the file cannot be read or is not a valid definition.
    """
    file = Path(path)
    text = read_text_file(file, "ACPC game", GameDefinitionError)
    spec = parse_acpc(text, str(file), bet_fractions=bet_fractions, all_in=all_in)
    return PokerGame(spec, name="poker")


def to_acpc(spec: PokerSpec) -> str:
    """Write ``spec`` as an ACPC game definition that :func:`parse_acpc` reads back.

    No-limit bet abstractions (``bet_fractions``, ``all_in``) are not part of the format
    and are not written; a non-zero ante is written as an ``ante`` line, which the ACPC
    dealer and ``universal_poker`` ignore (a comment in the output says so).

    Raises:
        GameDefinitionError: the spec has no faithful ACPC form: a deck or round count
            beyond the ACPC limits, or a limit-game stack that can run out.
    """
    limits = [
        ("num_ranks", spec.num_ranks, MAX_RANKS), ("num_suits", spec.num_suits, MAX_SUITS),
        ("hole_cards", spec.hole_cards, MAX_HOLE_CARDS), ("rounds", spec.num_rounds, MAX_ROUNDS),
    ]
    for name, value, top in limits:
        if value > top:
            raise GameDefinitionError(f"to_acpc: {name}={value} exceeds the ACPC limit of {top}; "
                                      "such a game has no ACPC game file")
    if spec.start:
        raise GameDefinitionError(f"to_acpc: a game that starts after betting ({list(spec.start)}) has no ACPC game file; "
                                  "write the game without start")
    if spec.betting == "limit" and any(m > MAX_RAISES for m in spec.max_raises):
        raise GameDefinitionError(f"to_acpc: max_raises {spec.max_raises} exceeds the ACPC limit of {MAX_RAISES}")
    need = _limit_need(spec.ante, spec.blinds, spec.raise_sizes, spec.max_raises)
    if spec.betting == "limit" and 0 < spec.stack < need:
        raise GameDefinitionError(f"to_acpc: stack {spec.stack} can run out in this limit game (a player may put "
                                  f"in {need}); ACPC would then allow short all-in raises, which PokerGame "
                                  "does not; use stack=0 (unlimited) or a larger stack")

    def row(key: str, values: Sequence[int]) -> str:
        return f"{key} = {' '.join(str(v) for v in values)}"

    lines = ["GAMEDEF", spec.betting, row("numPlayers", [2]), row("numRounds", [spec.num_rounds])]
    if spec.stack > 0:
        lines.append(row("stack", [spec.stack, spec.stack]))
    lines.append(row("blind", spec.blinds))
    if spec.ante:
        lines += ["# ante is not part of the ACPC format: ACPC readers ignore the next line", row("ante", [spec.ante])]
    if spec.betting == "limit":
        lines.append(row("raiseSize", spec.raise_sizes))
    lines.append(row("firstPlayer", [p + 1 for p in spec.first_player]))
    if spec.betting == "limit":
        lines.append(row("maxRaises", spec.max_raises))
    lines += [
        row("numSuits", [spec.num_suits]), row("numRanks", [spec.num_ranks]),
        row("numHoleCards", [spec.hole_cards]), row("numBoardCards", spec.board_cards), "END GAMEDEF",
    ]
    return "\n".join(lines) + "\n"


def _limit_need(ante: int, blinds: Sequence[int], raise_sizes: Sequence[int], max_raises: Sequence[int]) -> int:
    """The most chips one player can put in a limit game without a stack."""
    return ante + max(blinds) + sum(s * m for s, m in zip(raise_sizes, max_raises))


__all__ = ["load_acpc_game", "parse_acpc", "to_acpc"]
