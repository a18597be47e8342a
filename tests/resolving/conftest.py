"""The small no-limit game of the nested-solving and translation tests, with its blueprint."""

from __future__ import annotations

from subgame.games import load_game
from subgame.resolving import BetAbstraction, restrict
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.compile import compile_game

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
