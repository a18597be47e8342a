"""Safe re-solving (a root gadget) on the depth-first passes against the compiled sweeps, side by side.

A Libratus endgame's spot (its board, pot and ranges; the bets given) is re-solved with the
resolving or max-margin gadget for one player (safe-and-nested §4.2), her alternative payoffs
drawn at random (seeded), by CFR+ on both loops: the same iterations, the same bits (checked
here), the time of each. The two solvers run interleaved, a block of iterations each in turn,
so a busy machine slows both alike; the ratio is the sweeps' time over the passes'.

    python3 benchmarks/bench_resolve.py --endgame PATH/subgame4.txt --bets 0.5,1,allin
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from subgame.games.poker.holdem import BetSizing
from subgame.games.poker.libratus import read_endgame
from subgame.resolving.gadgets import MaxMarginGadget, ResolveGadget
from subgame.resolving.spots import holdem_problem
from subgame.solve.cfr import CFR_PLUS, CFRSolver, Engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endgame", required=True, help="a Libratus endgame file (subgame4.txt: a river)")
    ap.add_argument("--bets", default="0.5,1,allin", help="pot fractions and allin (default 0.5,1,allin)")
    ap.add_argument("--gadget", choices=("resolve", "maxmargin"), default="resolve")
    ap.add_argument("--iterations", type=int, default=100, help="iterations of each solver (default 100)")
    ap.add_argument("--blocks", type=int, default=5, help="interleaved blocks the iterations are run in (default 5)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    endgame = read_endgame(args.endgame)
    spot = endgame.spot(BetSizing.parse(args.bets))
    problem = holdem_problem(spot, endgame.ranges)
    tree = problem.tree
    rs = tree.root_slice[1]
    alt = np.random.default_rng(args.seed).normal(0.0, 0.01 * spot.pot, rs.stop - rs.start)

    def solver(engine: Engine) -> CFRSolver:
        gadget = ResolveGadget(1, alt.copy()) if args.gadget == "resolve" else MaxMarginGadget(1, alt.copy())
        return CFRSolver(tree, CFR_PLUS, gadget=gadget, root_reach=(problem.root_reach[0], None), engine=engine)

    solvers = {"passes": solver("passes"), "compiled sweeps": solver("compiled")}
    spent = dict.fromkeys(solvers, 0.0)
    per_block = max(1, args.iterations // args.blocks)
    for _ in range(args.blocks):
        for name, s in solvers.items():
            start = time.perf_counter()
            s.run(per_block)
            spent[name] += time.perf_counter() - start
    a, b = solvers["passes"], solvers["compiled sweeps"]
    same = all(np.array_equal(x, y) for x, y in zip(a.regrets + a.strategy_sum, b.regrets + b.strategy_sum))
    same = same and np.array_equal(a.average_root_range(), b.average_root_range())
    n = per_block * args.blocks
    print(f"{args.endgame}, bets {args.bets}, {args.gadget} gadget for player 1, CFR+ {n} iterations, "
          f"{tree.summary()['public_nodes']} public nodes")
    print("| loops | ms/iteration |\n|---|---|")
    for name, sec in spent.items():
        print(f"| {name} | {1000 * sec / n:.2f} |")
    print(f"sweeps ÷ passes: {spent['compiled sweeps'] / spent['passes']:.2f}; the same bits: {same}")


if __name__ == "__main__":
    main()
