"""Strategy files: round trip, versioning, and clear refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from subgame.errors import InvalidRangeError, StrategyFileError
from subgame.strategy import Strategy


def test_round_trip(leduc_tree, tmp_path, rng):
    s = Strategy.random(leduc_tree, rng)
    path = s.save(tmp_path / "s.npz", leduc_tree)
    back = Strategy.load(path, leduc_tree)
    for p in (0, 1):
        np.testing.assert_array_equal(back.probs[p], s.probs[p])


def test_file_for_another_game(kuhn_tree, leduc_tree, tmp_path):
    path = Strategy.uniform(kuhn_tree).save(tmp_path / "kuhn.npz")
    with pytest.raises(StrategyFileError, match="strategy is for game 'kuhn:.*load the game"):
        Strategy.load(path, leduc_tree)


@pytest.mark.parametrize("content", [b"", b"hello", b"PK\x03\x04garbage"])
def test_not_a_strategy(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(StrategyFileError, match="not a subgame strategy file"):
        Strategy.load(path)


def test_other_npz_or_version(tmp_path, kuhn_tree):
    path = tmp_path / "other.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(StrategyFileError, match="not a subgame strategy file"):
        Strategy.load(path)
    header = {"format": "subgame-strategy", "version": 99, "game_id": kuhn_tree.game_id}
    np.savez(path, header=np.array(json.dumps(header)), probs0=np.zeros(1), probs1=np.zeros(1))
    with pytest.raises(StrategyFileError, match="version 99 is not supported"):
        Strategy.load(path)


def test_missing_file(tmp_path):
    with pytest.raises(StrategyFileError, match="no such strategy file"):
        Strategy.load(tmp_path / "nope.npz")


def test_invalid_probabilities_are_refused_not_renormalized(kuhn_tree):
    s = Strategy.uniform(kuhn_tree)
    bad = s.probs[0].copy()
    bad[0] *= 2
    with pytest.raises(InvalidRangeError, match="sum to 2"):
        s.with_player(0, bad).check(kuhn_tree)
    neg = s.probs[1].copy()
    neg[0, 0] = -0.5
    with pytest.raises(InvalidRangeError, match="negative"):
        s.with_player(1, neg).check(kuhn_tree)
