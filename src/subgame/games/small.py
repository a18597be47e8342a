"""The papers' small example games, exactly as the papers describe them.

* :class:`CoinToss` — Brown & Sandholm 2017, §2, Fig. 1a (Sell as a terminal).
* :class:`RockPaperScissors` — Burch, Johanson & Bowling 2014, Fig. 1 (sequential RPS),
  and RPS+ of Brown, Sandholm & Amos 2018, Fig. 1a (Scissors wins or loses 2).
* :class:`MatchingPenniesChoice` — Milec, Kubíček & Lisý, §2, Fig. 2.
* :class:`RedGreenCoin` — Milec, Kubíček & Lisý, §5, Fig. 3 (the gadget counterexample).

All are written in the factored-observation form of :mod:`subgame.games.base`; states
are tuples of the moves so far (:data:`Moves`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import GameDefinitionError
from .base import CHANCE, TERMINAL, Game

Moves = tuple[int, ...]


#: Chance's one move in Coin Toss and Red-Green Coin: a fair coin.
FAIR_COIN: tuple[tuple[int, float], ...] = ((0, 0.5), (1, 0.5))


class _MovesGame(Game[Moves]):
    """A game whose state is the tuple of its moves so far."""

    def root(self) -> Moves:
        return ()

    def next_state(self, s: Moves, a: int) -> Moves:
        return s + (a,)


class CoinToss(_MovesGame):
    """Coin Toss (safe-and-nested paper, §2).

    A fair coin lands Heads or Tails; only player 0 sees it. She Sells (a terminal worth
    ``sell_heads`` on Heads and ``sell_tails`` on Tails to her) or Plays. After Play,
    player 1 guesses Heads or Tails (a correct guess costs player 0 one chip, a wrong one
    pays her one) or Forfeits (pays her one chip).
    """

    name = "coin_toss"
    OUTCOMES = ("Heads", "Tails")

    def __init__(self, sell_heads: float = 0.5, sell_tails: float = -0.5):
        self.sell = (float(sell_heads), float(sell_tails))

    @property
    def params(self) -> Mapping[str, Any]:
        return {"sell_heads": self.sell[0], "sell_tails": self.sell[1]}

    def actor(self, s: Moves) -> int:
        if len(s) == 0:
            return CHANCE
        if len(s) == 1:
            return 0
        if len(s) == 2:
            return TERMINAL if s[1] == 0 else 1
        return TERMINAL

    def legal_actions(self, s: Moves) -> tuple[int, ...]:
        return (0, 1, 2) if len(s) == 2 else (0, 1)

    def chance_outcomes(self, s: Moves) -> tuple[tuple[int, float], ...]:
        return FAIR_COIN

    def observations(self, s: Moves, a: int) -> tuple[str, str, str]:
        if len(s) == 0:
            return ("", self.OUTCOMES[a], "")
        name = self.action_name(s, a)
        return (name, "", "")

    def action_name(self, s: Moves, a: int) -> str:
        if len(s) == 0:
            return self.OUTCOMES[a]
        if len(s) == 1:
            return ("Sell", "Play")[a]
        return ("Heads", "Tails", "Forfeit")[a]

    def utility(self, s: Moves) -> float:
        coin = s[0]
        if s[1] == 0:
            return self.sell[coin]
        guess = s[2]
        if guess == 2:
            return 1.0
        return -1.0 if guess == coin else 1.0


class RockPaperScissors(_MovesGame):
    """Rock-paper-scissors as a sequential game: player 0 moves first, unseen by player 1.

    With ``scissors_payoff=1`` this is the decomposition paper's RPS (Fig. 1); with 2 it is
    RPS+ of the depth-limited paper (Fig. 1a), where any game involving Scissors pays 2.
    """

    name = "rps"
    MOVES = ("Rock", "Paper", "Scissors")

    def __init__(self, scissors_payoff: float = 1.0):
        if scissors_payoff <= 0:
            raise GameDefinitionError(f"rps: scissors_payoff must be positive, got {scissors_payoff}")
        self.scissors_payoff = float(scissors_payoff)

    @property
    def params(self) -> Mapping[str, Any]:
        return {"scissors_payoff": self.scissors_payoff}

    def actor(self, s: Moves) -> int:
        return len(s) if len(s) < 2 else TERMINAL

    def legal_actions(self, s: Moves) -> tuple[int, ...]:
        return (0, 1, 2)

    def observations(self, s: Moves, a: int) -> tuple[str, str, str]:
        if len(s) == 0:
            return ("p0 moved", self.MOVES[a], "")
        return (self.MOVES[a], "", "")

    def action_name(self, s: Moves, a: int) -> str:
        return self.MOVES[a]

    def utility(self, s: Moves) -> float:
        a, b = s
        if a == b:
            return 0.0
        stake = self.scissors_payoff if 2 in (a, b) else 1.0
        return stake if (a - b) % 3 == 1 else -stake

    def utility_bound(self) -> float:
        return max(1.0, self.scissors_payoff)


class RPSPlus(RockPaperScissors):
    """RPS+ (depth-limited paper, Fig. 1a): equilibrium (0.4, 0.4, 0.2) for both players."""

    name = "rps_plus"

    def __init__(self) -> None:
        super().__init__(scissors_payoff=2.0)

    @property
    def params(self) -> Mapping[str, Any]:
        return {}


class MatchingPenniesChoice(_MovesGame):
    """The matching-pennies game of the continual-responses paper (§2, Fig. 2).

    Player 1 (the paper's player 2) first chooses the standard biased game ``p`` or her own
    version ``q``; player 0 (unaware of the choice) picks H or T; player 1 (unaware of that
    pick) guesses h or t. Standard game: player 1 wins 2 for a correct heads guess, 1 for a
    correct tails guess, 0 otherwise. Own version: a wrong guess wins her 2, a correct one
    wins 1 on heads and -1 on tails. Utilities are player 0's, the negation of these.
    """

    name = "matching_pennies"

    def actor(self, s: Moves) -> int:
        return (1, 0, 1)[len(s)] if len(s) < 3 else TERMINAL

    def legal_actions(self, s: Moves) -> tuple[int, ...]:
        return (0, 1)

    def observations(self, s: Moves, a: int) -> tuple[str, str, str]:
        name = self.action_name(s, a)
        if len(s) == 0:
            return ("p1 chose a game", "", name)
        if len(s) == 1:
            return ("p0 moved", name, "")
        return (name, "", "")

    def action_name(self, s: Moves, a: int) -> str:
        return (("p", "q"), ("H", "T"), ("h", "t"))[len(s)][a]

    def utility(self, s: Moves) -> float:
        version, pick, guess = s
        correct = pick == guess
        if version == 0:
            win = (2.0 if guess == 0 else 1.0) if correct else 0.0
        else:
            win = (1.0 if guess == 0 else -1.0) if correct else 2.0
        return -win

    def utility_bound(self) -> float:
        return 2.0


class RedGreenCoin(_MovesGame):
    """The red/green coin game of the continual-responses paper (§5, Fig. 3), where gadgets fail.

    Chance picks a red or a green coin; player 1 (the paper's player 2) sees it and places
    it heads or tails up (RH, RT, GH, GT); player 0, who sees nothing, Plays or Quits. Quit
    pays 0; Play pays player 0 the payoff of the placement. The figure's payoffs are not in
    the text we have; the defaults are our reconstruction from the numbers §5 states: the
    game value is 0 (player 0 quits), player 1's best reply to Play (RH, GH) is worth −3
    to player 0, the resolving gadget values Play at −3.5 and the max-margin gadget at −2.
    """

    name = "red_green_coin"
    COINS = ("Red", "Green")
    SIDES = ("Heads", "Tails")

    def __init__(self, rh: float = -4.0, rt: float = -1.0, gh: float = -2.0, gt: float = 3.0):
        self.payoff = ((float(rh), float(rt)), (float(gh), float(gt)))

    @property
    def params(self) -> Mapping[str, Any]:
        (rh, rt), (gh, gt) = self.payoff
        return {"rh": rh, "rt": rt, "gh": gh, "gt": gt}

    def actor(self, s: Moves) -> int:
        return (CHANCE, 1, 0)[len(s)] if len(s) < 3 else TERMINAL

    def legal_actions(self, s: Moves) -> tuple[int, ...]:
        return (0, 1)

    def chance_outcomes(self, s: Moves) -> tuple[tuple[int, float], ...]:
        return FAIR_COIN

    def observations(self, s: Moves, a: int) -> tuple[str, str, str]:
        if len(s) == 0:
            return ("coin picked", "", self.COINS[a])
        if len(s) == 1:
            return ("coin placed", "", self.SIDES[a])
        return (self.action_name(s, a), "", "")

    def action_name(self, s: Moves, a: int) -> str:
        return (self.COINS, self.SIDES, ("Play", "Quit"))[len(s)][a]

    def utility(self, s: Moves) -> float:
        coin, side, choice = s
        return self.payoff[coin][side] if choice == 0 else 0.0

    def utility_bound(self) -> float:
        return max(abs(x) for row in self.payoff for x in row)
