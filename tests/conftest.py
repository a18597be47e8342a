"""Shared fixtures: compiled trees are cached per session because compiling is the slow part."""

from __future__ import annotations

import os

# One test process per core (pyproject's addopts): OpenBLAS's own threads would only spin against the other process's.
# On 2 cores, two alternated runs of the search tests took 3 % and 23 % less user time with one. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from functools import cache

import numpy as np
import pytest

from subgame.games import load_game
from subgame.tree.compile import compile_game


@cache
def compiled(name: str, **params):
    return compile_game(load_game(name, **params))


@pytest.fixture(scope="session")
def kuhn_tree():
    return compiled("kuhn")


@pytest.fixture(scope="session")
def leduc_tree():
    return compiled("leduc")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
