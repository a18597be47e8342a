"""``subgame play`` (the terminal table, fed on standard input) and ``subgame serve``'s errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from subgame.agents import CallAgent
from subgame.agents.table import Table
from subgame.cli.main import app
from subgame.games import load_game

runner = CliRunner()


def play(*args: str, input: str):
    return runner.invoke(app, ["play", *args], input=input)


@pytest.fixture(scope="module")
def strategy_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("play") / "leduc.npz"
    result = runner.invoke(app, ["solve", "leduc", "--iterations", "30", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_piped_hands_give_the_tables_result():
    # always check or call: the human's moves are the same line each time, so an independent table replays them
    result = play("--agent", "call", "--game", "leduc", "--seed", "5", "--hands", "3", input="call\n" * 20)
    assert result.exit_code == 0, result.output
    table = Table(load_game("leduc"), CallAgent(), seed=5)
    for _ in range(3):
        state = table.new_hand()
        while not state.over:
            state = table.act("call")
    assert f"3 hands played; your result {table.total:+g}" in result.stdout
    assert len(re.findall(r"^hand \d: you are player", result.stdout.replace("─", "").replace(" hand", "hand"), re.M)) == 3


def test_hunl_is_played_against_an_agent_that_needs_no_tree():
    """Heads-up no-limit hold'em does not compile: an agent that needs no tree plays it, hand by hand."""
    from subgame.cli.play import open_table

    result = play("--agent", "call", "--game", "tests/data/acpc/holdem_nolimit.game", "--seed", "2", "--hands", "2",
                  input="call\n" * 20)
    assert result.exit_code == 0, result.output
    table = open_table("call", "tests/data/acpc/holdem_nolimit.game", [], 2, None)
    for _ in range(2):
        state = table.new_hand()
        while not state.over:
            state = table.act("call")
    assert f"2 hands played; your result {table.total:+g}" in result.stdout


def test_strategy_file_agent_shows_its_range_after_the_hand(strategy_file):
    result = play("--agent", str(strategy_file), "--hands", "1", "--seat", "1", input="c\n" * 5)
    assert result.exit_code == 0, result.output
    assert "leduc" in result.stdout  # the game recorded in the file
    assert "private state" in result.stdout and "range" in result.stdout and "◀" in result.stdout
    assert re.search(r"the agent held [JQK][sh]", result.stdout)


def test_an_illegal_action_is_refused_and_asked_again():
    result = play("--agent", "call", "--game", "kuhn", "--hands", "1", "--seat", "0", input="jump\nc\nc\nc\n")
    assert result.exit_code == 0, result.output
    assert "'jump' is not a legal action; type one of: 1 or c (check), 2 or r (bet to 2)" in result.stderr
    assert "1 hand played" in result.stdout


def test_closed_standard_input_is_one_clear_error():
    result = play("--agent", "random", "--game", "leduc", "--hands", "2", input="c\n")
    assert result.exit_code == 2
    assert "error: standard input closed after 0 of 2 hands" in result.stderr
    assert "abandoned" in result.stderr


def test_without_hands_the_end_of_input_or_q_ends_the_session():
    assert play("--agent", "random", "--game", "kuhn", input="").exit_code == 0
    result = play("--agent", "random", "--game", "kuhn", input="q\n")
    assert result.exit_code == 0 and "0 hands played" in result.stdout


@pytest.mark.parametrize("command", ["play", "serve"])
def test_unknown_agent_is_one_clear_error(command):
    result = runner.invoke(app, [command, "--agent", "nobody", "--game", "leduc"], input="")
    assert result.exit_code == 2
    assert "error: unknown agent 'nobody'" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_serve_refuses_a_port_it_cannot_use():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = runner.invoke(app, ["serve", "--agent", "random", "--game", "kuhn", "--port", str(port)])
    assert result.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in result.stderr


@pytest.mark.slow
def test_play_is_deterministic_for_a_seed():
    args = ("--agent", "random", "--game", "leduc_nolimit", "--seed", "8", "--hands", "2")
    moves = "\n".join(np.random.default_rng(0).choice(["c", "1", "2"], 30)) + "\n"
    first, again = play(*args, input=moves), play(*args, input=moves)
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout


@pytest.mark.slow
def test_serve_serves_the_page_until_interrupted():
    import json
    import os
    import signal
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "subgame.cli", "serve", "--agent", "random", "--game", "kuhn", "--port", "0", "--seed", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background shell may have ignored Ctrl-C
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
        assert url, line
        with urllib.request.urlopen(url.group(1) + "api/state", timeout=10) as answer:
            state = json.load(answer)
        assert state["game"] == "kuhn" and state["agent"] == "random" and state["legal"]
        with urllib.request.urlopen(url.group(1), timeout=10) as answer:
            assert b"<title>subgame: play against an agent</title>" in answer.read()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)
        assert proc.returncode == 0 and "stopped after 0 hands" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_agent_help_is_written_from_the_registry_of_agent_specs():
    from subgame.agents.specs import AGENT_KINDS, BASELINES

    for command in ("play", "match", "serve"):  # at 80 columns: no spec cut short or read as markup
        text = " ".join(CliRunner().invoke(app, [command, "--help"]).output.split())
        assert all(k.syntax in text for k in AGENT_KINDS.values()) and all(b in text for b in BASELINES)
