"""``subgame solve``: CFR and its presets, the exact LP, or CFR-D, run by the library's driver."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import typer

from ..decompose import CFRDConfig, CFRDSolver, TrunkSplit, make_executor, save_cfr_d, stored_value_exploitability
from ..errors import StrategyFileError
from ..eval.best_response import exploitability
from ..experiments.convergence import curve_point, exploitability_record, log_spaced
from ..games import load_game
from ..solve import driver
from ..solve.cfr import PRESETS, CFRSolver
from ..tree.public_tree import PublicTree
from .app import (
    EXIT_INTERRUPTED,
    CommandLineError,
    JsonOption,
    ParamsOption,
    compile_named,
    curve_table,
    echo_json,
    evaluation_table,
    game_label,
    parse_params,
    progress_bar,
    reports_errors,
    save_strategy,
    show,
    warn,
)

Algorithm = Literal["cfr", "cfr+", "lcfr", "dcfr", "modicum", "lp", "cfr-d"]
Backend = Literal["serial", "process", "ray"]
CFR_ALGORITHMS: tuple[str, ...] = tuple(a for a in get_args(Algorithm) if a in PRESETS)
CFR_D_CHECKPOINTS = 20
"""``solve --algo cfr-d`` writes its checkpoint every twentieth of the way."""


@reports_errors
def solve_command(
    game: Annotated[str, typer.Argument(help="Game name (see 'subgame games').")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the average strategy (.npz).")],
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    algo: Annotated[Algorithm, typer.Option(help="cfr, cfr+, lcfr, dcfr, modicum, or lp (exact sequence-form LP).")] = "cfr+",
    iterations: Annotated[int, typer.Option("--iterations", "-n", min=1, help="Total CFR iterations.")] = 1000,
    seed: Annotated[int, typer.Option(help="Recorded in the strategy file; the solvers are deterministic.")] = 0,
    checkpoints: Annotated[
        int, typer.Option(min=1, help="Number of evaluation points, log-spaced up to --iterations.")
    ] = 10,
    checkpoint_file: Annotated[
        Path | None, typer.Option(help="Save the solver state here at every evaluation point and on Ctrl-C.")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue from --checkpoint-file.")] = False,
    trunk_depth: Annotated[
        int, typer.Option(min=1, help="cfr-d: the trunk ends after this many public chance events (1: Leduc's first round).")
    ] = 1,
    trunk_public_depth: Annotated[
        int | None, typer.Option(min=1, help="cfr-d: end the trunk at this public depth instead (games without public chance).")
    ] = None,
    subgame_iterations: Annotated[int, typer.Option(min=1, help="cfr-d: inner CFR+ iterations per subgame solve.")] = 100,
    subgame_batch: Annotated[
        int, typer.Option(min=1, help="cfr-d: subgames per inner solve; 1 keeps memory at trunk + one subgame, more is faster.")
    ] = 1,
    cached_subgames: Annotated[
        int, typer.Option(min=0, help="cfr-d: compiled subgame structures kept between iterations (no solver state).")
    ] = 0,
    workers: Annotated[int, typer.Option(min=1, help="cfr-d: processes (or Ray CPUs) for the subgame solves.")] = 1,
    backend: Annotated[Backend, typer.Option(help="cfr-d: where subgame solves run: serial, process, ray.")] = "serial",
    as_json: JsonOption = False,
) -> None:
    """Solve GAME and write the average strategy; prints exploitability at log-spaced iterations.

    Ctrl-C stops at the end of the current iteration, saves the checkpoint (with
    --checkpoint-file) and writes the average strategy so far to --out. With --algo cfr-d
    (Burch et al. 2014) the file holds the trunk strategy and the average subgame-root
    values instead; 'subgame resolve FILE' rebuilds the full strategy from it.
    """
    params = parse_params(param)
    if algo == "lp" and (checkpoint_file is not None or resume):
        raise CommandLineError("--checkpoint-file and --resume apply to the CFR algorithms, not to --algo lp")
    if resume and checkpoint_file is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if algo == "cfr-d":
        split = TrunkSplit(rounds=trunk_depth) if trunk_public_depth is None else TrunkSplit(depth=trunk_public_depth)
        config = CFRDConfig(subgame_iterations, batch=subgame_batch, cached_chunks=cached_subgames)
        _solve_cfr_d(game, params, iterations, split, config, workers, backend, out, seed, as_json, checkpoint_file, resume)
        return
    tree = compile_named(game, params)
    _make_parents(out, checkpoint_file)
    meta: dict[str, Any] = {"game": game, "params": params, "algo": algo, "seed": seed}
    title = f"{game_label(game, params)}: {algo}"
    started = time.perf_counter()
    if algo == "lp":
        _solve_lp(tree, out, meta, title, started, as_json)
        return
    solver = _start_solver(tree, algo, iterations, checkpoint_file, resume).plan(iterations)
    points = log_spaced(iterations, checkpoints)
    with progress_bar(iterations, solver.iteration, not as_json) as update:
        run = driver.run(
            solver, driver.Budget(iterations=iterations), evaluate_at=points, on_evaluation=curve_point,
            checkpoint=checkpoint_file, checkpoint_every=driver.Cadence(at=frozenset(points)), progress=update,
        )
    curve = list(run.evaluations)
    save_strategy(solver.average_strategy(), out, tree, game=game, params=params, algo=algo, seed=seed)
    seconds = time.perf_counter() - started
    if as_json:
        echo_json({
            **meta, "iterations": solver.iteration, "interrupted": run.interrupted,
            "curve": [p.to_json() for p in curve], "final": curve[-1].to_json() if curve else None,
            "out": str(out), "checkpoint": None if checkpoint_file is None else str(checkpoint_file),
            "seconds": seconds,
        })
    elif curve:
        show(curve_table(curve, f"{title}, exploitability of the average strategy"))
    if run.interrupted:
        saved = f"; checkpoint saved to {checkpoint_file} (continue with --resume)" if checkpoint_file else ""
        warn(f"interrupted at iteration {solver.iteration}{saved}; average strategy so far written to {out}")
        raise typer.Exit(EXIT_INTERRUPTED)
    if not as_json:
        show(f"wrote {out} ({solver.iteration} iterations, {seconds:.2f} s)")


def _make_parents(*paths: Path | None) -> None:
    """Create the folders of the output files: fail before a long run, not after it."""
    for path in paths:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)


def _start_solver(tree: PublicTree, algo: str, iterations: int, checkpoint: Path | None, resume: bool) -> CFRSolver:
    """A fresh solver, or with ``resume`` the one saved in ``checkpoint`` (same game and algorithm)."""
    if not resume:
        return CFRSolver(tree, PRESETS[algo])
    if checkpoint is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if not checkpoint.exists():
        raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
    solver = CFRSolver.load_checkpoint(checkpoint, tree)
    if solver.config != PRESETS[algo]:
        written_by = next((name for name, c in PRESETS.items() if c == solver.config), None)
        how = f"--algo {written_by}" if written_by else f"the configuration {solver.config}"
        raise CommandLineError(
            f"{checkpoint} was written by {how}, not --algo {algo}; resume it with the same algorithm"
        )
    if solver.iteration >= iterations:
        raise CommandLineError(
            f"{checkpoint} is already at iteration {solver.iteration}; "
            f"ask for more with --iterations (now {iterations})"
        )
    return solver


def _solve_lp(tree: PublicTree, out: Path, meta: dict[str, Any], title: str, started: float, as_json: bool) -> None:
    """``solve --algo lp``: the exact sequence-form equilibrium, written and evaluated."""
    from ..solve.lp import solve_lp

    lp = solve_lp(tree)
    save_strategy(lp.strategy, out, tree, **meta)
    result = exploitability(tree, lp.strategy)
    seconds = time.perf_counter() - started
    if as_json:
        echo_json({**meta, "iterations": 0, "curve": [], "final": exploitability_record(result),
                   "lp_value": lp.value, "out": str(out), "seconds": seconds})
        return
    show(evaluation_table(result, f"{title}, game value {lp.value:.6g} for player 0"))
    show(f"wrote {out} ({seconds:.2f} s)")


def _solve_cfr_d(game: str, params: dict[str, str], iterations: int, split: TrunkSplit, config: CFRDConfig,
                 workers: int, backend: Backend, out: Path, seed: int, as_json: bool,
                 checkpoint: Path | None, resume: bool) -> None:
    """``solve --algo cfr-d``: CFR-D, writing the trunk strategy and average root values.

    With ``checkpoint`` the run is saved every twentieth of the way and on Ctrl-C (then
    what CFR-D has so far is also written to ``out``); ``resume`` continues it.
    """
    _make_parents(out, checkpoint)
    started = time.perf_counter()
    game_obj = load_game(game, **params)
    executor = make_executor(backend if workers > 1 or backend == "ray" else "serial", workers)
    try:
        if resume and checkpoint is not None:
            solver = CFRDSolver.load_checkpoint(checkpoint, game_obj, executor=executor)
            if solver.iteration >= iterations:
                raise CommandLineError(f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations")
        else:
            solver = CFRDSolver(game_obj, split=split, config=config, executor=executor)
        with progress_bar(iterations, solver.iteration, not as_json) as update:
            run = driver.run(
                solver, driver.Budget(iterations=iterations), checkpoint=checkpoint,
                checkpoint_every=driver.Cadence(iterations=max(1, iterations // CFR_D_CHECKPOINTS)), progress=update,
            )
    finally:
        executor.close()
    solution = solver.solution()
    save_cfr_d(out, solution, game=game, params=params, seed=seed)
    bound = stored_value_exploitability(solution)
    seconds = time.perf_counter() - started
    meta = {"game": game, "params": params, "algo": "cfr-d", "seed": seed, "iterations": solver.iteration,
            "trunk_rounds": solver.split.rounds, "trunk_public_depth": solver.split.depth,
            "subgame_iterations": solver.config.subgame_iterations}
    if as_json:
        echo_json({**meta, "interrupted": run.interrupted, "stored_value_bound": exploitability_record(bound),
                   "out": str(out), "checkpoint": None if checkpoint is None else str(checkpoint), "seconds": seconds})
    else:
        show(evaluation_table(bound, f"{game_label(game, params)}: CFR-D, {solver.iteration} trunk iterations × "
                                     f"{solver.config.subgame_iterations} subgame iterations; exploitability "
                                     "certified by the stored values"))
    if run.interrupted:
        saved = f"; checkpoint saved to {checkpoint} (continue with --resume)" if checkpoint else ""
        warn(f"interrupted at iteration {solver.iteration}{saved}; trunk strategy and root values so far written to {out}")
        raise typer.Exit(EXIT_INTERRUPTED)
    if not as_json:
        show(f"wrote {out} (trunk strategy and root values; rebuild the full strategy with 'subgame resolve {out}') "
             f"({seconds:.2f} s)")
