"""CFR+ speed and exploitability of ``subgame`` next to OpenSpiel and LiteEFG.

Systems, on Leduc hold'em and Liar's dice (one die each, six sides): ours
(``CFRSolver(tree, CFR_PLUS)`` on ``load_game("leduc")`` / ``load_game("openspiel:liars_dice")``),
OpenSpiel's C++ ``pyspiel.CFRPlusSolver``, OpenSpiel's Python ``CFRPlusSolver`` and
LiteEFG's CFR+ computation graph (``LiteEFG.baselines.CFRplus`` on ``OpenSpielEnv``).

What is measured:

1. **CFR+ time per iteration.** All systems of a game advance together, in interleaved
   rounds: each round every system runs its share of iterations (a block) and the block
   is timed. The reported time is the median over rounds of block time / block length.
   Interleaving makes a busy machine slow every system alike, so the ratios stay fair
   when absolute times do not. An iteration is what a system needs to move its average
   strategy one step; for LiteEFG that is the graph update of both players plus its
   linear-average accumulation. Each system runs a block the way its users run many
   iterations: ours by one ``CFRSolver.run(block)`` call (planned for the whole run, as
   ``plan`` asks), which on small trees hands many iterations to one compiled call
   (bitwise the same as ``block`` calls of ``step()``); OpenSpiel's and LiteEFG's, which
   have no such call, by calling their iteration ``block`` times. Building a game (our tree compilation, LiteEFG's game
   file, OpenSpiel's solver tables) is reported apart as "setup".
2. **One exploitability computation** of the average strategy each solver reached: the
   median over repetitions, also interleaved across systems, each timed run preceded by
   an untimed one (warm caches; skipped for runs over a second); each system repeats at
   least ``--min-reps`` and at most ``--reps`` times, stopping at the minimum once its
   timed runs took ``--budget`` seconds. Ours is ``subgame.eval.exploitability`` of the solver, which
   reads its average from the strategy sums (``value=False``: both best responses, without the game
   value's pass); OpenSpiel's is ``pyspiel.exploitability`` on the C++ solver's ``average_policy()``;
   LiteEFG's is ``Environment.exploitability`` of its linearly averaged iterate, read from its graph
   as ours is from the sums.
3. **Exploitability after the same number of iterations**, in game units (chips for
   Leduc, the ±1 payoff of Liar's dice), always NashConv / 2: LiteEFG returns each
   player's best-response gain (their sum is NashConv), so its sum is halved.

Every system runs CFR+ as regret matching+ with alternating updates and an average
weighted linearly by iteration. LiteEFG's average starts one iterate later (it
accumulates the strategy each update produces, not the one the update used), so its
exploitability differs slightly from OpenSpiel's and ours, which agree. OpenSpiel's
Python solver is slow: it runs ``--python-iterations`` iterations, on Leduc only unless
``--python-all-games``; its row gives our exploitability at that count for comparison.

Every system runs on one thread: the script sets ``OPENBLAS_NUM_THREADS=1`` (and the
OpenMP/MKL equivalents) before numpy loads unless they are already set, and LiteEFG
keeps its default of one thread (``--liteefg-threads``). Ratios are the other system's
milliseconds divided by ours (above 1: ours is faster).
LiteEFG keeps the game files it converts under ``~/game_instances``.

Run from the repository root::

    python benchmarks/bench_cfr.py                  # full run (minutes)
    python benchmarks/bench_cfr.py --quick          # smoke run
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.metadata
import io
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# Every system runs on one thread (OpenSpiel is single-threaded, LiteEFG defaults to one):
# pin the BLAS that numpy uses before numpy is imported, unless the caller set it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pyspiel  # noqa: E402

from subgame.eval import exploitability  # noqa: E402
from subgame.games import load_game  # noqa: E402
from subgame.solve.cfr import CFR_PLUS, CFRSolver  # noqa: E402
from subgame.tree import kernels  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402
from subgame.tree.public_tree import PublicTree  # noqa: E402

OURS = "subgame (compiled loops)" if kernels.available() else "subgame (numpy)"
OS_CPP = "OpenSpiel C++"
OS_PY = "OpenSpiel Python"
LITEEFG = "LiteEFG"


@dataclass(frozen=True)
class GameCase:
    """One benchmarked game: its key, our name for it and OpenSpiel's."""

    key: str
    ours: str
    openspiel: str


GAMES = {
    "leduc": GameCase("leduc", "leduc", "leduc_poker"),
    "liars_dice": GameCase("liars_dice", "openspiel:liars_dice", "liars_dice"),
    "kuhn": GameCase("kuhn", "kuhn", "kuhn_poker"),
    # ours: num_cards=4, imp_info=True, descending prizes, win/loss returns (its defaults); OpenSpiel's is simultaneous
    "goofspiel4": GameCase("goofspiel4", "goofspiel", "turn_based_simultaneous_game(game=goofspiel(num_cards=4,imp_info=True,"
                           "points_order=descending,returns_type=win_loss))"),
}


@dataclass(frozen=True)
class Settings:
    """What the command line asked for."""

    iterations: dict[str, int]
    python_iterations: int
    python_games: frozenset[str]
    rounds: int
    reps: int
    min_reps: int
    budget_s: float
    liteefg_threads: int
    skip: frozenset[str] = field(default_factory=frozenset)


@dataclass
class Contender:
    """One system set up on one game.

    ``run(n)`` runs n CFR+ iterations; ``freeze`` takes the current average strategy and
    returns a function computing its exploitability (NashConv / 2).
    """

    name: str
    iterations: int
    setup_s: float
    run: Callable[[int], None]
    freeze: Callable[[], Callable[[], float]]
    time_eval: bool = True
    note: str = ""


@dataclass
class Row:
    """One system's measurements on one game (None: not measured)."""

    game: str
    system: str
    iterations: int
    setup_s: float | None = None
    ms_per_iter: float | None = None
    expl_ms: float | None = None
    expl: float | None = None
    note: str = ""


# -- helpers -------------------------------------------------------------------------------


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Swallow what a library prints on stdout (banners, progress lines)."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``fn()`` and its wall time in seconds."""
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def log(message: str) -> None:
    """Progress on stderr, so that stdout holds only the report."""
    print(message, file=sys.stderr, flush=True)


# -- the four systems ----------------------------------------------------------------------


def stepping(step: Callable[[], None]) -> Callable[[int], None]:
    """``run(n)`` of a system whose only call is one iteration: that call n times."""

    def run(n: int) -> None:
        for _ in range(n):
            step()

    return run



def ours(case: GameCase, iterations: int) -> tuple[Contender, PublicTree]:
    """Our CFR+ on our compiled tree (returned too, for other comparisons)."""
    tree, setup = timed(lambda: compile_game(load_game(case.ours)))
    solver = CFRSolver(tree, CFR_PLUS).plan(iterations)

    def freeze() -> Callable[[], float]:  # NashConv / 2 needs the best responses only: no pass for the game value
        return lambda: exploitability(tree, solver, value=False).exploitability

    size = tree.summary()
    note = f"{size['public_nodes']} public nodes, {size['infosets_p0'] + size['infosets_p1']} infosets"
    if solver.passes:
        note += "; depth-first passes over the poker layout"
    return Contender(OURS, iterations, setup, lambda n: solver.run(n), freeze, note=note), tree


def openspiel_cpp(game: pyspiel.Game, iterations: int) -> Contender:
    """OpenSpiel's C++ CFR+; ``pyspiel.exploitability`` of its average policy."""
    solver, setup = timed(lambda: pyspiel.CFRPlusSolver(game))

    def freeze() -> Callable[[], float]:
        policy = solver.average_policy()
        return lambda: pyspiel.exploitability(game, policy)

    return Contender(OS_CPP, iterations, setup, stepping(solver.evaluate_and_update_policy), freeze)


def openspiel_python(game: pyspiel.Game, iterations: int) -> Contender:
    """OpenSpiel's Python CFR+; its average policy is evaluated by ``pyspiel.exploitability`` (not timed)."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import cfr

    solver, setup = timed(lambda: cfr.CFRPlusSolver(game))

    def freeze() -> Callable[[], float]:
        policy = os_policy.python_policy_to_pyspiel_policy(solver.average_policy())
        return lambda: pyspiel.exploitability(game, policy)

    return Contender(OS_PY, iterations, setup, stepping(solver.evaluate_and_update_policy), freeze, time_eval=False)


def liteefg(game: pyspiel.Game, iterations: int, threads: int) -> Contender:
    """LiteEFG's CFR+ graph on the OpenSpiel game; its own exploitability of the linear average, halved."""
    import LiteEFG as leg
    from LiteEFG.baselines.CFRplus import graph as CFRPlusGraph

    leg.set_threads(threads)
    with quiet():
        env, setup = timed(lambda: leg.OpenSpielEnv(game, traverse_type="Enumerate"))
        graph = CFRPlusGraph()
    env.set_graph(graph)

    def step() -> None:
        graph.update_graph(env)
        env.update_strategy(graph.current_strategy())

    def freeze() -> Callable[[], float]:
        node = graph.current_strategy()
        return lambda: sum(env.exploitability(node, "linear-avg-iterate")) / 2.0

    return Contender(LITEEFG, iterations, setup, stepping(step), freeze, note="NashConv = sum of its per-player gains; shown /2")


def ours_after(tree: PublicTree, iterations: int) -> float:
    """Our exploitability (NashConv / 2) after ``iterations`` CFR+ iterations."""
    solver = CFRSolver(tree, CFR_PLUS).run(iterations)
    return exploitability(tree, solver.average_strategy()).exploitability


# -- interleaved measurement ---------------------------------------------------------------


def interleaved_iterations(contenders: Sequence[Contender], rounds: int) -> dict[str, float]:
    """Run every contender's iterations in ``rounds`` interleaved blocks; median ms per iteration."""
    per_iter: dict[str, list[float]] = {c.name: [] for c in contenders}
    done = {c.name: 0 for c in contenders}
    while any(done[c.name] < c.iterations for c in contenders):
        for c in contenders:
            block = min(math.ceil(c.iterations / rounds), c.iterations - done[c.name])
            if block <= 0:
                continue
            start = time.perf_counter()
            c.run(block)
            per_iter[c.name].append((time.perf_counter() - start) / block)
            done[c.name] += block
    return {name: 1e3 * statistics.median(ts) for name, ts in per_iter.items()}


def interleaved_evaluations(
    evals: dict[str, Callable[[], float]], first_s: dict[str, float], settings: Settings
) -> dict[str, float]:
    """Median ms of each evaluation, repeated in interleaved rounds within the per-system budget.

    In each round a system first runs once untimed (unless its last run, or its first one
    ``first_s``, took over a second), so that what the previous system left in the CPU
    caches does not count against it. An evaluation of microseconds is timed as a batch of
    about a millisecond of calls (``timeit``'s way), its time per call kept: timing one such
    call would measure the clock and the first call's cold caches.
    """
    times: dict[str, list[float]] = {name: [] for name in evals}
    batch = {name: 1 if first_s[name] > 1e-3 else max(1, math.ceil(1e-3 / max(timed(fn)[1], 1e-7)))
             for name, fn in evals.items()}  # sized by a second, warm call

    def wants_more(name: str) -> bool:
        n, spent = len(times[name]), sum(times[name])
        return n < settings.reps and (n < settings.min_reps or spent < settings.budget_s)

    while any(wants_more(name) for name in evals):
        for name, fn in evals.items():
            if not wants_more(name):
                continue
            if (times[name][-1] if times[name] else first_s[name]) < 1.0:
                fn()
            n = batch[name]
            times[name].append(timed(lambda fn=fn, n=n: [fn() for _ in range(n)])[1] / n)
    return {name: 1e3 * statistics.median(ts) for name, ts in times.items()}


def contenders_for(case: GameCase, settings: Settings) -> tuple[list[Contender], PublicTree]:
    """Set up every system that runs on ``case``, ours first."""
    game = pyspiel.load_game(case.openspiel)
    n = settings.iterations[case.key]
    log(f"[{case.key}] setting up (our tree compilation may take a while)")
    mine, tree = ours(case, n)
    out = [mine]
    if OS_CPP not in settings.skip:
        out.append(openspiel_cpp(game, n))
    if OS_PY not in settings.skip and case.key in settings.python_games:
        out.append(openspiel_python(game, settings.python_iterations))
    if LITEEFG not in settings.skip:
        out.append(liteefg(game, n, settings.liteefg_threads))
    return out, tree


def bench_game(case: GameCase, settings: Settings) -> list[Row]:
    """All systems on one game: iterations, final exploitability, evaluation time."""
    contenders, tree = contenders_for(case, settings)
    log(f"[{case.key}] CFR+: " + ", ".join(f"{c.name} {c.iterations}" for c in contenders) + " iterations")
    ms = interleaved_iterations(contenders, settings.rounds)
    evals = {c.name: c.freeze() for c in contenders}
    first = {name: timed(fn) for name, fn in evals.items()}
    values = {name: value for name, (value, _) in first.items()}
    log(f"[{case.key}] timing exploitability")
    timed_evals = {c.name: evals[c.name] for c in contenders if c.time_eval}
    eval_ms = interleaved_evaluations(timed_evals, {name: dt for name, (_, dt) in first.items()}, settings)
    rows = []
    for c in contenders:
        note = c.note
        if c.name == OS_PY:
            note = f"ours after {c.iterations} iterations: {ours_after(tree, c.iterations):.6g}"
        rows.append(Row(case.key, c.name, c.iterations, c.setup_s, ms[c.name], eval_ms.get(c.name), values[c.name], note))
    return rows


# -- report --------------------------------------------------------------------------------


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def environment_lines(settings: Settings) -> list[str]:
    """Machine and library versions, as markdown bullet lines."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    libs = ", ".join(
        f"{name} {_version(dist)}"
        for name, dist in [("subgame", "subgame"), ("open-spiel", "open_spiel"), ("LiteEFG", "LiteEFG"),
                           ("numpy", "numpy"), ("scipy", "scipy")]
    )
    load = f"; load average at the end {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return [
        f"- machine: {_cpu_model()}, {os.cpu_count()} cores ({usable} usable), {platform.system()} {platform.machine()}{load}",
        f"- Python {platform.python_version()}; {libs}",
        f"- threads: numpy's BLAS {os.environ.get('OPENBLAS_NUM_THREADS')} (OPENBLAS_NUM_THREADS), "
        f"LiteEFG {settings.liteefg_threads}; OpenSpiel's CFR+ and exploitability are single-threaded",
    ]


def _fmt(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def _ratio(theirs: float | None, ours_ms: float | None) -> str:
    if theirs is None or ours_ms is None or ours_ms <= 0:
        return "–"
    ratio = theirs / ours_ms
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2g}×"


def markdown_table(rows: Sequence[Row]) -> list[str]:
    """One markdown table: per game, ours first, the others with ratios to ours."""
    lines = [
        "| game | system | iterations | setup s | CFR+ ms/iter | × ours | exploitability eval ms | × ours "
        "| exploitability (NashConv/2) | note |",
        "|" + "---|" * 10,
    ]
    base = {r.game: r for r in rows if r.system == OURS}
    for r in rows:
        b = base.get(r.game)
        expl = "–" if r.expl is None else f"{r.expl:.6g}"
        lines.append(
            f"| {r.game} | {r.system} | {r.iterations} | {_fmt(r.setup_s)} | {_fmt(r.ms_per_iter)} "
            f"| {_ratio(r.ms_per_iter, b.ms_per_iter if b else None)} | {_fmt(r.expl_ms)} "
            f"| {_ratio(r.expl_ms, b.expl_ms if b else None)} | {expl} | {r.note} |"
        )
    return lines


def verdict_lines(rows: Sequence[Row]) -> list[str]:
    """Whether ours is ≥10× faster than OpenSpiel C++ per iteration and faster than LiteEFG at evaluation."""
    by = {(r.game, r.system): r for r in rows}
    out = []
    for game in dict.fromkeys(r.game for r in rows):
        mine, cpp, lite = by[(game, OURS)], by.get((game, OS_CPP)), by.get((game, LITEEFG))
        if cpp and cpp.ms_per_iter and mine.ms_per_iter:
            speedup = cpp.ms_per_iter / mine.ms_per_iter
            goal = "meets" if speedup >= 10 else "MISSES"
            out.append(f"- {game}: CFR+ iteration {speedup:.1f}× faster than OpenSpiel C++ ({goal} the 10× goal)")
        if lite and lite.expl_ms and mine.expl_ms:
            verdict = "faster" if mine.expl_ms <= lite.expl_ms else "SLOWER"
            out.append(f"- {game}: exploitability {verdict} than LiteEFG's ({mine.expl_ms:.3g} vs {lite.expl_ms:.3g} ms)")
    return out


def report(rows: Sequence[Row], settings: Settings, argv: Sequence[str]) -> str:
    """The whole markdown report: command, date, machine, table, verdicts."""
    iters = ", ".join(f"{g} {n}" for g, n in settings.iterations.items())
    python_games = sorted({r.game for r in rows if r.system == OS_PY})
    python = f"OpenSpiel Python {settings.python_iterations} on {', '.join(python_games)}" if python_games else "OpenSpiel Python not run"
    command = " ".join(["python benchmarks/bench_cfr.py", *argv])
    return "\n".join([
        f"Command: `{command}`, run {datetime.date.today().isoformat()}",
        "",
        *environment_lines(settings),
        f"- CFR+ iterations per game: {iters} ({python}); timed in {settings.rounds} interleaved rounds",
        f"- exploitability evaluation: median of {settings.min_reps} to {settings.reps} interleaved runs",
        "- exploitability is NashConv / 2 for every system (LiteEFG's per-player gains summed, then halved)",
        "",
        *markdown_table(rows),
        "",
        *verdict_lines(rows),
    ])


# -- command line --------------------------------------------------------------------------


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=1000, help="CFR+ iterations on Leduc, Kuhn and Goofspiel (default 1000)")
    p.add_argument("--iterations-large", type=int, default=200,
                   help="CFR+ iterations on Liar's dice, where OpenSpiel takes ~0.2 s each (default 200)")
    p.add_argument("--games", default="leduc,liars_dice", help="comma-separated subset of: " + ",".join(GAMES))
    p.add_argument("--skip-python", action="store_true", help="do not run OpenSpiel's Python CFR+")
    p.add_argument("--skip-liteefg", action="store_true", help="do not run LiteEFG")
    p.add_argument("--python-iterations", type=int, default=20, help="OpenSpiel Python CFR+ iterations (default 20)")
    p.add_argument("--python-all-games", action="store_true", help="run OpenSpiel's Python CFR+ on Liar's dice too")
    p.add_argument("--rounds", type=int, default=20, help="interleaved timing rounds (default 20)")
    p.add_argument("--reps", type=int, default=7, help="most runs of an exploitability timing (default 7)")
    p.add_argument("--min-reps", type=int, default=3, help="fewest runs of an exploitability timing (default 3)")
    p.add_argument("--budget", type=float, default=15.0, help="seconds per system after which runs stop at --min-reps")
    p.add_argument("--liteefg-threads", type=int, default=1, help="LiteEFG native threads (default 1, its default)")
    p.add_argument("--quick", action="store_true", help="smoke run: few iterations, one evaluation run")
    p.add_argument("--output", help="also write the markdown report to this file")
    return p.parse_args(argv)


def settings_from(args: argparse.Namespace) -> tuple[list[GameCase], Settings]:
    keys = [k.strip() for k in args.games.split(",") if k.strip()]
    unknown = [k for k in keys if k not in GAMES]
    if unknown:
        raise SystemExit(f"unknown game(s) {unknown}; choose from {', '.join(GAMES)}")
    counts = {k: 3 if k == "liars_dice" else 20 for k in GAMES} if args.quick else {
        k: args.iterations_large if k == "liars_dice" else args.iterations for k in GAMES}
    skip = {name for name, off in [(OS_PY, args.skip_python), (LITEEFG, args.skip_liteefg)] if off}
    settings = Settings(
        iterations={k: counts[k] for k in keys},
        python_iterations=min(args.python_iterations, 3) if args.quick else args.python_iterations,
        python_games=frozenset(keys if args.python_all_games else {"leduc"} & set(keys)),
        rounds=min(args.rounds, 3) if args.quick else args.rounds,
        reps=1 if args.quick else args.reps,
        min_reps=1 if args.quick else args.min_reps,
        budget_s=args.budget,
        liteefg_threads=args.liteefg_threads,
        skip=frozenset(skip),
    )
    return [GAMES[k] for k in keys], settings


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    cases, settings = settings_from(args)
    rows = [row for case in cases for row in bench_game(case, settings)]
    text = report(rows, settings, argv)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
