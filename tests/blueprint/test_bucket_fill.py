"""Bucketing every canonical board as a job: the same tables serially, on processes, and after an interruption."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.blueprint.bucket_fill import BoardFill
from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from subgame.errors import SubgameError
from subgame.parallel import ProcessExecutor
from subgame.solve import driver

CONFIG = Buckets4Config(5, 3, 2, (0, 3, 1, 1), (1, 4, 4, 5), rollouts=0, fit_boards=8)


@pytest.fixture(scope="module")
def fitted() -> FourRoundBuckets:
    return FourRoundBuckets.build(CONFIG)


def _fresh(fitted: FourRoundBuckets) -> FourRoundBuckets:
    return FourRoundBuckets(fitted.config, fitted.centres)


def _tables(b: FourRoundBuckets, rnd: int) -> dict[int, bytes]:
    return {int(r): b._table[rnd][b._slot[rnd][r]].tobytes() for r in np.flatnonzero(b._slot[rnd] >= 0)}


def test_fill_buckets_every_canonical_board_as_lookups_would(fitted):
    b = _fresh(fitted)
    job = BoardFill(b, (1, 2), chunk=7)
    while not job.finished:
        job.step()
    assert job.iteration == job.total == b.boards_seen()[1] + b.boards_seen()[2]
    assert b.canonical_boards(1)[0].size == 0 and b.canonical_boards(2)[0].size == 0
    lazy = _fresh(fitted)
    cards = np.argsort(np.random.default_rng(2).random((300, 15)), axis=1)[:, :6]
    for r, size in ((1, 3), (2, 4)):
        np.testing.assert_array_equal(b.buckets(r, cards[:, :2], cards[:, 2 : 2 + size]),
                                      lazy.buckets(r, cards[:, :2], cards[:, 2 : 2 + size]))
    assert b.boards_seen()[:3] == (0, job.total - b.boards_seen()[2], b.boards_seen()[2])  # lookups added nothing


def test_processes_and_resume_give_the_same_tables(fitted, tmp_path):
    serial = _fresh(fitted)
    job = BoardFill(serial, (2,), chunk=16)
    driver.run(job, driver.Budget(iterations=job.total))
    half = _fresh(fitted)
    first = BoardFill(half, (2,), chunk=16)
    for _ in range(3):
        first.step()
    path = first.save_checkpoint(tmp_path / "b4.npz")
    resumed = FourRoundBuckets.load(path)
    with ProcessExecutor(2) as pool:
        rest = BoardFill(resumed, (2,), chunk=16, executor=pool, workers=2)
        assert rest.total == job.total - first.iteration
        driver.run(rest, driver.Budget(iterations=rest.total))
    assert _tables(resumed, 2) == _tables(serial, 2)


def test_bad_fill_is_refused(fitted):
    with pytest.raises(SubgameError, match="rounds"):
        BoardFill(_fresh(fitted), (4,))
    with pytest.raises(SubgameError, match="chunk"):
        BoardFill(_fresh(fitted), (1,), chunk=0)
