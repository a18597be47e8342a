"""Peak memory and time of CFR-D against full-tree CFR+ as Leduc-type games grow.

Games: ``load_game("leduc", num_ranks=r)`` for r = 3, 4, 5, 6 (2r cards, one hole card,
one board card), split after the first betting round (``TrunkSplit(rounds=1)``).

Systems:

* **CFR+ (full tree)**: ``compile_poker`` of the whole game, then ``CFRSolver(tree, CFR_PLUS)``.
* **CFR-D**: ``CFRDSolver`` with one subgame per inner solve and no compiled subgame kept
  (``CFRDConfig(K, batch=1, cached_chunks=0)``): in memory are the trunk, its regrets and
  average strategy, the average root values, and one subgame at a time.

What is measured, for each game and system:

1. **Memory** with :mod:`tracemalloc` (Python objects and numpy buffers, which numpy
   reports to it), in two phases: *build* (compiling; for CFR-D the trunk, and each
   subgame once to match its root states to the trunk's) and *solve* (the iterations).
   Reported: the peak while building, what building leaves in memory (the compiled full
   tree; the compiled trunk and per-leaf index arrays), and the peak while solving
   (what is kept, plus solver state, plus CFR-D's one compiled subgame and temporaries).
   ``tracemalloc`` is started and stopped around each system, so one system's
   allocations never count against the other.
2. **State kept between iterations** (bytes of numpy arrays): CFR+'s regrets and strategy
   sums over all information sets; CFR-D's trunk regrets, strategy sums and root value sums.
3. **Time**: compile time, and seconds per iteration (an iteration of CFR-D solves every
   subgame twice with K inner CFR+ iterations), timed without tracemalloc. For CFR-D the
   share of that time spent compiling subgames is reported (the structure cache is off).
4. **Exploitability** after the same number of trunk iterations (CFR-D: trunk average plus
   every subgame re-solved from the stored values), for context.

Run from the repository root::

    python benchmarks/memory_cfr_d.py                     # r = 3..6 (a few minutes)
    python benchmarks/memory_cfr_d.py --quick             # smoke run
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from subgame.decompose import CFRDConfig, CFRDSolver, TrunkSplit, reconstruct
from subgame.eval import exploitability
from subgame.experiments.report import Series, markdown_table, plot_series
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.poker_compile import compile_poker

MIB = 1024.0 * 1024.0


def traced(build: Callable[[], Any], solve: Callable[[Any], Any]) -> tuple[int, int, int]:
    """Peak bytes while building, bytes left after building, peak bytes while solving."""
    gc.collect()
    tracemalloc.start()
    try:
        built = build()
        gc.collect()
        kept, build_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        solve(built)
        _, solve_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return build_peak, kept, solve_peak


def measure(ranks: int, iterations: int, subgame_iterations: int, resolve_iterations: int) -> dict[str, Any]:
    game = load_game("leduc", num_ranks=ranks)
    split = TrunkSplit(rounds=1)
    config = CFRDConfig(subgame_iterations, batch=1, cached_chunks=0)

    full_mem = traced(lambda: compile_poker(game), lambda tree: CFRSolver(tree, CFR_PLUS).run(iterations))
    cfrd_mem = traced(lambda: CFRDSolver(game, split, config), lambda solver: solver.run(iterations))

    started = time.perf_counter()
    tree = compile_poker(game)
    full_compile = time.perf_counter() - started
    solver = CFRSolver(tree, CFR_PLUS)
    started = time.perf_counter()
    solver.run(iterations)
    full_iter = (time.perf_counter() - started) / iterations
    full_state = sum(a.nbytes for a in (*solver.regrets, *solver.strategy_sum))
    full_expl = exploitability(tree, solver.average_strategy()).exploitability

    started = time.perf_counter()
    cfrd = CFRDSolver(game, split, config)
    build = time.perf_counter() - started
    compile_before = cfrd.decomposition.cache.compile_seconds
    started = time.perf_counter()
    cfrd.run(iterations)
    cfrd_seconds = time.perf_counter() - started
    compile_share = (cfrd.decomposition.cache.compile_seconds - compile_before) / cfrd_seconds
    solution = cfrd.solution()
    cfrd_expl = reconstruct(solution, iterations=resolve_iterations, full_tree=tree).exploitability().exploitability
    d = cfrd.decomposition
    sub = max(d.chunk_tree(c).players[0].num_states for c in d.chunks[:2])
    return {
        "ranks": ranks,
        "full_states": tree.players[0].num_states + tree.players[1].num_states,
        "trunk_states": d.trunk.players[0].num_states + d.trunk.players[1].num_states,
        "subgames": d.num_subgames,
        "subgame_states": 2 * sub,
        "full_mem": full_mem,
        "cfrd_mem": cfrd_mem,
        "full_state": full_state,
        "cfrd_state": cfrd.state_bytes(),
        "full_compile": full_compile,
        "cfrd_build": build,
        "full_iter": full_iter,
        "cfrd_iter": cfrd_seconds / iterations,
        "compile_share": compile_share,
        "full_expl": full_expl,
        "cfrd_expl": cfrd_expl,
    }


HEADERS = (
    "ranks", "private states (full)", "trunk private states", "subgames", "private states per subgame",
    "CFR+ build peak (MiB)", "CFR-D build peak (MiB)", "CFR+ kept (MiB)", "CFR-D kept (MiB)",
    "CFR+ solve peak (MiB)", "CFR-D solve peak (MiB)", "CFR+ state (KiB)", "CFR-D state (KiB)",
    "full compile (s)", "CFR-D build (s)", "CFR+ s/iter", "CFR-D s/iter", "CFR-D compile share",
    "CFR+ expl.", "CFR-D expl.",
)


def row(m: dict[str, Any]) -> tuple[Any, ...]:
    return (
        m["ranks"], m["full_states"], m["trunk_states"], m["subgames"], m["subgame_states"],
        m["full_mem"][0] / MIB, m["cfrd_mem"][0] / MIB, m["full_mem"][1] / MIB, m["cfrd_mem"][1] / MIB,
        m["full_mem"][2] / MIB, m["cfrd_mem"][2] / MIB, m["full_state"] / 1024, m["cfrd_state"] / 1024,
        m["full_compile"], m["cfrd_build"], m["full_iter"], m["cfrd_iter"], m["compile_share"],
        m["full_expl"], m["cfrd_expl"],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[3, 4, 5, 6])
    parser.add_argument("--iterations", type=int, default=10, help="trunk (and full CFR+) iterations")
    parser.add_argument("--subgame-iterations", type=int, default=50, help="K, inner CFR+ iterations")
    parser.add_argument("--resolve-iterations", type=int, default=500)
    parser.add_argument("--out", type=Path, default=Path("out/memory_cfr_d.png"))
    parser.add_argument("--quick", action="store_true", help="r = 3, 4 with 2 iterations")
    args = parser.parse_args(argv)
    if args.quick:
        args.ranks, args.iterations, args.subgame_iterations = [3, 4], 2, 10
    results = []
    for r in args.ranks:
        m = measure(r, args.iterations, args.subgame_iterations, args.resolve_iterations)
        results.append(m)
        print(f"r={r} done: solve peak CFR+ {m['full_mem'][2] / MIB:.2f} MiB, CFR-D {m['cfrd_mem'][2] / MIB:.2f} MiB", flush=True)
    print()
    print(f"Leduc-type games split after round 1; {args.iterations} trunk iterations, K = {args.subgame_iterations}; "
          "memory traced by tracemalloc; state = numpy arrays kept between iterations.\n")
    print(markdown_table(HEADERS, [row(m) for m in results]))
    x = [float(m["full_states"]) for m in results]
    series = [
        Series("CFR+ solve peak (full tree)", x, [m["full_mem"][2] / MIB for m in results]),
        Series("CFR-D solve peak (trunk + one subgame)", x, [m["cfrd_mem"][2] / MIB for m in results]),
        Series("CFR+ build peak", x, [m["full_mem"][0] / MIB for m in results]),
        Series("CFR-D build peak", x, [m["cfrd_mem"][0] / MIB for m in results]),
        Series("CFR+ state kept", x, [m["full_state"] / MIB for m in results]),
        Series("CFR-D state kept", x, [m["cfrd_state"] / MIB for m in results]),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot_series(series, args.out, "Memory of CFR-D vs full-tree CFR+ (Leduc-type, r = "
                + ",".join(map(str, args.ranks)) + ")", "private states of the full game", "MiB")
    print(f"plot: {args.out}")


if __name__ == "__main__":
    main()
