"""What a compiled tree holds in memory, counted from its arrays.

A tree's arrays (its per-player index arrays, sweep plan and terminal operators) are
nearly all it holds; solver state adds a few arrays of the same sizes. Counting them for
a part of a game compiled alone (a trunk, one subgame) lets a caller estimate the whole
game's tree before deciding to build it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

import numpy as np
import scipy.sparse as sp

from .public_tree import PublicTree


def array_bytes(obj: Any) -> int:
    """Bytes of the arrays, sparse matrices and strings reachable from ``obj``, each counted once.

    Walks dataclasses (their fields and computed properties already cached on them),
    tuples, lists and dict values (with their containers' own size); numbers count nothing.
    """
    seen: set[int] = set()
    total = 0
    stack = [obj]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            total += x.nbytes
        elif sp.issparse(x):
            stack.extend(getattr(x, name) for name in ("data", "indices", "indptr", "row", "col") if hasattr(x, name))
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(vars(x).values())
        elif isinstance(x, str):
            total += sys.getsizeof(x)
        elif isinstance(x, (tuple, list)):
            total += sys.getsizeof(x)
            stack.extend(x)
        elif isinstance(x, dict):
            total += sys.getsizeof(x)
            stack.extend(x.values())
    return total


def tree_bytes(tree: PublicTree) -> int:
    """Bytes of ``tree``'s arrays, its sweep plan included (built here if not yet)."""
    _ = tree.plan
    return array_bytes(tree)


def available_bytes() -> int | None:
    """Memory this machine can still give (Linux ``MemAvailable``), or ``None`` where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def gib(n: float) -> str:
    """``n`` bytes in GiB, for messages."""
    return f"{n / 2**30:.2f} GiB"
