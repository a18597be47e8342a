"""One run driver for every solver: a budget, evaluation points, checkpoints and clean interrupts.

Any object with ``iteration``, ``step()``, ``average_strategy()`` and ``save_checkpoint()``
is a :class:`Solver` (:class:`~subgame.solve.cfr.CFRSolver` and
:class:`~subgame.decompose.CFRDSolver` are). :func:`run` advances one for a
:class:`Budget` in iterations or seconds, evaluates it at chosen iterations, writes
checkpoints on a :class:`Cadence` and at the end, and turns SIGINT, SIGTERM and SIGHUP
into a clean stop: the current iteration finishes, the checkpoint is written, and the
:class:`RunResult` says the run was interrupted. Command-line tools, experiments and
agents share it; what they show (a progress bar, a table) is theirs and comes in as
callbacks.

Example: a convergence curve measured at log-spaced iterations::

    result = run(solver, Budget(iterations=1000), evaluate_at=[1, 10, 100, 1000],
                 on_evaluation=lambda s: exploitability(s.tree, s))
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from math import log
from pathlib import Path
from types import FrameType
from typing import Any, Generic, Literal, Protocol, TypeVar, overload, runtime_checkable

from ..errors import SubgameError
from ..strategy import Strategy

StopReason = Literal["iterations", "seconds", "interrupted", "target"]

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a run cleanly (SIGHUP where the platform has it)."""


@runtime_checkable
class Solver(Protocol):
    """An iterative solver the driver can run: one ``step()`` is one iteration."""

    @property
    def iteration(self) -> int:
        """Iterations done so far (a resumed solver counts those before the checkpoint)."""
        ...

    def step(self) -> None: ...

    def average_strategy(self) -> Strategy: ...

    def save_checkpoint(self, path: Path, /) -> Path:
        """Write the state from which the solver's own loader continues exactly."""
        ...


@dataclass(frozen=True)
class Budget:
    """How long a run lasts; with both limits it stops at whichever comes first.

    Attributes:
        iterations: stop once the solver's iteration count reaches this total, so a
            solver resumed at iteration k runs only the remaining ``iterations - k``.
        seconds: stop after the first iteration that ends this many seconds (wall
            clock) after the run started; evaluations and checkpoints count too.
    """

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise SubgameError("a run budget needs iterations or seconds (or both)")
        if self.iterations is not None and self.iterations < 1:
            raise SubgameError(f"a run budget of iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise SubgameError(f"a run budget of seconds must be > 0, got {self.seconds}")


@dataclass(frozen=True)
class Cadence:
    """When checkpoints are written during a run (the end of a run always writes one).

    Attributes:
        iterations: whenever the solver's iteration count is a multiple of this, so a
            resumed run writes at the same iterations as an uninterrupted one.
        seconds: at the end of the first iteration this many seconds after the last write
            (or the start of the run).
        at: at these iteration counts (e.g. the evaluation points).
    """

    iterations: int | None = None
    seconds: float | None = None
    at: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise SubgameError(f"a checkpoint cadence of iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise SubgameError(f"a checkpoint cadence of seconds must be > 0, got {self.seconds}")

    def due(self, iteration: int, seconds_since_write: float) -> bool:
        """Whether a checkpoint is due after ``iteration``."""
        return (
            iteration in self.at
            or (self.iterations is not None and iteration % self.iterations == 0)
            or (self.seconds is not None and seconds_since_write >= self.seconds)
        )


class TargetSchedule:
    """Evaluation points that grow toward the iteration where a target is predicted to be met.

    An exploitability check (a best-response pass) costs about an iteration, so checking a
    long run every few iterations adds a large share to it. Here the first check is at
    ``first``; after each one the next is where the power law ``e(t) = c · t^-k`` through
    the last two checks reaches ``target`` (CFR+ and DCFR curves are close to straight on
    log-log axes), at least ``min_gap`` iterations later (by default 1/20 of the iteration
    count, at least one) and at most ``max_growth`` times the iteration count; with one
    check, or a curve that did not fall, the count grows by ``max_growth``. A run that stops
    at the target therefore needs a handful of checks and overshoots the crossing by about
    the last prediction's error. Pass it as
    :func:`run`'s ``evaluate_at`` and :meth:`record` every evaluation's value.

    ``restarts`` are the iterations at which the average strategy starts again
    (:func:`~subgame.solve.rules.average_restarts`: postflop-solver's schedule): a check
    predicted past one is made just before it instead, where that average is the most
    converged it gets (just after a restart the average is a few iterations' strategy).
    """

    def __init__(self, target: float, first: int, min_gap: int | None = None, max_growth: float = 2.0,
                 restarts: Sequence[int] = ()) -> None:
        if not target > 0 or first < 1 or (min_gap is not None and min_gap < 1) or not max_growth > 1:
            raise SubgameError(f"a target schedule needs target > 0, first >= 1, min_gap >= 1 and max_growth > 1; got "
                               f"{target}, {first}, {min_gap}, {max_growth}")
        self.target, self.min_gap, self.max_growth = float(target), min_gap, float(max_growth)
        self.restarts = tuple(sorted(restarts))
        self.next = int(first)
        self.checks: list[tuple[int, float]] = []

    def __call__(self, iteration: int) -> bool:
        return iteration >= self.next

    def record(self, iteration: int, value: float) -> None:
        """The value checked at ``iteration``; sets the next point."""
        self.checks.append((iteration, float(value)))
        grown = int(iteration * self.max_growth)
        step = grown
        if len(self.checks) >= 2:
            (t0, e0), (t1, e1) = self.checks[-2:]
            if t1 > t0 and 0 < e1 < e0 and e1 > self.target:
                k = log(e0 / e1) / log(t1 / t0)
                step = min(grown, int(t1 * (e1 / self.target) ** (1.0 / k)) + 1)
        gap = self.min_gap if self.min_gap is not None else max(1, round(iteration / 20))
        self.next = max(iteration + gap, step)
        before = [r - 1 for r in self.restarts if iteration < r - 1 < self.next]
        if before:
            self.next = before[0]


E = TypeVar("E")
S = TypeVar("S", bound=Solver)


@dataclass(frozen=True)
class RunResult(Generic[E]):
    """How a run ended.

    Attributes:
        iteration: the solver's iteration count at the end.
        iterations_run: iterations this run did (``iteration`` minus where it started).
        seconds: wall-clock seconds of the run, evaluations and checkpoints included.
        stopped: ``"iterations"`` or ``"seconds"`` (the budget was used up),
            ``"target"`` (an evaluation met ``until``) or ``"interrupted"`` (a stop
            signal came first).
        evaluations: what the evaluation callback returned, in iteration order.
        evaluated_at: the iteration of each evaluation.
        checkpoints: the iterations at which the checkpoint file was written.
        signum: the signal that interrupted the run, else ``None``.
    """

    iteration: int
    iterations_run: int
    seconds: float
    stopped: StopReason
    evaluations: tuple[E, ...] = ()
    evaluated_at: tuple[int, ...] = ()
    checkpoints: tuple[int, ...] = ()
    signum: int | None = None

    @property
    def interrupted(self) -> bool:
        return self.stopped == "interrupted"


class _StopRequests:
    """The first stop signal received while the handlers are installed."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum


@contextmanager
def deferred_stop_signals() -> Iterator[_StopRequests]:
    """Within the block, SIGINT/SIGTERM/SIGHUP only record a stop request (``requests.signum``).

    The previous handlers come back on exit (a handler not installed from Python comes back
    as the default one). A request recorded here is passed on to an enclosing block's on exit
    (a run inside a job: the job learns of it too, and stops). Signals can be handled only in
    the main thread; elsewhere nothing is installed and they act as they otherwise would.
    """
    requests = _StopRequests()
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in STOP_SIGNALS:
            previous[sig] = signal.signal(sig, requests.handle)
    try:
        yield requests
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        outer = previous.get(signal.Signals(requests.signum)) if requests.signum is not None else None
        owner = getattr(outer, "__self__", None)
        if isinstance(owner, _StopRequests) and requests.signum is not None:
            owner.handle(requests.signum, None)


@overload
def run(
    solver: S, budget: Budget, *, evaluate_at: Iterable[int] | Callable[[int], bool] = (), on_evaluation: Callable[[S], E],
    checkpoint: Path | None = None, checkpoint_every: Cadence = ..., progress: Callable[[int], None] | None = None,
    clock: Callable[[], float] = ..., until: Callable[[E], bool] | None = None,
) -> RunResult[E]: ...


@overload
def run(
    solver: S, budget: Budget, *, evaluate_at: Iterable[int] | Callable[[int], bool] = (), on_evaluation: None = None,
    checkpoint: Path | None = None, checkpoint_every: Cadence = ..., progress: Callable[[int], None] | None = None,
    clock: Callable[[], float] = ..., until: None = None,
) -> RunResult[None]: ...


def run(
    solver: S,
    budget: Budget,
    *,
    evaluate_at: Iterable[int] | Callable[[int], bool] = (),
    on_evaluation: Callable[[S], E] | None = None,
    checkpoint: Path | None = None,
    checkpoint_every: Cadence = Cadence(),
    progress: Callable[[int], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    until: Callable[[E], bool] | None = None,
) -> RunResult[E] | RunResult[None]:
    """Run ``solver`` for ``budget``; stop signals end it cleanly after the current iteration.

    After every iteration, in this order: ``progress(solver.iteration)``; at the
    iterations in ``evaluate_at``, ``on_evaluation(solver)``; a checkpoint to
    ``checkpoint`` when ``checkpoint_every`` says so. When the run stops, the iteration
    it stopped at is evaluated too (unless it already was) and the checkpoint written
    (unless it already was). Evaluation points at or before the solver's starting
    iteration are skipped, so a resumed run reports the points an uninterrupted one
    would have reported after that iteration.

    Args:
        solver: advanced in place.
        budget: iterations (a total) and/or seconds.
        evaluate_at: iteration counts at which to call ``on_evaluation``, or a function of the
            iteration count that says whether to (a :class:`TargetSchedule`).
        on_evaluation: returns what the result collects (an exploitability, a curve point).
        checkpoint: where ``solver.save_checkpoint`` writes; ``None`` writes nothing.
        checkpoint_every: when to write during the run.
        progress: called with the iteration count after every iteration.
        clock: seconds on a monotonic clock (the budget and cadence in seconds use it).
        until: stop after an evaluation for which ``until(evaluation)`` is true (a
            target exploitability reached), before the budget is used up.

    Returns:
        The :class:`RunResult`; ``interrupted`` is true when a stop signal ended the run
        before its budget was used up.

    Stop signals are deferred only in the main thread, and the previous handlers come
    back when the run returns. An exception from the solver or a callback
    (``KeyboardInterrupt`` included) propagates without a checkpoint being written, since
    the iteration it cut may be half done.
    """
    due = evaluate_at if callable(evaluate_at) else frozenset(evaluate_at).__contains__
    start_iteration = solver.iteration
    evaluations: list[E] = []
    evaluated_at: list[int] = []
    written: list[int] = []
    started = last_write = clock()

    def evaluate() -> None:
        if on_evaluation is not None:
            evaluations.append(on_evaluation(solver))
            evaluated_at.append(solver.iteration)

    def write() -> None:
        nonlocal last_write
        if checkpoint is not None:
            solver.save_checkpoint(checkpoint)
            written.append(solver.iteration)
            last_write = clock()

    with deferred_stop_signals() as requests:
        stopped: StopReason | None = None
        if budget.iterations is not None and solver.iteration >= budget.iterations:
            stopped = "iterations"
        while stopped is None:
            solver.step()
            t = solver.iteration
            if progress is not None:
                progress(t)
            if due(t):
                evaluate()
            if checkpoint_every.due(t, clock() - last_write):
                write()
            if until is not None and evaluated_at and evaluated_at[-1] == t and until(evaluations[-1]):
                stopped = "target"
                break
            stopped = _budget_used(budget, t, clock() - started)
            if stopped is None and requests.signum is not None:
                stopped = "interrupted"
        if solver.iteration > start_iteration:
            if not evaluated_at or evaluated_at[-1] != solver.iteration:
                evaluate()
            if not written or written[-1] != solver.iteration:
                write()
    return RunResult(
        iteration=solver.iteration,
        iterations_run=solver.iteration - start_iteration,
        seconds=clock() - started,
        stopped=stopped,
        evaluations=tuple(evaluations),
        evaluated_at=tuple(evaluated_at),
        checkpoints=tuple(written),
        signum=requests.signum if stopped == "interrupted" else None,
    )


def _budget_used(budget: Budget, iteration: int, seconds: float) -> StopReason | None:
    if budget.iterations is not None and iteration >= budget.iterations:
        return "iterations"
    if budget.seconds is not None and seconds >= budget.seconds:
        return "seconds"
    return None
