"""One recorded CFR-D run on Leduc shared by the tests of this folder (CFR-D is deterministic)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from subgame.decompose import CFRDConfig, CFRDSolution, CFRDSolver, TrunkSplit
from subgame.games import load_game
from subgame.strategy import Strategy
from subgame.tree.public_tree import PublicTree
from tests.conftest import compiled

#: trunk iterations, inner iterations of the shared run
TRUNK_ITERATIONS, SUBGAME_ITERATIONS = 60, 50


@dataclass(frozen=True)
class Run:
    solver: CFRDSolver
    solution: CFRDSolution
    full: PublicTree
    explicit: Strategy  #: CFR-D's average strategy with its subgame part made explicit


@pytest.fixture(scope="session")
def leduc_run() -> Run:
    game = load_game("leduc")
    config = CFRDConfig(SUBGAME_ITERATIONS, batch=30, cached_chunks=None)
    solver = CFRDSolver(game, TrunkSplit(rounds=1), config, record_subgame_average=True).run(TRUNK_ITERATIONS)
    full = compiled("leduc")
    return Run(solver, solver.solution(), full, solver.explicit_average(full))
