"""Public chance sampling over flops: a CFR iteration when every flop is drawn, convergence, bitwise resume, refusals."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.blueprint.board_sampling import BoardSamplingPCS
from subgame.blueprint.card_abstraction import BucketStrategy, CardBuckets
from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval.board_pass import board_pass_exploitability
from subgame.games import load_game
from subgame.games.poker import PokerGame
from subgame.solve.cfr import CFR, CFR_PLUS, LINEAR_CFR, CFRSolver
from subgame.tree.compile import compile_game

TINY = {"num_ranks": 4, "num_suits": 2}  # 8 cards: 56 flops, 28 hands; the whole tree compiles in about a second


@pytest.fixture(scope="module")
def tiny():
    game = load_game("nlfh", **TINY)
    assert isinstance(game, PokerGame)
    return game, CardBuckets.build(game, [5, 6])


@pytest.fixture(scope="module")
def tiny_whole(tiny):
    """The whole tree and its abstraction, for whole-tree CFR to compare with."""
    tree = compile_game(tiny[0])
    return tree, tiny[1].abstraction(tiny[0], tree)


def _table_rows(game, buckets, tree, abstraction, tables, player):
    """The row of the board-sampling tables holding each bucket of ``abstraction`` (whole-tree CFR's bucket order)."""
    pa = tree.players[player]
    first = np.unique(abstraction.buckets[player], return_index=True)[1]
    index = {k: i for i, k in enumerate(tables.keys[player])}
    return np.array([index[buckets.infoset_key(game, tree.public_key[pa.node[pa.infoset_priv[i]]], pa.label[pa.infoset_priv[i]])]
                     for i in first])


def _assert_tables_match(game, buckets, tree, abstraction, sampled, whole, p):
    """Player p's regrets and strategy sums of board sampling equal whole-tree CFR's, bucket by bucket; the rows."""
    rows = _table_rows(game, buckets, tree, abstraction, sampled.tables, p)
    width = tree.players[p].max_actions
    scale = np.abs(whole.regrets[p]).max()
    assert scale > 0
    np.testing.assert_allclose(sampled.regrets[p][rows, :width], whole.regrets[p], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(sampled.strategy_sum[p][rows, :width], whole.strategy_sum[p], rtol=0,
                               atol=1e-12 * np.abs(whole.strategy_sum[p]).max())
    return rows


@pytest.mark.parametrize("config", [LINEAR_CFR, CFR_PLUS], ids=["lcfr", "cfr+"])
@pytest.mark.slow
def test_every_flop_drawn_is_whole_tree_cfr_in_the_abstraction(tiny, tiny_whole, config):
    game, buckets = tiny
    tiny_tree, abstraction = tiny_whole
    whole = CFRSolver(tiny_tree, config, abstraction=abstraction)
    sampled = BoardSamplingPCS(game, buckets, config, boards_per_pass=None)
    for _ in range(3):
        whole.step()
        sampled.step()
        for p in (0, 1):
            rows = _assert_tables_match(game, buckets, tiny_tree, abstraction, sampled, whole, p)
            unused = np.setdiff1d(np.arange(len(sampled.tables.keys[p])), rows)  # buckets no hand of the game falls in
            assert not np.any(sampled.regrets[p][unused]) and not np.any(sampled.strategy_sum[p][unused])
    # the blueprint is the whole-tree solver's average strategy, information set by information set
    ref = BucketStrategy.of(game, buckets, tiny_tree, abstraction, whole.average_strategy().probs)
    for p in (0, 1):
        np.testing.assert_allclose(sampled.blueprint().rows(game, tiny_tree, p), ref.rows(game, tiny_tree, p), atol=1e-12)


def _after_open():
    """The tiny game after the small blind's pot-sized open (a game that starts there), its buckets, and seeded root
    ranges: the big blind's fixed, the small blind's alternative payoffs for a gadget."""
    game = load_game("nlfh", start=(2,), **TINY)
    assert isinstance(game, PokerGame) and game.start_names == ("r300",)
    rng = np.random.default_rng(11)
    hands = game.spec.num_hands
    return game, CardBuckets.build(game, [5, 6]), rng.uniform(0.2, 1.0, hands), rng.normal(0.0, 50.0, hands)


@pytest.mark.parametrize("kind", ["resolve", "maxmargin"])
@pytest.mark.slow
def test_a_subgame_from_a_preflop_bet_is_resolved_with_a_gadget_as_whole_tree_cfr(kind):
    """Root reaches and a root gadget (safe-and-nested §4–5) over board sampling: with every flop drawn, the same
    regrets, averages, gadget and average root range as whole-tree CFR with that gadget in the abstraction."""
    from subgame.resolving.gadgets import MaxMarginGadget, ResolveGadget

    game, buckets, reach, alt = _after_open()
    make = ResolveGadget if kind == "resolve" else MaxMarginGadget
    tree = compile_game(game)
    abstraction = buckets.abstraction(game, tree)
    whole = CFRSolver(tree, CFR_PLUS, abstraction=abstraction, root_reach=(reach, None), gadget=make(1, alt.copy()))
    sampled = BoardSamplingPCS(game, buckets, CFR_PLUS, boards_per_pass=None, root_reach=(reach, None),
                               gadget=make(1, alt.copy()))
    for _ in range(3):
        whole.step()
        sampled.step()
    for p in (0, 1):
        _assert_tables_match(game, buckets, tree, abstraction, sampled, whole, p)
    np.testing.assert_allclose(sampled.gadget.regrets, whole.gadget.regrets, rtol=0, atol=1e-9)  # type: ignore[union-attr]
    assert np.abs(whole.gadget.regrets).max() > 0  # type: ignore[union-attr]
    np.testing.assert_allclose(sampled.average_root_range(), whole.average_root_range(), rtol=0, atol=1e-12)


@pytest.mark.slow
def test_a_gadget_resolve_resumes_bitwise_and_refuses_another_gadget(tmp_path):
    from subgame.resolving.gadgets import MaxMarginGadget, ResolveGadget

    game, buckets, reach, alt = _after_open()

    def solver() -> BoardSamplingPCS:
        return BoardSamplingPCS(game, buckets, seed=2, boards_per_pass=3, root_reach=(reach, None),
                                gadget=ResolveGadget(1, alt.copy()))

    straight, first = solver().run(5), solver().run(2)
    path = first.save_checkpoint(tmp_path / "g.npz")
    resumed = BoardSamplingPCS.load_checkpoint(path, game, buckets, root_reach=(reach, None), gadget=ResolveGadget(1, alt.copy()))
    resumed.run(3)
    for p in (0, 1):
        assert np.array_equal(resumed.regrets[p], straight.regrets[p])
    assert np.array_equal(resumed.gadget.regrets, straight.gadget.regrets)  # type: ignore[union-attr]
    assert np.array_equal(resumed.average_root_range(), straight.average_root_range())
    with pytest.raises(StrategyFileError, match="with a ResolveGadget, given a MaxMarginGadget"):
        BoardSamplingPCS.load_checkpoint(path, game, buckets, gadget=MaxMarginGadget(1, alt.copy()))
    with pytest.raises(StrategyFileError, match="given none"):
        BoardSamplingPCS.load_checkpoint(path, game, buckets)
    with pytest.raises(GameDefinitionError, match="root reach of player 0 has shape"):
        BoardSamplingPCS(game, buckets, root_reach=(reach[:3], None))


class _OneFlop(BoardSamplingPCS):
    """Draws the flop it is told to (the test enumerates the draws)."""

    flop = 0

    def _draw(self) -> np.ndarray:
        return np.array([self.flop])


@pytest.mark.slow
def test_importance_weights_make_the_sampled_regrets_unbiased(tiny):
    """The mean over every possible one-flop draw of a pass's regrets and average increment is CFR's pass."""
    game, buckets = tiny
    exact = BoardSamplingPCS(game, buckets, CFR, boards_per_pass=None)
    exact.step()
    sampled = _OneFlop(game, buckets, CFR, boards_per_pass=1)
    num_flops = len(sampled.cut.deals)
    regrets, average = np.zeros_like(exact.regrets[0]), np.zeros_like(exact.strategy_sum[0])
    for flop in range(num_flops):
        sampled.flop, sampled.iteration = flop, 0
        sampled.regrets = [np.zeros_like(r) for r in sampled.regrets]
        sampled.strategy_sum = [np.zeros_like(s) for s in sampled.strategy_sum]
        sampled.step()  # player 0's pass sees the starting strategies, as the exact one's does
        regrets += sampled.regrets[0] / num_flops
        average += sampled.strategy_sum[0] / num_flops
        if flop == 0:
            assert not np.allclose(sampled.regrets[0], exact.regrets[0])  # one flop alone is not CFR's pass
    np.testing.assert_allclose(regrets, exact.regrets[0], rtol=0, atol=1e-10 * np.abs(exact.regrets[0]).max())
    np.testing.assert_allclose(average, exact.strategy_sum[0], rtol=0, atol=1e-10 * np.abs(exact.strategy_sum[0]).max())


def _exploitability_mbb(game, blueprint: BucketStrategy) -> float:
    result = board_pass_exploitability(game, lambda t, p: blueprint.rows(game, t, p), batch=64)
    return 1000.0 * result.exploitability.exploitability / game.spec.blinds[0]


@pytest.mark.slow
def test_sampled_flops_drive_exploitability_down(tiny):
    game, buckets = tiny
    solver = BoardSamplingPCS(game, buckets, seed=3, boards_per_pass=2)
    uniform = _exploitability_mbb(game, solver.blueprint())  # no iteration yet: the uniform strategy
    curve = []
    for iterations in (8, 128):  # sampling noise: 8 to 32 need not fall, 8 to 128 does
        solver.run(iterations - solver.iteration)
        curve.append(_exploitability_mbb(game, solver.blueprint()))
    assert curve[0] < 0.5 * uniform
    assert curve[1] < 0.8 * curve[0]


@pytest.mark.slow
def test_checkpoint_resumes_bitwise(tiny, tmp_path):
    game, buckets = tiny
    straight = BoardSamplingPCS(game, buckets, seed=7, boards_per_pass=3).run(6)
    first = BoardSamplingPCS(game, buckets, seed=7, boards_per_pass=3).run(2)
    path = first.save_checkpoint(tmp_path / "bs.npz")
    resumed = BoardSamplingPCS.load_checkpoint(path, game, buckets)
    assert resumed.iteration == 2 and resumed.boards_per_pass == 3
    resumed.run(4)
    for p in (0, 1):
        assert np.array_equal(resumed.regrets[p], straight.regrets[p])
        assert np.array_equal(resumed.strategy_sum[p], straight.strategy_sum[p])
    assert resumed.rng.bit_generator.state == straight.rng.bit_generator.state
    other = load_game("nlfh", num_ranks=4, num_suits=2, stack=2000)
    with pytest.raises(StrategyFileError, match="checkpoint is for game"):
        BoardSamplingPCS.load_checkpoint(path, other, buckets)


@pytest.mark.slow
def test_same_seed_same_run_other_seed_other_samples(tiny):
    game, buckets = tiny
    a, b, c = (BoardSamplingPCS(game, buckets, seed=s, boards_per_pass=1).run(3) for s in (5, 5, 6))
    assert np.array_equal(a.regrets[0], b.regrets[0])
    assert not np.array_equal(a.regrets[0], c.regrets[0])


def test_bad_inputs_get_one_clear_error(tiny):
    game, buckets = tiny
    with pytest.raises(GameDefinitionError, match="poker family"):
        BoardSamplingPCS(load_game("rps"), buckets)
    with pytest.raises(GameDefinitionError, match="buckets are for game"):
        BoardSamplingPCS(load_game("nlfh", num_ranks=5, num_suits=2), buckets)
    with pytest.raises(GameDefinitionError, match="CardBuckets"):
        BoardSamplingPCS(game, object())  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="boards_per_pass"):
        BoardSamplingPCS(game, buckets, boards_per_pass=57)
    with pytest.raises(GameDefinitionError, match="boards_per_pass"):
        BoardSamplingPCS(game, buckets, boards_per_pass=0)
    with pytest.raises(GameDefinitionError, match="no public chance event"):
        BoardSamplingPCS(load_game("kuhn"), CardBuckets.build(load_game("kuhn"), [3]))  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="seed"):
        BoardSamplingPCS(game, buckets, seed=-1)


@pytest.mark.slow
def test_cli_solves_over_sampled_flops_and_resumes_bitwise(tmp_path):
    from ..cli.test_cli import invoke, ok_json

    params = ("-p", "num_ranks=4", "-p", "num_suits=2")
    assert invoke("abstract", "nlfh", *params, "--buckets", "5,6", "--out", tmp_path / "b.npz").exit_code == 0
    common = (*params, "--algo", "pcs", "--abstraction", tmp_path / "b.npz", "--boards-per-pass", "3", "--seed", "4")
    solved = ok_json("solve", "nlfh", *common, "--board-sampling", "-n", "6", "--blueprint-out", tmp_path / "bp.npz",
                     "--exact")
    assert solved["board_sampling"] and solved["iterations"] == 6 and solved["flops"] == 56
    evaluated = ok_json("evaluate", tmp_path / "bp.npz")
    assert evaluated["br_values"] == pytest.approx(solved["final"]["br_values"], abs=1e-9, rel=0)
    # a game over the memory allowed switches to board sampling by itself; a checkpoint resumes it bitwise
    half = ok_json("solve", "nlfh", *common, "--max-memory", "0.001", "-n", "3", "--out", tmp_path / "half.npz",
                   "--checkpoint-file", tmp_path / "ck.npz")
    assert half["board_sampling"] and half["final"] is None
    ok_json("solve", "nlfh", *common, "--max-memory", "0.001", "-n", "6", "--out", tmp_path / "rest.npz",
            "--checkpoint-file", tmp_path / "ck.npz", "--resume")
    whole, _ = BucketStrategy.load(tmp_path / "bp.npz")
    resumed, meta = BucketStrategy.load(tmp_path / "rest.npz")
    assert meta["iterations"] == 6
    for p in (0, 1):
        assert np.array_equal(whole.probs[p], resumed.probs[p])
    refused = invoke("solve", "nlfh", *params, "--algo", "pcs", "--board-sampling", "-n", "1", "--out", tmp_path / "x.npz")
    assert refused.exit_code != 0 and "--abstraction FILE" in refused.output and "Traceback" not in refused.output
    both = invoke("solve", "nlfh", *common, "--board-sampling", "-n", "1", "--out", tmp_path / "x.npz",
                  "--blueprint-out", tmp_path / "y.npz")
    assert both.exit_code != 0 and "not both" in both.output
