"""A card-abstracted NLFH blueprint by public chance sampling, its exact exploitability against wall time.

No-limit flop hold'em (Brown & Sandholm 2017, §7) is solved by public chance sampling
(Johanson et al. 2012) in a card abstraction (``CardBuckets``: every preflop class of hands
its own bucket when the count covers the classes, 25 on 5 × 3 and 169 on the full deck; flop
hands clustered by opponent-cluster hand strength); at each checkpoint of
solving time the blueprint, stored per bucket (``BucketStrategy``), is evaluated exactly
in the real, unabstracted game by the board pass (``subgame.eval.board_pass``), one batch
of flops at a time. With ``--whole`` the whole tree's exploitability is computed beside it
as a check. Prints a markdown table; ``--out`` saves the final blueprint.

    python benchmarks/nlfh_blueprint.py --ranks 5 --suits 3 --buckets 105,60 --checkpoints 30,60,120,240
    python benchmarks/nlfh_blueprint.py --ranks 13 --suits 4 --uniform --batch 8   # the full deck, uniform strategy
    python benchmarks/nlfh_blueprint.py --ranks 13 --suits 4 --uniform --batch 8 --isomorphic   # one flop per suit class
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from subgame.eval.best_response import exploitability
from subgame.eval.board_pass import board_pass_exploitability
from subgame.games import load_game
from subgame.games.poker import PokerGame
from subgame.solve.card_abstraction import BucketStrategy, CardBuckets
from subgame.solve.mccfr import SCHEMES, MCCFRSolver
from subgame.tree.compile import compile_game
from subgame.tree.estimate import estimate_size
from subgame.tree.size import human_bytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=5)
    ap.add_argument("--suits", type=int, default=3)
    ap.add_argument("--buckets", default="105,60", help="preflop,flop buckets")
    ap.add_argument("--scheme", default="pcs", choices=sorted(SCHEMES))
    ap.add_argument("--checkpoints", default="30,60,120,240", help="seconds of solving at which to evaluate")
    ap.add_argument("--batch", type=int, default=8, help="flops per compiled forest in the board pass")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--whole", action="store_true", help="also the whole tree's exploitability (a check)")
    ap.add_argument("--out", default=None, help="save the final blueprint here (.npz)")
    ap.add_argument("--uniform", action="store_true", help="only the uniform strategy's exploitability by the board pass "
                                                           "(no solve; any deck, the full one included)")
    ap.add_argument("--isomorphic", action="store_true", help="--uniform: compile one flop per class of suit-isomorphic flops")
    args = ap.parse_args()
    if args.uniform:
        uniform_pass(args.ranks, args.suits, args.batch, args.isomorphic)
        return

    params = {"num_ranks": args.ranks, "num_suits": args.suits}
    game = load_game("nlfh", **params)
    bb = game.spec.blinds[0]
    full = estimate_size(load_game("nlfh"))
    est = estimate_size(game)
    print(f"- full deck: {full.public_nodes:,} public nodes, {full.private_states[0]:,} private states per player, "
          f"tree {human_bytes(full.tree_bytes)} + CFR state {human_bytes(full.solver_bytes)}")
    print(f"- {args.ranks} ranks x {args.suits} suits: {est.public_nodes:,} public nodes, {est.private_states[0]:,} "
          f"private states per player, tree {human_bytes(est.tree_bytes)} + CFR state {human_bytes(est.solver_bytes)}")
    started = time.perf_counter()
    buckets = CardBuckets.build(game, [int(x) for x in args.buckets.split(",")], seed=args.seed)
    tree = compile_game(game)
    abstraction = buckets.abstraction(game, tree)
    setup = time.perf_counter() - started
    print(f"- setup (buckets, compile, abstraction): {setup:.1f} s; abstract information sets "
          f"{abstraction.num_buckets(0):,} / {abstraction.num_buckets(1):,}")
    solver = MCCFRSolver(tree, SCHEMES[args.scheme], seed=args.seed, abstraction=abstraction)
    rows = ["| solve time (s) | iterations | exploitability (mbb/hand) | board pass (s) | whole tree (mbb/hand) |",
            "|---:|---:|---:|---:|---:|"]
    solving = 0.0
    blueprint = None
    for mark in (float(x) for x in args.checkpoints.split(",")):
        t0 = time.perf_counter()
        while solving + (time.perf_counter() - t0) < mark:
            solver.step()
        solving += time.perf_counter() - t0
        avg = solver.average_strategy()
        blueprint = BucketStrategy.of(game, buckets, tree, abstraction, avg.probs)
        result = board_pass_exploitability(game, lambda t, p, b=blueprint: b.rows(game, t, p), batch=args.batch)
        mbb = 1000.0 * result.exploitability.exploitability / bb
        whole = ""
        if args.whole:
            whole = f"{1000.0 * exploitability(tree, avg).exploitability / bb:.3f}"
        rows.append(f"| {solving:.0f} | {solver.iteration} | {mbb:.3f} | {result.seconds:.1f} | {whole} |")
        print(rows[-1], flush=True)
    if blueprint is not None:
        print(f"- board pass: {result.boards} flops in {result.batches} batches; trunk {human_bytes(result.trunk_bytes)}, "
              f"largest batch {human_bytes(result.largest_batch_bytes)}")
    if args.out and blueprint is not None:
        blueprint.save(args.out, game="nlfh", params=params, algo=args.scheme, iterations=solver.iteration,
                       seconds=round(solving, 1))
    print(f"- load average at the end: {os.getloadavg()[0]:.2f}")
    print()
    print("\n".join(rows))


def uniform_pass(ranks: int, suits: int, batch: int, isomorphic: bool = False) -> None:
    """The uniform strategy's exact exploitability, one batch of flops at a time (one flop per suit class if ``isomorphic``)."""
    game = load_game("nlfh", num_ranks=ranks, num_suits=suits)
    if not isinstance(game, PokerGame):
        raise TypeError(f"nlfh loaded as {type(game).__name__}, not a poker game")

    def uniform(tree, p):
        legal = tree.players[p].legal.astype(float)
        return legal / legal.sum(axis=1, keepdims=True)

    r = board_pass_exploitability(game, uniform, batch=batch, isomorphic=isomorphic)
    e = r.exploitability
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
    print(f"- {ranks} x {suits}, uniform strategy: best-response values {e.br_values[0]:.2f} and {e.br_values[1]:.2f} chips, "
          f"exploitability {e.exploitability:.2f} chips = {1000 * e.exploitability / game.spec.blinds[0]:,.0f} mbb/hand; "
          f"{r.compiled:,} of {r.boards:,} flops compiled (and {r.checked} to check symmetry) in {r.batches:,} batches, "
          f"{r.seconds:.0f} s ({cpu:.0f} s of CPU in the process), trunk {human_bytes(r.trunk_bytes)}, largest batch "
          f"{human_bytes(r.largest_batch_bytes)}, peak RSS {peak:.0f} MiB, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
