"""Liar's dice, with the rules OpenSpiel's ``liars_dice`` uses.

Each player rolls ``num_dice`` dice with ``dice_sides`` faces, seen only by herself. Player 0
bids first; a bid "q-f" claims that at least q of all dice show face f, and the highest face
is wild (it counts for every other face). Each bid must be higher than the last (a higher
quantity, or the same quantity and a higher face). Instead of bidding a player may call
"Liar": if the last bid holds the caller loses one chip, otherwise the bidder does.

Action ids: bid "q-f" is ``(q - 1) * dice_sides + (f - 1)``; calling is the number of bids.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Any

from ..errors import GameDefinitionError
from .base import CHANCE, TERMINAL, Game

Roll = tuple[int, ...]
DiceState = tuple[Roll | None, Roll | None, tuple[int, ...]]


class LiarsDice(Game[DiceState]):
    """Two-player Liar's dice (see the module docstring).

    A state is ``(dice_0, dice_1, bids)``: each player's sorted dice (or ``None`` before
    the roll) and the bid actions so far, the last of which may be the call.
    """

    name = "liars_dice"

    def __init__(self, num_dice: int = 1, dice_sides: int = 6):
        if num_dice < 1 or dice_sides < 2:
            raise GameDefinitionError(
                f"liars_dice: needs at least one die per player and two faces, got num_dice={num_dice}, dice_sides={dice_sides}"
            )
        if num_dice > 5:
            raise GameDefinitionError(f"liars_dice: num_dice={num_dice} is too many to solve exactly (at most 5)")
        self.num_dice, self.sides = num_dice, dice_sides
        self.num_bids = 2 * num_dice * dice_sides
        self.call = self.num_bids
        rolls = sorted({tuple(sorted(r)) for r in product(range(dice_sides), repeat=num_dice)})
        weight = {r: 0 for r in rolls}
        for r in product(range(dice_sides), repeat=num_dice):
            weight[tuple(sorted(r))] += 1
        total = dice_sides**num_dice
        self._rolls = rolls
        self._roll_probs = tuple((i, weight[r] / total) for i, r in enumerate(rolls))

    @property
    def params(self) -> Mapping[str, Any]:
        return {"num_dice": self.num_dice, "dice_sides": self.sides}

    def root(self) -> DiceState:
        return (None, None, ())

    def actor(self, s: DiceState) -> int:
        if s[0] is None or s[1] is None:
            return CHANCE
        bids = s[2]
        if bids and bids[-1] == self.call:
            return TERMINAL
        return len(bids) % 2

    def chance_outcomes(self, s: DiceState) -> tuple[tuple[int, float], ...]:
        return self._roll_probs

    def legal_actions(self, s: DiceState) -> tuple[int, ...]:
        bids = s[2]
        first = bids[-1] + 1 if bids else 0
        return tuple(range(first, self.num_bids)) + ((self.call,) if bids else ())

    def next_state(self, s: DiceState, a: int) -> DiceState:
        if s[0] is None:
            return (self._rolls[a], None, ())
        if s[1] is None:
            return (s[0], self._rolls[a], ())
        return (s[0], s[1], s[2] + (a,))

    def observations(self, s: DiceState, a: int) -> tuple[str, str, str]:
        name = self.action_name(s, a)
        if s[0] is None:
            return ("", name, "")
        if s[1] is None:
            return ("", "", name)
        return (name, "", "")

    def action_name(self, s: DiceState, a: int) -> str:
        if s[0] is None or s[1] is None:
            return "".join(str(d + 1) for d in self._rolls[a])
        if a == self.call:
            return "Liar"
        return f"{a // self.sides + 1}-{a % self.sides + 1}"

    def utility(self, s: DiceState) -> float:
        bids = s[2]
        bid = bids[-2]
        quantity, face = bid // self.sides + 1, bid % self.sides
        wild = self.sides - 1
        dice = (s[0] or ()) + (s[1] or ())  # both rolled at a terminal
        count = sum(1 for d in dice if d == face or (d == wild and face != wild))
        caller = (len(bids) - 1) % 2
        caller_loses = count >= quantity
        loser = caller if caller_loses else 1 - caller
        return -1.0 if loser == 0 else 1.0
