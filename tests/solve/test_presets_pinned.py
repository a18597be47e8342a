"""Exact early iterates of each CFR preset, pinned against OpenSpiel's solvers.

A convergence check cannot see an update rule that is slightly wrong (a discount applied
one iteration late, the average weighted by t instead of t^γ): the first iterates can. The
average policies of OpenSpiel's ``CFRSolver``, ``CFRPlusSolver``, ``LCFRSolver`` and
``DCFRSolver`` (alternating updates, the same parameters as our presets) after 1, 2 and 3
iterations are matched to 1e-12, on both the numpy path and the compiled loops.
"""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import cfr as os_cfr  # noqa: E402
from open_spiel.python.algorithms import discounted_cfr as os_dcfr  # noqa: E402

from subgame.games import load_game  # noqa: E402
from subgame.interop.openspiel import from_tabular_policy  # noqa: E402
from subgame.solve.cfr import CFR, CFR_PLUS, DCFR, LINEAR_CFR, CFRSolver  # noqa: E402
from subgame.tree import kernels  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402

PRESETS = {
    "cfr": (CFR, os_cfr.CFRSolver),
    "cfr+": (CFR_PLUS, os_cfr.CFRPlusSolver),
    "lcfr": (LINEAR_CFR, os_dcfr.LCFRSolver),
    "dcfr": (DCFR, os_dcfr.DCFRSolver),
}


def _check_first_iterates(name: str, preset: str, iterations: int) -> None:
    game = load_game(name)
    tree = compile_game(game)
    os_game = pyspiel.load_game(f"{name}_poker")
    config, reference = PRESETS[preset]
    ours, theirs = CFRSolver(tree, config), reference(os_game)
    for t in range(1, iterations + 1):
        ours.step()
        theirs.evaluate_and_update_policy()
        expected = from_tabular_policy(game, tree, theirs.average_policy(), os_game)
        got = ours.average_strategy()
        for p in (0, 1):
            np.testing.assert_allclose(got.probs[p], expected.probs[p], rtol=0, atol=1e-12, err_msg=f"{preset} t={t} p={p}")


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_kuhn_first_three_average_policies_equal_openspiel(preset, compiled):
    with kernels.compiled(compiled):
        _check_first_iterates("kuhn", preset, 3)


@pytest.mark.slow
@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "passes"])
@pytest.mark.parametrize("preset", ["cfr+", "dcfr"])
@pytest.mark.slow
def test_leduc_first_two_average_policies_equal_openspiel(preset, compiled):
    """Leduc runs the depth-first passes where the compiled loops are on (Kuhn is too small for them)."""
    with kernels.compiled(compiled):
        _check_first_iterates("leduc", preset, 2)
