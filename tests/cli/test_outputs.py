"""Nothing lost, nothing harmed: outputs checked before any work, checkpoints kept, signals answered."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from subgame.strategy import Strategy
from tests.cli.test_cli import invoke


def test_an_output_that_is_not_a_regular_file_is_refused_before_the_run(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for out, why in ((fifo, "not a regular file"), (tmp_path, "is a folder")):
        result = invoke("solve", "kuhn", "-n", "5", "--out", out)
        assert result.exit_code == 2 and why in result.output and "iteration" not in result.output
    assert fifo.exists() and not fifo.is_file()  # still the FIFO it was
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    result = invoke("solve", "kuhn", "-n", "5", "--out", blocker / "s.npz")
    assert result.exit_code == 2 and "cannot create its folder" in result.output
    assert blocker.read_text() == "x"


def test_a_symlinked_output_writes_its_target(tmp_path):
    target, link = tmp_path / "real.npz", tmp_path / "link.npz"
    target.write_bytes(b"")
    link.symlink_to(target)
    assert invoke("solve", "kuhn", "-n", "5", "--out", link).exit_code == 0
    assert link.is_symlink() and Strategy.load(target).probs[0].shape[0] > 0


@pytest.mark.slow
def test_an_existing_checkpoint_is_never_overwritten_by_a_new_run(tmp_path):
    ckpt = tmp_path / "c.npz"
    assert invoke("solve", "kuhn", "-n", "5", "--out", tmp_path / "a.npz", "--checkpoint-file", ckpt).exit_code == 0
    before = ckpt.read_bytes()
    again = invoke("solve", "kuhn", "-n", "7", "--out", tmp_path / "b.npz", "--checkpoint-file", ckpt)
    assert again.exit_code == 2 and "--resume" in again.output and "--force" in again.output
    assert ckpt.read_bytes() == before
    forced = invoke("solve", "kuhn", "-n", "7", "--out", tmp_path / "b.npz", "--checkpoint-file", ckpt, "--force")
    assert forced.exit_code == 0 and ckpt.read_bytes() != before


def test_bad_numbers_and_misplaced_options_are_one_clear_error(tmp_path):
    nan = invoke("solve", "coin_toss", "-p", "sell_heads=nan", "-n", "5", "--out", tmp_path / "x.npz")
    assert nan.exit_code == 2 and "sell_heads='nan' is not a finite number" in nan.output
    assert not (tmp_path / "x.npz").exists()
    misplaced = invoke("solve", "kuhn", "--subgame-batch", "4", "--workers", "2", "--out", tmp_path / "y.npz")
    assert misplaced.exit_code == 2 and "--subgame-batch applies to --algo cfr-d only" in misplaced.output


@pytest.mark.slow
def test_version_and_help():
    from subgame import __version__

    assert invoke("--version").output.strip() == f"subgame {__version__}"
    assert "cfr-d" in invoke("solve", "--help").output


def test_progress_is_a_plain_line_off_a_terminal(tmp_path):
    result = invoke("solve", "kuhn", "-n", "5", "--out", tmp_path / "s.npz")
    assert result.exit_code == 0 and "iteration 5/5" in result.output


def test_resolve_all_without_subgames_says_what_to_do():
    from subgame.errors import SubgameError
    from subgame.games import load_game
    from subgame.resolving import resolve_all
    from tests.conftest import compiled

    tree = compiled("kuhn")
    with pytest.raises(SubgameError, match="no subgame to re-solve"):
        resolve_all(load_game("kuhn"), tree, Strategy.uniform(tree), "resolve")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.slow
def test_a_scheduler_signal_keeps_the_run_and_it_resumes_bitwise(tmp_path, sig):
    """A real signal to a child process: checkpoint and partial result written, one line, exit 130."""
    ckpt, partial = tmp_path / "c.npz", tmp_path / "partial.npz"
    cmd = [sys.executable, "-m", "subgame.cli", "solve", "leduc", "-n", "1000000", "--checkpoint-file", str(ckpt),
           "--checkpoint-every", "20", "--checkpoints", "1", "--out", str(partial)]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not ckpt.exists() and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
    child.send_signal(sig)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "interrupted at iteration" in err and err.count("interrupted") == 1
    from subgame.solve.checkpoint import read_checkpoint

    stopped = int(read_checkpoint(ckpt)[0]["iteration"])
    assert f"interrupted at iteration {stopped}" in err  # the checkpoint is of the iteration it stopped at
    assert Strategy.load(partial).meta.iterations == stopped  # and so is the partial result
    target = stopped + 7
    resumed = invoke("solve", "leduc", "-n", target, "--checkpoint-file", ckpt, "--resume", "--out", tmp_path / "r.npz")
    straight = invoke("solve", "leduc", "-n", target, "--out", tmp_path / "s.npz")
    assert resumed.exit_code == 0 and straight.exit_code == 0
    a, b = Strategy.load(tmp_path / "r.npz"), Strategy.load(tmp_path / "s.npz")
    for p in (0, 1):
        assert np.array_equal(a.probs[p], b.probs[p])


@pytest.mark.slow
def test_a_game_too_big_for_memory_is_refused_before_it_is_built(tmp_path):
    huge = invoke("solve", "leduc", "-p", "num_ranks=1000000", "-n", "1", "--out", tmp_path / "x.npz")
    assert huge.exit_code == 2 and "hole-card combinations need about" in huge.output and "Traceback" not in huge.output
    capped = invoke("solve", "leduc", "-p", "num_ranks=6", "-p", "num_suits=4", "-p", "hole_cards=2", "--max-memory", "0.01",
                    "-n", "1", "--out", tmp_path / "y.npz")
    assert capped.exit_code == 2 and "estimated before building it" in capped.output and "raise the limit" in capped.output
    holdem = invoke("solve", "poker", "-p", "num_ranks=13", "-p", "num_suits=4", "-p", "hole_cards=2", "-p", "board_cards=0,3,1,1",
                    "-p", "raise_sizes=2,2,4,4", "-p", "max_raises=3,4,4,4", "-p", "first_player=1,0,0,0", "-n", "1",
                    "--out", tmp_path / "h.npz")
    assert holdem.exit_code == 2 and "PiB compiled (estimated before building it)" in holdem.output
    assert invoke("solve", "leduc", "--max-memory", "0.01", "-n", "1", "--out", tmp_path / "z.npz").exit_code == 0


def test_a_tree_that_fits_without_its_solver_state_is_refused_before_it_is_built(tmp_path):
    """The three-round 6-rank game: tree 2.1 GiB, with CFR+'s regrets and sums 3.5 GiB (estimated, nothing built)."""
    game = ("leduc", "-p", "num_ranks=6", "-p", "num_suits=4", "-p", "hole_cards=2", "-p", "board_cards=0,1,1",
            "-p", "raise_sizes=2,4,4", "-p", "max_raises=2,2,2", "-p", "first_player=0,0,0")
    with_solver = invoke("solve", *game, "--algo", "cfr+", "--max-memory", "3", "-n", "1", "--out", tmp_path / "a.npz")
    assert with_solver.exit_code == 2 and "the solver state" in with_solver.output and "use --algo cfr-d" in with_solver.output
    assert not (tmp_path / "a.npz").exists()
    tree_alone = invoke("solve", *game, "--algo", "mccfr-es", "--max-memory", "2", "-n", "1", "--out", tmp_path / "b.npz")
    assert tree_alone.exit_code == 2 and "estimated before building it" in tree_alone.output


def test_a_fifo_given_as_an_input_is_refused_instead_of_blocking(tmp_path):
    """Regression (found by fuzzing the command line): reading a FIFO waited forever for a writer."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for argv in (["evaluate", fifo], ["solve", "kuhn", "--out", tmp_path / "s.npz", "--checkpoint-file", fifo, "--resume"],
                 ["solve", f"efg:{fifo}", "--out", tmp_path / "s.npz"]):
        result = invoke(*argv)
        assert result.exit_code == 2 and "not a regular file" in result.output, result.output


def _widest(text: str) -> int:
    from rich.cells import cell_len

    return max(cell_len(line) for line in text.splitlines())


def test_a_wide_experiment_table_is_split_to_fit_80_columns_without_cutting_a_cell():
    from rich.console import Console

    from subgame.cli.app import fitted_tables

    methods = ["reach-estimate-distributional-nosplit", "blueprint", "maxmargin"]
    headers = ("game", "blueprint", "method", *(f"paper column {k} (mbb/h)" for k in range(6)))
    rows = [("leduc", "abstract (decomposition)", m, *(1234.5678 * (k + 1) for k in range(6))) for m in methods]
    tables = fitted_tables("a wide table", headers, rows)
    assert len(tables) >= 2  # the text columns, then the numbers
    console = Console(width=80, record=True)
    for t in tables:
        console.print(t)
    text = console.export_text()
    assert _widest(text) <= 80 and "…" not in text
    assert all(m in text for m in methods) and text.count("7407.4068") == len(methods)
    narrow = fitted_tables("narrow", ("a", "b"), [("x", 1.0)])
    assert len(narrow) == 1


@pytest.mark.slow
def test_solve_and_evaluate_tables_fit_80_columns(tmp_path):
    out = tmp_path / "s.npz"
    for result in (invoke("solve", "leduc", "-n", "20", "--out", out), invoke("evaluate", out), invoke("games"),
                   invoke("games", "--size", "leduc_nolimit")):
        tables = "\n".join(line for line in result.stdout.splitlines() if not line.startswith("wrote "))  # paths stay whole
        assert result.exit_code == 0 and _widest(tables) <= 80 and "…" not in tables


def test_a_library_warning_is_one_line_without_a_source_location(tmp_path):
    """A Gambit file whose decimals sum to 1 only up to rounding is read with one warning line, not Python's UserWarning."""
    sixth = repr(1 / 6)
    faces = " ".join(f'"{k}" {sixth}' for k in range(1, 7))
    leaves = "\n".join(f't "" {k} "" {{ {k}, {-k} }}' for k in range(1, 7))
    path = tmp_path / "die.efg"
    path.write_text(f'EFG 2 R "die" {{ "P1" "P2" }}\n""\nc "" 1 "" {{ {faces} }} 0\n{leaves}\n')
    result = invoke("games", "--size", f"efg:{path}")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("warning: ") and "die.efg" in lines[0], result.stderr
    assert "UserWarning" not in result.output
