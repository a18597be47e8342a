"""A card-abstracted NLFH blueprint by public chance sampling, its exact exploitability against wall time.

No-limit flop hold'em (Brown & Sandholm 2017, §7) is solved by public chance sampling
(Johanson et al. 2012) in a card abstraction (``CardBuckets``: every preflop class of hands
its own bucket when the count covers the classes, 25 on 5 × 3 and 169 on the full deck; flop
hands clustered by opponent-cluster hand strength), by default over sampled
flops without ever compiling the whole tree (``BoardSamplingPCS``: the preflop trunk and
``--boards-per-pass`` flops at a time); with ``--whole`` on the whole compiled tree
(``MCCFRSolver``, a deck small enough to compile), whose exploitability is then computed
beside as a check. At each checkpoint of solving time the blueprint, stored per bucket
(``BucketStrategy``), is evaluated exactly in the real, unabstracted game by the board pass
(``subgame.eval.board_pass``), one batch of flops at a time (``--no-eval``: iterations and
seconds only). Prints a markdown table; ``--out`` saves the final blueprint.

    python benchmarks/nlfh_blueprint.py --ranks 5 --suits 3 --buckets 105,300 --checkpoints 60,180,420
    python benchmarks/nlfh_blueprint.py --ranks 5 --suits 3 --buckets 105,300 --checkpoints 60,180,420 --whole
    python benchmarks/nlfh_blueprint.py --ranks 13 --suits 4 --uniform --batch 8   # the full deck, uniform strategy
    python benchmarks/nlfh_blueprint.py --ranks 13 --suits 4 --uniform --batch 8 --isomorphic   # one flop per suit class
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from subgame.blueprint.board_sampling import BoardSamplingPCS
from subgame.blueprint.card_abstraction import BucketStrategy, CardBuckets
from subgame.eval.best_response import exploitability
from subgame.eval.board_pass import RowSource, board_pass_exploitability
from subgame.games import load_game
from subgame.games.poker import PokerGame
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
    ap.add_argument("--whole", action="store_true", help="solve the whole compiled tree (MCCFRSolver) and also give its "
                                                         "exploitability (a check)")
    ap.add_argument("--boards-per-pass", type=int, default=1, help="flops sampled per pass (without --whole)")
    ap.add_argument("--no-eval", action="store_true", help="no exploitability: iterations and seconds only")
    ap.add_argument("--abstraction", default=None, help="load the card buckets from this file instead of building --buckets")
    ap.add_argument("--out", default=None, help="save the final blueprint here (.npz)")
    ap.add_argument("--uniform", action="store_true", help="only the uniform strategy's exploitability by the board pass "
                                                           "(no solve; any deck, the full one included)")
    ap.add_argument("--isomorphic", action="store_true", help="compile one flop per class of suit-isomorphic flops in the board pass "
                                                              "(the uniform strategy and bucket blueprints are suit-symmetric)")
    args = ap.parse_args()
    if args.uniform:
        uniform_pass(args.ranks, args.suits, args.batch, args.isomorphic)
        return

    params = {"num_ranks": args.ranks, "num_suits": args.suits}
    game = load_game("nlfh", **params)
    if not isinstance(game, PokerGame):
        raise SystemExit("nlfh is not a poker game")
    bb = game.spec.blinds[0]
    full = estimate_size(load_game("nlfh"))
    est = estimate_size(game)
    print(f"- full deck: {full.public_nodes:,} public nodes, {full.private_states[0]:,} private states per player, "
          f"tree {human_bytes(full.tree_bytes)} + CFR state {human_bytes(full.solver_bytes)}")
    print(f"- {args.ranks} ranks x {args.suits} suits: {est.public_nodes:,} public nodes, {est.private_states[0]:,} "
          f"private states per player, tree {human_bytes(est.tree_bytes)} + CFR state {human_bytes(est.solver_bytes)}")
    started = time.perf_counter()
    if args.abstraction:
        buckets = CardBuckets.load(args.abstraction)
    else:
        buckets = CardBuckets.build(game, [int(x) for x in args.buckets.split(",")], seed=args.seed)
    tree = None
    if args.whole:
        tree = compile_game(game)
        abstraction = buckets.abstraction(game, tree)
        solver: MCCFRSolver | BoardSamplingPCS = MCCFRSolver(tree, SCHEMES[args.scheme], seed=args.seed, abstraction=abstraction)
        sizes = (abstraction.num_buckets(0), abstraction.num_buckets(1))
        what = "compile, abstraction"
    else:
        if args.scheme != "pcs":
            ap.error("--scheme: board sampling is public chance sampling; use --whole for the other schemes")
        solver = BoardSamplingPCS(game, buckets, seed=args.seed, boards_per_pass=args.boards_per_pass)
        sizes = (len(solver.tables.keys[0]), len(solver.tables.keys[1]))
        what = f"trunk, abstract tables; {args.boards_per_pass} of {len(solver.cut.deals):,} flops per pass"
    setup = time.perf_counter() - started
    print(f"- setup (buckets, {what}): {setup:.1f} s; abstract information sets {sizes[0]:,} / {sizes[1]:,}")
    rows = ["| solve time (s) | iterations | s / iteration | exploitability (mbb/hand) | board pass (s) | whole tree (mbb/hand) |",
            "|---:|---:|---:|---:|---:|---:|"]
    solving = 0.0
    blueprint = None
    result = None
    for mark in (float(x) for x in args.checkpoints.split(",")):
        t0 = time.perf_counter()
        while solving + (time.perf_counter() - t0) < mark:
            solver.step()
        solving += time.perf_counter() - t0
        if isinstance(solver, MCCFRSolver):
            blueprint = BucketStrategy.of(game, buckets, solver.tree, abstraction, solver.average_strategy().probs)
        else:
            blueprint = solver.blueprint()
        mbb, seconds, whole = "", "", ""
        if not args.no_eval:
            result = board_pass_exploitability(game, blueprint_rows(game, blueprint), batch=args.batch,
                                               isomorphic=args.isomorphic)
            mbb, seconds = f"{1000.0 * result.exploitability.exploitability / bb:.3f}", f"{result.seconds:.1f}"
        if tree is not None and not args.no_eval:
            whole = f"{1000.0 * exploitability(tree, solver.average_strategy()).exploitability / bb:.3f}"
        rows.append(f"| {solving:.0f} | {solver.iteration} | {solving / max(solver.iteration, 1):.3f} | {mbb} | {seconds} | {whole} |")
        print(rows[-1], flush=True)
    if result is not None:
        print(f"- board pass: {result.boards} flops in {result.batches} batches; trunk {human_bytes(result.trunk_bytes)}, "
              f"largest batch {human_bytes(result.largest_batch_bytes)}")
    print(f"- peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    if args.out and blueprint is not None:
        blueprint.save(args.out, game="nlfh", params=params, algo=args.scheme, iterations=solver.iteration,
                       seconds=round(solving, 1), board_sampling=not args.whole)
    print(f"- load average at the end: {os.getloadavg()[0]:.2f}")
    print()
    print("\n".join(rows))


def blueprint_rows(game: PokerGame, blueprint: BucketStrategy) -> RowSource:
    """The board pass's rows of a blueprint per bucket."""
    return lambda tree, player: blueprint.rows(game, tree, player)


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
