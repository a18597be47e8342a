"""``subgame solve``: CFR and its presets, sampling CFR, the exact LP, or CFR-D, run by the library's driver."""

from __future__ import annotations

import math
import re
import time
from dataclasses import asdict, replace
from math import comb
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import typer
from rich.table import Table

from ..blueprint.board_sampling import BoardSamplingPCS
from ..blueprint.card_abstraction import BucketStrategy, CardBuckets
from ..decompose import (
    CFRDConfig,
    CFRDSolver,
    Decomposition,
    Executor,
    TrunkSplit,
    WorkerMemory,
    make_executor,
    reconstruct,
    save_cfr_d,
    stored_value_exploitability,
    whole_tree_bytes,
)
from ..errors import StrategyFileError
from ..eval.best_response import exploitability
from ..eval.board_pass import board_pass_exploitability
from ..experiments.convergence import curve_point, exploitability_record, log_spaced
from ..files import output_file
from ..games import load_game
from ..games.base import Game
from ..games.poker.game import PokerGame
from ..solve import driver
from ..solve.abstraction import Abstraction
from ..solve.cfr import PRESETS, CFRSolver
from ..solve.mccfr import SCHEMES, MCCFRSolver, SamplingScheme
from ..tree.estimate import estimate_size
from ..tree.public_tree import PublicTree
from ..tree.size import SizeBudget, available_bytes, gib
from .app import (
    CommandLineError,
    JsonOption,
    ParamsOption,
    compile_named,
    curve_table,
    echo_json,
    evaluation_table,
    exit_if_interrupted,
    game_label,
    parse_params,
    progress_bar,
    reports_errors,
    save_strategy,
    show,
)
from .holdem import HoldemOptions, is_holdem, solve_holdem

Algorithm = Literal["cfr", "cfr+", "lcfr", "dcfr", "modicum", "pcfr+", "dcfr-postflop", "lp", "cfr-d", "mccfr-es", "mccfr-os",
                    "pcs"]
Backend = Literal["serial", "process", "ray"]
Weighting = Literal["cfr", "cfr+", "lcfr", "dcfr"]
Precision = Literal["float64", "float32"]
CFR_ALGORITHMS: tuple[str, ...] = tuple(a for a in get_args(Algorithm) if a in PRESETS)
SAMPLING_ALGORITHMS: tuple[str, ...] = tuple(a for a in get_args(Algorithm) if a in SCHEMES)
DEFAULT_ITERATIONS = 1000
HOLDEM_ITERATION_CAP = 100_000  # a hold'em spot run by --time alone stops at its target or its time
DEFAULT_EPSILON = SCHEMES["mccfr-os"].epsilon
CFR_D_CHECKPOINTS = 20
"""``solve --algo cfr-d`` writes its checkpoint every twentieth of the way."""


@reports_errors
def solve_command(
    game: Annotated[str, typer.Argument(help="Game name (see 'subgame games').")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write the average strategy (.npz); optional for hold'em spots.")
    ] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    algo: Annotated[
        Algorithm,
        typer.Option(help="cfr, cfr+, lcfr, dcfr, modicum, lp (exact sequence-form LP), cfr-d (CFR with decomposition), "
                          "or sampling CFR: mccfr-es (external sampling), mccfr-os (outcome sampling), pcs (public "
                          "chance sampling)."),
    ] = "cfr+",
    iterations: Annotated[
        int | None, typer.Option("--iterations", "-n", min=1, help="Total iterations (default 1000; with --time: no limit).")
    ] = None,
    time_limit: Annotated[
        str | None, typer.Option("--time", help="Stop after this wall-clock time: 90s, 10m, 1h (CFR and sampling algorithms).")
    ] = None,
    seed: Annotated[
        int, typer.Option(min=0, help="Seed of the sampling algorithms' generator; recorded in the strategy file.")
    ] = 0,
    weighting: Annotated[
        Weighting, typer.Option(help="mccfr-es, mccfr-os, pcs: the update rule, a CFR preset (lcfr: linear MCCFR).")
    ] = "lcfr",
    abstraction_file: Annotated[
        Path | None, typer.Option("--abstraction", help="CFR and sampling algorithms: solve in the card abstraction of this "
                                                        "bucket file ('subgame abstract'); exploitability is the real game's.")
    ] = None,
    blueprint_out: Annotated[
        Path | None, typer.Option("--blueprint-out", help="With --abstraction: also write the strategy per bucket, which "
                                                          "'subgame evaluate' reads by a pass over boards.")
    ] = None,
    epsilon: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="mccfr-os: exploration of the updating player's sampling (Lanctot et al. 2009).")
    ] = DEFAULT_EPSILON,
    checkpoints: Annotated[
        int, typer.Option(min=1, help="Number of evaluation points, log-spaced up to --iterations.")
    ] = 10,
    checkpoint_file: Annotated[
        Path | None, typer.Option(help="Save the solver state here at every evaluation point and on Ctrl-C.")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue from --checkpoint-file.")] = False,
    force: Annotated[bool, typer.Option(help="Start over even if --checkpoint-file exists (it is overwritten).")] = False,
    checkpoint_every: Annotated[
        int | None, typer.Option(min=1, help="Also save the checkpoint every N iterations.")
    ] = None,
    checkpoint_seconds: Annotated[
        float, typer.Option(min=0.0, help="Also save the checkpoint when this many seconds passed since the last (0: never).")
    ] = 600.0,
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
    workers: Annotated[int, typer.Option(min=1, help="cfr-d: processes (or Ray CPUs) for the subgame solves; mccfr-es, "
                                                     "mccfr-os, pcs: random streams (samples per pass), one per worker.")] = 1,
    backend: Annotated[Backend, typer.Option(help="cfr-d, mccfr-es, mccfr-os, pcs: where subgame solves or samples run: "
                                                   "serial, process, ray.")] = "serial",
    ray_address: Annotated[
        str | None, typer.Option(help="cfr-d: join the running Ray cluster whose head is at HOST:PORT (implies --backend ray).")
    ] = None,
    max_memory: Annotated[
        float | None, typer.Option(min=0.001, help="GiB the compiled tree may take (default: the memory available now).")
    ] = None,
    exact: Annotated[
        bool, typer.Option(help="cfr-d: also re-solve every subgame and compute the exact exploitability on the whole "
                                "tree (refused when its size estimate does not fit in the available memory); pcs with "
                                "board sampling: the blueprint's exact exploitability by a pass over boards.")
    ] = False,
    board: Annotated[str | None, typer.Option(help="holdem-subgame: the board, e.g. 'Js Ks 5c Qs 7d'.")] = None,
    pot: Annotated[int | None, typer.Option(help="holdem-subgame: chips in the pot, half from each player.")] = None,
    stack: Annotated[int | None, typer.Option(help="holdem-subgame: chips each player has behind.")] = None,
    starting_stack: Annotated[
        int | None, typer.Option(help="holdem-subgame: chips each player started the hand with (instead of --stack).")
    ] = None,
    ranges: Annotated[
        str | None, typer.Option(help="holdem-subgame: a range file (one line for both players or two) or 'uniform'.")
    ] = None,
    bets: Annotated[
        str | None, typer.Option(help="Hold'em: bet sizes as pot fractions and allin, e.g. 0.5,1,allin ('/' between streets).")
    ] = None,
    raise_cap: Annotated[int, typer.Option(min=0, help="Hold'em: most bets and raises per street (0: no cap).")] = 3,
    target: Annotated[
        str | None, typer.Option(help="Hold'em: stop at this exploitability, e.g. 0.5%pot (--iterations caps the run).")
    ] = None,
    evaluate_every: Annotated[
        int, typer.Option(min=1, help="Hold'em: iterations between two exploitability evaluations; with --target the "
                                         "first check and the least gap (later checks go where the curve predicts the target).")
    ] = 10,
    grid: Annotated[
        Path | None, typer.Option(help="Hold'em: draw the first player's strategy at the root as a 13x13 hand grid (PNG).")
    ] = None,
    isomorphism: Annotated[
        bool, typer.Option(help="Hold'em: compile suit-equivalent turn and river cards once where the board and "
                                "both ranges allow it (the plain tree otherwise).")
    ] = True,
    board_sampling: Annotated[
        bool, typer.Option(help="pcs with --abstraction: sample flops, never compiling the whole tree (the default when it does not fit).")
    ] = False,
    boards_per_pass: Annotated[int, typer.Option(min=1, help="pcs with board sampling: flops drawn per pass, compiled as one forest.")] = 1,
    dtype: Annotated[Precision, typer.Option(help="cfr, cfr+, lcfr, dcfr, modicum and hold'em spots: float32 stores the regrets and "
                                             "average strategy in half the memory (the sweeps still compute in float64); a "
                                             "resumed run keeps its checkpoint's precision.")] = "float64",
    as_json: JsonOption = False,
) -> None:
    """Solve GAME and write the average strategy; prints exploitability at log-spaced iterations.

    GAME may be a hold'em spot: 'holdem-subgame' with --board, --pot, --stack and --ranges, or a
    Libratus endgame file (.txt); it is solved under --bets to --target (in % of the pot).

    Ctrl-C stops at the end of the current iteration, saves the checkpoint (with
    --checkpoint-file) and writes the average strategy so far to --out. With --algo cfr-d
    (Burch et al. 2014) the file holds the trunk strategy and the average subgame-root
    values instead; 'subgame resolve FILE' rebuilds the full strategy from it. The sampling
    algorithms (mccfr-es, mccfr-os: Lanctot et al. 2009; pcs: Johanson et al. 2012) draw their
    samples from --seed; --workers W averages W samples per pass, computed on W processes with
    --backend process (bitwise the serial run). --time bounds any CFR or sampling run by time.
    With --algo pcs --abstraction a game too big to compile whole (or any, with --board-sampling)
    is solved over sampled flops, holding the preflop trunk and one forest of flops at a time;
    it writes the blueprint per bucket (--blueprint-out, or --out) and no whole-game strategy.
    """
    spot = HoldemOptions(board, pot, stack, starting_stack, ranges, bets, raise_cap, target, None, evaluate_every, grid,
                         isomorphism, dtype)
    if is_holdem(game):
        ignored = [flag for flag, used in (("-p", bool(param)), ("--checkpoint-file", checkpoint_file is not None),
                                           ("--resume", resume), ("--checkpoint-every", checkpoint_every is not None))
                   if used]
        if ignored:
            raise CommandLineError(f"{', '.join(ignored)}: not available for hold'em spots; the spot is given by "
                                   "--board, --pot, --stack, --ranges and --bets (or an endgame file)")
        seconds_limit = None if time_limit is None else parse_duration(time_limit)
        if iterations is None:
            iterations = DEFAULT_ITERATIONS if seconds_limit is None else HOLDEM_ITERATION_CAP
        solve_holdem(game, replace(spot, seconds=seconds_limit), algo, iterations, out, seed, max_memory, as_json)
        return
    if spot.given():
        raise CommandLineError(f"{', '.join(spot.given())}: hold'em options; GAME must be 'holdem-subgame' or an endgame file")
    params = parse_params(param)
    cfr_d, iterative, parallel = ("cfr-d",), CFR_ALGORITHMS + SAMPLING_ALGORITHMS, ("cfr-d", *SAMPLING_ALGORITHMS)
    _refuse_foreign_options(algo, [
        ("--trunk-depth", trunk_depth, 1, cfr_d), ("--trunk-public-depth", trunk_public_depth, None, cfr_d),
        ("--subgame-iterations", subgame_iterations, 100, cfr_d), ("--subgame-batch", subgame_batch, 1, cfr_d),
        ("--cached-subgames", cached_subgames, 0, cfr_d), ("--workers", workers, 1, parallel),
        ("--backend", backend, "serial", parallel), ("--exact", exact, False, (*cfr_d, "pcs")),
        ("--ray-address", ray_address, None, parallel),
        ("--weighting", weighting, "lcfr", SAMPLING_ALGORITHMS), ("--epsilon", epsilon, DEFAULT_EPSILON, ("mccfr-os",)),
        ("--time", time_limit, None, iterative), ("--abstraction", abstraction_file, None, iterative),
        ("--boards-per-pass", boards_per_pass, 1, ("pcs",)),
        ("--board-sampling", board_sampling, False, ("pcs",)),
        ("--dtype", dtype, "float64", CFR_ALGORITHMS),
    ])
    if algo == "pcs" and abstraction_file is not None and (board_sampling or _too_big_to_compile(load_game(game, **params),
                                                                                                 max_memory)):
        if workers != 1 or backend != "serial" or ray_address is not None:
            raise CommandLineError("--workers, --backend and --ray-address: board sampling runs in this process; drop them")
        _solve_board_sampling(game, params, abstraction_file, weighting, seed, iterations,
                              None if time_limit is None else parse_duration(time_limit), out, blueprint_out, checkpoint_file,
                              resume, force, checkpoint_every, checkpoint_seconds, boards_per_pass, exact, as_json)
        return
    if board_sampling or boards_per_pass != 1:
        raise CommandLineError("--board-sampling and --boards-per-pass sample flops in a card abstraction: they need "
                               "--abstraction FILE")
    if exact and algo != "cfr-d":
        raise CommandLineError("--exact applies to --algo cfr-d, or to pcs with board sampling; drop it")
    if out is None:
        raise CommandLineError("--out PATH is needed: where to write the average strategy")
    seconds_limit = None if time_limit is None else parse_duration(time_limit)
    if iterations is None and (seconds_limit is None or algo == "modicum"):
        iterations = DEFAULT_ITERATIONS  # modicum leaves a share of the planned run out of its average: it needs a length
    _check_outputs(out, checkpoint_file, resume, force)
    cadence = driver.Cadence(iterations=checkpoint_every, seconds=checkpoint_seconds or None)
    if algo == "lp" and (checkpoint_file is not None or resume):
        raise CommandLineError("--checkpoint-file and --resume apply to the CFR algorithms, not to --algo lp")
    if resume and checkpoint_file is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if ray_address is not None:
        if backend == "process":
            raise CommandLineError("--ray-address joins a Ray cluster; it does not go with --backend process")
        backend = "ray"
    if algo == "cfr-d":
        iterations = iterations or DEFAULT_ITERATIONS
        split = TrunkSplit(rounds=trunk_depth) if trunk_public_depth is None else TrunkSplit(depth=trunk_public_depth)
        config = CFRDConfig(subgame_iterations, batch=subgame_batch, cached_chunks=cached_subgames)
        if checkpoint_every is None:
            cadence = replace(cadence, iterations=max(1, iterations // CFR_D_CHECKPOINTS))
        _solve_cfr_d(game, params, iterations, split, config, workers, backend, out, seed, as_json, checkpoint_file, resume,
                     exact, cadence, ray_address)
        return
    if abstraction_file is None:
        _check_solver_fits(load_game(game, **params), algo, max_memory)
    tree = compile_named(game, params, max_memory)
    meta: dict[str, Any] = {"game": game, "params": params, "algo": algo, "seed": seed}
    title = f"{game_label(game, params)}: {algo}"
    started = time.perf_counter()
    if algo == "lp":
        _solve_lp(tree, out, meta, title, started, as_json)
        return
    abstraction = None
    if blueprint_out is not None and abstraction_file is None:
        raise CommandLineError("--blueprint-out writes a strategy per bucket; give the buckets with --abstraction FILE")
    if abstraction_file is not None:
        game_obj = load_game(game, **params)
        if not isinstance(game_obj, PokerGame):
            raise CommandLineError(f"--abstraction: {game} is not a poker game; card buckets are for the poker family")
        buckets = CardBuckets.load(abstraction_file)
        abstraction = buckets.abstraction(game_obj, tree)
        meta["abstraction"] = str(abstraction_file)
    solver: CFRSolver
    executor = None
    if algo in SAMPLING_ALGORITHMS:
        scheme = replace(SCHEMES[algo], epsilon=epsilon)
        if backend != "serial":
            executor = make_executor(backend, workers, **({"address": ray_address} if ray_address is not None else {}))
        solver = _start_sampling_solver(tree, scheme, PRESETS[weighting], seed, iterations, checkpoint_file, resume,
                                        workers, executor, load_game(game, **params), abstraction)
        meta.update(weighting=weighting, **({"epsilon": epsilon} if algo == "mccfr-os" else {}),
                    streams=len(solver.streams), backend=backend)
    else:
        solver = _start_solver(tree, algo, iterations, checkpoint_file, resume, abstraction, dtype)
    if iterations is not None:
        solver.plan(iterations)
    # with a time budget only, evaluate at powers of two (and where the run stops)
    points = log_spaced(iterations, checkpoints) if iterations is not None else [2**k for k in range(63)]
    # the bar counts iterations, or with a time budget only, whole seconds of it
    bar_total, bar_done = (iterations, solver.iteration) if iterations is not None else (math.ceil(seconds_limit or 1), 0)
    try:
        with progress_bar(bar_total, bar_done, not as_json, unit="iteration" if iterations is not None else "second") as update:
            started_run = time.perf_counter()

            def tick(iteration: int) -> None:
                update(iteration if iterations is not None else min(bar_total, int(time.perf_counter() - started_run)))

            run = driver.run(
                solver, driver.Budget(iterations=iterations, seconds=seconds_limit), evaluate_at=points,
                on_evaluation=curve_point,
                checkpoint=checkpoint_file, checkpoint_every=replace(cadence, at=frozenset(points)), progress=tick,
            )
    finally:
        if executor is not None:
            executor.close()
    curve = list(run.evaluations)
    save_strategy(solver.average_strategy(), out, tree, game=game, params=params, algo=algo, seed=seed)
    if blueprint_out is not None and abstraction is not None and isinstance(game_obj, PokerGame):
        BucketStrategy.of(game_obj, buckets, tree, abstraction, solver.average_strategy().probs).save(
            output_file(blueprint_out, "--blueprint-out"), game=game, params=params, algo=algo, iterations=solver.iteration)
    seconds = time.perf_counter() - started
    if as_json:
        echo_json({
            **meta, "iterations": solver.iteration, "interrupted": run.interrupted, "stopped": run.stopped,
            "curve": [p.to_json() for p in curve], "final": curve[-1].to_json() if curve else None,
            "out": str(out), "checkpoint": None if checkpoint_file is None else str(checkpoint_file),
            "seconds": seconds,
        })
    elif curve:
        show(curve_table(curve, f"{title}, exploitability of the average strategy"))
    exit_if_interrupted(run.interrupted, solver.iteration, checkpoint_file, "average strategy", out)
    if not as_json:
        show(f"wrote {out} ({solver.iteration} iterations, {seconds:.2f} s)")


def _too_big_to_compile(game_obj: Game, max_memory_gib: float | None) -> bool:
    """Whether a poker game's whole tree and solver state exceed the memory allowed (estimated, nothing built)."""
    if not isinstance(game_obj, PokerGame) or sum(game_obj.spec.board_cards) == len(game_obj.spec.board):
        return False
    limit = int(max_memory_gib * 2**30) if max_memory_gib is not None else available_bytes()
    return limit is not None and estimate_size(game_obj).peak_bytes > limit


#: Flops per forest when ``solve`` evaluates a board-sampled blueprint with ``--exact``.
EXACT_BOARD_BATCH = 8


def _solve_board_sampling(game: str, params: dict[str, str], abstraction_file: Path, weighting: str, seed: int,
                          iterations: int | None, seconds_limit: float | None, out: Path | None, blueprint_out: Path | None,
                          checkpoint: Path | None, resume: bool, force: bool, checkpoint_every: int | None,
                          checkpoint_seconds: float, boards_per_pass: int, exact: bool, as_json: bool) -> None:
    """``solve --algo pcs --abstraction`` over sampled flops (:class:`BoardSamplingPCS`), never the whole tree.

    Writes the blueprint per bucket (``--blueprint-out``, or ``--out``), which ``subgame
    evaluate`` reads by a pass over boards; with ``exact`` that pass runs here at the end.
    """
    if out is not None and blueprint_out is not None:
        raise CommandLineError("board sampling writes only the blueprint per bucket (no whole-game strategy): give "
                               "--blueprint-out PATH (or --out PATH), not both")
    target = blueprint_out if blueprint_out is not None else out
    if target is None:
        raise CommandLineError("--blueprint-out PATH is needed: where to write the blueprint per bucket")
    _check_outputs(target, checkpoint, resume, force)
    if resume and checkpoint is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if iterations is None and seconds_limit is None:
        iterations = DEFAULT_ITERATIONS
    started = time.perf_counter()
    game_obj = load_game(game, **params)
    if not isinstance(game_obj, PokerGame):
        raise CommandLineError(f"--abstraction: {game} is not a poker game; card buckets are for the poker family")
    buckets = CardBuckets.load(abstraction_file)
    config = PRESETS[weighting]
    if resume and checkpoint is not None:
        if not checkpoint.exists():
            raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
        solver = BoardSamplingPCS.load_checkpoint(checkpoint, game_obj, buckets)
        if solver.config != config or solver.boards_per_pass != boards_per_pass:
            written = next((name for name, c in PRESETS.items() if c == solver.config), str(solver.config))
            raise CommandLineError(f"{checkpoint} was written with --weighting {written} --boards-per-pass "
                                   f"{solver.boards_per_pass}; resume it with the same options")
        if iterations is not None and solver.iteration >= iterations:
            raise CommandLineError(f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations")
    else:
        solver = BoardSamplingPCS(game_obj, buckets, config, seed=seed, boards_per_pass=boards_per_pass)
    if iterations is not None:
        solver.plan(iterations)
    cadence = driver.Cadence(iterations=checkpoint_every, seconds=checkpoint_seconds or None)
    bar_total, bar_done = (iterations, solver.iteration) if iterations is not None else (math.ceil(seconds_limit or 1), 0)
    with progress_bar(bar_total, bar_done, not as_json, unit="iteration" if iterations is not None else "second") as update:
        started_run = time.perf_counter()

        def tick(iteration: int) -> None:
            update(iteration if iterations is not None else min(bar_total, int(time.perf_counter() - started_run)))

        run = driver.run(solver, driver.Budget(iterations=iterations, seconds=seconds_limit), checkpoint=checkpoint,
                         checkpoint_every=cadence, progress=tick)
    blueprint = solver.blueprint()
    blueprint.save(output_file(target, "--blueprint-out"), game=game, params=params, algo="pcs", weighting=weighting,
                   seed=seed, board_sampling=True, boards_per_pass=boards_per_pass, iterations=solver.iteration)
    passed = None
    if exact and not run.interrupted:
        passed = board_pass_exploitability(game_obj, lambda t, p: blueprint.rows(game_obj, t, p), batch=EXACT_BOARD_BATCH)
    seconds = time.perf_counter() - started
    title = f"{game_label(game, params)}: pcs over sampled flops ({boards_per_pass} of {len(solver.cut.deals):,} per pass)"
    if as_json:
        echo_json({
            "game": game, "params": params, "algo": "pcs", "board_sampling": True, "boards_per_pass": boards_per_pass,
            "flops": len(solver.cut.deals), "weighting": weighting, "seed": seed, "abstraction": str(abstraction_file),
            "abstract_infosets": [len(k) for k in solver.tables.keys], "iterations": solver.iteration,
            "interrupted": run.interrupted, "stopped": run.stopped, "solve_seconds": run.seconds,
            "seconds_per_iteration": run.seconds / run.iterations_run if run.iterations_run else None,
            "final": None if passed is None else {**exploitability_record(passed.exploitability),
                                                  "mbb_per_hand": 1000.0 * passed.exploitability.exploitability
                                                  / game_obj.spec.blinds[0]},
            "blueprint": str(target), "checkpoint": None if checkpoint is None else str(checkpoint), "seconds": seconds,
        })
    elif passed is not None:
        show(evaluation_table(passed.exploitability, f"{title}, {solver.iteration} iterations; exact exploitability by a "
                                                      f"pass over {passed.boards:,} flops"))
        big_blind = game_obj.spec.blinds[0]
        show(f"exploitability {1000.0 * passed.exploitability.exploitability / big_blind:.3f} mbb/hand (big blind "
             f"{big_blind} chips)")
    exit_if_interrupted(run.interrupted, solver.iteration, checkpoint, "blueprint per bucket", target)
    if not as_json:
        per = f", {run.seconds / run.iterations_run:.3f} s per iteration" if run.iterations_run else ""
        show(f"{title}: wrote {target} ({solver.iteration} iterations, {seconds:.2f} s{per}); evaluate it with "
             f"'subgame evaluate {target}'")


def _refuse_foreign_options(algo: str, options: list[tuple[str, object, object, tuple[str, ...]]]) -> None:
    """Refuse options given (not at their default) with an algorithm they do not apply to.

    ``options`` holds ``(name, value, default, algorithms it applies to)``; the options of
    one scope are named together in one error.
    """
    misplaced: dict[tuple[str, ...], list[str]] = {}
    for name, value, default, algos in options:
        if value != default and algo not in algos:
            misplaced.setdefault(algos, []).append(name)
    for algos, names in misplaced.items():
        verb, them = ("applies", "it") if len(names) == 1 else ("apply", "them")
        which = algos[0] if len(algos) == 1 else f"{', '.join(algos[:-1])} or {algos[-1]}"
        raise CommandLineError(f"{', '.join(names)} {verb} to --algo {which} only; drop {them} or choose --algo {algos[0]}")


_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(s|m|h)?\s*$")


def parse_duration(text: str) -> float:
    """Seconds in ``90``, ``90s``, ``10m``, ``1.5h``; a clear error otherwise.

    >>> parse_duration("10m")
    600.0
    """
    match = _DURATION.match(text)
    seconds = 0.0 if match is None else float(match.group(1)) * {"s": 1, "m": 60, "h": 3600}[match.group(2) or "s"]
    if not seconds > 0:
        raise CommandLineError(f"--time {text!r}: give a positive duration such as 90s, 10m or 1h")
    return seconds


def _check_outputs(out: Path, checkpoint: Path | None, resume: bool, force: bool) -> None:
    """Refuse, before any work, an output that cannot be written and a checkpoint a new run would overwrite."""
    output_file(out, "--out")
    if checkpoint is None:
        return
    output_file(checkpoint, "--checkpoint-file")
    if checkpoint.exists() and not resume and not force:
        raise CommandLineError(
            f"checkpoint {checkpoint} exists: continue that run with --resume, or start over with --force (it is overwritten)"
        )


def _start_sampling_solver(tree: PublicTree, scheme: SamplingScheme, config: Any, seed: int, iterations: int | None,
                           checkpoint: Path | None, resume: bool, workers: int, executor: Executor | None,
                           game: Game, abstraction: Abstraction | None = None) -> MCCFRSolver:
    """A fresh sampling solver with one random stream per worker, or with ``resume`` the one saved in ``checkpoint``.

    A resumed run keeps the checkpoint's streams (its samples do not depend on where they
    are computed) and must use the same scheme and update rule.
    """
    if not resume or checkpoint is None:
        return MCCFRSolver(tree, scheme, config, seed=seed, streams=workers, executor=executor, game=game,
                           abstraction=abstraction)
    if not checkpoint.exists():
        raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
    solver = MCCFRSolver.load_checkpoint(checkpoint, tree, abstraction, executor=executor, game=game)
    if solver.scheme != scheme or solver.config != config:
        weighting = next((name for name, c in PRESETS.items() if c == solver.config), str(solver.config))
        raise CommandLineError(
            f"{checkpoint} was written by --algo {solver.scheme.name} --weighting {weighting}"
            f"{f' --epsilon {solver.scheme.epsilon}' if solver.scheme.name == 'mccfr-os' else ''}; resume it with the same options"
        )
    if iterations is not None and solver.iteration >= iterations:
        raise CommandLineError(
            f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations (now {iterations})"
        )
    return solver


def _start_solver(tree: PublicTree, algo: str, iterations: int | None, checkpoint: Path | None, resume: bool,
                  abstraction: Abstraction | None = None, dtype: Precision = "float64") -> CFRSolver:
    """A fresh solver in ``dtype``, or with ``resume`` the one saved in ``checkpoint`` (same game and algorithm, its precision)."""
    if not resume:
        return CFRSolver(tree, PRESETS[algo], abstraction=abstraction, dtype=dtype)
    if checkpoint is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if not checkpoint.exists():
        raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
    solver = CFRSolver.load_checkpoint(checkpoint, tree, abstraction)
    if solver.config != PRESETS[algo]:
        written_by = next((name for name, c in PRESETS.items() if c == solver.config), None)
        how = f"--algo {written_by}" if written_by else f"the configuration {solver.config}"
        raise CommandLineError(
            f"{checkpoint} was written by {how}, not --algo {algo}; resume it with the same algorithm"
        )
    if iterations is not None and solver.iteration >= iterations:
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
                 checkpoint: Path | None, resume: bool, exact: bool, cadence: driver.Cadence,
                 ray_address: str | None = None) -> None:
    """``solve --algo cfr-d``: CFR-D, writing the trunk strategy and average root values.

    It reports the exploitability the stored values certify, computed on the trunk alone.
    With ``exact`` the whole tree's size is estimated first (trunk and subgames compiled one
    at a time) and the run refused if it cannot fit; after the run every subgame is
    re-solved from the stored values and the exact exploitability computed. With
    ``checkpoint`` the run is saved every twentieth of the way and on Ctrl-C (then what
    CFR-D has so far is also written to ``out``); ``resume`` continues it. With a parallel
    backend the peak resident memory of every worker process that solved subgames is reported;
    ``ray_address`` joins a running Ray cluster.
    """
    started = time.perf_counter()
    game_obj = load_game(game, **params)
    options = {"address": ray_address} if ray_address is not None else {}
    executor = make_executor(backend if workers > 1 or backend == "ray" else "serial", workers, **options)
    try:
        if resume and checkpoint is not None:
            solver = CFRDSolver.load_checkpoint(checkpoint, game_obj, executor=executor)
            if solver.iteration >= iterations:
                raise CommandLineError(f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations")
        else:
            solver = CFRDSolver(game_obj, split=split, config=config, executor=executor)
        if exact:
            _check_whole_tree_fits(solver.decomposition)
        with progress_bar(iterations, solver.iteration, not as_json) as update:
            run = driver.run(
                solver, driver.Budget(iterations=iterations), checkpoint=checkpoint,
                checkpoint_every=cadence, progress=update,
            )
    finally:
        executor.close()
    worker_memory = executor.worker_memory() if backend != "serial" else []
    solution = solver.solution()
    save_cfr_d(out, solution, game=game, params=params, seed=seed)
    bound = stored_value_exploitability(solution)
    exact_result = reconstruct(solution, iterations=solver.config.subgame_iterations).exploitability() if exact else None
    seconds = time.perf_counter() - started
    meta = {"game": game, "params": params, "algo": "cfr-d", "seed": seed, "iterations": solver.iteration,
            "trunk_rounds": solver.split.rounds, "trunk_public_depth": solver.split.depth,
            "subgame_iterations": solver.config.subgame_iterations}
    if as_json:
        echo_json({**meta, "interrupted": run.interrupted, "stored_value_bound": exploitability_record(bound),
                   "exact": None if exact_result is None else exploitability_record(exact_result), "out": str(out),
                   "checkpoint": None if checkpoint is None else str(checkpoint), "seconds": seconds,
                   "workers": [asdict(w) for w in worker_memory]})
    else:
        show(evaluation_table(bound, f"{game_label(game, params)}: CFR-D, {solver.iteration} trunk iterations × "
                                     f"{solver.config.subgame_iterations} subgame iterations; exploitability "
                                     "certified by the stored values"))
        if exact_result is not None:
            show(evaluation_table(exact_result, f"exact exploitability: trunk average plus every subgame re-solved from the "
                                                f"stored values ({solver.config.subgame_iterations} iterations each)"))
        if worker_memory:
            show(worker_table(worker_memory, f"subgame solves per worker ({backend})"))
    exit_if_interrupted(run.interrupted, solver.iteration, checkpoint, "trunk strategy and root values", out)
    if not as_json:
        show(f"wrote {out} (trunk strategy and root values; rebuild the full strategy with 'subgame resolve {out}') "
             f"({seconds:.2f} s)")


#: Peak memory of re-solving every subgame and evaluating the whole tree, in units of the
#: whole tree's compiled size (2.5 measured on the 6-rank, 4-suit, 2-hole-card family).
EXACT_MEMORY_FACTOR = 3.0


def _check_whole_tree_fits(decomposition: Decomposition) -> None:
    """Refuse ``--exact`` before the run when the whole tree would not fit in memory."""
    need = EXACT_MEMORY_FACTOR * whole_tree_bytes(decomposition)
    have = available_bytes()
    if have is not None and need > have:
        raise CommandLineError(
            f"--exact needs about {gib(need)} (the whole tree, estimated from the trunk and every subgame compiled "
            f"one at a time, and its evaluation) but {gib(have)} are available; drop --exact: the exploitability the "
            "stored values certify is computed from the trunk alone"
        )


def _check_solver_fits(game_obj: Game, algo: str, max_memory_gib: float | None) -> None:
    """Refuse, before anything is allocated, a poker game whose tree and solver state exceed the memory allowed.

    The compiler refuses a tree that alone would not fit; this adds the solver's regrets and
    strategy sums and the buffers an iteration sweeps (:func:`~subgame.tree.estimate.estimate_size`,
    one walk of the betting tree) and points to CFR-D, which holds the trunk and one subgame at a time.
    """
    if not isinstance(game_obj, PokerGame):
        return
    limit = int(max_memory_gib * 2**30) if max_memory_gib is not None else available_bytes()
    if limit is None:
        return
    spec = game_obj.spec
    SizeBudget.of(game_obj.name, limit).check_hands(comb(spec.deck_size, spec.hole_cards), spec.deck_size)
    est = estimate_size(game_obj)
    if est.tree_bytes <= limit < est.peak_bytes:  # a tree too big alone is refused by the compiler
        allowed = "--max-memory" if max_memory_gib is not None else "memory available now"
        raise CommandLineError(
            f"{est.game}: --algo {algo} needs about {gib(est.peak_bytes)} (the tree, {sum(est.private_states):,} "
            f"private states: {gib(est.tree_bytes)}; the solver state: {gib(est.solver_bytes)}; the buffers an "
            f"iteration sweeps: {gib(est.sweep_bytes)}; estimated before building anything), more than the "
            f"{gib(limit)} allowed ({allowed}); use --algo cfr-d, which holds the trunk and one subgame at a time, "
            "--algo pcs --abstraction FILE, which samples flops in a card abstraction, or a smaller game"
        )


def worker_table(workers: list[WorkerMemory], title: str) -> Table:
    """One row per worker process: node, pid, tasks it returned, its peak resident memory."""
    table = Table("node", "pid", "tasks", "peak RSS (MiB)", title=title, title_justify="left")
    for w in workers:
        table.add_row(w.node[:12], str(w.pid), str(w.tasks), f"{w.peak_rss / 2**20:.1f}")
    return table
