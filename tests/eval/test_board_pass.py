"""Exploitability by a pass over boards equals the whole tree's, for explicit strategies and bucket blueprints."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval.best_response import exploitability
from subgame.eval.board_pass import board_pass_exploitability, strategy_rows
from subgame.games import load_game
from subgame.solve.card_abstraction import BucketStrategy, CardBuckets, is_bucket_strategy_file
from subgame.solve.mccfr import PUBLIC_CHANCE_SAMPLING, MCCFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game


def random_strategy(tree, seed: int) -> Strategy:
    rng = np.random.default_rng(seed)
    probs = []
    for pa in tree.players:
        x = rng.random(pa.legal.shape) ** 3 * pa.legal  # far from uniform, so that every sum matters
        probs.append(x / x.sum(axis=1, keepdims=True))
    return Strategy(tree.game_id, (probs[0], probs[1]))


@pytest.fixture(scope="module")
def nlfh_small():
    game = load_game("nlfh", num_ranks=4, num_suits=2)
    return game, compile_game(game)


@pytest.mark.parametrize("batch", [1, 5, 100])
def test_board_pass_equals_whole_tree_exploitability_on_reduced_nlfh(nlfh_small, batch):
    game, tree = nlfh_small
    strategy = random_strategy(tree, batch)
    whole = exploitability(tree, strategy)
    result = board_pass_exploitability(game, strategy_rows(tree, strategy), batch=batch)
    assert result.exploitability.br_values == pytest.approx(whole.br_values, abs=1e-9, rel=0)
    assert result.boards == 56  # C(8 - 0, 3) flops, each reached from every preflop call sequence
    assert result.batches == -(-56 // batch)


def test_board_pass_on_leduc_matches_the_whole_tree():
    game = load_game("leduc")
    tree = compile_game(game)
    strategy = random_strategy(tree, 7)
    result = board_pass_exploitability(game, strategy_rows(tree, strategy), batch=2)
    assert result.exploitability.br_values == pytest.approx(exploitability(tree, strategy).br_values, abs=1e-12, rel=0)


def test_a_bucket_blueprint_gives_the_solver_its_own_strategy_and_the_same_exploitability(nlfh_small, tmp_path):
    game, tree = nlfh_small
    buckets = CardBuckets.build(game, [28, 6], seed=0)
    abstraction = buckets.abstraction(game, tree)
    solver = MCCFRSolver(tree, PUBLIC_CHANCE_SAMPLING, seed=3, abstraction=abstraction)
    for _ in range(20):
        solver.step()
    avg = solver.average_strategy()
    blueprint = BucketStrategy.of(game, buckets, tree, abstraction, avg.probs)
    for p in (0, 1):
        assert len(blueprint.keys[p]) == abstraction.num_buckets(p)
        np.testing.assert_array_equal(blueprint.rows(game, tree, p), avg.probs[p])
    path = blueprint.save(tmp_path / "bp.npz", game="nlfh")
    loaded, meta = BucketStrategy.load(path)
    assert meta == {"game": "nlfh"} and is_bucket_strategy_file(path)
    result = board_pass_exploitability(game, lambda t, p: loaded.rows(game, t, p), batch=7)
    assert result.exploitability.br_values == pytest.approx(exploitability(tree, avg).br_values, abs=1e-9, rel=0)


def test_board_pass_refuses_a_game_without_public_chance_and_a_bad_batch(nlfh_small):
    kuhn = load_game("kuhn")
    tree = compile_game(kuhn)
    with pytest.raises(GameDefinitionError, match="no public chance event"):
        board_pass_exploitability(kuhn, strategy_rows(tree, random_strategy(tree, 0)))
    game, tree = nlfh_small
    with pytest.raises(GameDefinitionError, match="batch"):
        board_pass_exploitability(game, strategy_rows(tree, random_strategy(tree, 0)), batch=0)


def test_a_strategy_file_is_not_a_bucket_blueprint(tmp_path):
    (tmp_path / "x.npz").write_bytes(b"not an archive")
    assert not is_bucket_strategy_file(tmp_path / "x.npz")
    with pytest.raises(StrategyFileError, match="card-abstracted blueprint"):
        BucketStrategy.load(tmp_path / "x.npz")


def test_the_full_deck_trunk_keeps_one_flop_per_betting_sequence():
    from subgame.tree.board_cut import BoardCut
    from subgame.tree.public_tree import LEAF

    cut = BoardCut.of(load_game("nlfh"))
    trunk = cut.trunk
    assert cut.size == 3 and len(cut.deals) == 22_100
    leaves = np.flatnonzero(trunk.kind == LEAF)
    assert len({trunk.public_key[n][-1] for n in leaves}) == 1  # one flop, whatever the 22,100 dealt
    assert trunk.players[0].num_states < 100_000  # the preflop's 1,326 hands per node, not every flop's
