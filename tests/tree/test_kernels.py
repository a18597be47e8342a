"""The compiled loops against the numpy code they replace: sweeps and regret updates bitwise, poker operators to rounding."""

from __future__ import annotations

import os

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.games import load_game
from subgame.games.poker import PokerGame
from subgame.solve.cfr import CFR, CFR_PLUS, DCFR, LINEAR_CFR, MODICUM, CFRConfig, CFRSolver
from subgame.strategy import Strategy
from subgame.tree import kernels
from subgame.tree.enumeration import enumerate_game
from subgame.tree.poker_compile import compile_poker
from subgame.tree.public_tree import TERMINAL_NODE
from subgame.tree.sweep import (
    backward_expected,
    forward_reach,
    leaf_values,
    regret_matching,
    sequence_values,
    transition_weights,
)
from tests.toy_games import POKER_GAMES as GAMES
from tests.toy_games import RIVER, RIVER_BOARD

REQUIRED = os.environ.get("SUBGAME_REQUIRE_KERNELS") == "1"
pytestmark = pytest.mark.skipif(not kernels.available() and not REQUIRED,
                                reason="the compiled extension was not built (no C compiler at install)")

#: poker trees whose operators the compiled loops take: hands of one and of two cards, several boards, a runout
POKER = ("leduc", "leduc_nolimit", "two_hole_cards", "two_card_flop_blinds", "three_rounds", "all_in_runout")


def test_built_where_required():
    """The CI machine has a compiler: there the extension must have been built, not skipped in silence."""
    assert kernels.available() or not REQUIRED


@pytest.fixture
def everywhere(monkeypatch):
    """The compiled loops on trees of any size (the tests' trees are below MIN_STATES)."""
    monkeypatch.setattr(kernels, "MIN_STATES", 0)


def both(fn):
    """``fn()`` with the numpy code only, then with the compiled loops."""
    with kernels.compiled(False):
        plain = fn()
    with kernels.compiled(True):
        fast = fn()
    return plain, fast


def poker_tree(key: str):
    name, params = GAMES[key]
    return compile_poker(load_game(name, **params), sparse_threshold=0)  # card-removal operators on every board


def random_profile(tree, rng) -> tuple[np.ndarray, np.ndarray]:
    """Regrets with rows all non-positive (uniform play), exact zeros and negative zeros, per player."""
    out = []
    for pa in tree.players:
        r = rng.normal(size=pa.legal.shape)
        r[rng.random(r.shape) < 0.2] = 0.0
        r[rng.random(r.shape) < 0.1] = -0.0
        r[: max(1, pa.num_infosets // 4)] = -np.abs(r[: max(1, pa.num_infosets // 4)])
        out.append(np.where(pa.legal, r, 0.0))
    return out[0], out[1]


@pytest.mark.parametrize("key", POKER + ("generic_leduc",))
@pytest.mark.slow
def test_sweeps_bitwise(everywhere, key):
    tree = enumerate_game(load_game("leduc")) if key == "generic_leduc" else poker_tree(key)
    rng = np.random.default_rng(7)
    regrets = random_profile(tree, rng)
    for p, pa in enumerate(tree.players):
        root = rng.random(tree.plan.root_slice[p].stop)

        def sweep(p=p, pa=pa, root=root):
            sigma = regret_matching(regrets[p], pa.legal)
            sw = transition_weights(tree, p, sigma)
            reach = forward_reach(tree, p, sw, root)
            opp = forward_reach(tree, 1 - p, transition_weights(tree, 1 - p, regret_matching(regrets[1 - p],
                                                                                            tree.players[1 - p].legal)))
            v = backward_expected(tree, p, leaf_values(tree, p, (reach, opp) if p == 0 else (opp, reach)), sw)
            return sigma, sw, reach, v, sequence_values(tree, p, v)

        plain, fast = both(sweep)
        for reach in both(lambda p=p, root=root, sigma=plain[0]: forward_reach(tree, p, None, root, probs=sigma)):  # weights read from the strategy
            assert reach.tobytes() == plain[2].tobytes()
        names = ("strategy", "transition weights", "reach", "values", "sequence values")
        for name, a, b in zip(names, plain, fast):
            if name in ("values", "sequence values") and key != "generic_leduc":
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-15, err_msg=name)  # the operators round differently
            else:
                assert a.tobytes() == b.tobytes(), f"player {p}: {name} differ"


@pytest.mark.parametrize("config", [CFR, CFR_PLUS, DCFR, LINEAR_CFR, MODICUM, CFRConfig(regret="rm+", alternating=False)],
                         ids=["cfr", "cfr+", "dcfr", "lcfr", "modicum", "simultaneous"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.slow
def test_solver_bitwise_without_poker_operators(everywhere, config, dtype):
    """On a tree with the generic terminal operator every compiled step is the numpy step, bit for bit (float32 too)."""
    tree = enumerate_game(load_game("leduc"))
    reach = (np.linspace(0.2, 1.0, tree.plan.root_slice[0].stop), None)

    def solve():
        s = CFRSolver(tree, config, root_reach=reach, dtype=dtype).plan(20).run(20)
        return s.regrets + s.strategy_sum + list(s.average_strategy().probs)

    plain, fast = both(solve)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(plain, fast))


@pytest.mark.parametrize("key", POKER)
def test_operators_match_numpy(everywhere, key):
    tree = poker_tree(key)
    rng = np.random.default_rng(3)
    reach = tuple(rng.random(pa.num_states) * (rng.random(pa.num_states) < 0.8) for pa in tree.players)
    for op in tree.terminals:
        for p in (0, 1):
            plain, fast = both(lambda op=op, p=p: op.cfv(p, reach))
            np.testing.assert_allclose(fast, plain, rtol=1e-12, atol=1e-14 * np.abs(plain).max())


@pytest.mark.slow
def test_hold_em_river_operators_match_numpy():
    """A 52-card river, 1,081 hands a board: above MIN_STATES, so the solver's own switch takes the compiled loops."""
    tree = compile_poker(PokerGame(RIVER, "river"), board=RIVER_BOARD)
    assert tree.players[0].num_states >= kernels.MIN_STATES
    rng = np.random.default_rng(5)
    reach = tuple(rng.random(pa.num_states) for pa in tree.players)
    for op in tree.terminals:
        for p in (0, 1):
            plain, fast = both(lambda op=op, p=p: op.cfv(p, reach))
            np.testing.assert_allclose(fast, plain, rtol=1e-11, atol=1e-13 * np.abs(plain).max())
    plain, fast = both(lambda: CFRSolver(tree, DCFR).run(30).average_strategy().probs)
    for a, b in zip(plain, fast):
        np.testing.assert_allclose(b, a, atol=1e-6)


def test_kept_buffers_never_leak_into_results(everywhere):
    """The solver reuses its work arrays; strategies it hands out must not change with later iterations."""
    tree = poker_tree("leduc")
    s = CFRSolver(tree, CFR_PLUS).run(3)
    current, average = s.current_strategy(), s.average_strategy()
    kept = [x.copy() for x in current.probs + average.probs]
    s.run(5)
    assert all(np.array_equal(a, b) for a, b in zip(kept, current.probs + average.probs))
    assert isinstance(current, Strategy)


def test_switch():
    with pytest.raises(GameDefinitionError, match="True or False"):
        kernels.use_compiled(1)  # type: ignore[arg-type]
    before = kernels.active(kernels.MIN_STATES)
    with kernels.compiled(False):
        assert not kernels.active(kernels.MIN_STATES)
    assert kernels.active(kernels.MIN_STATES) == before


def test_backward_bitwise_on_a_suit_isomorphic_tree(everywhere):
    """The chance children a suit-isomorphic tree leaves out are added by the numpy code after each compiled level."""
    from subgame.tree.isomorphism import suit_classes
    from tests.toy_games import MONOTONE, R, S, small_holdem

    tree = compile_poker(small_holdem(MONOTONE, (4, 1), raise_cap=1), suits=suit_classes(R, S, MONOTONE), sparse_threshold=0)
    assert tree.mirrors is not None
    rng = np.random.default_rng(11)
    regrets = random_profile(tree, rng)
    for p, pa in enumerate(tree.players):
        sw = transition_weights(tree, p, regret_matching(regrets[p], pa.legal))
        sigma = regret_matching(regrets[p], pa.legal)
        v0 = np.where(tree.kind[pa.node] == TERMINAL_NODE, rng.normal(size=pa.num_states), 0.0)  # inner states enter at 0
        plain, fast = both(lambda p=p, sw=sw, v0=v0: backward_expected(tree, p, v0.copy(), sw))
        assert plain.tobytes() == fast.tobytes()
        from_strategy = both(lambda p=p, v0=v0, sigma=sigma: backward_expected(tree, p, v0.copy(), None, probs=sigma))
        assert all(x.tobytes() == plain.tobytes() for x in from_strategy)



@pytest.mark.parametrize("key", POKER + ("generic_leduc", "isomorphic"))
@pytest.mark.slow
def test_best_response_bitwise(everywhere, key):
    """The compiled best-response levels: the same values and best actions as the numpy sweep, bit for bit."""
    from subgame.tree.isomorphism import suit_classes
    from subgame.tree.sweep import backward_best
    from tests.toy_games import MONOTONE, R, S, small_holdem

    if key == "generic_leduc":
        tree = enumerate_game(load_game("leduc"))
    elif key == "isomorphic":
        tree = compile_poker(small_holdem(MONOTONE, (4, 1), raise_cap=1), suits=suit_classes(R, S, MONOTONE), sparse_threshold=0)
    else:
        tree = poker_tree(key)
    rng = np.random.default_rng(13)
    regrets = random_profile(tree, rng)
    for p in (0, 1):
        q = 1 - p
        opp = forward_reach(tree, q, transition_weights(tree, q, regret_matching(regrets[q], tree.players[q].legal)))
        v0 = leaf_values(tree, p, (opp, opp))
        plain, fast = both(lambda p=p, v0=v0: backward_best(tree, p, v0.copy()))
        assert plain[0].tobytes() == fast[0].tobytes()
        assert np.array_equal(plain[1], fast[1])


@pytest.mark.skipif(not kernels.available(), reason="the compiled loops are not built")
def test_a_bound_leaf_call_checks_its_reach_and_pickles_as_its_arrays():
    """A leaf's prepared call (kernels.LeafValues): two boards as segments equal each board bound alone, with one
    reach for every continuation or one each; a reach of another shape is refused; a pickled copy binds its own."""
    import pickle

    rng = np.random.default_rng(0)
    K, U, T, n = 3, 4, 2, 5
    coef, seq, weight = rng.random((2, K, 4, U, U)), np.array([1, 0]), rng.random(T)
    cards = np.array([[0, 1], [0, 2], [1, 3], [2, 3], [3, 4]])  # a board's hands, weakest first
    order, ties = np.arange(n), np.array([0, 1, 3, 4, 5])  # hands 1 and 2 tie
    gb, rb = rng.integers(0, U, n), rng.integers(0, U, n)
    one = kernels.LeafValues(coef, seq, weight, order, ties, np.array([0, n]), np.array([0, 5]), cards, gb, rb)
    both = kernels.LeafValues(coef, seq, weight, np.concatenate([order, order]), np.concatenate([ties, ties]),
                              np.array([0, n, 2 * n]), np.array([0, 5, 10]), np.concatenate([cards, cards]),
                              np.concatenate([gb, gb]), np.concatenate([rb, rb]))
    for kx in (1, K):
        reach = rng.random((2 * n, T, kx))
        got = both(reach)
        assert np.array_equal(got[:n], one(reach[:n])) and np.array_equal(got[n:], one(reach[n:]))
        assert np.abs(got).max() > 0
        assert np.array_equal(pickle.loads(pickle.dumps(both))(reach), got)
    for bad in (np.ones((n, T, 1)), np.ones((2 * n, T + 1, 1)), np.ones((2 * n, T, 2)), np.ones((2 * n, T))):
        with pytest.raises(ValueError):
            both(bad)
