"""``subgame match``: JSON, results file, plot, determinism, workers, agent errors."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import invoke


@pytest.mark.slow
def test_match_writes_json_and_a_plot_and_is_deterministic(tmp_path):
    blueprint = tmp_path / "kuhn.npz"
    assert invoke("solve", "kuhn", "-n", "200", "--out", blueprint).exit_code == 0
    out, plot = tmp_path / "r.json", tmp_path / "w.png"
    args = ("match", str(blueprint), "random", "--game", "kuhn", "--hands", "60", "--seed", "4")
    first = invoke(*args, "--json", "--out", out, "--plot", plot)
    assert first.exit_code == 0, first.output
    record = json.loads(first.stdout)
    assert record["deals"] == 60 and record["hands"] == 120 and record["unit"] == "mbb/hand"
    assert json.loads(out.read_text())["winrate"] == record["winrate"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    aivat = record["winrate"]["aivat"]
    assert abs(aivat["mean"] - record["exact"]) < 1e-6  # both strategies known: AIVAT is exact
    again = json.loads(invoke(*args, "--json", "--workers", "2").stdout)
    assert again["winrate"] == record["winrate"]
    only_a = json.loads(invoke(*args, "--json", "--aivat-values", "a").stdout)
    assert only_a["winrate"]["plain"] == record["winrate"]["plain"] and only_a["winrate"]["aivat"]["half_width"] > 0
    table = invoke(*args)
    assert table.exit_code == 0 and all(w in table.stdout for w in ("duplicate", "AIVAT", "exact"))


def test_match_errors_are_one_line(tmp_path):
    result = invoke("match", "random", "nope.npz", "--game", "kuhn")
    assert result.exit_code == 2 and "unknown agent 'nope.npz'" in result.output
    result = invoke("match", "random", "call", "--game", "kuhn", "--out", tmp_path)
    assert result.exit_code == 2 and "is a folder" in result.output


def test_aivat_with_both_agents_known_is_the_exact_value_not_a_rounding_interval():
    """Random against call in Leduc: every deal's AIVAT value is the exact value up to rounding (about 1e-14)."""
    record = json.loads(invoke("match", "random", "call", "--game", "leduc", "--hands", "40", "--json").stdout)
    aivat = record["winrate"]["aivat"]
    assert aivat["half_width"] == 0.0 and aivat["std"] == 0.0
    assert aivat["mean"] == record["exact"] and aivat["low"] <= record["exact"] <= aivat["high"]
    assert record["winrate"]["plain"]["half_width"] > 0  # a real spread is kept


def test_a_spread_below_rounding_is_none_and_a_real_one_is_kept():
    import numpy as np

    from subgame.agents.match import Estimate

    noisy = np.array([1e-15, -2e-15, 3e-15, 0.0])
    assert Estimate.of(noisy, rounding=1e-12, exact=0.0) == Estimate(0.0, 0.0, 0.0)
    assert Estimate.of(noisy, rounding=1e-12, exact=5.0).mean == float(np.mean(noisy))  # far from exact: not replaced
    assert Estimate.of(np.array([1.0, -1.0]), rounding=1e-12, exact=0.0).half_width > 0


def test_a_strategy_of_the_same_game_under_another_name_plays_in_a_match(tmp_path):
    """A strategy solved for the built-in Kuhn plays a match on the ACPC file of the same game."""
    kuhn = tmp_path / "kuhn.npz"
    assert invoke("solve", "kuhn", "-n", "20", "--out", kuhn).exit_code == 0
    result = invoke("match", str(kuhn), "call", "--game", "tests/data/acpc/kuhn.game", "--hands", "4", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deals"] == 4
