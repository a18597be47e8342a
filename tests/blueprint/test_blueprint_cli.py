"""``subgame blueprint``: a resumable training job whose blueprint is the one the library computes."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.blueprint.blueprint_file import Blueprint
from tests.blueprint.conftest import needs_loop
from tests.cli.test_cli import invoke, ok_json

pytestmark = needs_loop

GAME = ["poker", "-p", "num_ranks=4", "-p", "num_suits=2", "-p", "hole_cards=1", "-p", "board_cards=0,1,1,1", "-p",
        "betting=nolimit", "-p", "ante=0", "-p", "blinds=2,1", "-p", "stack=6", "-p", "first_player=1,0,0,0",
        "--actions", "100,allin:1"]


def test_resumed_job_equals_one_run(tmp_path):
    whole = ok_json("blueprint", *GAME, "--iterations", "6000", "--out", tmp_path / "whole.npz", "--seed", "3")
    assert whole["iterations"] == 6000 and whole["table_bytes"] == 8 * 37_448
    cp = tmp_path / "cp.npz"
    ok_json("blueprint", *GAME, "--iterations", "2000", "--out", tmp_path / "a.npz", "--checkpoint-file", cp, "--seed", "3")
    again = invoke("blueprint", *GAME, "--iterations", "4000", "--out", tmp_path / "b.npz", "--checkpoint-file", cp)
    assert again.exit_code == 2 and "--resume" in again.output  # never overwrites a run's checkpoint
    resumed = ok_json("blueprint", *GAME, "--iterations", "6000", "--out", tmp_path / "b.npz", "--checkpoint-file", cp,
                      "--resume")
    assert resumed["iterations_run"] == 4000
    assert np.array_equal(Blueprint.load(tmp_path / "whole.npz").probs, Blueprint.load(tmp_path / "b.npz").probs)


@pytest.mark.parametrize("args, words", [
    (["--actions", "100,f"], "fold and call are always"),
    (["--buckets", "nothere.npz"], "nothere.npz"),
    ([], "--time"),
    (["--time", "soon"], "positive duration"),
])
def test_bad_input_one_line(tmp_path, args, words):
    result = invoke("blueprint", *GAME, "--out", tmp_path / "bp.npz", *args)
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output
    assert not (tmp_path / "bp.npz").exists()


def test_size_of_hunl_before_building():
    report = ok_json("blueprint", "tests/data/acpc/holdem_nolimit.game", "--size")  # as the README writes it: no --out
    assert "decision nodes per round 34, 396, 2,800, 13,388" in report["size"]


def test_a_run_without_out_is_refused_before_training():
    result = invoke("blueprint", *GAME, "--iterations", "10")
    assert result.exit_code == 2 and "give --out FILE" in result.output and "Traceback" not in result.output


def test_exact_exploitability_at_the_end(tmp_path):
    report = ok_json("blueprint", *GAME, "-p", "raise_cap=1", "-p", "bet_fractions=1.0", "--iterations", "31000",
                     "--out", tmp_path / "bp.npz", "--exact", "--seed", "1", "--strategy-out", tmp_path / "s.npz")
    # the uniform strategy's exploitability here is 0.86 chips; 31,000 iterations (seed 1) measured 0.105
    assert 0.0 < report["exploitability"] < 0.15
    assert report["mbb_per_hand"] == pytest.approx(1000 * report["exploitability"] / 2)
    lbr = ok_json("exploit", tmp_path / "s.npz", "--method", "lbr")  # the strategy file of the real game
    assert 0.0 < lbr["gain"] <= 2 * report["exploitability"] + 1e-9  # LBR gains at most a best response's


TWO_CARDS = ["poker", "-p", "num_ranks=5", "-p", "num_suits=3", "-p", "hole_cards=2", "-p", "board_cards=0,3,1,1", "-p",
             "betting=nolimit", "-p", "ante=0", "-p", "blinds=2,1", "-p", "stack=8", "-p", "first_player=1,0,0,0",
             "--actions", "100,allin:1", "--fit-boards", "6"]


def test_fill_then_train_on_the_filled_buckets(tmp_path):
    """--fill without --out buckets every canonical flop and turn into the bucket file and stops; training on that
    file buckets no further flop or turn."""
    b4 = tmp_path / "b4.npz"
    filled = ok_json("blueprint", *TWO_CARDS, "--buckets", "1,4,4,5", "--fill", "1,2", "--buckets-out", b4)
    assert filled["boards_filled"] == filled["boards_to_fill"] > 0 and b4.exists()
    again = ok_json("blueprint", *TWO_CARDS, "--buckets", b4, "--fill", "1,2", "--buckets-out", b4)
    assert again["boards_to_fill"] == 0  # a filled file has nothing left to do
    run = ok_json("blueprint", *TWO_CARDS, "--buckets", b4, "--iterations", "2000", "--out", tmp_path / "bp.npz",
                  "--batch", "500")
    assert run["boards_bucketed"][1:3] == filled["boards_bucketed"][1:3]


@pytest.mark.parametrize("args, words", [
    (["--buckets", "1,4,4,5", "--fill", "1,2"], "--buckets-out"),
    (["--buckets", "1,4,4,5", "--fill", "0", "--buckets-out", "x.npz"], "rounds with board cards"),
    (["--buckets", "1,4,4,5", "--fill", "flop", "--buckets-out", "x.npz"], "round numbers"),
])
def test_bad_fill_one_line(tmp_path, args, words):
    result = invoke("blueprint", *TWO_CARDS, *args)
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output
