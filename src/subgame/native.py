"""The compiled libraries (``_kernels``, ``_showdown``, ``_sampling``, ``_mccfr``): each loaded once, through ctypes.

``pip install`` builds them where a C compiler is present; each reports the version of its interface
(``<name>_abi``), which must be the one its Python side was written for. A library that was not built is
left out quietly and the numpy code runs; one that was built but cannot be loaded, or reports another
version (a checkout updated without reinstalling), is left out with a warning that says how to rebuild it.
"""

from __future__ import annotations

import ctypes
import importlib
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: A function's argument types and result type (``None``: void).
Signature = tuple[Sequence[Any], Any]


def load_library(module: str, abi: int, signatures: Mapping[str, Signature]) -> ctypes.CDLL | None:
    """The extension ``module`` (its dotted name) as a C library, each function of ``signatures`` declared; ``None``
    where it was not built, cannot be loaded here, or was built from another version than ``abi`` (warned)."""
    try:
        extension = importlib.import_module(module)
    except ImportError:
        return None
    path = extension.__file__
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:  # built but not loadable here
        warnings.warn(f"subgame: the compiled library {path} cannot be loaded ({exc}); it is not used",
                      RuntimeWarning, stacklevel=3)
        return None
    version = getattr(lib, f"{module.rsplit('.', 1)[-1].lstrip('_')}_abi", None)  # absent from a build before it
    built = 0
    if version is not None:
        version.restype = ctypes.c_int64
        built = int(version())
    if built != abi:
        warnings.warn(f"subgame: the compiled library {path} was built from another version of its source (interface "
                      f"{built}, this code needs {abi}); it is not used. Reinstall to rebuild it (python3 -m pip install "
                      "-e .)", RuntimeWarning, stacklevel=3)
        return None
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)  # every one present: the interface version matched
        function.argtypes, function.restype = list(argtypes), restype
    return lib


def address(a: np.ndarray) -> int:
    """The address of ``a``'s data, for a compiled call (the caller keeps ``a`` alive and of the dtype it declares)."""
    return int(a.ctypes.data)
