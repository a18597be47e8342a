"""Peak process memory (RSS) and time of CFR-D against full-tree CFR+ as the poker family grows.

Games: the poker family with 4 suits and 2 hole cards, ``r`` ranks (4r cards), limit
betting; the two-round form has one board card after the first round (Leduc's rules on a
bigger deck), the three-round form a second board card and a third betting round.

Systems, each measured in a fresh process (its peak resident set size, ``ru_maxrss``, so
compiled arrays, solver state, Python objects and the interpreter all count):

* **CFR+**: compile the whole tree, then ``CFRSolver(tree, CFR_PLUS)`` for ``--cfr-iterations``.
* **CFR-D**: ``CFRDSolver`` split after the first round, one subgame per inner solve, no
  compiled subgame kept (``CFRDConfig(K, batch=1, cached_chunks=0)``): the trunk, its
  solver state, the stored root values and one subgame at a time, for ``--trunk-iterations``.

A bare interpreter with numpy and the library imported is measured the same way and
reported as the baseline. Run from the repository root::

    python benchmarks/memory_rss.py                 # ranks 3..13 (two rounds), 3..5 (three rounds)
    python benchmarks/memory_rss.py --quick         # ranks 3..5 and 3, a smoke run

It writes ``benchmarks/results/memory_rss.md`` and ``.png``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results"


def game_params(ranks: int, rounds: int) -> dict[str, str]:
    params = {"num_ranks": str(ranks), "num_suits": "4", "hole_cards": "2"}
    if rounds == 3:
        params.update(board_cards="0,1,1", raise_sizes="2,4,4", max_raises="2,2,2", first_player="0,0,0")
    return params


def measure_one(system: str, ranks: int, rounds: int, iterations: int, subgame_iterations: int) -> dict[str, float]:
    """Run one system in this process and return its figures (called in a child process)."""
    from subgame.decompose import CFRDConfig, CFRDSolver, TrunkSplit
    from subgame.games import load_game
    from subgame.solve.cfr import CFR_PLUS, CFRSolver
    from subgame.tree.compile import compile_game

    game = load_game("leduc", **game_params(ranks, rounds))
    started = time.perf_counter()
    if system == "baseline":
        return {"peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "build_s": 0.0, "iteration_s": 0.0}
    if system == "cfr+":
        tree = compile_game(game)
        _ = tree.plan
        solver = CFRSolver(tree, CFR_PLUS)
        states = tree.players[0].num_states + tree.players[1].num_states
        build = time.perf_counter() - started
        solver.run(iterations)
    else:
        cfrd = CFRDSolver(game, TrunkSplit(rounds=1), CFRDConfig(subgame_iterations, batch=1, cached_chunks=0))
        trunk = cfrd.decomposition.trunk
        states = trunk.players[0].num_states + trunk.players[1].num_states
        build = time.perf_counter() - started
        cfrd.run(iterations)
    seconds = (time.perf_counter() - started - build) / iterations
    return {"peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "build_s": build,
            "iteration_s": seconds, "states": states}


def measure(system: str, ranks: int, rounds: int, iterations: int, subgame_iterations: int) -> dict[str, float]:
    """The figures of one system, measured in a fresh Python process."""
    cmd = [sys.executable, __file__, "--one", system, str(ranks), str(rounds), str(iterations), str(subgame_iterations)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run on small decks")
    parser.add_argument("--cfr-iterations", type=int, default=3)
    parser.add_argument("--trunk-iterations", type=int, default=1)
    parser.add_argument("--subgame-iterations", type=int, default=5, help="K, inner CFR+ iterations per subgame solve")
    parser.add_argument("--one", nargs=5, metavar=("SYSTEM", "RANKS", "ROUNDS", "ITERATIONS", "K"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        system, ranks, rounds, iterations, k = args.one
        print(json.dumps(measure_one(system, int(ranks), int(rounds), int(iterations), int(k))))
        return

    from subgame.experiments.report import Series, markdown_table, plot_series

    sizes = [(r, 2) for r in (range(3, 6) if args.quick else range(3, 14))]
    sizes += [(r, 3) for r in ((3,) if args.quick else range(3, 6))]
    baseline = measure("baseline", 3, 2, 1, 1)["peak_mib"]
    rows, curves = [], {}
    for ranks, rounds in sizes:
        plus = measure("cfr+", ranks, rounds, args.cfr_iterations, args.subgame_iterations)
        cfrd = measure("cfr-d", ranks, rounds, args.trunk_iterations, args.subgame_iterations)
        rows.append((rounds, ranks, 4 * ranks, int(plus["states"]), f"{plus['peak_mib']:.0f}", f"{plus['iteration_s']:.3f}",
                     int(cfrd["states"]), f"{cfrd['peak_mib']:.0f}", f"{cfrd['iteration_s']:.2f}",
                     f"{plus['peak_mib'] / cfrd['peak_mib']:.2f}"))
        for name, fig in (("CFR+", plus), ("CFR-D", cfrd)):
            curves.setdefault((name, rounds), []).append((4 * ranks, fig["peak_mib"]))
        print(*rows[-1], flush=True)
    headers = ("rounds", "ranks", "cards", "CFR+ private states", "CFR+ peak RSS (MiB)", "CFR+ s/iteration",
               "CFR-D trunk private states", "CFR-D peak RSS (MiB)", "CFR-D s/trunk iteration", "CFR+ / CFR-D memory")
    note = (f"Peak RSS of a fresh process (a bare interpreter with the library imported: {baseline:.0f} MiB). "
            f"CFR+ {args.cfr_iterations} iterations on the whole tree; CFR-D {args.trunk_iterations} trunk iteration(s), "
            f"K = {args.subgame_iterations}, one subgame per solve, none cached. Command: python benchmarks/memory_rss.py"
            f"{' --quick' if args.quick else ''}.")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "memory_rss.md").write_text(f"# CFR-D against CFR+: peak memory\n\n{markdown_table(headers, rows)}\n\n{note}\n")
    series = [Series(f"{name}, {rounds} rounds", [x for x, _ in pts], [y for _, y in pts]) for (name, rounds), pts in curves.items()]
    plot_series(series, OUT / "memory_rss.png", title="Peak RSS: CFR+ (whole tree) vs CFR-D (trunk + one subgame)",
                xlabel="cards in the deck (4 suits, 2 hole cards)", ylabel="peak RSS (MiB)", logx=False)
    print(note)


if __name__ == "__main__":
    main()
