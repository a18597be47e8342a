"""Full-deck hold'em river and turn subgames: time per CFR iteration, peak memory, time to a target.

Games: heads-up no-limit hold'em from the river (five board cards fixed) or the turn (four
fixed, the river dealt), 52 cards, both players' ranges uniform over the hands disjoint from
the board, a pot of ``--pot`` chips (an ante of half the pot each) and ``--stack`` chips a
player in all; bets as pot fractions plus all-in (no raise cap: the stack bounds the raises).
Each configuration runs in a fresh process, so its peak resident set size (``ru_maxrss``)
counts the compiled tree, the solver, the interpreter and every temporary.

Exploitability is NashConv / 2 of the average strategy as a percentage of the pot, per deal:
the tree's chance-weighted value divided by the chance mass of the deals the board allows.
It is computed every ``--eval-every`` iterations; the seconds to a target count the
iterations only, not the evaluations. Beside ours, OpenSpiel's C++ CFR+ on
``universal_poker`` with the same board, pot and stacks where it can load the game (its
betting abstraction ``fcpa``: fold, call, pot, all-in; compare it with ours at ``--bets 1``):
the seconds its solver takes to build and to run one iteration, under a time limit.

Run from the repository root::

    python benchmarks/bench_holdem.py                       # river and turn, writes benchmarks/results/holdem.md
    python benchmarks/bench_holdem.py --streets river --quick
    python benchmarks/bench_holdem.py --streets river --river-bets 0.25,0.5,0.75,1,1.5 --algo dcfr --skip-openspiel
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results"
BOARDS = {"river": "Js Ks 5c Qs 7d", "turn": "Js Ks 5c Qs"}  # ACPC names: the same cards as ours on 13 ranks
SMALL_BOARD = "2c 3d 4h 5s 7c"  # a river of the 24-card deck (ranks 2 to 7) that OpenSpiel builds in a minute
BETS = {"river": "0.5,1", "turn": "1"}


def spec_for(street: str, pot: int, stack: int, bets: str, ranks: int = 13):
    from subgame.games.poker import PokerSpec

    board_cards = (5,) if street == "river" else (4, 1)
    return PokerSpec(num_ranks=ranks, num_suits=4, hole_cards=2, board_cards=board_cards, betting="nolimit", ante=pot // 2,
                     stack=stack, bet_fractions=tuple(float(b) for b in bets.split(",")), all_in=True,
                     first_player=(0,) * len(board_cards))


def board_cards(text: str, ranks: int = 13) -> tuple[int, ...]:
    """Cards named as ACPC and OpenSpiel name them (ranks from the deuce up, suits ``cdhs``; ``rank * 4 + suit``)."""
    return tuple("23456789TJQKA".index(c[0]) * 4 + "cdhs".index(c[1]) for c in text.split())


def chance_mass(fixed: int, deck: int = 52) -> float:
    """The chance probability of all deals whose first ``fixed`` board cards are the given ones (two hole cards each)."""
    allowed = comb(deck - fixed, 2) * comb(deck - 2 - fixed, 2)
    return allowed / (comb(deck, 2) * comb(deck - 2, 2) * comb(deck - 4, fixed))


def measure_one(street: str, board: str, pot: int, stack: int, bets: str, dtype: str, threads: int,
                iterations: int, eval_every: int, targets: list[float], ranks: int = 13,
                algo: str = "cfr+", loops: str = "passes") -> dict[str, object]:
    """Compile, solve and evaluate one configuration in this process (called in a child process).

    ``loops``: ``passes`` (depth-first passes over the tree's layout), ``compiled`` (the sweeps'
    compiled loops, the layout left out) or ``numpy`` (the numpy sweeps).
    """
    import dataclasses

    import numpy as np

    from subgame.eval import exploitability
    from subgame.games.poker import PokerGame
    from subgame.solve.cfr import PRESETS, CFRSolver
    from subgame.tree.kernels import use_compiled
    from subgame.tree.poker_compile import compile_poker
    from subgame.tree.size import array_bytes, tree_bytes
    from subgame.tree.threads import set_threads

    set_threads(threads)
    use_compiled(loops != "numpy")
    cards = board_cards(board, ranks)
    game = PokerGame(spec_for(street, pot, stack, bets, ranks), f"holdem {street}")
    started = time.perf_counter()
    tree = compile_poker(game, board=cards)
    if loops != "passes":
        tree = dataclasses.replace(tree, layout=None)
        _ = tree.plan
    compile_s = time.perf_counter() - started
    solver = CFRSolver(tree, PRESETS[algo], dtype=np.dtype(dtype).type)
    scale = 100.0 / (chance_mass(len(cards), 4 * ranks) * pot)
    curve: list[tuple[int, float, float]] = []
    reached: dict[str, tuple[int, float] | None] = {f"{t:g}": None for t in targets}
    solve_s, times = 0.0, []
    while solver.iteration < iterations and any(v is None for v in reached.values()):
        t0 = time.perf_counter()
        solver.run(min(eval_every, iterations - solver.iteration))
        dt = time.perf_counter() - t0
        solve_s += dt
        times.append(dt / eval_every)
        pct = exploitability(tree, solver.average_strategy()).exploitability * scale
        curve.append((solver.iteration, solve_s, pct))
        for t in targets:
            if reached[f"{t:g}"] is None and pct <= t:
                reached[f"{t:g}"] = (solver.iteration, solve_s)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    states = tree.players[0].num_states + tree.players[1].num_states
    solver_bytes = sum(a.nbytes for a in solver.regrets + solver.strategy_sum)
    return {"street": street, "board": board, "bets": bets, "dtype": dtype, "threads": threads, "algo": algo, "loops": loops,
            "public_nodes": tree.num_nodes, "private_states": states, "compile_s": compile_s,
            "tree_bytes": array_bytes(tree) if loops == "passes" else tree_bytes(tree), "solver_bytes": solver_bytes,
            "iteration_s": float(np.median(times)),
            "iterations": solver.iteration, "exploitability_pct": curve[-1][2], "reached": reached, "curve": curve,
            "peak_mib": peak_mib}


def measure_openspiel(board: str, pot: int, stack: int, timeout: float, ranks: int = 13) -> dict[str, object]:
    """OpenSpiel's C++ CFR+ on universal_poker's river with this board: build and two iterations, in a child process."""
    code = (
        "import time, resource, json, pyspiel\n"
        f"p = dict(betting='nolimit', numPlayers=2, numRounds=1, blind='1 1', firstPlayer='1', numSuits=4, numRanks={ranks},"
        f" numHoleCards=2, numBoardCards='5', stack='{stack} {stack}', bettingAbstraction='fcpa', potSize={pot},"
        f" boardCards='{board.replace(' ', '')}')\n"
        "g = pyspiel.load_game('universal_poker', p)\n"
        "t = time.perf_counter(); s = pyspiel.CFRPlusSolver(g); b = time.perf_counter() - t\n"
        "print(json.dumps({'build_s': b}), flush=True)\n"
        "its = []\n"
        "for _ in range(2):\n"
        "    t = time.perf_counter(); s.evaluate_and_update_policy(); its.append(time.perf_counter() - t)\n"
        "    print(json.dumps({'build_s': b, 'iteration_s': its,"
        " 'peak_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
        lines = done.stdout.strip().splitlines()
        return json.loads(lines[-1]) if lines else {"error": done.stderr.strip().splitlines()[-1]}
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        lines = out.strip().splitlines()
        return {**(json.loads(lines[-1]) if lines else {}), "timed_out_after_s": timeout}


def openspiel_rows(args: argparse.Namespace, targets: list[float]) -> list[str]:
    """Ours and OpenSpiel's C++ CFR+ per iteration on the same river (fcpa: our bets 1 pot and all-in)."""
    lines = []
    for ranks, board, timeout in ((6, SMALL_BOARD, args.openspiel_timeout), (13, BOARDS["river"], args.openspiel_timeout)):
        ours = run_child(["river", board, args.pot, args.stack, "1", "float64", 1, 20, 10, targets, ranks])
        theirs = measure_openspiel(board, args.pot, args.stack, timeout, ranks)
        lines.append(f"river {board} on {4 * ranks} cards, bets 1 pot and all-in (OpenSpiel's fcpa): ours "
                     f"{ours['iteration_s'] * 1e3:.2f} ms per CFR+ iteration ({ours['public_nodes']} public nodes, "
                     f"{ours['private_states']:,} private states, compiled in {ours['compile_s']:.2f} s, peak RSS "
                     f"{ours['peak_mib']:.0f} MiB); OpenSpiel C++ CFRPlusSolver on universal_poker: {json.dumps(theirs)}")
        print(lines[-1], flush=True)
    return lines


def run_child(args: list[object]) -> dict[str, object]:
    done = subprocess.run([sys.executable, __file__, "--one", json.dumps(args)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streets", default="river,turn")
    parser.add_argument("--pot", type=int, default=3750)
    parser.add_argument("--stack", type=int, default=20000, help="each player's chips in all, the ante included")
    parser.add_argument("--river-bets", default=BETS["river"], help="pot fractions, all-in is always added")
    parser.add_argument("--turn-bets", default=BETS["turn"])
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--threads", default="1,2", help="operator threads to compare (float64 runs)")
    parser.add_argument("--loops", default="passes,compiled,numpy",
                        help="depth-first passes over the tree's layout, the sweeps' compiled loops, the numpy sweeps, "
                             "or several side by side (the first for every dtype and thread count, the others float64 on one thread)")
    parser.add_argument("--targets", default="1,0.5", help="exploitability targets, %% of the pot")
    parser.add_argument("--river-iterations", type=int, default=1000)
    parser.add_argument("--turn-iterations", type=int, default=200)
    parser.add_argument("--openspiel-timeout", type=float, default=300.0)
    parser.add_argument("--quick", action="store_true", help="a smoke run: few iterations, no OpenSpiel")
    parser.add_argument("--skip-openspiel", action="store_true", help="leave OpenSpiel's rows out")
    parser.add_argument("--algo", default="cfr+", help="the CFR preset: cfr+, dcfr, ...")
    parser.add_argument("--output", default=str(OUT / "holdem.md"))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(*json.loads(args.one))))
        return

    from subgame.experiments.report import markdown_table
    from subgame.files import write_text

    targets = [float(t) for t in args.targets.split(",")]
    rows, notes = [], []
    for street in args.streets.split(","):
        bets = args.river_bets if street == "river" else args.turn_bets
        iterations = args.river_iterations if street == "river" else args.turn_iterations
        if args.quick:
            iterations = 20
        every = 10
        loops = args.loops.split(",")
        configs = [(d, 1, loops[0]) for d in args.dtypes.split(",")] + [
            ("float64", int(t), loops[0]) for t in args.threads.split(",") if t != "1"] + [("float64", 1, x) for x in loops[1:]]
        for dtype, threads, loop in configs:
            fig = run_child([street, BOARDS[street], args.pot, args.stack, bets, dtype, threads, iterations, every, targets,
                             13, args.algo, loop])
            hit = fig["reached"]
            assert isinstance(hit, dict)
            cells = [f"{hit[f'{t:g}'][1]:.1f} s ({hit[f'{t:g}'][0]} it.)" if hit[f"{t:g}"] else "–" for t in targets]
            rows.append((street, BOARDS[street], bets + ",allin", args.algo, loop, dtype, threads, fig["public_nodes"],
                         f"{fig['private_states']:,}", f"{fig['compile_s']:.2f}", f"{fig['iteration_s'] * 1e3:.1f}",
                         *cells, f"{fig['exploitability_pct']:.3f} after {fig['iterations']}",
                         f"{fig['tree_bytes'] / 2**20:.0f}", f"{fig['solver_bytes'] / 2**20:.0f}",
                         f"{fig['peak_mib']:.0f}"))
            print(*rows[-1], flush=True)
    headers = ("street", "board", "bets (pot)", "algorithm", "loops", "dtype", "threads", "public nodes", "private states", "compile s",
               "ms / iteration", *(f"to {t:g} % pot" for t in targets), "exploitability % pot",
               "tree MiB", "regrets + average MiB", "peak RSS MiB")
    if "river" in args.streets and not args.quick and not args.skip_openspiel:
        notes.extend(openspiel_rows(args, targets))
    import os
    import platform

    notes.append(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
                 f"{os.cpu_count()} cores; load average at the end {os.getloadavg()[0]:.1f} (the machine was shared: "
                 "per-iteration times are upper bounds)")
    command = "python benchmarks/bench_holdem.py " + " ".join(sys.argv[1:])
    text = (f"# Hold'em river and turn subgames (uniform ranges, pot {args.pot}, stacks {args.stack})\n\n"
            f"{markdown_table(headers, rows)}\n\n" + "".join(f"- {n}\n" for n in notes) + f"\nCommand: `{command.strip()}`\n")
    write_text(args.output, text)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
