"""``subgame resolve --depth-limit``: depth-limited solving with multi-valued states from the command line."""

from __future__ import annotations

import pytest

from subgame.depthlimited import load_leaf_tables
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.strategy import Strategy
from tests.cli.test_cli import invoke, ok_json
from tests.conftest import compiled


@pytest.fixture(scope="module")
def leduc_blueprint(tmp_path_factory):
    path = tmp_path_factory.mktemp("dl") / "bp.npz"
    ok_json("solve", "leduc", "--algo", "cfr+", "-n", "300", "--out", path)
    return path


@pytest.mark.slow
def test_bias_and_self_generative_reports_match_the_written_strategy(leduc_blueprint, tmp_path):
    out, table = tmp_path / "r.npz", tmp_path / "values.npz"
    report = ok_json("resolve", leduc_blueprint, "--chance-limit", "1", "--values", "4", "--continuations", "bias",
                     "-n", "300", "--out", out, "--save-values", table)
    assert report["values"] == 4 and report["continuations"] == "bias" and report["roots"] == 1
    written = Strategy.load(out)
    assert written.meta.resolved == "depth-limited-resolve"
    assert exploitability(compiled("leduc"), written).exploitability == pytest.approx(report["after"]["exploitability"])
    assert report["after"]["exploitability"] < 3 * report["before"]["exploitability"]
    tables = load_leaf_tables(table, load_game("leduc"))
    assert sorted(t.player for t in tables) == [0, 1] and all(len(t.names) == 4 for t in tables)
    stored = ok_json("resolve", leduc_blueprint, "--chance-limit", "1", "--values", "4", "--value-table", table,
                     "-n", "300", "--out", tmp_path / "s.npz")
    assert stored["continuations"] == "stored"
    assert stored["after"]["exploitability"] == pytest.approx(report["after"]["exploitability"], abs=1e-12)
    generated = ok_json("resolve", leduc_blueprint, "--chance-limit", "1", "--values", "3", "--continuations",
                        "self-generative", "-n", "200", "--out", tmp_path / "g.npz")
    assert generated["continuations"] == "self-generative" and generated["after"]["exploitability"] < 0.02


@pytest.mark.slow
def test_one_value_per_state_is_exploitable(leduc_blueprint, tmp_path):
    one = ok_json("resolve", leduc_blueprint, "--chance-limit", "1", "--values", "1", "-n", "300", "--out", tmp_path / "o.npz")
    assert one["after"]["exploitability"] > 10 * one["before"]["exploitability"]


@pytest.mark.slow
def test_depth_limited_at_an_explicit_depth_with_the_unsafe_root(leduc_blueprint, tmp_path):
    report = ok_json("resolve", leduc_blueprint, "--depth", "2", "--depth-limit", "2", "--values", "2",
                     "--method", "unsafe", "--weaken", "-n", "100", "--out", tmp_path / "d.npz")
    assert report["roots"] == 4 and report["method"] == "unsafe" and report["weaken"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--depth-limit", "40"), "beyond the game"),
        (("--depth-limit", "2", "--values", "0"), "K must be"),
        (("--depth-limit", "2", "--continuations", "magic"), "unknown continuation set"),
        (("--depth-limit", "2", "--method", "maxmargin"), "resolve or unsafe"),
        (("--values", "3",), "give --depth-limit"),
        (("--chance-limit", "1", "--values", "9"), "at most 4"),
        (("--chance-limit", "1", "--leaf-values", "net"), "unknown leaf values"),
    ],
)
def test_bad_input_is_one_clear_error(leduc_blueprint, args, message):
    result = invoke("resolve", leduc_blueprint, *args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_a_value_table_of_another_game_is_refused(leduc_blueprint, tmp_path):
    table = tmp_path / "values.npz"
    ok_json("resolve", leduc_blueprint, "--chance-limit", "1", "--values", "1", "-n", "10", "--out", tmp_path / "r.npz",
            "--save-values", table)
    kuhn = tmp_path / "kuhn.npz"
    ok_json("solve", "kuhn", "-n", "10", "--out", kuhn)
    result = invoke("resolve", kuhn, "--depth-limit", "1", "--value-table", table)
    assert result.exit_code == 2 and "leaf value table is for game" in result.output
