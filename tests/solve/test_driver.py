"""The run driver: budgets, evaluation points, checkpoint cadence and clean interrupts, for CFR and CFR-D."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from subgame.decompose import CFRDConfig, CFRDSolver, TrunkSplit
from subgame.errors import SubgameError
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, DCFR, POSTFLOP_DCFR, CFRSolver
from subgame.solve.driver import STOP_SIGNALS, Budget, Cadence, Solver, TargetSchedule, deferred_stop_signals, run
from subgame.solve.rules import average_restarts
from tests.conftest import compiled


@dataclass(frozen=True)
class Kind:
    """How to make, reload and compare one kind of solver."""

    name: str
    make: Callable[[], Solver]
    load: Callable[[Path], Solver]
    state: Callable[[Solver], list[np.ndarray]]


def _cfr_state(solver) -> list[np.ndarray]:
    return [*solver.regrets, *solver.strategy_sum]


def _cfr_d_state(solver) -> list[np.ndarray]:
    return [*_cfr_state(solver.trunk_solver), *solver.operator.value_sum, *solver.solution().root_values]


KUHN_SPLIT, KUHN_CFR_D = TrunkSplit(depth=1), CFRDConfig(5)
KINDS = [
    Kind("cfr", lambda: CFRSolver(compiled("kuhn"), DCFR), lambda p: CFRSolver.load_checkpoint(p, compiled("kuhn")), _cfr_state),
    Kind(
        "cfr-d",
        lambda: CFRDSolver(load_game("kuhn"), KUHN_SPLIT, KUHN_CFR_D),
        lambda p: CFRDSolver.load_checkpoint(p, load_game("kuhn")),
        _cfr_d_state,
    ),
]


@pytest.fixture(params=KINDS, ids=lambda k: k.name)
def kind(request) -> Kind:
    return request.param


class FakeClock:
    """Seconds that advance by ``tick`` each time they are read."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_both_solvers_are_solvers(kind):
    assert isinstance(kind.make(), Solver)


def test_iteration_budget_is_a_total(kind):
    solver = kind.make()
    result = run(solver, Budget(iterations=7))
    assert (result.iteration, result.iterations_run, result.stopped, result.interrupted) == (7, 7, "iterations", False)
    assert solver.iteration == 7
    more = run(solver, Budget(iterations=10))
    assert (more.iteration, more.iterations_run) == (10, 3)
    done = run(solver, Budget(iterations=10))
    assert (done.iterations_run, done.stopped, done.evaluations, done.checkpoints) == (0, "iterations", (), ())


def test_seconds_budget_stops_and_reports(kind):
    result = run(kind.make(), Budget(seconds=0.05))
    assert result.stopped == "seconds" and not result.interrupted
    assert result.iterations_run >= 1 and result.iteration == result.iterations_run


def test_seconds_budget_counts_on_the_clock_given():
    # the clock is read at the start, after each iteration for the cadence and for the budget
    result = run(CFRSolver(compiled("kuhn")), Budget(seconds=10.0), clock=FakeClock(1.0))
    assert result.stopped == "seconds" and result.iterations_run == 5


def test_whichever_budget_comes_first():
    fast = run(CFRSolver(compiled("kuhn")), Budget(iterations=3, seconds=1e9))
    slow = run(CFRSolver(compiled("kuhn")), Budget(iterations=10**9, seconds=4.0), clock=FakeClock(1.0))
    assert (fast.stopped, fast.iteration) == ("iterations", 3)
    assert (slow.stopped, slow.iteration) == ("seconds", 2)


@pytest.mark.slow
def test_evaluation_points_are_hit_and_the_stop_is_evaluated(kind):
    solver = kind.make()
    seen: list[int] = []
    result = run(solver, Budget(iterations=12), evaluate_at=[1, 4, 10, 40], on_evaluation=lambda s: seen.append(s.iteration) or -s.iteration)
    assert seen == [1, 4, 10, 12] and result.evaluated_at == (1, 4, 10, 12)
    assert result.evaluations == (-1, -4, -10, -12)
    resumed = run(solver, Budget(iterations=40), evaluate_at=[1, 4, 10, 40], on_evaluation=lambda s: s.iteration)
    assert resumed.evaluations == (40,)


def test_a_run_stops_at_the_first_evaluation_that_meets_its_target(kind, tmp_path):
    path = tmp_path / "run.ckpt"
    result = run(kind.make(), Budget(iterations=50), evaluate_at=range(2, 51, 2), on_evaluation=lambda s: s.iteration,
                 until=lambda it: it >= 7, checkpoint=path)
    assert (result.stopped, result.iteration, result.evaluated_at[-1], result.checkpoints) == ("target", 8, 8, (8,))
    assert not result.interrupted


def test_progress_is_called_after_every_iteration():
    seen: list[int] = []
    run(CFRSolver(compiled("kuhn")), Budget(iterations=5), progress=seen.append)
    assert seen == [1, 2, 3, 4, 5]


def test_checkpoint_cadence_in_iterations_and_at_points(kind, tmp_path):
    path = tmp_path / "run.ckpt"
    result = run(kind.make(), Budget(iterations=11), checkpoint=path, checkpoint_every=Cadence(iterations=4, at=frozenset({5})))
    assert result.checkpoints == (4, 5, 8, 11)  # the end is always written
    assert kind.load(path).iteration == 11


def test_checkpoint_cadence_in_seconds(tmp_path):
    path = tmp_path / "run.ckpt"
    # one tick per read: start, then per iteration one read for the cadence and one for the
    # budget, plus one after each write; a write is due once 3 ticks passed since the last
    result = run(CFRSolver(compiled("kuhn")), Budget(iterations=6), checkpoint=path,
                 checkpoint_every=Cadence(seconds=3.0), clock=FakeClock(1.0))
    assert result.checkpoints == (2, 4, 6)


def test_no_checkpoint_without_a_path(tmp_path):
    result = run(CFRSolver(compiled("kuhn")), Budget(iterations=4), checkpoint_every=Cadence(iterations=1))
    assert result.checkpoints == ()
    assert list(tmp_path.iterdir()) == []


def _send_at(iteration: int, signum: int) -> Callable[[int], None]:
    def progress(t: int) -> None:
        if t == iteration:
            os.kill(os.getpid(), signum)

    return progress


@pytest.mark.parametrize("signum", STOP_SIGNALS, ids=lambda s: s.name)
@pytest.mark.slow
def test_interrupt_checkpoints_and_resumes_bitwise(kind, signum, tmp_path):
    total, path = 9, tmp_path / "run.ckpt"
    straight = kind.make()
    run(straight, Budget(iterations=total))

    before = [signal.getsignal(s) for s in STOP_SIGNALS]
    first = run(kind.make(), Budget(iterations=total), checkpoint=path, progress=_send_at(4, signum),
                evaluate_at=[2, 8], on_evaluation=lambda s: s.iteration)
    assert [signal.getsignal(s) for s in STOP_SIGNALS] == before
    assert first.interrupted and first.stopped == "interrupted" and first.signum == signum
    assert (first.iteration, first.checkpoints, first.evaluations) == (4, (4,), (2, 4))

    resumed = kind.load(path)
    assert resumed.iteration == 4
    rest = run(resumed, Budget(iterations=total), checkpoint=path)
    assert (rest.iterations_run, rest.stopped, rest.checkpoints) == (5, "iterations", (9,))
    for got, want in zip(kind.state(resumed), kind.state(straight), strict=True):
        assert np.array_equal(got, want)
    for p in (0, 1):
        assert np.array_equal(resumed.average_strategy().probs[p], straight.average_strategy().probs[p])


def test_a_signal_at_the_last_iteration_does_not_make_a_finished_run_interrupted():
    result = run(CFRSolver(compiled("kuhn")), Budget(iterations=3), progress=_send_at(3, signal.SIGINT))
    assert result.stopped == "iterations" and result.signum is None


def test_a_stop_signal_a_run_takes_is_passed_to_the_job_around_it():
    """A run inside a job (a flop's re-solve, an agent's solve) stops at the signal and the job learns of it too,
    even where the run had just finished its budget: the signal is never swallowed."""
    before = [signal.getsignal(s) for s in STOP_SIGNALS]
    for at, stopped in ((4, "interrupted"), (9, "iterations")):
        with deferred_stop_signals() as job:
            inner = run(CFRSolver(compiled("kuhn")), Budget(iterations=9), progress=_send_at(at, signal.SIGTERM))
            assert inner.stopped == stopped and job.signum == signal.SIGTERM
    assert [signal.getsignal(s) for s in STOP_SIGNALS] == before  # the job's block gave the handlers back


def test_off_the_main_thread_no_handler_is_installed():
    before = signal.getsignal(signal.SIGINT)
    results = []
    seen = []
    thread = threading.Thread(
        target=lambda: results.append(
            run(CFRSolver(compiled("kuhn"), CFR_PLUS), Budget(iterations=3), progress=lambda t: seen.append(signal.getsignal(signal.SIGINT)))
        )
    )
    thread.start()
    thread.join()
    assert results[0].iteration == 3 and seen == [before] * 3


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Budget(), "iterations or seconds"),
        (lambda: Budget(iterations=0), "iterations must be >= 1"),
        (lambda: Budget(seconds=0.0), "seconds must be > 0"),
        (lambda: Cadence(iterations=0), "iterations must be >= 1"),
        (lambda: Cadence(seconds=-1.0), "seconds must be > 0"),
    ],
)
def test_bad_budgets_and_cadences(make, message):
    with pytest.raises(SubgameError, match=message):
        make()


def test_an_error_in_a_callback_propagates_without_a_checkpoint_and_restores_the_handlers(tmp_path):
    before = [signal.getsignal(s) for s in STOP_SIGNALS]

    def failing(t: int) -> None:
        if t == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(CFRSolver(compiled("kuhn")), Budget(iterations=9), checkpoint=tmp_path / "c.ckpt",
            checkpoint_every=Cadence(iterations=2), progress=failing)
    assert [signal.getsignal(s) for s in STOP_SIGNALS] == before
    assert CFRSolver.load_checkpoint(tmp_path / "c.ckpt", compiled("kuhn")).iteration == 2


def test_a_target_schedule_checks_where_the_power_law_predicts_the_target():
    schedule = TargetSchedule(1.0, first=10)
    assert [t for t in range(1, 30) if schedule(t)][:1] == [10]
    schedule.record(10, 64.0)
    assert schedule.next == 20  # one check: the count doubles
    schedule.record(20, 16.0)  # e = 6400 / t^2: the target 1.0 at t = 80, beyond twice 20
    assert schedule.next == 40
    schedule.record(40, 4.0)
    assert schedule.next == 80  # the predicted crossing
    schedule.record(80, 1.2)  # slower than predicted: the crossing predicted again, e = 1.2 (80 / t)^1.74 at t = 89
    assert schedule.next == 89
    schedule.record(89, 1.01)  # just short: at least 1/20 of the count further
    assert schedule.next == 93
    fixed = TargetSchedule(1.0, first=10, min_gap=10)
    fixed.record(40, 4.0), fixed.record(80, 1.2)
    assert fixed.next == 90
    with pytest.raises(SubgameError, match="target > 0"):
        TargetSchedule(0.0, first=10)


def test_a_target_schedule_checks_just_before_the_average_restarts():
    """postflop-solver's schedule starts the average again at 4^k + 1: a check predicted past 257 is made at 256, where
    that average is the most converged (just after the restart it is a few iterations' strategy)."""
    assert average_restarts(POSTFLOP_DCFR, 300) == (5, 17, 65, 257) and average_restarts(DCFR, 300) == ()
    schedule = TargetSchedule(1.0, first=10, restarts=average_restarts(POSTFLOP_DCFR, 1000))
    schedule.record(10, 64.0)
    assert schedule.next == 16  # not 20: 17 restarts the average
    schedule.record(16, 25.0)
    assert schedule.next == 32
    schedule.record(200, 1.6)
    assert schedule.next == 256
    schedule.record(256, 1.3)
    assert schedule.next > 257  # past it the average builds up again, and no restart until 1025


def test_a_run_stops_at_a_target_checked_on_a_schedule():
    class Countdown:
        iteration = 0

        def step(self) -> None:
            self.iteration += 1

        def average_strategy(self):  # never called here
            raise AssertionError

        def save_checkpoint(self, path):
            return path

    schedule = TargetSchedule(0.01, first=4)

    def value(s: Countdown) -> float:
        v = 1.0 / s.iteration**2
        schedule.record(s.iteration, v)
        return v

    result = run(Countdown(), Budget(iterations=1000), evaluate_at=schedule, on_evaluation=value, until=lambda v: v <= 0.01)
    assert result.stopped == "target" and result.evaluated_at[0] == 4 and result.iteration >= 10
    assert len(result.evaluated_at) < 5
