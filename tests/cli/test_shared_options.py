"""Options many commands share are checked in one place: a bad seed, port or count, and outputs that are one file."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from subgame.cli.main import COMMANDS, app, command_function
from subgame.cli.options import SHARED_OPTIONS

runner = CliRunner()

#: The least each command needs on its command line besides the option under test.
REQUIRED: dict[str, list[str]] = {
    "games": [], "solve": ["kuhn"], "evaluate": ["x.npz"], "quickstart": [], "resolve": ["x.npz"], "reproduce": ["nested"],
    "exploit": ["x.npz"], "nested": [], "serve": ["--agent", "random"], "play": ["--agent", "random"],
    "match": ["random", "random", "--game", "kuhn"],
    "acpc-client": ["--port", "1", "--game", "x.game", "--agent", "random"], "dealer": ["--game", "x.game", "--hands", "1", "--log", "l"],
    "abstract": ["leduc", "--buckets", "3", "--out", "b.npz"], "agent-eval": ["x.npz"], "blueprint": ["leduc_nolimit", "--out", "bp.npz"],
}


def _commands_with(option: str) -> list[str]:
    return [n for n in COMMANDS if option in inspect.signature(command_function(n)).parameters]


def _refused(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.stderr


def test_every_command_is_listed_with_what_it_needs():
    assert set(REQUIRED) == set(COMMANDS)


@pytest.mark.parametrize("name", _commands_with("seed"))
def test_a_negative_seed_is_one_line_for_every_command(name):
    err = _refused([name, *REQUIRED[name], "--seed", "-1"])
    assert err.strip().splitlines() == ["error: --seed -1: give an integer of at least 0"]


@pytest.mark.parametrize("name", _commands_with("workers"))
def test_zero_workers_are_refused(name):
    assert "--workers" in _refused([name, *REQUIRED[name], "--workers", "0"])


def test_every_shared_option_has_a_command():
    used = {p for n in COMMANDS for p in inspect.signature(command_function(n)).parameters}
    assert set(SHARED_OPTIONS) <= used


def test_a_port_out_of_range_is_refused():
    assert "--port 99999: give a port number from 0 to 65535" in _refused(["serve", *REQUIRED["serve"], "--port", "99999"])


def test_a_zero_duration_is_refused():
    assert "--time 0" in _refused(["solve", "kuhn", "--out", "k.npz", "--time", "0"])


@pytest.mark.parametrize("spell", ["same", "dot", "link", "hardlink"])
def test_out_and_checkpoint_naming_one_file_are_refused_before_work(tmp_path, spell):
    out = tmp_path / "k.npz"
    other = {"same": out, "dot": tmp_path / "." / "k.npz", "link": tmp_path / "link.npz", "hardlink": tmp_path / "hard.npz"}[spell]
    if spell == "link":
        other.symlink_to(out)
    if spell == "hardlink":
        out.write_bytes(b"")
        os.link(out, other)
    err = _refused(["solve", "kuhn", "--out", str(out), "--checkpoint-file", str(other), "--iterations", "2", "--force"])
    assert "--out and --checkpoint-file both name" in err
    assert not out.exists() or out.stat().st_size == 0  # nothing written


def test_match_results_and_plot_naming_one_file_are_refused(tmp_path):
    err = _refused(["match", *REQUIRED["match"], "--hands", "1", "--out", str(tmp_path / "r"), "--plot", str(tmp_path / "r")])
    assert "--out and --plot both name" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_an_output_that_is_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    err = _refused(["match", *REQUIRED["match"], "--hands", "1", "--plot", str(fifo)])
    assert "not a regular file" in err


def test_distinct_outputs_still_run(tmp_path: Path):
    result = runner.invoke(app, ["solve", "kuhn", "--iterations", "4", "--out", str(tmp_path / "k.npz"),
                                 "--checkpoint-file", str(tmp_path / "k.ckpt.npz")])
    assert result.exit_code == 0, result.output


def test_the_one_memory_policy_refuses_with_what_it_needs_and_has(monkeypatch):
    from subgame.errors import GameDefinitionError
    from subgame.tree import size

    assert size.MemoryLimit.of(2**30).fits(2**30) and not size.MemoryLimit.of(2**30).fits(2**30 + 1)
    with pytest.raises(GameDefinitionError, match=r"the LP needs about 2\.00 GiB .* more than the 1\.00 GiB allowed; use CFR"):
        size.MemoryLimit.of(2**30).require(2**31, "the LP", "use CFR")
    monkeypatch.setattr(size, "available_bytes", lambda: 2**30)
    with pytest.raises(GameDefinitionError, match="1.00 GiB available now"):
        size.MemoryLimit.of().require(2**31, "the LP", "use CFR")
    monkeypatch.setattr(size, "available_bytes", lambda: None)
    assert size.MemoryLimit.of().fits(2**60)  # unknown memory: nothing is refused
