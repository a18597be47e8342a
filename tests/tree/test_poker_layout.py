"""Depth-first passes over a poker tree's layout against the compiled sweeps they replace: bitwise."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from subgame.eval.best_response import exploitability, layout_exploitability
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.ranges import Range, parse_cards
from subgame.resolving.spots import holdem_problem
from subgame.solve.cfr import CFR, CFR_PLUS, DCFR, LINEAR_CFR, MODICUM, PRESETS, CFRSolver
from subgame.tree import kernels, whole
from subgame.tree.poker_layout import KIND, PROBS, ROWS, Source, state_arrays
from subgame.tree.public_tree import CHANCE_NODE
from subgame.tree.threads import set_threads
from tests.tree.test_kernels import POKER, REQUIRED, poker_tree

pytestmark = pytest.mark.skipif(not kernels.available() and not REQUIRED,
                                reason="the compiled extension was not built (no C compiler at install)")

CONFIGS = {"cfr": CFR, "cfr+": CFR_PLUS, "dcfr": DCFR, "lcfr": LINEAR_CFR, "modicum": MODICUM}


@pytest.fixture
def everywhere(monkeypatch):
    """The compiled loops, and so the passes, on trees of any size (the tests' trees are small)."""
    monkeypatch.setattr(kernels, "MIN_STATES", 0)


def sweeps(tree):
    """The same tree without its layout: CFRSolver and exploitability sweep it."""
    return dataclasses.replace(tree, layout=None)


def roots(tree, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random root ranges with some hands left out."""
    rng = np.random.default_rng(seed)
    out = []
    for rs in tree.root_slice:
        r = rng.random(rs.stop - rs.start)
        r[rng.random(r.size) < 0.2] = 0.0
        out.append(r)
    return out[0], out[1]


def same(a: CFRSolver, b: CFRSolver) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.regrets + a.strategy_sum, b.regrets + b.strategy_sum))


@pytest.mark.parametrize("key", POKER)
@pytest.mark.parametrize("algo", CONFIGS)
@pytest.mark.slow
def test_iterations_are_bitwise_the_sweeps(everywhere, key, algo):
    """Every update rule, one and two cards a hand, several boards, runouts: the regrets and sums of the sweeps."""
    tree = poker_tree(key)
    assert tree.layout is not None
    reach = roots(tree, 3)
    passes = CFRSolver(tree, CONFIGS[algo], root_reach=reach).plan(12).run(12)
    assert not any(pa.states.stored for pa in tree.players)  # no per-state index array was needed
    swept = CFRSolver(sweeps(tree), CONFIGS[algo], root_reach=reach).plan(12).run(12)
    assert same(passes, swept)


@pytest.mark.parametrize("key", ["three_rounds", "all_in_runout"])
@pytest.mark.parametrize("shared", ["chance", "decision"])
def test_float32_and_threads_are_bitwise_too(everywhere, monkeypatch, key, shared):
    """Threads share the children of chance nodes (from the first row), or, where no chance node has the rows to, those
    of the decision node above them: bitwise one thread's either way."""
    tree = poker_tree(key)
    node = tree.layout.node
    largest_chance = int(node[node[:, KIND] == CHANCE_NODE, ROWS].max())
    monkeypatch.setattr(kernels, "MIN_FAN_ROWS", 0 if shared == "chance" else largest_chance + 1)
    reach = roots(tree, 5)
    old = set_threads(1)
    try:
        one = CFRSolver(tree, DCFR, root_reach=reach, dtype="float32").run(9)
        set_threads(2)
        before = kernels._shared_nodes[0]
        two = CFRSolver(tree, DCFR, root_reach=reach, dtype="float32").run(9)
    finally:
        set_threads(old)
    assert kernels._shared_nodes[0] - before >= 2 * 9
    assert same(one, two)
    assert same(one, CFRSolver(sweeps(tree), DCFR, root_reach=reach, dtype="float32").run(9))
    assert one.regrets[0].dtype == np.float32


def test_nested_sharing_on_more_threads_than_cores_from_two_python_threads_keeps_one_threads_bits(everywhere, monkeypatch):
    """Every node with a row below it shared (MIN_FAN_ROWS 0) among three threads: helpers join nodes below nodes they
    share, and a caller waiting for its helpers joins their nodes below its own, while a second Python thread solves
    the same tree at once. Each solve ends with one thread's bits."""
    from concurrent.futures import ThreadPoolExecutor

    tree = poker_tree("three_rounds")
    reach = roots(tree, 5)
    monkeypatch.setattr(kernels, "MIN_FAN_ROWS", 0)
    old = set_threads(1)
    try:
        alone = CFRSolver(tree, DCFR, root_reach=reach).run(4)
        set_threads(3)
        before = kernels._shared_nodes[0]
        with ThreadPoolExecutor(max_workers=2) as pool:
            for _ in range(10):
                assert all(same(alone, s) for s in pool.map(lambda _: CFRSolver(tree, DCFR, root_reach=reach).run(4), range(2)))
        assert kernels._shared_nodes[0] > before
    finally:
        set_threads(old)


@pytest.mark.parametrize("key", POKER)
def test_exploitability_is_the_sweeps(everywhere, key):
    """Best-response values bitwise the sweeps' (with and without root ranges); player 0's value to rounding."""
    tree = poker_tree(key)
    solver = CFRSolver(tree, CFR_PLUS).run(7)
    strategy = solver.average_strategy()
    for reach in ((None, None), roots(tree, 11)):
        fast = exploitability(tree, strategy, root_reach=reach)
        slow = exploitability(sweeps(tree), strategy, root_reach=reach)
        assert fast.br_values == slow.br_values
        assert fast.game_value == pytest.approx(slow.game_value, rel=1e-12, abs=1e-15)
        sources = solver.average_sources()
        assert sources is not None
        assert layout_exploitability(tree, sources, reach) == fast  # read from the sums: the same average


def test_the_index_arrays_are_made_when_asked_and_match_the_compiler(everywhere):
    tree = poker_tree("all_in_runout")
    assert not any(pa.states.stored for pa in tree.players)
    plain = sweeps(tree)
    for p, pa in enumerate(tree.players):
        made = state_arrays(tree.layout, p, pa.max_actions, np.int32, pa.num_infosets)
        assert all(np.array_equal(x, y) for x, y in zip(made, (pa.node, pa.parent, pa.child_seq, pa.infoset_priv)))
        assert pa.states.stored  # kept once made
    assert plain.plan.root_slice == tree.root_slice


def test_the_passes_leave_sources_they_cannot_read_with_one_message(everywhere):
    tree = poker_tree("leduc")
    legal = tree.players[0].legal
    bad = Source(PROBS, np.zeros(legal.shape, dtype=np.float16), legal)
    from subgame.errors import GameDefinitionError
    from subgame.tree.poker_layout import BEST_RESPONSE, root_values

    ones = tuple(np.ones(rs.stop - rs.start) for rs in tree.root_slice)
    with pytest.raises(GameDefinitionError, match="float64 or float32"):
        root_values(tree.layout, 0, BEST_RESPONSE, (bad, bad), ones)


def test_a_layouts_rows_are_int16_and_the_passes_read_no_other_rows(everywhere):
    """A node's rows are below its board's hand count (1,326 at most for two cards of 52): the layout and its kept rows
    hold them in int16 (a flop holds tens of millions), the passes refuse a layout whose rows are anything else, and
    more hands than int16 counts take int64 (hands of more cards than the passes take)."""
    from subgame.errors import GameDefinitionError
    from subgame.tree.poker_layout import BEST_RESPONSE, live_layout, root_values, row_dtype

    tree = poker_tree("all_in_runout")
    L = tree.layout
    live = live_layout(L, roots(tree, 3))
    rows = (L.local, L.ladder_local, L.hand_of_row, L.rank, L.maps)
    assert all(r.dtype == np.int16 for r in rows + (live.maps, live.live_row, live.live_hand_row, live.live_hand_twin,
                                                   live.live_ladder_row))
    probs = tuple(Source(PROBS, pa.legal / pa.legal.sum(axis=1, keepdims=True), pa.legal) for pa in tree.players)
    ones = tuple(np.ones(rs.stop - rs.start) for rs in tree.root_slice)
    assert np.isfinite(root_values(L, 0, BEST_RESPONSE, probs, ones)).all()
    for name in ("maps", "rank"):
        wide = dataclasses.replace(L, **{name: getattr(L, name).astype(np.int32)})
        with pytest.raises(GameDefinitionError, match="rows must be contiguous int16"):
            root_values(wide, 0, BEST_RESPONSE, probs, ones)
    assert row_dtype(1326) == np.int16 and row_dtype(2**15 - 1) == np.int16 and row_dtype(2**15) == np.int64


@pytest.mark.slow
def test_a_turn_spot_solves_by_passes_with_its_exploitability():
    """A 52-card turn with its river cards: the solve takes the passes (at full size) and matches the sweeps."""
    board = parse_cards("Ts 6h Ah 7c")
    spot = HoldemSpot(board, 4780, 2000, BetSizing.parse("allin"))
    rng = np.random.default_rng(2)
    ranges = tuple(Range(np.where(Range.uniform(board).weights > 0, rng.random(1326), 0.0)) for _ in range(2))
    problem = holdem_problem(spot, ranges)
    assert problem.tree.layout is not None and kernels.active(problem.tree.players[0].num_states)
    passes = problem.solver(DCFR).run(6)
    swept = CFRSolver(sweeps(problem.tree), DCFR, root_reach=problem.root_reach).run(6)
    assert same(passes, swept)
    assert problem.exploitability(passes) == problem.exploitability(swept.average_strategy())


def narrow_spot(board: str, pot: int, stack: int, bets: str, seed: int, share: float):
    """A 52-card spot whose ranges hold about ``share`` of the hands, each with a random weight."""
    cards = parse_cards(board)
    rng = np.random.default_rng(seed)
    allowed = Range.uniform(cards).weights > 0
    ranges = tuple(Range(np.where(allowed & (rng.random(1326) < share), rng.random(1326), 0.0)) for _ in range(2))
    return holdem_problem(HoldemSpot(cards, pot, stack, BetSizing.parse(bets)), ranges)


@pytest.fixture(scope="module")
def river():
    """A river spot (no chance node) of the subgame4 endgame's board and pot, random ranges over half the hands."""
    return narrow_spot("Js Ks 5c Qs 7d", 3750, 18125, "0.5,1,allin", 4, 0.5)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_river_shares_its_actions_among_threads_bitwise(river, preset):
    """A river has no chance node, so a pass on two threads shares the root's actions among them instead: every
    preset's regrets, sums and exploitability (best-response and value passes) are bitwise one thread's, in float64
    over every row and in float32 over the live rows."""
    def solve(threads: int, **options):
        old, before = set_threads(threads), kernels._shared_nodes[0]
        try:
            solver = river.solver(PRESETS[preset], **options).run(5)
            return solver, river.exploitability(solver), kernels._shared_nodes[0] - before
        finally:
            set_threads(old)

    assert river.tree.layout is not None and not (river.tree.layout.node[:, KIND] == CHANCE_NODE).any()
    assert river.tree.layout.node[0, ROWS] >= kernels.MIN_FAN_ROWS  # rows enough below the root
    for options in ({}, {"dtype": "float32", "drop_zero_weight": True}):
        one, one_ex, one_shared = solve(1, **options)
        two, two_ex, two_shared = solve(2, **options)
        assert one.loops == "passes" and one_shared == 0
        assert two_shared == 2 * 5 + 3  # each CFR pass, the two best-response passes and the value pass
        assert same(one, two) and one_ex == two_ex


def test_passes_on_two_python_threads_at_once_keep_their_bits(river):
    """Two solves of one tree in Python threads at once (ctypes lets go of the GIL in a pass): one holds the helper
    threads while the other, finding them held, visits its children alone, and each solver's passes write the root
    values that its root's regret update reads back to an array of its own (one the layout kept for all of them let
    a few in a hundred such pairs end with other bits). Every pair ends with one thread's bits."""
    from concurrent.futures import ThreadPoolExecutor

    old = set_threads(1)
    try:
        alone = river.solver(DCFR).run(6)
        with ThreadPoolExecutor(max_workers=2) as pool:
            for threads in (1, 2):
                set_threads(threads)
                for _ in range(25):
                    assert all(same(alone, s) for s in pool.map(lambda _: river.solver(DCFR).run(6), range(2)))
    finally:
        set_threads(old)


def _threads_here() -> int:
    return len(os.listdir("/proc/self/task"))


def _solve_in_child(river, queue) -> None:
    old = set_threads(2)
    try:
        before = _threads_here()
        solver = river.solver(DCFR).run(3)
        queue.put((_threads_here() - before, b"".join(x.tobytes() for x in solver.regrets + solver.strategy_sum)))
    finally:
        set_threads(old)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the process's threads in /proc (Linux)")
def test_a_forked_process_starts_helper_threads_of_its_own(river):
    """The passes keep their helper threads from one shared node to the next; a process forked after they started
    has none of them, so it starts its own (one more thread after its solve) and gets the parent's bits."""
    import multiprocessing

    old = set_threads(2)
    try:
        solver = river.solver(DCFR).run(3)
    finally:
        set_threads(old)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_solve_in_child, args=(river, queue))
    child.start()
    started, got = queue.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0 and started == 1
    assert got == b"".join(x.tobytes() for x in solver.regrets + solver.strategy_sum)


def isomorphic_tree():
    from subgame.tree.isomorphism import suit_classes
    from subgame.tree.poker_compile import compile_poker
    from tests.toy_games import MONOTONE, R, S, small_holdem

    return compile_poker(small_holdem(MONOTONE, (4, 1), raise_cap=1), suits=suit_classes(R, S, MONOTONE), sparse_threshold=0)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_suit_isomorphic_tree_adds_the_deals_it_left_out_as_the_sweeps_do(everywhere, monkeypatch, threads):
    tree = isomorphic_tree()
    assert tree.mirrors is not None and tree.layout is not None and tree.layout.mirror.size
    assert not any(m.stored for m in tree.mirrors)  # the passes read the layout's mirror entries; the sweeps' edges wait
    monkeypatch.setattr(kernels, "MIN_FAN_ROWS", 0)  # the chance nodes' children on threads too
    old = set_threads(threads)
    try:
        passes = CFRSolver(tree, DCFR).run(10)
        fast = exploitability(tree, passes.average_strategy())
    finally:
        set_threads(old)
    swept = CFRSolver(sweeps(tree), DCFR).run(10)
    assert same(passes, swept)
    slow = exploitability(sweeps(tree), swept.average_strategy())
    assert fast.br_values == slow.br_values and fast.game_value == pytest.approx(slow.game_value, rel=1e-12)


def small_board_trees():
    """Leduc and the offtree-values game restricted to its blueprint's bets: every board of at most six hands."""
    from subgame.experiments.nested_table import nested_game
    from subgame.games import load_game
    from subgame.resolving import BetAbstraction, restrict
    from subgame.tree.compile import compile_game

    game = nested_game(3, 20)
    yield compile_game(load_game("leduc"))
    yield restrict(game, compile_game(game), BetAbstraction(game, (0.5, 1.0), True))


@pytest.mark.parametrize("which", [0, 1])
def test_small_boards_are_bitwise_the_sweeps_sparse_payoff_matrix(which):
    """Boards of at most 64 hands get one sparse payoff matrix in the sweeps; the passes sum each row in its order,
    so hundreds of CFR+ iterations (whose clipping at zero amplifies any rounding) stay bitwise the sweeps'."""
    from subgame.tree.operators import SparseTerminal

    tree = list(small_board_trees())[which]
    assert any(isinstance(op, SparseTerminal) for op in tree.terminals) and tree.layout is not None
    assert bool(tree.layout.board[:, 4].all())
    passes = CFRSolver(tree, CFR_PLUS, engine="passes").run(300)
    swept = CFRSolver(tree, CFR_PLUS, engine="compiled").run(300)
    assert CFRSolver(tree, CFR_PLUS).loops == "passes" and swept.loops == "compiled"
    assert same(passes, swept)
    strategy = passes.average_strategy()
    assert exploitability(tree, strategy).br_values == exploitability(sweeps(tree), strategy).br_values


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_small_trees_take_the_passes_and_keep_the_numpy_results(name):
    """Below MIN_STATES "auto" takes the passes where every board is valued by the sparse payoff matrix: the
    regrets, sums and best-response values stay bitwise those of the numpy sweeps."""
    from subgame.games import load_game
    from subgame.tree.compile import compile_game

    tree = compile_game(load_game(name))
    auto, plain = CFRSolver(tree, CFR_PLUS), CFRSolver(tree, CFR_PLUS, engine="numpy")
    assert auto.loops == "passes" and plain.loops == "numpy"
    assert same(auto.run(200), plain.run(200))
    strategy = auto.average_strategy()
    with kernels.compiled(False):
        slow = exploitability(tree, strategy)
    assert exploitability(tree, strategy).br_values == slow.br_values


def test_remembered_pointers_follow_the_arrays_not_their_ids():
    """A pass reads the solver's arrays by remembered pointers: an array made where a freed one was (same id) gets
    its own pointer, and a freed array's entry goes."""
    seen = []
    for size in range(1, 200):
        a = np.zeros(size)
        assert kernels._kept_address(a) == a.ctypes.data == kernels._kept_address(a)
        seen.append(id(a))
        del a
    assert len(set(seen)) < len(seen)  # ids were reused
    assert not any(key in kernels._kept for key in seen)


def test_a_pass_writes_its_root_values_where_asked_and_kept_ones_stay_ones(everywhere):
    """``poker_pass`` writes into a given ``out`` what it returns new otherwise, refuses an ``out`` of another
    shape or precision, and the ones kept for a root reach not given cannot be written."""
    from subgame.errors import GameDefinitionError
    from subgame.tree.poker_layout import BEST_RESPONSE

    tree = poker_tree("leduc")
    layout = tree.layout
    solver = CFRSolver(tree, CFR_PLUS).run(5)
    sources = tuple(Source(PROBS, np.ascontiguousarray(x), pa.legal)
                    for x, pa in zip(solver.average_strategy().probs, tree.players))
    reach = roots(tree, 3)
    fresh = kernels.poker_pass(layout, 0, BEST_RESPONSE, sources, None, reach)
    out = np.full(reach[1].shape, np.nan)
    assert kernels.poker_pass(layout, 0, BEST_RESPONSE, sources, None, reach, out) is out
    assert np.array_equal(out, fresh)
    for bad in (np.empty(reach[1].size + 1), np.empty(reach[1].shape, dtype=np.float32)):
        with pytest.raises(GameDefinitionError, match="opponent's root rows"):
            kernels.poker_pass(layout, 0, BEST_RESPONSE, sources, None, reach, bad)
    ones = layout.kept("ones", 4)
    assert layout.kept("ones", 4) is ones and np.array_equal(ones, np.ones(4)) and not ones.flags.writeable
    # a prepared call keeps root reaches' addresses: float32 ones are refused, not copied into arrays that would die
    with pytest.raises(GameDefinitionError, match="root reaches are contiguous float64"):
        whole.LayoutBestResponses(layout, sources, (reach[0].astype(np.float32), reach[1]))
    assert np.array_equal(kernels.poker_pass(layout, 0, BEST_RESPONSE, sources, None, (reach[0].astype(np.float32), reach[1])),
                          kernels.poker_pass(layout, 0, BEST_RESPONSE, sources, None, (reach[0].astype(np.float32).astype(np.float64), reach[1])))


def test_remembered_pass_calls_follow_each_solvers_arrays_and_rule():
    """A CFR pass's call is remembered for the arrays it reads and writes: solvers stepped in turn on one tree (other
    rules, root ranges, precision) end bitwise where each run alone by the numpy sweeps does, and a freed solver's calls go."""
    from subgame.games import load_game
    from subgame.tree.compile import compile_game

    tree = compile_game(load_game("leduc"))
    reach = roots(tree, 5)
    made = [lambda e: CFRSolver(tree, CFR_PLUS, engine=e), lambda e: CFRSolver(tree, DCFR, root_reach=reach, engine=e),
            lambda e: CFRSolver(tree, LINEAR_CFR, dtype=np.float32, engine=e)]
    together = [make("auto") for make in made]
    assert all(s.loops == "passes" for s in together)
    for _ in range(15):
        for s in together:
            s.step()
    for s, make in zip(together, made):
        assert same(s, make("numpy").run(15))
    if whole.iterations_built():  # each solver holds its own prepared call (CFRSolver.run), freed with it
        import weakref

        assert all(isinstance(s._whole, whole.PassIterations) for s in together)
        freed = [weakref.ref(s) for s in together]
        del together, s
        assert all(r() is None for r in freed)
        return
    before = len(kernels._calls)
    del together, s
    assert len(kernels._calls) < before


@pytest.mark.parametrize("key", ["three_rounds", "all_in_runout"])
@pytest.mark.parametrize("gadget", ["resolve", "maxmargin"])
@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("keep", ["all rows", "kept rows"])
def test_a_root_gadget_runs_on_the_passes_bitwise_the_sweeps(everywhere, key, gadget, player, keep, monkeypatch):
    """Safe re-solving (safe-and-nested §4.2) on the depth-first passes: the gadget player's root range read before each
    pass (player 0's again after her own pass), her root values handed to the gadget after it; the regrets, sums,
    gadget regrets and average root range of the sweeps, bit for bit, for either gadget player, rows dropped or not."""
    from subgame.resolving.gadgets import MaxMarginGadget, ResolveGadget

    tree = poker_tree(key)
    reach = list(roots(tree, 5))
    rs = tree.root_slice[player]
    alt = np.random.default_rng(player).normal(0.0, 0.5, rs.stop - rs.start)
    reach[player] = None

    def make() -> ResolveGadget | MaxMarginGadget:
        return ResolveGadget(player, alt.copy()) if gadget == "resolve" else MaxMarginGadget(player, alt.copy())

    passes = CFRSolver(tree, CFR_PLUS, gadget=make(), root_reach=(reach[0], reach[1]), drop_zero_weight=keep == "kept rows")
    assert passes.passes, passes.why_not_passes()
    passes.run(2)
    built = []
    real = kernels._pass_args
    monkeypatch.setattr(kernels, "_pass_args", lambda *a: built.append(1) or real(*a))
    passes.run(7)  # a new root range each pass: the calls remembered for the solver's arrays serve every iteration
    assert not built
    swept = CFRSolver(sweeps(tree), CFR_PLUS, gadget=make(), root_reach=(reach[0], reach[1])).run(9)
    assert not swept.passes
    every_row = keep == "all rows"  # kept rows: a dropped hand's regrets stay zero (live_layout), its sums are zero alike
    for p in (0, 1):
        assert np.array_equal(passes.strategy_sum[p], swept.strategy_sum[p])
        assert not every_row or np.array_equal(passes.regrets[p], swept.regrets[p])
    assert np.array_equal(passes.gadget.regrets, swept.gadget.regrets)
    assert np.array_equal(passes.average_root_range(), swept.average_root_range())
    assert passes.gadget.regrets.any()  # the gadget learned something: the test compares real updates
