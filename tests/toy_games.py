"""The small hand-made games and strategies the tests share, in one place.

Each is the smallest case of what a test needs: a game with a forgetful player or a hidden
actor (refused by the compiler), a one-player game, seeded random games for differential
tests, ``.efg`` texts, and the papers' example blueprints.
"""

from __future__ import annotations

import numpy as np

from subgame.strategy import Strategy
from subgame.tree.public_tree import PublicTree


def coin_toss_blueprint(tree: PublicTree) -> Strategy:
    """Coin Toss with the blueprint of safe-and-nested Fig. 2.

    Player 0's rows: Heads, Tails; columns Sell, Play. Player 1: Heads, Tails, Forfeit.
    """
    return Strategy(tree.game_id, (np.array([[0.25, 0.75], [0.5, 0.5]]), np.array([[0.5, 0.25, 0.25]])))
