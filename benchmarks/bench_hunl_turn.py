"""One depth-limited turn (or flop) decision of the HUNL search agent: the subgame's size and the time of its solve.

The turn is solved to the end of its betting round with K continuation strategies at its leaves
(``search:BP:BUCKETS:kK[cR]:N``); the leaves follow R sampled river cards. A blueprint is made first
(implicit MCCFR, as ``bench_hunl_search.py`` makes it), then the agent, in the big blind with Kd Ah
after limp, check, a 2c 7d 9h flop checked through and the Js turn, decides once per spec. With
``--street flop`` it decides first on that flop instead (specs with ``f[R]``: the flop solved to its
round's end, R turn cards at its leaves by ``cR``, R river cards below each by ``fR``). With ``--street preflop``
it faces a small-blind raise to 250 (the blueprint raises to 200 or 300): specs with ``p[B]`` solve the whole
preflop again with that size (App. A); a second hand with the same raise is then answered from the kept solve.

Usage::

    python3 benchmarks/bench_hunl_turn.py --iterations 2000 --specs k1c1:10 k4c1:10 k4c4:10
    python3 benchmarks/bench_hunl_turn.py --blueprint BP.npz BUCKETS.npz --specs k4c2:r3:50 k4s2:r3:50   # a kept one
    python3 benchmarks/bench_hunl_turn.py --street flop --specs k4c2f2:r3:50 k1c2f2:r3:50
    python3 benchmarks/bench_hunl_turn.py --street preflop --specs k4c2f2p:r3:50 k1c2f2p:r3:50
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from subgame.agents.base import Move, View
from subgame.agents.hunl_search import HunlSearchAgent
from subgame.agents.specs import load_agent
from subgame.blueprint.actions import parse_actions
from subgame.blueprint.blueprint_file import Blueprint
from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from subgame.blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR
from subgame.experiments.hunl_matches import HUNL
from subgame.games import load_game
from subgame.games.poker.game import PokerGame
from subgame.solve import driver

MOVES = (Move("", "KdAh"), Move("", ""), Move("c", ""), Move("c", ""), Move("2c7d9h", ""), Move("c", ""), Move("c", ""),
         Move("Js", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=2000, help="of the blueprint")
    ap.add_argument("--buckets", default="169,8,8,8")
    ap.add_argument("--actions", default="50,100,allin/100,allin:3")
    ap.add_argument("--specs", nargs="+", default=["k1c1:10", "k4c1:10", "k4c4:10"])
    ap.add_argument("--street", choices=("turn", "flop", "preflop"), default="turn",
                    help="the decision: the Js turn, the flop, or facing an off-tree preflop raise")
    ap.add_argument("--blueprint", nargs=2, metavar=("BP", "BUCKETS"), type=Path,
                    help="a blueprint and its buckets of the HUNL game (e.g. modicum-table --full's) instead of a new one")
    args = ap.parse_args()
    game = load_game("poker", **HUNL)
    assert isinstance(game, PokerGame)
    if args.blueprint is None:
        counts = tuple(int(x) for x in args.buckets.split(","))
        buckets = FourRoundBuckets.build(Buckets4Config.of(game.spec, counts, rollouts=2, fit_boards=2))
        solver = ImplicitMCCFR(game.spec, parse_actions(args.actions), buckets, ImplicitConfig(batch=1000), seed=1)
        while solver.iteration < args.iterations:
            solver.step()
    sizes: list[dict[str, object]] = []
    run = driver.run

    def measured(s, budget, *a, **k):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        out = run(s, budget, *a, **k)
        sizes.append({"iterations": s.iteration, "solve_s": round(time.perf_counter() - started, 2),
                      "public_nodes": s.tree.num_nodes, "private_states": s.tree.players[0].num_states})
        return out

    driver.run = measured  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        bp, b4 = args.blueprint or (Path(tmp) / "bp.npz", Path(tmp) / "b4.npz")
        if args.blueprint is None:
            Blueprint.of(solver).save(bp)
            buckets.save(b4)
        for spec in args.specs:
            agent = load_agent(f"search:{bp}:{b4}:{spec}", None, game)  # type: ignore[arg-type]
            assert isinstance(agent, HunlSearchAgent)
            agent.new_hand(0, 1)
            sizes.clear()
            started = time.perf_counter()
            if args.street == "preflop":
                agent.act(View(0, MOVES[:2] + (Move("r250", ""),), (0, 1, 2, 3)))
                first = time.perf_counter() - started
                agent.new_hand(0, 2)
                again = time.perf_counter()
                agent.act(View(0, (Move("", "QsQh"),) + MOVES[1:2] + (Move("r250", ""),), (0, 1, 2, 3)))
                timing = {"decision_s": round(first, 2), "next_hand_s": round(time.perf_counter() - again, 3)}
            else:
                agent.act(View(0, MOVES if args.street == "turn" else MOVES[:5], (1, 2, 3)))
                timing = {"decision_s": round(time.perf_counter() - started, 2)}
            print(json.dumps({"spec": spec, **timing, "solves": sizes, "fallbacks": agent.fallbacks,
                              "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))


if __name__ == "__main__":
    main()
