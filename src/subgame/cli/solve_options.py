"""The options of ``subgame solve`` as one record, and the checks of which go together.

:class:`SolveOptions` holds every option of the command as given; each way of solving
(:mod:`.solve` for a compiled tree, :mod:`.solve_cfr_d`, :mod:`.solve_boards`,
:mod:`.holdem` for spots) reads the fields it needs from it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from .app import progress_bar
from .options import CommandLineError, parse_duration


@dataclass(frozen=True)
class SolveOptions:
    """Every option of ``subgame solve``, as the command line gave it (``None``: not given; defaults: the command's)."""

    game: str
    out: Path | None
    param: tuple[str, ...]
    algo: str
    iterations: int | None
    time_limit: str | None
    seed: int
    weighting: str
    abstraction_file: Path | None
    blueprint_out: Path | None
    epsilon: float
    checkpoints: int
    checkpoint_file: Path | None
    resume: bool
    force: bool
    checkpoint_every: int | None
    checkpoint_seconds: float
    trunk_depth: int
    trunk_public_depth: int | None
    subgame_iterations: int
    subgame_batch: int
    cached_subgames: int
    workers: int
    backend: Literal["serial", "process", "ray"]
    ray_address: str | None
    max_memory: float | None
    exact: bool
    board: str | None
    pot: int | None
    stack: int | None
    starting_stack: int | None
    ranges: str | None
    bets: str | None
    raise_cap: int
    target: str | None
    evaluate_every: int
    grid: Path | None
    isomorphism: bool
    board_sampling: bool
    boards_per_pass: int
    dtype: str
    drop_zero_weight: bool
    compact: bool
    compute: str
    compress: bool
    as_json: bool

    @staticmethod
    def of(values: dict[str, Any]) -> SolveOptions:
        """The record of the command's parameters (``locals()`` of the command at its start)."""
        known = {f.name for f in fields(SolveOptions)}
        given: dict[str, Any] = {k: tuple(v) if k == "param" else v for k, v in values.items() if k in known}
        return SolveOptions(**given)

    @property
    def seconds(self) -> float | None:
        """``--time`` in seconds (``None``: not given)."""
        return None if self.time_limit is None else parse_duration(self.time_limit)

    @property
    def max_bytes(self) -> int | None:
        """``--max-memory`` in bytes (``None``: the memory available now)."""
        from ..tree.size import gib_to_bytes

        return gib_to_bytes(self.max_memory)

    def needs_resume_checkpoint(self) -> None:
        if self.resume and self.checkpoint_file is None:
            raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")

    def check_new_checkpoint(self) -> None:
        """Refuse, before any work, a checkpoint a new run would overwrite (the outputs themselves: :mod:`.options`)."""
        check_new_checkpoint(self.checkpoint_file, self.resume, self.force)


def check_new_checkpoint(checkpoint: Path | None, resume: bool, force: bool) -> None:
    """Refuse, before any work, a checkpoint that a new run (not ``resume``, not ``force``) would overwrite."""
    if checkpoint is not None and checkpoint.exists() and not resume and not force:
        raise CommandLineError(
            f"checkpoint {checkpoint} exists: continue that run with --resume, or start over with --force (it is overwritten)"
        )


def refuse_foreign_options(algo: str, options: list[tuple[str, object, object, tuple[str, ...]]]) -> None:
    """Refuse options given (not at their default) with an algorithm they do not apply to.

    ``options`` holds ``(name, value, default, algorithms it applies to)``; the options of
    one scope are named together in one error.
    """
    misplaced: dict[tuple[str, ...], list[str]] = {}
    for name, value, default, algos in options:
        if value != default and algo not in algos:
            misplaced.setdefault(algos, []).append(name)
    for algos, names in misplaced.items():
        verb, them = ("applies", "it") if len(names) == 1 else ("apply", "them")
        which = algos[0] if len(algos) == 1 else f"{', '.join(algos[:-1])} or {algos[-1]}"
        raise CommandLineError(f"{', '.join(names)} {verb} to --algo {which} only; drop {them} or choose --algo {algos[0]}")


def run_with_progress(solver: Any, iterations: int | None, seconds: float | None, as_json: bool, **run: Any) -> Any:
    """The library's driver on ``solver`` for ``iterations`` or ``seconds``, with a progress bar (iterations, or
    whole seconds of a time budget) on stderr; ``run``: the driver's other arguments."""
    from ..solve import driver

    total, done = (iterations, solver.iteration) if iterations is not None else (math.ceil(seconds or 1), 0)
    with progress_bar(total, done, not as_json, unit="iteration" if iterations is not None else "second") as update:
        started = time.perf_counter()

        def tick(iteration: int) -> None:
            update(iteration if iterations is not None else min(total, int(time.perf_counter() - started)))

        return driver.run(solver, driver.Budget(iterations=iterations, seconds=seconds), progress=tick, **run)
