"""Native Goofspiel against OpenSpiel's turn-based ``goofspiel``."""

from __future__ import annotations

import pytest

from subgame.errors import GameDefinitionError
from subgame.eval import expected_value, exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game


@pytest.mark.parametrize("num_cards, imp_info", [(3, True), (3, False), (4, True)])
def test_same_game_as_openspiel(num_cards, imp_info):
    pytest.importorskip("pyspiel")
    ours = compile_game(load_game("goofspiel", num_cards=num_cards, imp_info=imp_info))
    theirs = compile_game(load_game("openspiel:goofspiel", num_cards=num_cards, imp_info=imp_info,
                                    points_order="descending", returns_type="win_loss"))
    for p in (0, 1):
        assert ours.players[p].num_infosets == theirs.players[p].num_infosets
    assert exploitability(ours, Strategy.uniform(ours)).exploitability == pytest.approx(
        exploitability(theirs, Strategy.uniform(theirs)).exploitability, abs=1e-12)
    a = CFRSolver(ours, CFR_PLUS).run(40).average_strategy()
    b = CFRSolver(theirs, CFR_PLUS).run(40).average_strategy()
    assert exploitability(ours, a).exploitability == pytest.approx(exploitability(theirs, b).exploitability, abs=1e-12)
    assert expected_value(ours, a) == pytest.approx(expected_value(theirs, b), abs=1e-12)


def test_symmetric_game_has_value_zero():
    from subgame.solve.lp import solve_lp

    tree = compile_game(load_game("goofspiel", num_cards=4))
    assert solve_lp(tree).value == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("params, message", [
    ({"num_cards": 1}, "between 2 and 8"),
    ({"points_order": "random"}, "not supported"),
    ({"returns_type": "total_points"}, "returns_type"),
])
def test_bad_parameters(params, message):
    with pytest.raises(GameDefinitionError, match=message):
        load_game("goofspiel", **params)
