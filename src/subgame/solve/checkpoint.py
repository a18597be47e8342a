"""The CFR checkpoint file: a solver's regrets and strategy sums, read back to resume bitwise."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import StrategyFileError
from ..files import read_npz, write_npz

__all__ = ["CHECKPOINT_FORMAT", "read_checkpoint", "write_checkpoint"]

CHECKPOINT_FORMAT = "subgame-cfr-checkpoint"


def read_checkpoint(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and arrays of a checkpoint file; ``extra_*`` arrays lose their prefix."""
    header, arrays = read_npz(path, format=CHECKPOINT_FORMAT, version=1, kind="checkpoint", expected="a CFR checkpoint")
    missing = {"r0", "r1", "s0", "s1"} - set(arrays)
    if missing:
        raise StrategyFileError(f"{path}: not a CFR checkpoint (arrays {sorted(missing)} missing)")
    return header, {k.removeprefix("extra_"): v for k, v in arrays.items()}


def write_checkpoint(path: str | Path, game_id: str, iteration: int, config: dict[str, Any],
                     regrets: Sequence[np.ndarray], strategy_sum: Sequence[np.ndarray],
                     predicted: Sequence[np.ndarray] | None = None, extra: dict[str, np.ndarray] | None = None,
                     extra_header: dict[str, Any] | None = None) -> Path:
    """Write a checkpoint atomically (an interruption leaves the previous file intact); ``extra`` arrays and
    ``extra_header`` entries are stored alongside for solvers built on CFR."""
    header = {"format": CHECKPOINT_FORMAT, "version": 1, "game_id": game_id, "iteration": iteration, "config": config,
              **(extra_header or {})}
    arrays = {"r0": regrets[0], "r1": regrets[1], "s0": strategy_sum[0], "s1": strategy_sum[1]}
    if predicted is not None:
        arrays.update(q0=predicted[0], q1=predicted[1])
    arrays.update({f"extra_{k}": v for k, v in (extra or {}).items()})
    return write_npz(path, header, arrays)
