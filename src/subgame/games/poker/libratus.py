"""The endgame files Libratus published: a hold'em public state with both players' blueprint reaches.

A file is four lines, each a ``-key`` and its values::

    -round 4                   3 = turn, 4 = river
    -board JsKs5cQs7d          the board so far, two characters a card
    -pot 3750                  both players put in half
    -reach r_1 … r_2652        the blueprint's reach of every hand: first the 1,326 hands of
                               the player who acts first in the round, then the button's

Hands are in the order of :data:`~subgame.games.poker.ranges.HANDS` (``2s2h, 2s2d, …,
AdAc``). The game is heads-up no-limit hold'em as played in the Annual Computer Poker
Competition: stacks of 20,000 chips, blinds 50/100. Player 0 of the spot is the player who
acts first in the round, player 1 the button. Errors name the file and the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import GameDefinitionError, InvalidRangeError
from ...files import read_text_file
from .holdem import BetSizing, HoldemSpot
from .ranges import NUM_HANDS, Range, format_board, parse_board

#: Each player's chips at the start of a hand in the competition the endgames come from.
STARTING_STACK = 20_000
_ROUND_CARDS = {3: 4, 4: 5}
_KEYS = ("round", "board", "pot", "reach")


@dataclass(frozen=True, eq=False)
class Endgame:
    """One endgame file: its public state and the blueprint's reach of each hand."""

    source: str
    round: int  #: 3 (turn) or 4 (river), as the file numbers rounds
    board: tuple[int, ...]
    pot: int
    ranges: tuple[Range, Range]  #: player 0 (first to act), player 1 (the button)

    def spot(self, bets: BetSizing = BetSizing()) -> HoldemSpot:
        return HoldemSpot.from_starting_stack(self.board, self.pot, STARTING_STACK, bets)

    def describe(self) -> str:
        return f"{Path(self.source).name}: {format_board(self.board)}, pot {self.pot}"


def _error(source: str, line: int | None, message: str) -> GameDefinitionError:
    return GameDefinitionError(f"{source}{'' if line is None else f', line {line}'}: {message}")


def parse_endgame(text: str, source: str = "<string>") -> Endgame:
    """Read the text of an endgame file; see the module docstring for the format.

    Raises:
        GameDefinitionError: a missing, repeated or unknown key; a value that is not a number
            or a card; a board that does not fit the round; a reach count other than 2,652 or a
            reach outside [0, 1]; a positive reach on a hand that holds a board card.
    """
    found: dict[str, tuple[int, list[str]]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split()
        if not words:
            continue
        key = words[0].lstrip("-").lower()
        if not words[0].startswith("-") or key not in _KEYS:
            raise _error(source, number, f"expected one of {', '.join('-' + k for k in _KEYS)} at the start of the "
                         f"line, found {words[0][:30]!r}")
        if key in found:
            raise _error(source, number, f"-{key} given twice (line {found[key][0]} and here)")
        if len(words) < 2:
            raise _error(source, number, f"-{key} has no value")
        found[key] = (number, words[1:])
    missing = [k for k in _KEYS if k not in found]
    if missing:
        raise _error(source, None, f"missing {', '.join('-' + k for k in missing)}; an endgame file has the lines "
                     "-round, -board, -pot and -reach")

    def integer(key: str) -> tuple[int, int]:
        line, values = found[key]
        if len(values) != 1 or not values[0].isdigit():
            raise _error(source, line, f"-{key} takes one whole number, got {' '.join(values)[:40]!r}")
        return line, int(values[0])

    round_line, rnd = integer("round")
    if rnd not in _ROUND_CARDS:
        raise _error(source, round_line, f"round {rnd} is not 3 (turn) or 4 (river)")
    board_line, board_words = found["board"]
    try:
        board = parse_board("".join(board_words))
    except GameDefinitionError as exc:
        raise _error(source, board_line, str(exc)) from None
    if len(board) != _ROUND_CARDS[rnd]:
        raise _error(source, board_line, f"round {rnd} has {_ROUND_CARDS[rnd]} board cards, the board "
                     f"{format_board(board)} has {len(board)}")
    pot_line, pot = integer("pot")
    reach_line, reach_words = found["reach"]
    if len(reach_words) != 2 * NUM_HANDS:
        raise _error(source, reach_line, f"-reach has {len(reach_words)} values; it needs {2 * NUM_HANDS} "
                     f"({NUM_HANDS} hands of each player)")
    try:
        reach = np.array([float(w) for w in reach_words])
    except ValueError:
        bad = next(i for i, w in enumerate(reach_words) if not _is_float(w))
        raise _error(source, reach_line, f"reach value {bad + 1} ({reach_words[bad][:30]!r}) is not a number") from None
    outside = np.flatnonzero(~np.isfinite(reach) | (reach < 0) | (reach > 1))
    if outside.size:
        raise _error(source, reach_line, f"reach value {outside[0] + 1} ({reach_words[outside[0]]}) is not a "
                     "probability in [0, 1]")
    ranges = []
    for p, who in enumerate(("the first player's reach", "the button's reach")):
        try:
            ranges.append(Range(reach[p * NUM_HANDS : (p + 1) * NUM_HANDS]).check_board(board, who))
        except InvalidRangeError as exc:
            raise _error(source, reach_line, str(exc)) from None
    return Endgame(source, rnd, board, pot, (ranges[0], ranges[1]))


def _is_float(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def read_endgame(path: str | Path) -> Endgame:
    """Read an endgame file (see :func:`parse_endgame`); unreadable files raise :class:`GameDefinitionError`."""
    file = Path(path)
    text = read_text_file(file, "endgame", GameDefinitionError)
    return parse_endgame(text, str(file))
