"""Card abstraction in the CFR engine."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.solve.abstraction import Abstraction, hand_strength_abstraction, leduc_decomposition_abstraction
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from tests.conftest import compiled


@pytest.mark.slow
def test_decomposition_paper_leduc_abstraction():
    """Burch et al. 2014 report the abstract Leduc equilibrium exploitable by 0.382 chips/hand."""
    game, tree = load_game("leduc"), compiled("leduc")
    abstraction = leduc_decomposition_abstraction(game, tree)
    solver = CFRSolver(tree, CFR_PLUS, abstraction=abstraction).run(1000)
    avg = solver.average_strategy()
    for p in (0, 1):  # merged information sets play one strategy
        b = abstraction.buckets[p]
        for bucket in range(abstraction.num_buckets(p)):
            rows = avg.probs[p][b == bucket]
            np.testing.assert_allclose(rows, rows[:1].repeat(len(rows), axis=0))
    assert exploitability(tree, avg).exploitability == pytest.approx(0.382, abs=2e-3)


def test_identity_abstraction_equals_no_abstraction(kuhn_tree):
    identity = Abstraction(tuple(np.arange(pa.num_infosets) for pa in kuhn_tree.players))
    a = CFRSolver(kuhn_tree, CFR_PLUS, abstraction=identity).run(50).average_strategy()
    b = CFRSolver(kuhn_tree, CFR_PLUS).run(50).average_strategy()
    for p in (0, 1):
        np.testing.assert_allclose(a.probs[p], b.probs[p], atol=1e-12)


@pytest.mark.slow
def test_hand_strength_buckets_coarsen_gracefully():
    game, tree = load_game("leduc"), compiled("leduc")
    coarse = hand_strength_abstraction(game, tree, 1)
    fine = hand_strength_abstraction(game, tree, 3)
    assert coarse.num_buckets(0) < fine.num_buckets(0)
    e = [exploitability(tree, CFRSolver(tree, CFR_PLUS, abstraction=a).run(300).average_strategy()).exploitability
         for a in (coarse, fine)]
    assert e[1] < e[0]


def test_bucket_with_different_actions_is_refused(kuhn_tree):
    with pytest.raises(GameDefinitionError, match="different legal actions"):
        Abstraction.from_keys(kuhn_tree, lambda p, key, label: 0)
