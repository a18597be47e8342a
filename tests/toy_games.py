"""The small hand-made games and strategies the tests share, in one place.

Each is the smallest case of what a test needs: games the compiler must refuse (a player
who forgets, an actor chance hides), a one-player decision problem, seeded random games
for differential tests, the Coin Toss ``.efg`` file, the small no-limit game of the
nested-solving tests, the small hold'em of the suit-isomorphism tests, and the papers'
example blueprints.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from subgame.games import load_game
from subgame.games.base import CHANCE, TERMINAL, Game
from subgame.games.poker import PokerGame, PokerSpec
from subgame.resolving import BetAbstraction, restrict
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import PublicTree

DATA = Path(__file__).resolve().parent / "data"

# -- games the compiler refuses ---------------------------------------------------------------------

class Forgetful(Game):
    """Player 0 moves twice but her second move does not see her first."""

    name = "forgetful"

    def root(self):
        return ()

    def actor(self, s):
        return 0 if len(s) < 2 else TERMINAL

    def legal_actions(self, s):
        return (0, 1)

    def next_state(self, s, a):
        return s + (a,)

    def observations(self, s, a):
        return ("moved", "", "")

    def utility(self, s):
        return float(s[0] == s[1])


class HiddenActor(Game):
    """Chance privately decides who moves next: the acting player is not public."""

    name = "hidden_actor"

    def root(self):
        return ()

    def actor(self, s):
        return CHANCE if not s else (s[0] if len(s) == 1 else TERMINAL)

    def legal_actions(self, s):
        return (0, 1)

    def chance_outcomes(self, s):
        return ((0, 0.5), (1, 0.5))

    def next_state(self, s, a):
        return s + (a,)

    def observations(self, s, a):
        return ("", str(a), str(a)) if not s else (str(a), "", "")

    def utility(self, s):
        return 1.0


# -- small games of the solver tests ----------------------------------------------------------------


class Solitaire(Game):
    """Player 0 picks twice, seeing her first pick; player 1 never acts (a decision problem)."""

    name = "solitaire"

    def root(self):
        return ()

    def actor(self, s):
        return 0 if len(s) < 2 else TERMINAL

    def legal_actions(self, s):
        return (0, 1, 2)

    def next_state(self, s, a):
        return s + (a,)

    def observations(self, s, a):
        return (f"a{a}", "", "")

    def utility(self, s):
        return float(s[0] * (1 - s[1]))


class RandomGame(Game):
    """A small random game: private deals, then player 0, player 1, and player 0 again after an even action of player 1.

    Deal probabilities, action counts and integer payoffs are drawn from ``seed``; with
    ``hidden`` player 0's first action is private, so player 1 moves without seeing it.
    """

    name = "random"

    def __init__(self, seed: int, hidden: bool):
        rng = np.random.default_rng(seed)
        self.seed, self.hidden = seed, hidden
        self.deals = [rng.dirichlet(np.ones(int(rng.integers(1, 4)))) for _ in range(2)]
        self.actions = [int(n) for n in rng.integers(1, 4, size=3)]

    @property
    def params(self):
        return {"seed": self.seed, "hidden": self.hidden}

    def root(self):
        return ()

    def actor(self, s):
        if len(s) < 2:
            return CHANCE
        if len(s) < 4:
            return len(s) - 2
        if len(s) == 4 and s[3] % 2 == 0:
            return 0
        return TERMINAL

    def legal_actions(self, s):
        return tuple(range(self.actions[len(s) - 2]))

    def chance_outcomes(self, s):
        return tuple(enumerate(self.deals[len(s)].tolist()))

    def next_state(self, s, a):
        return s + (a,)

    def observations(self, s, a):
        if len(s) == 0:
            return ("", f"c{a}", "")
        if len(s) == 1:
            return ("", "", f"c{a}")
        if len(s) == 2 and self.hidden:
            return ("p0 moved", f"a{a}", "")
        return (f"a{a}", "", "")

    def utility(self, s):
        return float(np.random.default_rng([self.seed, *s]).integers(-3, 4))

    def utility_bound(self):
        return 3.0


# -- .efg files ---------------------------------------------------------------------------------------

#: Coin Toss as a Gambit file: two information sets for player 1 (she sees the coin), one
#: for player 2 (she does not).
COIN_EFG = (DATA / "efg" / "coin.efg").read_text()


# -- poker in miniature -------------------------------------------------------------------------------

#: Poker games of the compiler tests, (registered name, parameters): each exercises something the others do not.
POKER_GAMES = {
    "kuhn": ("kuhn", {}),
    "leduc": ("leduc", {}),
    "leduc_nolimit": ("leduc_nolimit", {}),
    "leduc_4_ranks": ("leduc", {"num_ranks": 4}),
    "two_hole_cards": ("poker", {"num_ranks": 3, "num_suits": 2, "hole_cards": 2, "board_cards": (0, 1),
                                 "raise_sizes": (2, 4), "max_raises": (1, 1)}),
    "two_card_flop_blinds": ("poker", {"num_ranks": 3, "num_suits": 2, "hole_cards": 2, "board_cards": (0, 2),
                                       "betting": "nolimit", "stack": 6, "blinds": (1, 2), "ante": 0,
                                       "first_player": (0, 1), "bet_fractions": (1.0,)}),
    "three_rounds": ("poker", {"num_ranks": 3, "num_suits": 2, "hole_cards": 1, "board_cards": (0, 1, 1),
                               "raise_sizes": (2, 4, 4), "max_raises": (1, 1, 1), "first_player": (0, 1, 1)}),
    "all_in_runout": ("poker", {"num_ranks": 3, "num_suits": 2, "hole_cards": 1, "board_cards": (0, 1, 1),
                                "betting": "nolimit", "stack": 3, "bet_fractions": (1.0,), "first_player": (0, 0, 0)}),
    "five_card_hands": ("poker", {"num_ranks": 5, "num_suits": 2, "hole_cards": 1, "board_cards": (4,),
                                  "raise_sizes": (2,), "max_raises": (1,), "first_player": (0,)}),
    "one_suit_straights": ("poker", {"num_ranks": 6, "num_suits": 1, "hole_cards": 1, "board_cards": (4,),
                                     "raise_sizes": (2,), "max_raises": (1,), "first_player": (0,)}),
}

#: A no-limit hold'em river on the full deck (with :data:`RIVER_BOARD`).
RIVER = PokerSpec(num_ranks=13, num_suits=4, hole_cards=2, board_cards=(5,), betting="nolimit", ante=5, stack=100,
                  bet_fractions=(0.5, 1.0), all_in=True, first_player=(0,))
RIVER_BOARD = (0, 13, 26, 40, 51)  # 2s 3h 4d Ks Ac: straights to the five and wheels are live


#: Bets of 0.5, 0.75 and 1 pot and all-in; the abstraction leaves out 0.75.
SMALL = dict(num_ranks=3, num_suits=2, hole_cards=1, board_cards=(0, 1), betting="nolimit", ante=0, blinds=(1, 2),
             stack=12, bet_fractions=(0.5, 0.75, 1.0), all_in=True)


def small_game(blueprint_iterations: int):
    """(game, real tree, abstraction without 0.75, CFR+ blueprint of the abstract game)."""
    game = load_game("poker", **SMALL)
    tree = compile_game(game)
    abstraction = BetAbstraction(game, (0.5, 1.0), True)
    blueprint = CFRSolver(restrict(game, tree, abstraction), CFR_PLUS).run(blueprint_iterations).average_strategy()
    return game, tree, abstraction, blueprint


R, S = 5, 4  # a 20-card deck with four suits: two, three or no suits can be interchangeable


def card(rank: int, suit: int) -> int:
    return rank * S + suit


def small_holdem(board: tuple[int, ...], rounds: tuple[int, ...], raise_cap: int = 2, num_ranks: int = R) -> PokerGame:
    spec = PokerSpec(num_ranks=num_ranks, num_suits=S, hole_cards=2, board_cards=rounds, betting="nolimit", ante=2, stack=8,
                     bet_fractions=(1.0,), all_in=True, first_player=(0,) * len(rounds), board=board, raise_cap=raise_cap)
    return PokerGame(spec, name="small_holdem")


TWO_ABSENT = (card(0, 0), card(2, 0), card(4, 1), card(1, 1))  # suits 2 and 3 absent
MONOTONE = (card(0, 0), card(2, 0), card(4, 0), card(1, 0))  # suits 1, 2, 3 absent


# -- the papers' example blueprints ------------------------------------------------------------------


def coin_toss_blueprint(tree: PublicTree) -> Strategy:
    """Coin Toss with the blueprint of safe-and-nested Fig. 2.

    Player 0's rows: Heads, Tails; columns Sell, Play. Player 1: Heads, Tails, Forfeit.
    """
    return Strategy(tree.game_id, (np.array([[0.25, 0.75], [0.5, 0.5]]), np.array([[0.5, 0.25, 0.25]])))
