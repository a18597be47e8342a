"""Long commands show progress on any stderr and say, on Ctrl-C, what was kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from subgame.cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def leduc_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("long") / "leduc.npz"
    assert runner.invoke(app, ["solve", "leduc", "-n", "3", "--out", str(out), "--json"]).exit_code == 0
    return out


def test_the_board_pass_shows_its_batches_where_stderr_is_not_a_terminal(leduc_file):
    result = runner.invoke(app, ["evaluate", str(leduc_file), "--board-pass", "--batch", "2"])
    assert result.exit_code == 0, result.output
    assert "batch 3/3" in result.stderr  # Leduc's 6 flop cards: 3 batches of 2


def test_an_interrupted_board_pass_says_where_it_stopped(leduc_file, monkeypatch):
    def stopped(*args, progress, **kwargs):
        progress(1, 3)
        raise KeyboardInterrupt

    monkeypatch.setattr("subgame.cli.evaluate.board_pass_exploitability", stopped)
    result = runner.invoke(app, ["evaluate", str(leduc_file), "--isomorphic"])
    assert result.exit_code == 130
    assert "interrupted after 1 of 3 batches of boards" in result.stderr and "Traceback" not in result.output


def test_an_interrupted_exploit_says_nothing_was_written(leduc_file, monkeypatch, tmp_path):
    def stopped(*args, progress, **kwargs):
        progress(2, 5)
        raise KeyboardInterrupt

    monkeypatch.setattr("subgame.cli.exploit.respond", stopped)
    out = tmp_path / "profile.npz"
    result = runner.invoke(app, ["exploit", str(leduc_file), "--method", "cdbr", "--value-function", "net", "--out", str(out)])
    assert result.exit_code == 130
    assert "interrupted: no counter-strategy was computed, nothing written" in result.stderr
    assert not out.exists()
