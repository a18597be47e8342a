"""Exploitability against iterations of the CFR presets CFR+, DCFR, PCFR+ and postflop-solver's DCFR.

On Leduc hold'em (chips per game) and on a Libratus river endgame (% of the pot, the
endgame's ranges, bets 0.5, 1, all-in, raise cap 3). The solvers advance together in
interleaved rounds, one iteration each in turn, so a busy machine slows every preset alike;
each iteration is timed and the table gives the total seconds of iterations to each point
(evaluations excluded). Exploitability is NashConv / 2 of the average strategy.

    python3 benchmarks/bench_rules.py --endgame PATH/subgame4.txt
"""

from __future__ import annotations

import argparse
import time

from subgame.eval import exploitability
from subgame.games import load_game
from subgame.games.poker.holdem import BetSizing
from subgame.games.poker.libratus import read_endgame
from subgame.resolving.spots import holdem_problem
from subgame.solve.cfr import PRESETS, CFRSolver
from subgame.tree.compile import compile_game

NAMES = ("cfr+", "dcfr", "pcfr+", "dcfr-postflop")


def curves(solvers: dict[str, CFRSolver], points: list[int], value) -> dict[str, list[tuple[int, float, float]]]:
    """Per preset (iteration, exploitability, seconds of iterations so far) at each point."""
    out: dict[str, list[tuple[int, float, float]]] = {n: [] for n in solvers}
    spent = dict.fromkeys(solvers, 0.0)
    for t in range(1, max(points) + 1):
        for name, solver in solvers.items():  # interleaved: one iteration of each in turn
            start = time.perf_counter()
            solver.step()
            spent[name] += time.perf_counter() - start
        if t in points:
            for name, solver in solvers.items():
                out[name].append((t, value(solver), spent[name]))
    return out


def table(title: str, unit: str, result: dict[str, list[tuple[int, float, float]]], loops: dict[str, str]) -> str:
    points = [t for t, _, _ in next(iter(result.values()))]
    lines = [f"{title} (exploitability in {unit}; seconds of iterations in brackets)", "",
             "| preset | loops | " + " | ".join(f"{t} it." for t in points) + " |", "|---|---|" + "---|" * len(points)]
    for name, row in result.items():
        lines.append(f"| {name} | {loops[name]} | " + " | ".join(f"{x:.4g} ({s:.2f} s)" for _, x, s in row) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endgame", help="a Libratus endgame file (e.g. subgame4.txt); without it only Leduc runs")
    parser.add_argument("--leduc-points", default="10,30,100,300,1000")
    parser.add_argument("--endgame-points", default="10,20,50,100,200,500")
    args = parser.parse_args()
    leduc = compile_game(load_game("leduc"))
    solvers = {n: CFRSolver(leduc, PRESETS[n]) for n in NAMES}
    result = curves(solvers, [int(x) for x in args.leduc_points.split(",")],
                    lambda s: exploitability(leduc, s.average_strategy()).exploitability)
    print(table("Leduc hold'em", "chips per game", result, {n: s.loops for n, s in solvers.items()}), "\n")
    if args.endgame:
        endgame = read_endgame(args.endgame)
        problem = holdem_problem(endgame.spot(BetSizing.parse("0.5,1,allin", raise_cap=3)), endgame.ranges)
        solvers = {n: problem.solver(PRESETS[n]) for n in NAMES}
        result = curves(solvers, [int(x) for x in args.endgame_points.split(",")],
                        lambda s: problem.exploitability(s).pct_pot)
        print(table(f"{endgame.describe()}, bets 0.5, 1, all-in", "% of the pot", result,
                    {n: s.loops for n, s in solvers.items()}))


if __name__ == "__main__":
    main()
