"""Arrays kept as given, or made by a function the first time they are asked for and kept from then on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import numpy as np

from ..errors import GameDefinitionError

T = TypeVar("T", bound=tuple[np.ndarray, ...])


class MadeOnFirstUse(Generic[T]):
    """A tuple of arrays, stored or made on first use by ``make``.

    A poker tree solved by depth-first passes (:mod:`.poker_layout`) never asks for the
    arrays the sweeps index with, so they are made only where something sweeps it.
    """

    def __init__(self, arrays: T | None = None, make: Callable[[], T] | None = None) -> None:
        if (arrays is None) == (make is None):
            raise GameDefinitionError(f"{type(self).__name__}: give either the arrays or a function that makes them")
        self._arrays, self._make = arrays, make

    @property
    def stored(self) -> tuple[np.ndarray, ...]:
        """The arrays where they exist (stored or made already), else nothing."""
        return self._arrays or ()

    def made(self) -> T:
        """The arrays, made now if they were not yet."""
        if self._arrays is None:
            assert self._make is not None
            self._arrays, self._make = self._make(), None
        return self._arrays
