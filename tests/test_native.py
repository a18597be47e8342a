"""The compiled libraries' loader: a library of another interface version or one that cannot be loaded is refused
with a warning that says so; one that was not built is left out quietly."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from subgame import native
from subgame.blueprint import implicit_mccfr
from subgame.games.poker import showdown
from subgame.solve import compiled_sampling
from subgame.tree import kernels

LIBRARIES = [(kernels, "subgame.tree._kernels", kernels.ABI), (showdown, "subgame.games.poker._showdown", 1),
             (compiled_sampling, "subgame.solve._sampling", 3), (implicit_mccfr, "subgame.blueprint._mccfr", 2)]


@pytest.mark.parametrize("module,name,abi", LIBRARIES)
def test_each_library_loads_at_its_version_and_is_refused_at_another(module, name, abi):
    if not module.available():
        pytest.skip(f"{name} is not built")
    assert native.load_library(name, abi, {}) is not None
    with pytest.warns(RuntimeWarning, match=f"another version of its source \\(interface {abi}, this code needs {abi + 1}\\)"):
        assert native.load_library(name, abi + 1, {}) is None


def test_the_kernels_refuse_a_build_of_other_signatures(monkeypatch):
    """A build left over from another version of _kernels.c (an editable install not reinstalled) is never called."""
    if not kernels.available():
        pytest.skip("the compiled loops are not built")
    monkeypatch.setattr(kernels, "ABI", kernels.ABI + 1)
    with pytest.warns(RuntimeWarning, match="_kernels.*another version.*Reinstall"):
        assert kernels._load() is None


def test_a_library_not_built_is_left_out_quietly_and_one_not_loadable_with_a_warning(monkeypatch, recwarn):
    assert native.load_library("subgame.tree._no_such_library", 1, {}) is None
    assert not recwarn.list
    if not kernels.available():
        pytest.skip("the compiled loops are not built")

    def unloadable(path: str) -> ctypes.CDLL:
        raise OSError(f"{path}: wrong ELF class")

    monkeypatch.setattr(native.ctypes, "CDLL", unloadable)
    with pytest.warns(RuntimeWarning, match="cannot be loaded .*wrong ELF class.*not used"):
        assert native.load_library("subgame.tree._kernels", kernels.ABI, {}) is None


def test_an_address_is_the_arrays_data():
    a = np.arange(6, dtype=np.float64)[2:]
    assert native.address(a) == a.__array_interface__["data"][0]
