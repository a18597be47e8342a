"""Strategy files: round trip, versioning, and clear refusals."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import numpy as np
import pytest

from subgame.errors import InvalidRangeError, StrategyFileError
from subgame.strategy import Strategy, StrategyMeta


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


# -- the meta record ------------------------------------------------------------------------


def _write_raw(path, game_id: str, meta) -> None:
    """A strategy file as the writer before the record wrote it: ``meta`` a free JSON object."""
    header = {"format": "subgame-strategy", "version": 1, "game_id": game_id, "meta": meta}
    np.savez(path, header=np.array(json.dumps(header)), probs0=np.ones((1, 1)), probs1=np.ones((1, 1)))


def _read_raw_meta(path):
    with np.load(path, allow_pickle=False) as z:
        return json.loads(str(z["header"]))["meta"]


def test_a_file_written_before_the_record_loads_with_unknown_entries_kept(tmp_path):
    old = {"iterations": 300, "config": {"regret": "rm+"}, "game": "kuhn", "params": {}, "algo": "cfr+", "seed": 7,
           "solver": "sequence-form LP (HiGHS)", "linear_programs": 2}
    _write_raw(tmp_path / "old.npz", "g", old)
    meta = Strategy.load(tmp_path / "old.npz").meta
    assert isinstance(meta, StrategyMeta)
    assert (meta.game, meta.params, meta.algo, meta.seed, meta.iterations) == ("kuhn", {}, "cfr+", 7, 300)
    assert meta.config == {"regret": "rm+"} and meta.resolved is None
    assert meta.extra == {"solver": "sequence-form LP (HiGHS)", "linear_programs": 2}
    assert dict(meta) == old and meta["seed"] == 7 and "linear_programs" in meta


def test_a_file_written_now_has_the_old_meta_shape(tmp_path):
    meta = StrategyMeta(game="leduc", params={"num_ranks": "4"}, algo="cfr", seed=1, resolved="maxmargin", extra={"note": "x"})
    path = Strategy(meta=meta, game_id="g", probs=(np.ones((1, 1)), np.ones((1, 1)))).save(tmp_path / "new.npz")
    raw = _read_raw_meta(path)
    assert raw == {"game": "leduc", "params": {"num_ranks": "4"}, "algo": "cfr", "seed": 1, "resolved": "maxmargin", "note": "x"}
    assert Strategy.load(path).meta == meta


def test_meta_given_as_a_dict_becomes_the_record():
    probs = (np.ones((1, 1)), np.ones((1, 1)))
    s = Strategy("g", probs, {"iterations": np.int64(5), "params": {"board_cards": (0, 1), "num_ranks": 4}, "x": None})
    assert s.meta.iterations == 5 and type(s.meta.iterations) is int
    assert s.meta.params == {"board_cards": "0,1", "num_ranks": "4"}  # as -p key=value writes them
    assert s.meta.extra == {"x": None}
    assert Strategy("g", probs).meta == StrategyMeta() == {}
    blueprint = Strategy("g", probs, StrategyMeta(algo="cfr+"))
    resolved = Strategy("g", probs, {**blueprint.meta, "resolved": "resolve", "subgame_iterations": 10})
    assert (resolved.meta.algo, resolved.meta.resolved, resolved.meta.subgame_iterations) == ("cfr+", "resolve", 10)
    assert replace(resolved.meta, seed=3).seed == 3 and resolved.with_player(0, probs[0]).meta == resolved.meta


@pytest.mark.parametrize(
    "meta, message",
    [
        ({"seed": "seven"}, "'seed' must be an integer"),
        ({"iterations": True}, "'iterations' must be an integer"),
        ({"params": ["num_ranks=4"]}, "'params' must be a key/value mapping"),
        ({"cfr_d_explicit_average": "yes"}, "must be true or false"),
        (["not", "a", "mapping"], "must be a key/value mapping"),
    ],
)
def test_a_file_with_a_malformed_meta_is_refused_with_its_name(tmp_path, meta, message):
    _write_raw(tmp_path / "bad.npz", "g", meta)
    with pytest.raises(StrategyFileError, match=f"bad.npz: .*{message}"):
        Strategy.load(tmp_path / "bad.npz")


def test_extra_cannot_hide_a_field():
    with pytest.raises(StrategyFileError, match="fields of the record"):
        StrategyMeta(extra={"game": "kuhn"})



def test_every_field_is_read_from_its_key():
    values = {"game": "g", "params": {}, "algo": "a", "seed": 1, "iterations": 2, "config": {}, "resolved": "r",
              "subgame_iterations": 3, "cfr_d_explicit_average": True}
    assert set(values) == {f.name for f in fields(StrategyMeta)} - {"extra"}
    meta = StrategyMeta.of(values)
    assert meta.extra == {} and dict(meta) == values
