"""Depth-first passes over the rows of live hands only (``drop_zero_weight``) against the passes over every row."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.eval.best_response import exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, DCFR, CFRSolver
from subgame.tree import kernels
from subgame.tree.compile import compile_game
from subgame.tree.poker_layout import ACTOR, INFOSET, MAP, SIZE, live_layout
from subgame.tree.threads import set_threads
from tests.tree.test_kernels import POKER, REQUIRED, poker_tree
from tests.tree.test_poker_layout import isomorphic_tree, narrow_spot, roots

pytestmark = pytest.mark.skipif(not kernels.available() and not REQUIRED,
                                reason="the compiled extension was not built (no C compiler at install)")


@pytest.fixture
def everywhere(monkeypatch):
    """The compiled passes on trees of any size, chance children shared among threads from the first row."""
    monkeypatch.setattr(kernels, "MIN_STATES", 0)
    monkeypatch.setattr(kernels, "MIN_FAN_ROWS", 0)


def live_infosets(solver: CFRSolver, p: int) -> np.ndarray:
    """[I] whether each of player p's information sets is a row the live layout keeps."""
    layout = solver.tree.layout
    assert layout is not None
    live = live_layout(layout, (solver._root_rows(0), solver._root_rows(1)))
    assert live.live_node is not None and live.live_row is not None
    out = np.zeros(solver.regrets[p].shape[0], dtype=bool)
    for n in np.flatnonzero((layout.node[:, ACTOR] == p) & (layout.node[:, INFOSET] >= 0)).tolist():
        count, first, _ = live.live_node[p, n].tolist()
        out[layout.node[n, INFOSET] + live.live_row[p, first : first + count]] = True
    return out


def check_same(full: CFRSolver, dropped: CFRSolver) -> None:
    """Every strategy sum bitwise; regrets bitwise at the kept rows and zero at the dropped ones."""
    for p in (0, 1):
        assert full.strategy_sum[p].tobytes() == dropped.strategy_sum[p].tobytes()
        kept = live_infosets(dropped, p)
        assert np.array_equal(full.regrets[p][kept], dropped.regrets[p][kept])
        assert not dropped.regrets[p][~kept].any()


@pytest.mark.parametrize("key", [k for k in POKER if not k.startswith("leduc")])
@pytest.mark.parametrize("config", [CFR_PLUS, DCFR], ids=["cfr+", "dcfr"])
def test_dropping_zero_weight_hands_keeps_every_sum_and_the_exploitability(everywhere, key, config):
    tree = poker_tree(key)
    reach = roots(tree, 4)
    assert not all(r.all() for r in reach)  # some hands are dropped
    full = CFRSolver(tree, config, root_reach=reach).run(9)
    dropped = CFRSolver(tree, config, root_reach=reach, drop_zero_weight=True).run(9)
    check_same(full, dropped)
    a, b = (exploitability(tree, s.average_strategy(), root_reach=reach) for s in (full, dropped))
    assert a == b


@pytest.mark.parametrize("threads", [1, 2])
def test_the_dropped_rows_pass_is_bitwise_on_any_thread_count(everywhere, threads):
    tree = poker_tree("all_in_runout")
    reach = roots(tree, 7)
    old = set_threads(threads)
    try:
        dropped = CFRSolver(tree, DCFR, root_reach=reach, drop_zero_weight=True, dtype="float32").run(8)
    finally:
        set_threads(old)
    check_same(CFRSolver(tree, DCFR, root_reach=reach, dtype="float32").run(8), dropped)


def test_a_suit_isomorphic_tree_maps_the_deals_it_left_out_through_the_kept_rows(everywhere):
    tree = isomorphic_tree()
    # ranges without any pair of nines: zeros the passes drop, alike in every suit (as the isomorphism needs)
    reach = tuple(np.array([0.0 if label.count("9") == 2 else 1.0 + 0.1 * i
                            for i, label in enumerate(tree.players[p].label[rs.start : rs.stop])])
                  for p, rs in enumerate(tree.root_slice))
    check_same(CFRSolver(tree, DCFR, root_reach=reach).run(6),
               CFRSolver(tree, DCFR, root_reach=reach, drop_zero_weight=True).run(6))


def test_with_every_hand_in_the_ranges_the_passes_keep_the_whole_layout(everywhere):
    tree = poker_tree("three_rounds")
    solver = CFRSolver(tree, DCFR, drop_zero_weight=True, compact=True)
    assert solver.sources_layout is tree.layout  # nothing to drop: no copy of the layout's rows
    check_same(CFRSolver(tree, DCFR).run(5), CFRSolver(tree, DCFR, drop_zero_weight=True).run(5))


def test_a_turn_spot_with_narrow_ranges_solves_the_same():
    """A 52-card turn whose ranges hold a third of the hands: the same iterations to the same exploitability."""
    problem = narrow_spot("Ts 6h Ah 7c", 4780, 2000, "allin", 3, 0.35)
    full, dropped = problem.solver(DCFR).run(5), problem.solver(DCFR, drop_zero_weight=True).run(5)
    check_same(full, dropped)
    assert problem.exploitability(full) == problem.exploitability(dropped)


def test_small_boards_valued_by_their_payoff_matrix_are_refused():
    solver = CFRSolver(compile_game(load_game("leduc")), CFR_PLUS, engine="passes", drop_zero_weight=True)
    with pytest.raises(GameDefinitionError, match="payoff matrix"):
        solver.step()


def test_the_deals_of_every_betting_line_share_their_kept_rows():
    """A river card dealt after several turn lines keeps the same hands after each: one entry of kept rows and map."""
    problem = narrow_spot("Ts 6h Ah 7c", 4780, 2000, "0.5,allin", 5, 0.35)
    layout = problem.tree.layout
    assert layout is not None
    live = live_layout(layout, problem.root_reach)
    assert live.live_node is not None
    dealt = np.flatnonzero(layout.node[:, MAP] >= 0)
    maps = {int(layout.node[c, MAP]) for c in dealt}
    assert len(dealt) > len(maps)  # several betting lines deal each river card
    for p in (0, 1):
        assert len({int(x) for x in live.live_node[p, dealt, 2]}) == len(maps)  # one kept-rows map a deal
        assert live.maps[p].size <= sum(int(layout.node[layout.node[:, MAP] == m, SIZE][0]) for m in maps)
