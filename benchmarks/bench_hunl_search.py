"""The HUNL search agent against its own blueprint over the ACPC dealer: time per decision by street, memory, winrate.

A small blueprint is trained first (four-round buckets ``--buckets``, ``--iterations`` of
implicit MCCFR); then ``search:bp`` and ``blueprint:bp`` play ``--hands`` duplicate hands
of the ACPC HUNL game (each deal twice, seats swapped) over local sockets. It prints one
JSON object: the search agent's decision times per street (median, 95th percentile), its
fallbacks to the blueprint, the process's peak RSS, and the search agent's winrate in
mbb/hand with a plain 95 % interval over hands (no AIVAT: that needs the compiled game).

Usage::

    python3 benchmarks/bench_hunl_search.py --hands 400 --budget 2s --out /tmp/hunl
    python3 benchmarks/bench_hunl_search.py --hands 100 --budget 20 --values k4c3 --out /tmp/hunl
    python3 benchmarks/bench_hunl_search.py --hands 100 --budget 50 --values k4s2:r3 --blueprint BP BUCKETS --out /tmp/hunl
"""

from __future__ import annotations

import argparse
import json
import resource
import threading
import time
from pathlib import Path

import numpy as np

from subgame.agents.acpc import Dealer, DealerConfig, play_match
from subgame.agents.hunl_search import HunlSearchAgent
from subgame.agents.specs import load_agent
from subgame.blueprint.actions import parse_actions
from subgame.blueprint.blueprint_file import Blueprint
from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from subgame.blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR
from subgame.games.poker.acpc import load_acpc_game

GAME = Path(__file__).resolve().parents[1] / "tests" / "data" / "acpc" / "holdem_nolimit.game"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--budget", default="2s", help="per solve: N iterations or Ts seconds")
    ap.add_argument("--buckets", default="169,4,4,4")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--actions", default="50,100,allin/100,allin:3")
    ap.add_argument("--values", default="", help="kK or kKcR: the turn too, K continuations at its leaves (R river cards)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--blueprint", nargs=2, metavar=("BP", "BUCKETS"), type=Path,
                    help="a blueprint and its buckets of HUNL (e.g. modicum-table --full's) instead of a new one")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    game = load_acpc_game(GAME)
    if args.blueprint is None:
        counts = tuple(int(x) for x in args.buckets.split(","))
        buckets = FourRoundBuckets.build(Buckets4Config.of(game.spec, counts, rollouts=2, fit_boards=2))
        solver = ImplicitMCCFR(game.spec, parse_actions(args.actions), buckets, ImplicitConfig(batch=100), seed=1)
        while solver.iteration < args.iterations:
            solver.step()
        bp, b4 = args.out / "bp.npz", args.out / "b4.npz"
        Blueprint.of(solver).save(bp)
        buckets.save(b4)
    else:
        bp, b4 = args.blueprint
    limited = f"{args.values}:" if args.values else ""
    search = load_agent(f"search:{bp}:{b4}:{limited}{args.budget}", None, game)  # type: ignore[arg-type]
    base = load_agent(f"blueprint:{bp}:{b4}", None, game)  # type: ignore[arg-type]
    assert isinstance(search, HunlSearchAgent)
    dealer = Dealer(game, DealerConfig(args.hands, seed=3, duplicate=True, response_timeout_s=600, start_timeout_s=60))
    started = time.perf_counter()
    run = threading.Thread(target=lambda: setattr(dealer, "_result", dealer.run()))
    run.start()
    clients = [threading.Thread(target=play_match, args=(agent, game, "127.0.0.1", port), kwargs={"seed": seed})
               for agent, port, seed in zip((search, base), dealer.ports, (1, 2))]
    for t in clients:
        t.start()
    for t in (*clients, run):
        t.join()
    result = dealer._result  # type: ignore[attr-defined]
    mbb = np.array([h.values[h.players.index(0)] for h in result.hands]) / max(game.spec.blinds) * 1000
    streets: dict[int, list[float]] = {}
    for rnd, seconds in search.decision_seconds:
        streets.setdefault(rnd, []).append(seconds)
    print(json.dumps({
        "hands": len(result.hands), "ended": result.ended, "wall_s": round(time.perf_counter() - started, 1),
        "search_mbb_per_hand": round(float(mbb.mean()), 1),
        "ci95": round(float(1.96 * mbb.std(ddof=1) / np.sqrt(len(mbb))), 1),
        "fallbacks": len(search.fallbacks), "first_fallbacks": search.fallbacks[:3],
        "decision_s": {str(r): {"n": len(v), "median": round(float(np.median(v)), 4),
                                "p95": round(float(np.percentile(v, 95)), 4)} for r, v in sorted(streets.items())},
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }, indent=1))


if __name__ == "__main__":
    main()
