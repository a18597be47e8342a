"""A four-round no-limit game on a reduced deck that compiles in well under a second, and its compiled tree."""

from __future__ import annotations

import os
from functools import cache

import pytest

from subgame.blueprint.implicit_mccfr import available
from subgame.games import load_game
from subgame.games.poker.game import PokerGame
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import PublicTree

REDUCED = dict(num_ranks=4, num_suits=2, hole_cards=1, board_cards=(0, 1, 1, 1), betting="nolimit", ante=0, blinds=(2, 1),
               stack=6, bet_fractions=(1.0,), all_in=True, first_player=(1, 0, 0, 0), raise_cap=1)


@cache
def reduced() -> tuple[PokerGame, PublicTree]:
    game = load_game("poker", **REDUCED)
    assert isinstance(game, PokerGame)
    return game, compile_game(game)


@pytest.fixture(scope="session")
def reduced_game() -> tuple[PokerGame, PublicTree]:
    return reduced()


#: CI has a C compiler: there the implicit solver's loop must have been built (as the sweep kernels must).
REQUIRED = os.environ.get("SUBGAME_REQUIRE_KERNELS") == "1"
needs_loop = pytest.mark.skipif(not available() and not REQUIRED,
                                reason="the compiled loop of implicit MCCFR was not built (no C compiler at install)")
