"""CLI: NLFH's size, and the board pass behind ``subgame evaluate`` (bucket blueprints and --board-pass)."""

from __future__ import annotations

import pytest

from subgame.blueprint.card_abstraction import BucketStrategy, CardBuckets
from subgame.eval.best_response import exploitability
from subgame.games import load_game
from subgame.solve.mccfr import PUBLIC_CHANCE_SAMPLING, MCCFRSolver
from subgame.tree.compile import compile_game

from .test_cli import invoke, ok_json

SMALL = {"num_ranks": 4, "num_suits": 2}


@pytest.mark.slow
def test_games_size_counts_nlfh():
    out = ok_json("games", "--size", "nlfh", "-p", "num_ranks=4", "-p", "num_suits=2")
    tree = compile_game(load_game("nlfh", **SMALL))
    assert out["exact"] and out["public_nodes"] == tree.num_nodes
    assert out["private_states"] == [tree.players[0].num_states, tree.players[1].num_states]


@pytest.mark.slow
def test_evaluate_reads_a_bucket_blueprint_by_the_board_pass(tmp_path):
    game = load_game("nlfh", **SMALL)
    tree = compile_game(game)
    buckets = CardBuckets.build(game, [28, 4], seed=1)
    abstraction = buckets.abstraction(game, tree)
    solver = MCCFRSolver(tree, PUBLIC_CHANCE_SAMPLING, seed=0, abstraction=abstraction)
    for _ in range(5):
        solver.step()
    avg = solver.average_strategy()
    path = BucketStrategy.of(game, buckets, tree, abstraction, avg.probs).save(tmp_path / "bp.npz", game="nlfh", params=SMALL)
    out = ok_json("evaluate", path, "--batch", "10")
    whole = exploitability(tree, avg)
    assert out["br_values"] == pytest.approx(list(whole.br_values), abs=1e-9, rel=0)
    assert out["mbb_per_hand"] == pytest.approx(1000 * whole.exploitability / 100, abs=1e-6, rel=0)
    assert (out["boards"], out["batches"]) == (56, 6)
    table = invoke("evaluate", path)
    assert table.exit_code == 0 and "mbb/hand" in table.output


def test_evaluate_board_pass_flag_agrees_with_the_whole_tree(tmp_path):
    out = tmp_path / "leduc.npz"
    assert invoke("solve", "leduc", "--algo", "cfr+", "-n", "5", "--out", out).exit_code == 0
    plain = ok_json("evaluate", out)
    passed = ok_json("evaluate", out, "--board-pass", "--batch", "2")
    assert passed["br_values"] == pytest.approx(plain["br_values"], abs=1e-12, rel=0)
    assert passed["boards"] == 6


@pytest.mark.slow
def test_solve_writes_a_bucket_blueprint_that_evaluates_like_its_full_strategy(tmp_path):
    params = ("-p", "num_ranks=4", "-p", "num_suits=2")
    assert invoke("abstract", "nlfh", *params, "--buckets", "28,5", "--out", tmp_path / "b.npz").exit_code == 0
    solved = ok_json("solve", "nlfh", *params, "--algo", "pcs", "-n", "8", "--abstraction", tmp_path / "b.npz",
                     "--out", tmp_path / "full.npz", "--blueprint-out", tmp_path / "bp.npz")
    blueprint = ok_json("evaluate", tmp_path / "bp.npz")
    assert blueprint["br_values"] == pytest.approx(solved["final"]["br_values"], abs=1e-9, rel=0)
    refused = invoke("solve", "nlfh", *params, "--algo", "pcs", "-n", "1", "--out", tmp_path / "x.npz",
                     "--blueprint-out", tmp_path / "y.npz")
    assert refused.exit_code != 0 and "--abstraction" in refused.output
