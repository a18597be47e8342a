"""Shared fixtures: compiled trees are cached per session because compiling is the slow part."""

from __future__ import annotations

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
