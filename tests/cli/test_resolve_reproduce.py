"""``subgame resolve`` and ``subgame reproduce``."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from subgame.strategy import Strategy
from tests.cli.test_cli import invoke, ok_json


def test_resolve_improves_a_coarse_leduc_blueprint(tmp_path):
    blueprint = tmp_path / "bp.npz"
    ok_json("solve", "leduc", "--algo", "cfr+", "-n", "30", "--out", blueprint)
    out = tmp_path / "resolved.npz"
    report = ok_json("resolve", blueprint, "--method", "resolve", "-n", "200", "--out", out)
    assert report["subgames"] == 30  # Leduc's second round: 5 closed betting sequences × 6 boards
    assert report["after"]["exploitability"] <= report["before"]["exploitability"] + 1e-9
    assert Strategy.load(out).meta["resolved"] == "resolve"
    evaluated = ok_json("evaluate", out)
    assert abs(evaluated["exploitability"] - report["after"]["exploitability"]) < 1e-12


def test_resolve_at_an_explicit_depth(tmp_path):
    blueprint = tmp_path / "bp.npz"
    ok_json("solve", "kuhn", "--algo", "cfr", "-n", "10", "--out", blueprint)
    report = ok_json("resolve", blueprint, "--method", "maxmargin", "--depth", "1", "-n", "100", "--out", tmp_path / "r.npz")
    assert report["subgames"] == 2  # after player 0 checks or bets


def test_resolve_rejects_unknown_method_and_empty_depth(tmp_path):
    blueprint = tmp_path / "bp.npz"
    ok_json("solve", "kuhn", "--algo", "cfr", "-n", "5", "--out", blueprint)
    bad = invoke("resolve", blueprint, "--method", "magic")
    assert bad.exit_code == 2 and "unknown method 'magic'" in bad.output and "Traceback" not in bad.output
    empty = invoke("resolve", blueprint, "--depth", "40")
    assert empty.exit_code == 2 and "no subgame" in empty.output


@pytest.mark.slow
def test_reproduce_writes_table_and_plot_and_repeats(tmp_path):
    first = ok_json("reproduce", "resolve-vs-blueprint", "--out-dir", tmp_path / "a", "--seed", "3")
    second = ok_json("reproduce", "resolve-vs-blueprint", "--out-dir", tmp_path / "b", "--seed", "3")
    assert first["rows"] == second["rows"]
    assert Path(first["plot"]).read_bytes()[:4] == b"\x89PNG"
    assert Path(first["table"]).read_text() == Path(second["table"]).read_text()


def test_reproduce_unknown_experiment():
    result = invoke("reproduce", "fig99")
    assert result.exit_code == 2 and "experiments are:" in result.output


def test_cfr_d_solve_then_resolve(tmp_path):
    stored = tmp_path / "cfrd.npz"
    solved = ok_json("solve", "kuhn", "--algo", "cfr-d", "-n", "20", "--subgame-iterations", "20",
                     "--trunk-public-depth", "1", "-o", stored)
    assert solved["algo"] == "cfr-d" and solved["stored_value_bound"]["exploitability"] > 0
    rebuilt = ok_json("resolve", stored, "-n", "200", "-o", tmp_path / "full.npz")
    # the re-solved strategy is no more exploitable than the stored values certify, up to re-solving error
    assert rebuilt["after"]["exploitability"] <= rebuilt["before"]["exploitability"] + 0.02
    evaluated = ok_json("evaluate", tmp_path / "full.npz")
    assert abs(evaluated["exploitability"] - rebuilt["after"]["exploitability"]) < 1e-12
    wrong = invoke("evaluate", stored)
    assert wrong.exit_code == 2 and "subgame resolve" in wrong.output and "Traceback" not in wrong.output


@pytest.mark.slow
def test_cfr_d_checkpoint_and_resume(tmp_path):
    args = ("solve", "leduc", "--algo", "cfr-d", "--subgame-iterations", "5", "--checkpoint-file", tmp_path / "c.npz")
    straight = ok_json(*args[:-2], "-n", "4", "-o", tmp_path / "straight.npz")
    ok_json(*args, "-n", "2", "-o", tmp_path / "half.npz")
    resumed = ok_json(*args, "--resume", "-n", "4", "-o", tmp_path / "resumed.npz")
    assert resumed["iterations"] == 4
    assert resumed["stored_value_bound"] == straight["stored_value_bound"]
    again = invoke(*args, "--resume", "-n", "4", "-o", tmp_path / "r2.npz")
    assert again.exit_code == 2 and "already at iteration 4" in again.output


def test_cfr_d_without_public_chance_says_what_to_do(tmp_path):
    result = invoke("solve", "kuhn", "--algo", "cfr-d", "-o", tmp_path / "x.npz")
    assert result.exit_code == 2 and "leaves no subgame" in result.output


def test_cfr_d_interrupted_run_keeps_what_it_had(tmp_path, monkeypatch):
    from subgame.decompose import CFRDSolver, is_cfr_d_file

    original = CFRDSolver.step

    def step_then_ctrl_c(self):
        original(self)
        if self.iteration == 2:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(CFRDSolver, "step", step_then_ctrl_c)
    ckpt, out = tmp_path / "c.npz", tmp_path / "partial.npz"
    result = invoke("solve", "leduc", "--algo", "cfr-d", "--subgame-iterations", "5", "-n", "10",
                    "--checkpoint-file", ckpt, "-o", out)
    assert result.exit_code == 130 and "interrupted at iteration 2" in result.output
    assert is_cfr_d_file(out) and CFRDSolver.load_checkpoint(ckpt, __import__("subgame").load_game("leduc")).iteration == 2


def test_reproduce_workers_only_where_an_experiment_runs_in_parallel(tmp_path):
    result = invoke("reproduce", "resolve-vs-blueprint", "--workers", "2", "--out-dir", tmp_path)
    assert result.exit_code == 2 and "drop --workers" in result.output


@pytest.mark.slow
def test_cfr_d_batched_subgames_give_the_same_result(tmp_path):
    args = ("solve", "leduc", "--algo", "cfr-d", "-n", "3", "--subgame-iterations", "10")
    one = ok_json(*args, "-o", tmp_path / "one.npz")
    batched = ok_json(*args, "--subgame-batch", "30", "--cached-subgames", "30", "-o", tmp_path / "all.npz")
    assert abs(one["stored_value_bound"]["exploitability"] - batched["stored_value_bound"]["exploitability"]) < 1e-12


@pytest.mark.slow
def test_cfr_d_exact_exploitability_when_the_whole_tree_fits(tmp_path, monkeypatch):
    args = ("solve", "leduc", "--algo", "cfr-d", "--subgame-iterations", "20", "-n", "5")
    report = ok_json(*args, "--exact", "-o", tmp_path / "d.npz")
    exact, bound = report["exact"]["exploitability"], report["stored_value_bound"]["exploitability"]
    assert 0 < exact <= bound + 0.05  # re-solved within the certified values, up to the re-solving error
    assert ok_json(*args, "-o", tmp_path / "e.npz")["exact"] is None  # the whole tree is built only when asked

    import subgame.tree.size as size_policy

    monkeypatch.setattr(size_policy, "available_bytes", lambda: 10**6)
    refused = invoke(*args, "--exact", "-o", tmp_path / "f.npz")
    assert refused.exit_code == 2 and "--exact needs about" in refused.output and "drop --exact" in refused.output
    assert not (tmp_path / "f.npz").exists()  # refused before the run
    other = invoke("solve", "kuhn", "--algo", "cfr+", "-n", "5", "--exact", "-o", tmp_path / "g.npz")
    assert other.exit_code == 2 and "--exact applies to --algo cfr-d" in other.output


def test_whole_tree_estimate_is_close_to_the_compiled_tree():
    from subgame.decompose import Decomposition, TrunkSplit, whole_tree_bytes
    from subgame.games import load_game
    from subgame.tree.compile import compile_game
    from subgame.tree.size import tree_bytes

    game = load_game("leduc", num_ranks=4)
    estimate, actual = whole_tree_bytes(Decomposition.build(game, TrunkSplit(rounds=1))), tree_bytes(compile_game(game))
    assert actual <= estimate <= 2 * actual
