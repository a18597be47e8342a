"""Heads-up no-limit hold'em from a public state: the game that starts on a flop, turn or river.

A :class:`HoldemSpot` is what poker solvers take as a subgame: the board so far, the pot
(both players put in half), the chips each player still has behind, and a betting
abstraction (:class:`BetSizing`: pot fractions per street, all-in, a cap on bets and
raises per street). :meth:`HoldemSpot.game` gives it as a game of the poker family: the
52-card deck with the board already dealt (:attr:`PokerSpec.board`), the hole cards dealt
by chance from the rest, one betting round per street left, and player 0 the player who
acts first on every street (out of position), player 1 the button. The players' ranges
are not part of the game: they enter the solver as its root reach (see
:mod:`subgame.resolving.spots`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import GameDefinitionError
from .game import PokerGame
from .ranges import format_board, parse_board
from .spec import PokerSpec

STREETS = {3: "flop", 4: "turn", 5: "river"}
#: Board cards of each betting round left, by the number of cards already on the board.
ROUNDS_LEFT = {3: (3, 1, 1), 4: (4, 1), 5: (5,)}
GAME_NAME = "holdem_subgame"


@dataclass(frozen=True)
class BetSizing:
    """The bets a no-limit solve considers.

    Attributes:
        fractions: per street from the spot's street on, the bet and raise sizes as
            fractions of the pot after calling; one tuple serves every street.
        all_in: whether all-in is always an action; a size that reaches the stack is the
            all-in either way.
        raise_cap: the most bets and raises per street (0: no cap).
    """

    fractions: tuple[tuple[float, ...], ...] = ((0.5, 1.0),)
    all_in: bool = True
    raise_cap: int = 3

    def __post_init__(self) -> None:
        if not self.fractions or any(f <= 0 for fs in self.fractions for f in fs):
            raise GameDefinitionError(f"bet sizes must be positive pot fractions, got {self.fractions}")
        if not self.all_in and not all(self.fractions):
            raise GameDefinitionError("a street without bet sizes needs all-in, or nobody can bet there")
        if self.raise_cap < 0:
            raise GameDefinitionError(f"the raise cap must be non-negative (0: no cap), got {self.raise_cap}")

    @staticmethod
    def parse(text: str, raise_cap: int = 3) -> BetSizing:
        """``"0.5,1,allin"`` (every street) or ``"0.33,0.75,allin/0.5,1,allin"`` (one ``/``-part per street).

        Sizes are pot fractions (``0.5``) or percentages (``50%``); ``allin`` adds all-in,
        which then must be named on every street.
        """
        streets: list[tuple[float, ...]] = []
        all_in: set[bool] = set()
        for part in text.split("/"):
            sizes, shove = [], False
            for token in (t.strip().lower() for t in part.split(",")):
                if not token:
                    continue
                if token in ("allin", "all-in", "a"):
                    shove = True
                    continue
                match = re.fullmatch(r"([0-9]*\.?[0-9]+)(%?)", token)
                if match is None:
                    raise GameDefinitionError(
                        f"bet size {token!r} is not a pot fraction (0.5), a percentage (50%) or 'allin'"
                    )
                sizes.append(float(match.group(1)) / (100.0 if match.group(2) else 1.0))
            streets.append(tuple(sizes))
            all_in.add(shove)
        if len(all_in) != 1:
            raise GameDefinitionError(f"bets {text!r}: name 'allin' on every street or on none")
        return BetSizing(tuple(streets), all_in.pop(), raise_cap)

    def per_round(self, rounds: int) -> tuple[tuple[float, ...], ...]:
        if len(self.fractions) == 1:
            return self.fractions * rounds
        if len(self.fractions) != rounds:
            raise GameDefinitionError(
                f"bets give sizes for {len(self.fractions)} streets but the spot has {rounds} street(s) left; "
                f"give one size list for every street or one per street ('/'-separated)"
            )
        return self.fractions

    def __str__(self) -> str:
        def street(fs: tuple[float, ...]) -> str:
            return ",".join([f"{f:g}" for f in fs] + (["allin"] if self.all_in else []))

        return "/".join(street(fs) for fs in self.fractions)


@dataclass(frozen=True)
class HoldemSpot:
    """A public state of heads-up no-limit hold'em.

    Attributes:
        board: 3, 4 or 5 distinct cards (the street is the flop, turn or river).
        pot: chips in the pot, half from each player (an even number).
        stack: chips each player still has behind (the effective stack).
        bets: the betting abstraction.
    """

    board: tuple[int, ...]
    pot: int
    stack: int
    bets: BetSizing = BetSizing()

    def __post_init__(self) -> None:
        object.__setattr__(self, "board", parse_board(self.board))
        if isinstance(self.pot, bool) or not isinstance(self.pot, int) or self.pot <= 0 or self.pot % 2:
            raise GameDefinitionError(
                f"pot {self.pot!r} must be a positive even number of chips (both players put in half of it)"
            )
        if isinstance(self.stack, bool) or not isinstance(self.stack, int) or self.stack < 0:
            raise GameDefinitionError(f"stack {self.stack!r} must be the chips each player has behind, a whole number >= 0")

    @staticmethod
    def from_starting_stack(board: Sequence[int] | str, pot: int, starting_stack: int,
                            bets: BetSizing = BetSizing()) -> HoldemSpot:
        """The spot where each player started the hand with ``starting_stack`` chips."""
        commitment = pot // 2
        if starting_stack < commitment:
            raise GameDefinitionError(
                f"the starting stack {starting_stack} is smaller than the pot commitment {commitment} "
                f"(half of the pot {pot}): nobody can have put more in the pot than they had"
            )
        return HoldemSpot(parse_board(board), pot, starting_stack - commitment, bets)

    @property
    def street(self) -> str:
        return STREETS[len(self.board)]

    def spec(self) -> PokerSpec:
        rounds = ROUNDS_LEFT[len(self.board)]
        fractions = self.bets.per_round(len(rounds))
        return PokerSpec(
            num_ranks=13, num_suits=4, hole_cards=2, board_cards=rounds, betting="nolimit", ante=self.pot // 2,
            blinds=(0, 0), stack=self.pot // 2 + self.stack, bet_fractions=fractions[0], all_in=self.bets.all_in,
            first_player=(0,) * len(rounds), board=self.board, raise_cap=self.bets.raise_cap,
            round_bet_fractions=fractions if len(set(fractions)) > 1 else (),
        )

    def game(self) -> PokerGame:
        return PokerGame(self.spec(), name=GAME_NAME)

    def params(self) -> dict[str, Any]:
        """The parameters of ``load_game("holdem_subgame", ...)`` that build this spot's game."""
        return {"board": format_board(self.board), "pot": self.pot, "stack": self.stack, "bets": str(self.bets),
                "raise_cap": self.bets.raise_cap}

    def describe(self) -> str:
        return (f"{self.street} {format_board(self.board)}, pot {self.pot}, {self.stack} behind, "
                f"bets {self.bets} (raise cap {self.bets.raise_cap or 'none'})")


#: The defaults of the registered game: the Libratus river endgame 4's public state.
DEFAULTS: dict[str, Any] = {"board": "Js Ks 5c Qs 7d", "pot": 3750, "stack": 18125, "bets": "0.5,1,allin", "raise_cap": 3}


def holdem_subgame(board: str = DEFAULTS["board"], pot: int = DEFAULTS["pot"], stack: int = DEFAULTS["stack"],
                   bets: str = DEFAULTS["bets"], raise_cap: int = DEFAULTS["raise_cap"]) -> PokerGame:
    """The registered game ``holdem_subgame``: :meth:`HoldemSpot.game` from text parameters."""
    return HoldemSpot(parse_board(board), pot, stack, BetSizing.parse(bets, raise_cap)).game()
