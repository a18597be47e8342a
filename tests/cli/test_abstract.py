"""``subgame abstract`` and ``subgame solve --abstraction``: bucket files from the command line."""

from __future__ import annotations

import pytest

from subgame.blueprint.card_abstraction import CardBuckets
from tests.cli.test_cli import invoke, ok_json


@pytest.mark.slow
def test_abstract_then_solve_in_the_abstraction(tmp_path):
    buckets = tmp_path / "b.npz"
    report = ok_json("abstract", "leduc", "--buckets", "2,3", "--bins", "5", "--out", buckets)
    assert [r["buckets"] for r in report["rounds"]] == [2, 3] and [r["pairs"] for r in report["rounds"]] == [6, 30]
    assert CardBuckets.load(buckets).num_buckets == (2, 3) and [r["canonical_boards"] for r in report["rounds"]] == [1, 3]
    exact = ok_json("solve", "leduc", "-n", "200", "--checkpoints", "1", "--out", tmp_path / "full.npz")
    for algo in ("cfr+", "pcs"):
        abstract = ok_json("solve", "leduc", "--algo", algo, "-n", "200", "--checkpoints", "1", "--abstraction", buckets,
                           "--out", tmp_path / f"{algo}.npz")
        assert abstract["abstraction"] == str(buckets)
        # the blueprint is evaluated in the real game, where the abstraction costs exploitability
        assert abstract["final"]["exploitability"] > 5 * exact["final"]["exploitability"]


def test_abstract_nlfh_with_a_lossless_preflop(tmp_path):
    report = ok_json("abstract", "nlfh", "-p", "num_ranks=5", "-p", "num_suits=3", "--buckets", "105,300", "--out",
                     tmp_path / "b.npz")
    assert [r["buckets"] for r in report["rounds"]] == [25, 300]  # 25 classes of hands preflop: each its own bucket
    assert [r["canonical_boards"] for r in report["rounds"]] == [1, 95] and [r["pairs"] for r in report["rounds"]] == [105, 30030]
    assert report["bytes"] == (tmp_path / "b.npz").stat().st_size
    zero = invoke("abstract", "nlfh", "-p", "num_ranks=5", "-p", "num_suits=3", "--buckets", "25,0", "--out", tmp_path / "c.npz")
    assert zero.exit_code == 2 and ">= 1" in zero.output


def test_abstract_refusals(tmp_path):
    not_poker = invoke("abstract", "goofspiel", "--buckets", "3", "--out", tmp_path / "a.npz")
    assert not_poker.exit_code == 2 and "not a poker game" in not_poker.output
    bad = invoke("abstract", "leduc", "--buckets", "3,x", "--out", tmp_path / "a.npz")
    assert bad.exit_code == 2 and "whole numbers" in bad.output
    lp = invoke("solve", "leduc", "--algo", "lp", "--abstraction", tmp_path / "a.npz", "--out", tmp_path / "x.npz")
    assert lp.exit_code == 2 and "--abstraction applies to --algo" in lp.output
