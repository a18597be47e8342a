"""``subgame nested`` and ``subgame solve --algo modicum``."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import invoke, ok_json

SMALL = ("-p", "num_ranks=3", "-p", "stack=12", "-p", "bet_fractions=0.5,0.75,1.0", "-p", "blinds=1,2", "-p", "ante=0",
         "-p", "betting=nolimit")


@pytest.mark.slow
def test_nested_beats_translation_on_a_small_no_limit_game():
    report = ok_json("nested", "poker", *SMALL, "--keep", "50,100,allin", "--blueprint-iterations", "200", "-n", "100")
    rows = report["rows"]
    assert report["subgames"] > 0
    assert rows["nested resolve (inexpensive)"]["exploitability"] < rows["pseudo-harmonic translation"]["exploitability"]


@pytest.mark.slow
def test_one_off_tree_bet_and_bad_ones():
    one = ok_json("nested", "poker", *SMALL, "--keep", "50,100,allin", "--blueprint-iterations", "20", "-n", "20",
                  "--off-tree", "r5")
    assert one["responder"] == 1 and one["root_infosets"] == 6
    illegal = invoke("nested", "poker", *SMALL, "--keep", "50,100,allin", "--blueprint-iterations", "5", "--off-tree", "r7")
    assert illegal.exit_code != 0 and "'r7' is not legal" in illegal.output
    on_tree = invoke("nested", "poker", *SMALL, "--keep", "50,100,allin", "--blueprint-iterations", "5", "--off-tree", "r4")
    assert on_tree.exit_code != 0 and "in the abstraction" in on_tree.output
    bad_size = invoke("nested", "poker", *SMALL, "--keep", "50,75.5x")
    assert bad_size.exit_code != 0 and "bad bet size" in bad_size.output
    not_a_size = invoke("nested", "poker", *SMALL, "--keep", "50,60")
    assert not_a_size.exit_code != 0 and "not bet sizes of the game" in not_a_size.output


def test_solve_with_the_modicum_schedule(tmp_path):
    report = ok_json("solve", "kuhn", "--algo", "modicum", "-n", "200", "--out", tmp_path / "k.npz")
    assert report["final"]["exploitability"] < 0.01
