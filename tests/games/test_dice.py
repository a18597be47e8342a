"""Native Liar's dice against OpenSpiel's ``liars_dice``."""

from __future__ import annotations

import pytest

from subgame.errors import GameDefinitionError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game

pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("sides", [3, 4])
@pytest.mark.slow
def test_same_game_as_openspiel(sides):
    ours = compile_game(load_game("liars_dice", dice_sides=sides))
    theirs = compile_game(load_game("openspiel:liars_dice", dice_sides=sides))
    assert ours.summary() == theirs.summary()
    assert exploitability(ours, Strategy.uniform(ours)).exploitability == pytest.approx(
        exploitability(theirs, Strategy.uniform(theirs)).exploitability, abs=1e-12
    )
    # CFR+ visits both trees in the same order, so it must produce the same numbers
    a = CFRSolver(ours, CFR_PLUS).run(30).average_strategy()
    b = CFRSolver(theirs, CFR_PLUS).run(30).average_strategy()
    assert exploitability(ours, a).exploitability == pytest.approx(exploitability(theirs, b).exploitability, abs=1e-12)


def test_uniform_exploitability_equals_openspiel():
    game = pyspiel.load_game("liars_dice", {"dice_sides": 4})
    from open_spiel.python import policy as os_policy

    expected = pyspiel.exploitability(game, os_policy.python_policy_to_pyspiel_policy(os_policy.TabularPolicy(game)))
    tree = compile_game(load_game("liars_dice", dice_sides=4))
    assert exploitability(tree, Strategy.uniform(tree)).exploitability == pytest.approx(expected, abs=1e-12)


def test_bad_parameters():
    with pytest.raises(GameDefinitionError, match="two faces"):
        load_game("liars_dice", dice_sides=1)
