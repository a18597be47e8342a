"""Sampling CFR against wall time: ours next to full CFR+ and OpenSpiel's C++ MCCFR.

Systems, on Kuhn and Leduc poker: our external sampling, outcome sampling and public chance
sampling (``MCCFRSolver`` with ``SCHEMES["mccfr-es" | "mccfr-os" | "pcs"]``, linear
weighting and the default engine, compiled where it was built), the same external and
outcome sampling runs by numpy (``engine="numpy"``: the compiled runs' bits, so only their
time differs), our full CFR+ (``CFRSolver(tree, CFR_PLUS)``), and OpenSpiel's
``pyspiel.ExternalSamplingMCCFRSolver`` (simple averaging, its default) and
``pyspiel.OutcomeSamplingMCCFRSolver`` (ε = 0.6, its default).

All systems run in one process, interleaved: the run is a sequence of rounds whose
cumulative solver time per system grows geometrically up to ``--seconds``; in each round
every system iterates until its own solver time reaches the round's mark, then its average
strategy is evaluated (not counted in its time). A busy machine slows every system alike.
An iteration is what each system calls one: ours update both players once (the sampling
ones from a sampled estimate over all private states, see :mod:`subgame.solve.mccfr`);
OpenSpiel's MCCFR iterations are one sampled traversal per player. Exploitability is
NashConv / 2 in chips: ``subgame.eval.exploitability`` for ours, ``pyspiel.exploitability``
of ``average_policy()`` for OpenSpiel's.

Writes ``benchmarks/results/mccfr.md`` (the table) and ``mccfr.png`` (exploitability against
seconds, log-log, one panel per game). Run from the repository root::

    python benchmarks/bench_mccfr.py                 # Kuhn 5 s, Leduc 30 s per system (minutes)
    python benchmarks/bench_mccfr.py --quick         # smoke run
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import importlib.metadata  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from subgame.eval import exploitability  # noqa: E402
from subgame.files import write_atomic, write_text  # noqa: E402
from subgame.games import load_game  # noqa: E402
from subgame.solve.cfr import CFR_PLUS, CFRSolver  # noqa: E402
from subgame.solve.mccfr import SCHEMES, MCCFRSolver  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402

OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}


@dataclass
class System:
    """One solver under measurement: ``step`` runs one iteration, ``evaluate`` its exploitability."""

    name: str
    step: Callable[[], None]
    evaluate: Callable[[], float]
    seconds: float = 0.0
    iterations: int = 0
    curve: list[tuple[float, int, float]] = field(default_factory=list)  #: (solver seconds, iterations, exploitability)

    def run_until(self, mark: float) -> None:
        while self.seconds < mark:
            t0 = time.perf_counter()
            self.step()
            self.seconds += time.perf_counter() - t0
            self.iterations += 1
        self.curve.append((self.seconds, self.iterations, self.evaluate()))


def systems_for(game: str, seed: int) -> list[System]:
    import pyspiel

    tree = compile_game(load_game(game))
    out = []
    for name in ("mccfr-es", "mccfr-os", "pcs"):  # the default engine: compiled where built
        ours = MCCFRSolver(tree, SCHEMES[name], seed=seed)
        out.append(System(f"subgame {name}", ours.step, lambda s=ours: exploitability(tree, s).exploitability))
    for name in ("mccfr-es", "mccfr-os"):  # the same runs, bit for bit, by numpy
        slow = MCCFRSolver(tree, SCHEMES[name], seed=seed, engine="numpy")
        out.append(System(f"subgame {name}, numpy", slow.step, lambda s=slow: exploitability(tree, s).exploitability))
    full = CFRSolver(tree, CFR_PLUS)
    out.append(System("subgame CFR+ (full)", full.step, lambda: exploitability(tree, full).exploitability))
    os_game = pyspiel.load_game(OPENSPIEL_NAMES[game])
    es = pyspiel.ExternalSamplingMCCFRSolver(os_game, seed=seed)
    out.append(System("OpenSpiel C++ ES", es.run_iteration, lambda: pyspiel.exploitability(os_game, es.average_policy())))
    outcome = pyspiel.OutcomeSamplingMCCFRSolver(os_game, seed=seed)
    out.append(System("OpenSpiel C++ OS", outcome.run_iteration,
                      lambda: pyspiel.exploitability(os_game, outcome.average_policy())))
    return out


def marks(total: float, first: float, per_decade: int) -> list[float]:
    """Cumulative solver-time marks, log-spaced from ``first`` to ``total``."""
    count = max(2, int(round(np.log10(total / first) * per_decade)) + 1)
    return [float(x) for x in np.geomspace(first, total, count)]


def at(curve: list[tuple[float, int, float]], seconds: float) -> tuple[int, float] | None:
    """Iterations and exploitability at the last evaluation within ``seconds`` of solver time (5% slack)."""
    within = [(it, ex) for s, it, ex in curve if s <= seconds * 1.05]
    return within[-1] if within else None


def table(results: dict[str, list[System]], points: dict[str, list[float]]) -> str:
    """One row per game and system: ms per iteration, then iterations and exploitability at each time point."""
    width = max(len(p) for p in points.values())
    head = "| game | system | ms/iter | " + " | ".join(f"point {k + 1}" for k in range(width)) + " |"
    lines = [head, "|---|---|---|" + "---|" * width]
    for game, systems in results.items():
        for s in systems:
            ms = 1000 * s.seconds / max(s.iterations, 1)
            cells = []
            for t in points[game]:
                got = at(s.curve, t)
                cells.append("–" if got is None else f"{t:g} s: {got[1]:.4g} ({got[0]} it.)")
            cells += [""] * (width - len(cells))
            lines.append(f"| {game} | {s.name} | {ms:.3g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_game(game: str, seed: int, total: float) -> list[System]:
    """Every system on ``game`` with ``seed``, interleaved up to ``total`` solver seconds each."""
    systems = systems_for(game, seed)
    for mark in marks(total, min(0.01, total / 10), 4):
        for s in systems:
            s.run_until(mark)
        print(f"{game}, seed {seed}: {mark:.3g} s per system done", file=sys.stderr, flush=True)
    return systems


#: Each of our sampling schemes and OpenSpiel's system of the same scheme.
SAME_SCHEME = {"subgame mccfr-es": "OpenSpiel C++ ES", "subgame mccfr-os": "OpenSpiel C++ OS",
               "subgame mccfr-es, numpy": "OpenSpiel C++ ES", "subgame mccfr-os, numpy": "OpenSpiel C++ OS"}


def seeds_table(runs: dict[str, list[list[System]]], points: dict[str, list[float]]) -> str:
    """Over several seeds: each system's median exploitability at each point, and for ours the geometric mean over
    seeds of its exploitability divided by OpenSpiel's of the same scheme with the same seed."""
    width = max(len(p) for p in points.values())
    lines = ["| game | system | " + " | ".join(f"point {k + 1}" for k in range(width)) + " |",
             "|---|---|" + "---|" * width]
    for game, by_seed in runs.items():
        for j, s in enumerate(by_seed[0]):
            cells = []
            for t in points[game]:
                mine = [at(run[j].curve, t) for run in by_seed]
                if any(m is None for m in mine):
                    cells.append("–")
                    continue
                cell = f"{t:g} s: {np.median([m[1] for m in mine]):.4g}"
                peer = SAME_SCHEME.get(s.name)
                if peer is not None:
                    k = next(i for i, x in enumerate(by_seed[0]) if x.name == peer)
                    theirs = [at(run[k].curve, t) for run in by_seed]
                    if all(x is not None for x in theirs):
                        ratio = np.exp(np.mean([np.log(m[1] / x[1]) for m, x in zip(mine, theirs)]))
                        cell += f" (÷ OpenSpiel's {ratio:.2f})"
                cells.append(cell)
            cells += [""] * (width - len(cells))
            lines.append(f"| {game} | {s.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results: dict[str, list[System]], path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5 * len(results), 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    for k, (game, systems) in enumerate(results.items()):
        ax = fig.add_subplot(1, len(results), k + 1)
        for s in systems:
            xs = [c[0] for c in s.curve]
            ys = [c[2] if c[2] > 0 else np.nan for c in s.curve]
            ax.plot(xs, ys, marker="o", markersize=2.5, label=s.name,
                    linestyle="--" if s.name.startswith("OpenSpiel") else "-")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("solver seconds (wall clock, evaluation excluded)")
        ax.set_ylabel("exploitability (chips, NashConv / 2)")
        ax.set_title(game)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=110))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn,leduc")
    parser.add_argument("--seconds", type=float, default=30.0, help="solver seconds per system on Leduc")
    parser.add_argument("--kuhn-seconds", type=float, default=5.0, help="solver seconds per system on Kuhn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=1,
                        help="runs with seeds --seed, --seed + 1, ...; above 1 the report adds their medians")
    parser.add_argument("--quick", action="store_true", help="smoke run: 0.5 s per system")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/mccfr.md"))
    args = parser.parse_args(argv)
    games = args.games.split(",")
    results: dict[str, list[System]] = {}
    points: dict[str, list[float]] = {}
    started = time.perf_counter()
    runs: dict[str, list[list[System]]] = {}
    for game in games:
        total = 0.5 if args.quick else (args.kuhn_seconds if game == "kuhn" else args.seconds)
        runs[game] = [run_game(game, args.seed + k, total) for k in range(max(1, args.seeds))]
        results[game] = runs[game][0]
        points[game] = [t for t in (0.1, 1.0, 5.0, 30.0) if t <= total * 1.001] or [total]
    wall = time.perf_counter() - started
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in ("numpy", "open-spiel"))
    command = "python benchmarks/bench_mccfr.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    report = "\n".join([
        f"# Sampling CFR against wall time ({datetime.date.today().isoformat()})",
        "",
        f"Command: `{command.strip()}` ({wall:.0f} s wall in all, evaluations included).",
        "",
        f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}; "
        f"load average at the end {os.getloadavg()[0]:.1f}",
        f"- Python {platform.python_version()}; {versions}; one BLAS thread",
        f"- seed {args.seed}; ours use linear weighting (linear MCCFR) and ε = 0.6 for outcome sampling",
        "- each cell: solver seconds: exploitability (NashConv / 2, chips) of the average strategy at the last "
        "evaluation within that time (iterations done); ms/iter over the whole run",
        "",
        table(results, points),
        "",
        *([] if args.seeds <= 1 else [
            f"Seeds {args.seed} to {args.seed + args.seeds - 1}: each cell the median exploitability over them, and "
            "for ours the geometric mean over the seeds of ours ÷ OpenSpiel's of the same scheme and seed "
            "(below 1: ours is less exploitable).",
            "",
            seeds_table(runs, points),
            "",
        ]),
    ])
    write_text(args.output, report)
    plot(results, args.output.with_suffix(".png"))
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
