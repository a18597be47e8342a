"""The solver's plug-ins: a new leaf and a new root gadget are each one small class.

Neither class below touches the solver: a leaf answers ``values`` and ``end_iteration``,
a gadget answers ``root_range`` and ``update``; the solver owns its reaches.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from subgame.errors import GameDefinitionError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.resolving import blueprint_values, public_node, resolve_subgame, solve_subgames
from subgame.resolving.solving import blueprint_problem
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.operators import SparseTerminal
from tests.conftest import compiled


@dataclass
class MatrixLeaf:
    """A bilinear leaf: player 0's counterfactual values are ``u @ reach_1``; it records its calls."""

    u: sp.csr_matrix  #: [G0, G1]
    calls: list[tuple[int, int | None]] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)

    def values(self, player: int, reach: tuple[np.ndarray, np.ndarray], iteration: int | None) -> np.ndarray:
        self.calls.append((player, iteration))
        return self.u @ reach[1] if player == 0 else -(self.u.T @ reach[0])

    def end_iteration(self, t: int) -> None:
        self.ended.append(t)


def _split_terminals(tree, depth):
    """The tree with the payoffs of player 0's private states deeper than ``depth`` moved into a leaf."""
    u = tree.terminals[0].matrix()
    deep = (tree.depth[tree.players[0].node] > depth).astype(float)
    shallow = sp.diags(1.0 - deep) @ u
    return replace(tree, terminals=(SparseTerminal(shallow.tocsr(), shallow.T.tocsr()),)), MatrixLeaf((sp.diags(deep) @ u).tocsr())


def test_a_leaf_carries_values_exactly_like_the_terminals_it_replaces(leduc_tree):
    cut, leaf = _split_terminals(leduc_tree, depth=4)
    assert leaf.u.nnz > 0 and cut.terminals[0].matrix().nnz > 0
    whole = CFRSolver(leduc_tree, CFR_PLUS).run(20).average_strategy()
    split = CFRSolver(cut, CFR_PLUS, leaves=(leaf,)).run(20).average_strategy()
    for p in (0, 1):
        np.testing.assert_allclose(split.probs[p], whole.probs[p], rtol=0, atol=1e-12)
    # each pass asks for the values of iteration t, then the iteration ends
    assert leaf.calls[:4] == [(0, 1), (1, 1), (0, 2), (1, 2)] and leaf.ended == list(range(1, 21))
    leaf.calls.clear()
    got = exploitability(cut, whole, leaves=(leaf,))
    assert got.exploitability == pytest.approx(exploitability(leduc_tree, whole).exploitability, abs=1e-12)
    assert leaf.calls and all(it is None for _, it in leaf.calls)  # an evaluation says so


@dataclass
class HedgeResolveGadget:
    """Follow/terminate at each root information set learned with Hedge instead of regret matching+."""

    player: int
    alt: np.ndarray  #: [R]
    rate: float = 20.0
    gain: np.ndarray = field(init=False)  #: [R] cumulative advantage of following

    def __post_init__(self) -> None:
        self.gain = np.zeros_like(self.alt)

    def root_range(self) -> np.ndarray:
        return expit(self.rate * self.gain)

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None:
        if player == self.player:
            self.gain += root_cfv - self.alt


@pytest.mark.slow
def test_a_new_gadget_plugs_into_the_one_re_solver():
    """Coin Toss (safe-and-nested §4.2): with any gadget that learns follow/terminate, the re-solved
    strategy keeps every alternative payoff, which the blueprint itself attains."""
    game, tree = load_game("coin_toss"), compiled("coin_toss")
    blueprint = Strategy(tree.game_id, (np.array([[0.25, 0.75], [0.5, 0.5]]), np.array([[0.5, 0.25, 0.25]])))
    bv = blueprint_values(tree, blueprint)
    play = public_node(tree, ("", "Play"))
    reference = solve_subgames(game, bv, [play], 1, "resolve", iterations=2000)
    problem = blueprint_problem(bv, reference.part, 1, "resolve")
    mine = resolve_subgame(problem, iterations=2000, gadget=HedgeResolveGadget(0, problem.alt))
    assert np.all(mine.margins >= -5e-3)
    np.testing.assert_allclose(mine.alt, reference.alt)
    with pytest.raises(Exception, match="gadget plays for player 1"):
        resolve_subgame(problem, gadget=HedgeResolveGadget(1, problem.alt))


def test_the_solver_checks_what_it_is_given(kuhn_tree):
    with pytest.raises(GameDefinitionError, match=r"PRESETS\['cfr\+'\]"):
        CFRSolver(kuhn_tree, "cfr+")  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="iterations must be"):
        CFRSolver(kuhn_tree).run(-5)
    with pytest.raises(GameDefinitionError, match="root reach of player 0 has shape"):
        CFRSolver(kuhn_tree, root_reach=(np.ones(2), None))
