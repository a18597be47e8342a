"""``subgame solve --algo cfr-d``: CFR with decomposition (Burch et al. 2014), the trunk and one subgame at a time."""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Literal

from rich.table import Table

from ..decompose import (
    CFRDConfig,
    CFRDSolver,
    Decomposition,
    TrunkSplit,
    WorkerMemory,
    make_executor,
    reconstruct,
    save_cfr_d,
    stored_value_exploitability,
    whole_tree_bytes,
)
from ..experiments.convergence import exploitability_record
from ..games import load_game
from ..solve import driver
from ..tree.size import MemoryLimit
from .app import CommandLineError, echo_json, evaluation_table, exit_if_interrupted, game_label, progress_bar, show
from .solve_options import SolveOptions

CFR_D_CHECKPOINTS = 20
"""``solve --algo cfr-d`` writes its checkpoint every twentieth of the way."""
#: Peak memory of re-solving every subgame and evaluating the whole tree, in units of the
#: whole tree's compiled size (2.5 measured on the 6-rank, 4-suit, 2-hole-card family).
EXACT_MEMORY_FACTOR = 3.0


def solve_cfr_d(o: SolveOptions, params: dict[str, str], iterations: int, cadence: driver.Cadence, out: Path) -> None:
    """``solve --algo cfr-d``: CFR-D, writing the trunk strategy and average root values.

    It reports the exploitability the stored values certify, computed on the trunk alone.
    With ``--exact`` the whole tree's size is estimated first (trunk and subgames compiled one
    at a time) and the run refused if it cannot fit; after the run every subgame is
    re-solved from the stored values and the exact exploitability computed. With a
    checkpoint file the run is saved every twentieth of the way and on Ctrl-C (then what
    CFR-D has so far is also written to ``out``); ``--resume`` continues it. With a parallel
    backend the peak resident memory of every worker process that solved subgames is reported;
    ``--ray-address`` joins a running Ray cluster.
    """
    started = time.perf_counter()
    split = TrunkSplit(rounds=o.trunk_depth) if o.trunk_public_depth is None else TrunkSplit(depth=o.trunk_public_depth)
    config = CFRDConfig(o.subgame_iterations, batch=o.subgame_batch, cached_chunks=o.cached_subgames)
    if o.checkpoint_every is None:
        cadence = replace(cadence, iterations=max(1, iterations // CFR_D_CHECKPOINTS))
    game_obj = load_game(o.game, **params)
    backend: Literal["serial", "process", "ray"] = "ray" if o.ray_address is not None else o.backend
    options = {"address": o.ray_address} if o.ray_address is not None else {}
    executor = make_executor(backend if o.workers > 1 or backend == "ray" else "serial", o.workers, **options)
    checkpoint = o.checkpoint_file
    try:
        if o.resume and checkpoint is not None:
            solver = CFRDSolver.load_checkpoint(checkpoint, game_obj, executor=executor)
            if solver.iteration >= iterations:
                raise CommandLineError(f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations")
        else:
            solver = CFRDSolver(game_obj, split=split, config=config, executor=executor)
        if o.exact:
            check_whole_tree_fits(solver.decomposition)
        with progress_bar(iterations, solver.iteration, not o.as_json) as update:
            run = driver.run(solver, driver.Budget(iterations=iterations), checkpoint=checkpoint, checkpoint_every=cadence,
                             progress=update)
    finally:
        executor.close()
    worker_memory = executor.worker_memory() if backend != "serial" else []
    solution = solver.solution()
    save_cfr_d(out, solution, game=o.game, params=params, seed=o.seed)
    bound = stored_value_exploitability(solution)
    exact = reconstruct(solution, iterations=solver.config.subgame_iterations).exploitability() if o.exact else None
    seconds = time.perf_counter() - started
    meta: dict[str, Any] = {"game": o.game, "params": params, "algo": "cfr-d", "seed": o.seed, "iterations": solver.iteration,
                            "trunk_rounds": solver.split.rounds, "trunk_public_depth": solver.split.depth,
                            "subgame_iterations": solver.config.subgame_iterations}
    if o.as_json:
        echo_json({**meta, "interrupted": run.interrupted, "stored_value_bound": exploitability_record(bound),
                   "exact": None if exact is None else exploitability_record(exact), "out": str(out),
                   "checkpoint": None if checkpoint is None else str(checkpoint), "seconds": seconds,
                   "workers": [asdict(w) for w in worker_memory]})
    else:
        n = solver.config.subgame_iterations
        show(evaluation_table(bound, f"{game_label(o.game, params)}: CFR-D, {solver.iteration} trunk iterations × {n} "
                                     "subgame iterations; exploitability certified by the stored values"))
        if exact is not None:
            show(evaluation_table(exact, f"exact exploitability: trunk average plus every subgame re-solved from the "
                                         f"stored values ({n} iterations each)"))
        if worker_memory:
            show(worker_table(worker_memory, f"subgame solves per worker ({backend})"))
    exit_if_interrupted(run.interrupted, solver.iteration, checkpoint, "trunk strategy and root values", out)
    if not o.as_json:
        show(f"wrote {out} (trunk strategy and root values; rebuild the full strategy with 'subgame resolve {out}') "
             f"({seconds:.2f} s)")


def check_whole_tree_fits(decomposition: Decomposition) -> None:
    """Refuse ``--exact`` before the run when the whole tree would not fit in memory."""
    MemoryLimit.of().require(
        EXACT_MEMORY_FACTOR * whole_tree_bytes(decomposition),
        "--exact", "it holds the whole tree (estimated from the trunk and every subgame compiled one at a time) and its "
        "evaluation; drop --exact: the exploitability the stored values certify is computed from the trunk alone")


def worker_table(workers: list[WorkerMemory], title: str) -> Table:
    """One row per worker process: node, pid, tasks it returned, its peak resident memory."""
    table = Table("node", "pid", "tasks", "peak RSS (MiB)", title=title, title_justify="left")
    for w in workers:
        table.add_row(w.node[:12], str(w.pid), str(w.tasks), f"{w.peak_rss / 2**20:.1f}")
    return table
