"""A strategy of a game plays at a match of the same game under another name (Leduc's antes as the ACPC file's blinds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from subgame.agents.acpc.same_game import adopt_strategy, same_game
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"


def _tree(name: str, **params):
    return compile_game(load_game(name, **params))


@pytest.fixture(scope="module")
def leduc():
    return _tree("leduc")


def test_the_acpc_files_are_the_built_in_games(leduc):
    assert same_game(_tree(str(DATA / "leduc.game")), leduc)  # blinds 1, 1 for the antes
    assert same_game(_tree(str(DATA / "leduc_ante.game")), leduc)
    assert same_game(_tree(str(DATA / "kuhn.game")), _tree("kuhn"))
    assert _tree(str(DATA / "leduc.game")).game_id != leduc.game_id  # the names differ


@pytest.mark.parametrize("params", [{"ante": 2}, {"raise_sizes": (2, 6)}, {"max_raises": (1, 2)}, {"num_suits": 3}])
def test_other_rules_are_another_game(leduc, params):
    assert not same_game(_tree("leduc", **params), leduc)


def test_a_strategy_is_adopted_by_the_same_game_only(leduc, tmp_path):
    strategy = CFRSolver(leduc, CFR_PLUS).run(20).average_strategy()
    file = tmp_path / "leduc.npz"
    Strategy(strategy.game_id, strategy.probs, {"game": "leduc", "params": {}}).save(file, leduc)
    acpc = _tree(str(DATA / "leduc.game"))
    adopted = adopt_strategy(file, acpc)
    assert adopted is not None and adopted.game_id == acpc.game_id
    assert all(np.array_equal(x, y) for x, y in zip(adopted.probs, strategy.probs))
    assert adopt_strategy(file, leduc) is None  # its own game: nothing to adopt
    assert adopt_strategy(file, _tree("leduc", ante=2)) is None
    unrecorded = tmp_path / "bare.npz"
    strategy.save(unrecorded, leduc)
    assert adopt_strategy(unrecorded, acpc) is None
