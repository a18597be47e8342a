"""The C library's allocator: hand what a process has freed back to the operating system, or keep it for the
process's next allocations (glibc's ``malloc_trim`` and ``mallopt``, through ctypes; nothing on other C libraries).

Light on purpose: a pool's worker process imports it at its start, before any task.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache
from typing import Any


def release_freed_memory() -> None:
    """Hand the memory freed so far back to the operating system (glibc's ``malloc_trim``; nothing elsewhere), unless
    this process keeps it (:func:`keep_freed_memory`).

    Building a poker tree frees more memory than it keeps; glibc holds freed blocks inside its heap for reuse, so a
    solver made afterwards puts its storage on top of them and the peak counts both: on a flop spot, about 80 MiB.
    """
    if _keeping[0]:
        return
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # the process's C library: absent from musl's
    except (OSError, AttributeError):
        return None


#: ``mallopt``'s parameters (glibc's ``malloc.h``)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_keeping = [False]  # whether keep_freed_memory took effect in this process


def keep_freed_memory() -> bool:
    """Make the C library's allocator keep what this process frees for its next allocations (a pool's worker: its
    next task allocates the same large arrays again).

    By default glibc gives a freed block of 128 KiB to 32 MiB back to the kernel (each is a mapping of its own, or
    the top of the heap past a threshold), and the kernel zeroes every page it hands out again, 2 MiB at a time where
    numpy asks for huge pages; :func:`release_freed_memory` (after each poker tree's making and each solver's storage)
    would hand back the rest. A flop of the nested-table job took about 8 % less time with the thresholds raised (six
    alternated runs) and again less without the trims, the same bytes. The peak is unchanged; what was freed stays
    with the process until it exits. Returns False where the C library has no ``mallopt`` (or ignores it).
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no C library by that name, no mallopt in it, or no CDLL(None)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    _keeping[0] = bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, 2**31 - 1))
    return _keeping[0]
