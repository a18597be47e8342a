"""The command line: games, solve (with checkpoints and resume), evaluate, quickstart, and its errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.cli.main import app
from subgame.cli.solve import CFR_ALGORITHMS
from subgame.eval.best_response import exploitability
from subgame.experiments.convergence import curve_markdown, curve_point, log_spaced
from subgame.experiments.report import format_cell
from subgame.solve.cfr import PRESETS, CFRSolver
from subgame.strategy import Strategy

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
KUHN_VALUE = -1.0 / 18.0  # Kuhn poker's value for the first player (Kuhn 1950)

runner = CliRunner()


def invoke(*args: str | Path):
    return runner.invoke(app, [str(a) for a in args])


def ok_json(*args: str | Path) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def kuhn_solved(tmp_path_factory) -> tuple[Path, dict]:
    """Kuhn poker solved with 300 iterations of CFR+: the strategy file and the JSON report."""
    out = tmp_path_factory.mktemp("solve") / "kuhn.npz"
    report = ok_json("solve", "kuhn", "--algo", "cfr+", "--iterations", "300", "--seed", "7", "--out", out)
    return out, report


# -- games ----------------------------------------------------------------------------------


def test_games_table_lists_kuhn_and_leduc_with_defaults():
    result = invoke("games")
    assert result.exit_code == 0, result.output
    for text in ("kuhn", "leduc", "num_ranks=3"):
        assert text in result.stdout


def test_games_json_gives_each_game_its_parameters():
    games = {g["name"]: g for g in json.loads(invoke("games", "--json").stdout)}
    assert {"kuhn", "leduc"} <= set(games)
    assert games["leduc"]["parameters"]["num_ranks"] == 3
    assert games["kuhn"]["parameters"]["num_suits"] == 1
    assert games["kuhn"]["description"]


# -- solve and evaluate -------------------------------------------------------------------


def test_algorithm_choices_cover_every_cfr_preset():
    assert set(CFR_ALGORITHMS) == set(PRESETS)


def test_solve_writes_a_strategy_with_its_game_and_seed(kuhn_solved):
    out, report = kuhn_solved
    assert report["out"] == str(out) and report["game"] == "kuhn" and report["algo"] == "cfr+"
    strategy = Strategy.load(out)
    assert strategy.meta["game"] == "kuhn" and strategy.meta["params"] == {}
    assert strategy.meta["seed"] == 7 and strategy.meta["iterations"] == 300


def test_solve_curve_is_log_spaced_and_converges(kuhn_solved):
    _, report = kuhn_solved
    curve = report["curve"]
    assert [p["iteration"] for p in curve] == log_spaced(300, 10)
    values = [p["exploitability"] for p in curve]
    assert all(v >= 0 for v in values)
    assert all(later <= 1.5 * earlier for earlier, later in zip(values, values[1:])), values
    assert values[-1] < values[0] / 100
    assert values[-1] < 0.01
    last = curve[-1]
    assert last["exploitability"] == pytest.approx(last["nash_conv"] / 2)
    assert last["exploitability_mbb_per_game"] == pytest.approx(1000 * last["exploitability"])
    assert sum(last["br_values"]) == pytest.approx(last["nash_conv"])
    assert report["final"] == last


def test_solve_prints_a_table_in_chips_and_mbb(tmp_path):
    result = invoke("solve", "kuhn", "-n", "20", "--checkpoints", "3", "--out", tmp_path / "k.npz")
    assert result.exit_code == 0, result.output
    assert "mbb/g" in result.stdout and "chips" in result.stdout
    assert re.findall(r"^│\s+(\d+) │", result.stdout, flags=re.MULTILINE) == ["1", "4", "20"]
    assert (tmp_path / "k.npz").exists()


def test_evaluate_recovers_the_game_and_reports_the_same_exploitability(kuhn_solved):
    out, report = kuhn_solved
    evaluated = ok_json("evaluate", out)
    assert evaluated["game"] == "kuhn"
    assert evaluated["exploitability"] == pytest.approx(report["final"]["exploitability"], abs=1e-12)
    assert evaluated["br_values"] == pytest.approx(report["final"]["br_values"], abs=1e-12)
    assert evaluated["game_value"] == pytest.approx(KUHN_VALUE, abs=0.01)
    table = invoke("evaluate", out)
    assert table.exit_code == 0
    for text in ("exploitability", "mbb/g", "best-response value, player 1", format_cell(evaluated["exploitability"])):
        assert text in table.stdout


def test_evaluate_a_file_without_its_game_needs_game_option(tmp_path, kuhn_tree):
    path = Strategy.uniform(kuhn_tree).save(tmp_path / "uniform.npz", kuhn_tree)
    missing = invoke("evaluate", path)
    assert missing.exit_code == 2 and "pass --game" in missing.stderr
    expected = exploitability(kuhn_tree, Strategy.uniform(kuhn_tree)).exploitability
    assert ok_json("evaluate", path, "--game", "kuhn")["exploitability"] == pytest.approx(expected)


def test_solve_and_evaluate_with_game_parameters(tmp_path):
    out = tmp_path / "leduc4.npz"
    report = ok_json("solve", "leduc", "-p", "num_ranks=4", "-n", "5", "--checkpoints", "2", "--out", out)
    assert report["params"] == {"num_ranks": "4"}
    assert ok_json("evaluate", out)["exploitability"] == pytest.approx(report["final"]["exploitability"])


def test_solve_lp_is_exact_on_kuhn(tmp_path):
    pytest.importorskip("subgame.solve.lp")
    report = ok_json("solve", "kuhn", "--algo", "lp", "--out", tmp_path / "lp.npz")
    assert report["final"]["exploitability"] == pytest.approx(0.0, abs=1e-9)
    assert report["lp_value"] == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert Strategy.load(tmp_path / "lp.npz").meta["algo"] == "lp"


# -- interruption and resume --------------------------------------------------------------


def interrupt_at(monkeypatch, iteration: int) -> None:
    """Press Ctrl-C (send SIGINT to this process) while the solver does iteration ``iteration``."""
    original = CFRSolver.step

    def step(self):
        original(self)
        if self.iteration == iteration:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(CFRSolver, "step", step)


def test_interrupted_run_checkpoints_and_resume_finishes_the_same_run(tmp_path, monkeypatch, kuhn_solved, kuhn_tree):
    out, ckpt = tmp_path / "partial.npz", tmp_path / "kuhn.ckpt"
    solve = ("solve", "kuhn", "--algo", "cfr+", "--iterations", "300", "--out", out, "--checkpoint-file", ckpt)

    with monkeypatch.context() as m:
        interrupt_at(m, 120)
        result = invoke(*solve)
    assert result.exit_code == 130, result.output
    assert "interrupted at iteration 120" in result.output and str(out) in result.output
    assert Strategy.load(out).meta["iterations"] == 120
    assert CFRSolver.load_checkpoint(ckpt, kuhn_tree).iteration == 120

    report = ok_json(*solve, "--resume")
    assert report["iterations"] == 300 and not report["interrupted"]
    assert [p["iteration"] for p in report["curve"]] == [i for i in log_spaced(300, 10) if i > 120]
    resumed = Strategy.load(out)
    assert resumed.meta["iterations"] == 300
    uninterrupted = Strategy.load(kuhn_solved[0])
    for p in (0, 1):
        np.testing.assert_allclose(resumed.probs[p], uninterrupted.probs[p], rtol=0, atol=1e-12)


# -- quickstart ---------------------------------------------------------------------------


@pytest.mark.slow
def test_quickstart_writes_plot_table_and_strategy_and_repeats_exactly(tmp_path):
    first = invoke("quickstart", "--iterations", "50", "--out-dir", tmp_path, "--seed", "3")
    assert first.exit_code == 0, first.output
    png, md, npz = (tmp_path / n for n in ("leduc_cfr_plus_convergence.png", "leduc_cfr_plus_convergence.md",
                                           "leduc_cfr_plus.npz"))
    assert png.read_bytes()[:8] == PNG_MAGIC
    table = md.read_text()
    assert "| iteration | exploitability (chips) | exploitability (mbb/g) |" in table
    assert "| 1 |" in table and "| 50 |" in table
    assert Strategy.load(npz).meta["seed"] == 3
    for path in (png, md, npz):
        assert str(path) in first.stdout

    second = invoke("quickstart", "--iterations", "50", "--out-dir", tmp_path, "--seed", "3")
    assert second.stdout == first.stdout
    assert md.read_text() == table


def test_markdown_table_has_one_row_per_point(kuhn_tree):
    solver = CFRSolver(kuhn_tree, PRESETS["cfr"])
    points = [curve_point(solver.run(1)), curve_point(solver.run(9))]
    rows = [line for line in curve_markdown(points, "t").splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [int(r.split("|")[1]) for r in rows] == [1, 10]


# -- errors -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def not_a_strategy(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bad") / "notes.npz"
    path.write_text("these are not arrays\n")
    return path


@pytest.mark.parametrize(
    "args, expected",
    [
        (["solve", "nosuch", "--out", "x.npz"], ["unknown game 'nosuch'", "kuhn", "leduc"]),
        (["solve", "leduc", "-p", "num_ranks", "--out", "x.npz"], ["key=value"]),
        (["solve", "leduc", "-p", "num_ranks=-1", "--out", "x.npz"], ["num_ranks=-1"]),
        (["solve", "leduc", "-p", "num_ranks=many", "--out", "x.npz"], ["num_ranks='many'", "int"]),
        (["solve", "leduc", "-p", "colour=red", "--out", "x.npz"], ["unknown parameter", "colour"]),
        (["evaluate", "NOT_A_STRATEGY"], ["not a subgame strategy file"]),
        (["evaluate", "missing.npz"], ["missing.npz", "no such strategy file"]),
        (["evaluate", "KUHN_STRATEGY", "--game", "leduc"], ["strategy is for game 'kuhn"]),
        (["solve", "kuhn", "--out", "x.npz", "--resume"], ["--resume needs --checkpoint-file"]),
        (["solve", "kuhn", "--out", "x.npz", "--resume", "--checkpoint-file", "none.ckpt"], ["no such checkpoint"]),
        (
            ["solve", "kuhn", "--out", "x.npz", "--resume", "--checkpoint-file", "NOT_A_STRATEGY"],
            ["not a CFR checkpoint"],
        ),
        (["solve", "kuhn", "--algo", "lp", "--out", "x.npz", "--checkpoint-file", "c"], ["not to --algo lp"]),
    ],
)
def test_errors_are_one_red_line_and_exit_code_2(args, expected, tmp_path, monkeypatch, not_a_strategy, kuhn_solved):
    monkeypatch.chdir(tmp_path)
    substitutes = {"NOT_A_STRATEGY": str(not_a_strategy), "KUHN_STRATEGY": str(kuhn_solved[0])}
    result = invoke(*(substitutes.get(a, a) for a in args))
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # not an unhandled error
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in expected:
        assert text in lines[0]
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.npz").exists()


def test_resume_with_another_algorithm_is_refused(tmp_path):
    ckpt = tmp_path / "c.ckpt"
    base = ("solve", "kuhn", "-n", "10", "--out", tmp_path / "k.npz", "--checkpoint-file", ckpt)
    assert invoke(*base, "--algo", "cfr").exit_code == 0
    result = invoke(*base[:3], "20", *base[4:], "--algo", "dcfr", "--resume")
    assert result.exit_code == 2
    assert "written by --algo cfr, not --algo dcfr" in result.stderr
    finished = invoke(*base[:3], "10", *base[4:], "--algo", "cfr", "--resume")
    assert finished.exit_code == 2 and "already at iteration 10" in finished.stderr


@pytest.mark.slow
def test_console_entry_point_prints_no_traceback(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "subgame.cli", "evaluate", str(tmp_path / "missing.npz")],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {tmp_path / 'missing.npz'}: no such strategy file"
    assert "Traceback" not in proc.stderr + proc.stdout
