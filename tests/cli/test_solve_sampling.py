"""``subgame solve --algo mccfr-es|mccfr-os|pcs``: seeds, time budgets, checkpoints and resume, option checks."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.cli.solve import SAMPLING_ALGORITHMS, parse_duration
from subgame.errors import SubgameError
from subgame.solve.mccfr import SCHEMES
from subgame.strategy import Strategy
from tests.cli.test_cli import invoke, ok_json


def test_every_sampling_scheme_is_an_algorithm():
    assert set(SAMPLING_ALGORITHMS) == set(SCHEMES)


@pytest.mark.parametrize("algo", sorted(SCHEMES))
def test_sampling_solve_converges_and_records_its_seed(tmp_path, algo):
    out = tmp_path / "k.npz"
    report = ok_json("solve", "kuhn", "--algo", algo, "-n", "300", "--seed", "3", "--out", out)
    curve = report["curve"]
    assert report["algo"] == algo and report["weighting"] == "lcfr" and report["iterations"] == 300
    assert curve[-1]["exploitability"] < curve[0]["exploitability"] / 3
    meta = Strategy.load(out).meta
    assert meta["seed"] == 3 and meta["algo"] == algo


@pytest.mark.slow
def test_same_seed_same_strategy_file_other_seed_other_strategy(tmp_path):
    def probs(seed: int, name: str) -> tuple[np.ndarray, ...]:
        out = tmp_path / name
        ok_json("solve", "leduc", "--algo", "mccfr-os", "-n", "20", "--checkpoints", "1", "--seed", str(seed), "--out", out)
        return Strategy.load(out).probs

    first, again, other = probs(1, "a.npz"), probs(1, "b.npz"), probs(2, "c.npz")
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


@pytest.mark.slow
def test_resumed_run_equals_the_uninterrupted_one(tmp_path):
    common = ("--algo", "mccfr-es", "--seed", "5", "--checkpoints", "2")
    ok_json("solve", "leduc", *common, "-n", "30", "--out", tmp_path / "straight.npz")
    ckpt = tmp_path / "run.ckpt"
    ok_json("solve", "leduc", *common, "-n", "12", "--out", tmp_path / "half.npz", "--checkpoint-file", ckpt)
    report = ok_json("solve", "leduc", *common, "-n", "30", "--out", tmp_path / "resumed.npz", "--checkpoint-file", ckpt,
                     "--resume")
    assert report["iterations"] == 30
    straight, resumed = Strategy.load(tmp_path / "straight.npz"), Strategy.load(tmp_path / "resumed.npz")
    assert all(np.array_equal(a, b) for a, b in zip(straight.probs, resumed.probs))
    other = invoke("solve", "leduc", "--algo", "pcs", "-n", "40", "--out", tmp_path / "x.npz", "--checkpoint-file", ckpt,
                   "--resume")
    assert other.exit_code == 2 and "written by --algo mccfr-es --weighting lcfr" in other.output


def test_a_time_budget_stops_the_run(tmp_path):
    report = ok_json("solve", "kuhn", "--algo", "pcs", "--time", "0.3s", "--out", tmp_path / "k.npz")
    assert report["stopped"] == "seconds" and report["iterations"] >= 1
    assert report["final"]["iteration"] == report["iterations"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--algo", "cfr+", "--weighting", "cfr"], "--weighting applies to --algo mccfr-es, mccfr-os or pcs only"),
        (["--algo", "mccfr-es", "--epsilon", "0.3"], "--epsilon applies to --algo mccfr-os only"),
        (["--algo", "lp", "--time", "1m"], "--time applies to --algo"),
        (["--algo", "cfr+", "--workers", "2"], "--workers applies to --algo cfr-d, mccfr-es, mccfr-os or pcs only"),
        (["--algo", "pcs", "--time", "soon"], "give a positive duration"),
    ],
)
def test_options_of_other_algorithms_are_refused(tmp_path, args, expected):
    result = invoke("solve", "kuhn", *args, "--out", tmp_path / "k.npz")
    assert result.exit_code == 2 and expected in result.output


@pytest.mark.slow
def test_workers_give_the_serial_run_bitwise(tmp_path):
    """--workers W is W random streams per pass: the same strategy on a process pool as in this process."""
    common = ("solve", "leduc", "--algo", "mccfr-es", "-n", "6", "--checkpoints", "1", "--workers", "2")
    serial = ok_json(*common, "--out", tmp_path / "serial.npz")
    pooled = ok_json(*common, "--backend", "process", "--out", tmp_path / "pool.npz")
    assert serial["streams"] == pooled["streams"] == 2 and pooled["backend"] == "process"
    a, b = Strategy.load(tmp_path / "serial.npz"), Strategy.load(tmp_path / "pool.npz")
    assert all(np.array_equal(x, y) for x, y in zip(a.probs, b.probs))


def test_durations():
    assert [parse_duration(t) for t in ("90", "90s", "10m", "1.5h")] == [90.0, 90.0, 600.0, 5400.0]
    with pytest.raises(SubgameError):
        parse_duration("0s")
