"""The generic compiler: information set counts, refusals, parts of trees (conformance: tests/games/test_conformance.py)."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.games import GAMES, load_game
from subgame.games.small import RockPaperScissors
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import TERMINAL_NODE, HistoryAtNode, LeafHistories
from tests.conftest import compiled
from tests.toy_games import Forgetful, HiddenActor


@pytest.mark.parametrize("name, infosets", [("kuhn", 12), ("leduc", 936)])
def test_infoset_counts(name, infosets):
    tree = compiled(name)
    assert tree.players[0].num_infosets + tree.players[1].num_infosets == infosets


def test_leduc_terminal_count():
    tree = compiled("leduc")
    # public betting sequences: 5 terminal first-round folds-or-not … counted directly:
    assert int(np.sum(tree.kind == TERMINAL_NODE)) == 274


def test_every_registered_game_builds():
    for name in GAMES:
        assert load_game(name).name in (name, "poker")


def test_imperfect_recall_is_refused():
    with pytest.raises(GameDefinitionError, match="perfect recall"):
        compile_game(Forgetful())


def test_private_actor_is_refused():
    with pytest.raises(GameDefinitionError, match="acting player must be publicly observable"):
        compile_game(HiddenActor())


def test_subtree_rooted_at_a_public_state_and_depth_limit():
    game = load_game("leduc")
    full = compiled("leduc")
    # the public state after check-check and a board card
    node = next(n for n, k in enumerate(full.public_key) if k[-3:-1] == ("c", "c") and len(k) == 5)
    sub = compile_game(game, public_state=full.public_key[node])
    assert sub.public_key[0] == full.public_key[node]
    # root private states are the six hole cards minus the board card
    assert sub.players[0].level_bounds[1] == 5
    cut = compile_game(game, depth_limit=2, leaf_histories=True)
    assert int(np.sum(cut.kind == 3)) > 0
    assert cut.max_depth == 2
    assert isinstance(cut.leaf_data, LeafHistories) and len(cut.leaf_data) == int(np.sum(cut.kind == 3))
    assert all(cut.kind[n] == 3 and hists and isinstance(hists[0], HistoryAtNode) for n, hists in cut.leaf_data.items())
    assert not compile_game(game).leaf_data and not compile_game(game, depth_limit=2).leaf_data


def test_unknown_public_state_is_refused():
    with pytest.raises(GameDefinitionError, match="no history"):
        compile_game(load_game("kuhn"), public_state=("x",))



def test_the_game_names_its_compiler():
    assert (load_game("leduc").tree_compiler, load_game("rps").tree_compiler) == ("poker", "enumerate")

    class PokerNamed(RockPaperScissors):
        tree_compiler = "poker"

    class Unknown(RockPaperScissors):
        tree_compiler = "elsewhere"

    with pytest.raises(GameDefinitionError, match="compile_poker needs a PokerGame"):
        compile_game(PokerNamed())
    with pytest.raises(GameDefinitionError, match="no public-tree compiler is called 'elsewhere'"):
        compile_game(Unknown())


@pytest.mark.parametrize("params", [
    {"num_ranks": 4, "num_suits": 4, "hole_cards": 2},
    {"num_ranks": 6, "num_suits": 4, "hole_cards": 2},
    {"num_ranks": 5, "num_suits": 3, "hole_cards": 2},
    {"num_ranks": 8, "num_suits": 2, "hole_cards": 1},
    {"num_ranks": 3, "num_suits": 4, "hole_cards": 2, "board_cards": "0,1,1", "raise_sizes": "2,4,4",
     "max_raises": "1,1,1", "first_player": "0,0,0"},
])
@pytest.mark.slow
def test_the_size_budget_matches_what_poker_trees_hold(params):
    """The compiler's size estimate is what trees really hold, within 25 %: it refuses a budget of
    0.8 times the measured size and accepts 1.25 times."""
    from subgame.errors import GameDefinitionError
    from subgame.tree.size import tree_bytes

    game = load_game("leduc", **params)
    measured = tree_bytes(compile_game(game))
    with pytest.raises(GameDefinitionError, match="allowed"):
        compile_game(game, max_bytes=int(0.8 * measured))
    assert tree_bytes(compile_game(game, max_bytes=int(1.25 * measured))) == measured
