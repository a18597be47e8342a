"""Local best response or CDBR against a HUNL blueprint without a tree: time per decision by street, and the winrate.

``lbr:BP:BUCKETS`` (or ``cdbr:BP:BUCKETS:DEPTH`` with ``--depth``) and ``blueprint:BP:BUCKETS``
play ``--deals`` duplicate deals of the ACPC HUNL game (each deal twice, seats swapped) as
``subgame match`` plays them (the same seed gives the same hands). It prints one JSON object:
the responder's winrate in mbb/hand with the plain duplicate 95 % interval, the match's wall
time, and its decision times per street (median and 95th percentile; preflop it checks/calls).

Usage::

    python3 benchmarks/bench_hunl_lbr.py --blueprint bp.npz --buckets b4.npz --deals 100 --seed 2
    python3 benchmarks/bench_hunl_lbr.py --blueprint bp.npz --buckets b4.npz --deals 100 --seed 2 --depth 3
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from subgame.agents.lbr import LocalBestResponse
from subgame.agents.match import play_match
from subgame.agents.specs import treeless_agent
from subgame.games.poker.acpc import load_acpc_game

GAME = "tests/data/acpc/holdem_nolimit.game"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blueprint", required=True, help="a blueprint file of subgame blueprint")
    ap.add_argument("--buckets", required=True, help="its bucket file (--buckets-out)")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--depth", type=int, default=None, help="CDBR with fold, call, pot, all-in and this look-ahead "
                    "(default: LBR with 0.5 / 1 pot and all-in)")
    args = ap.parse_args()
    game = load_acpc_game(GAME)
    files = f"{args.blueprint}:{args.buckets}"
    spec = f"lbr:{files}" if args.depth is None else f"cdbr:{files}:{args.depth}"
    lbr, bp = treeless_agent(spec, game), treeless_agent(f"blueprint:{files}", game)
    assert isinstance(lbr, LocalBestResponse) and bp is not None
    started = time.perf_counter()
    result = play_match(game, None, (lbr, bp), args.deals, args.seed)
    wall = time.perf_counter() - started
    e = result.estimate("plain")
    seconds = np.array([s for _, s in lbr.decision_seconds])
    rounds = np.array([r for r, _ in lbr.decision_seconds])
    streets = {}
    for r, street in enumerate(("preflop", "flop", "turn", "river")):
        s = seconds[rounds == r]
        if s.size:
            streets[street] = {"decisions": int(s.size), "median_s": float(np.median(s)), "p95_s": float(np.percentile(s, 95))}
    print(json.dumps({"responder": lbr.name, "deals": result.deals, "mbb_per_hand": e.mean, "interval": [e.low, e.high], "wall_s": wall,
                      "error": None if result.error is None else result.error.message, "decision": streets}, indent=2))


if __name__ == "__main__":
    main()
