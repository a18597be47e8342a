"""``subgame solve``: the command and its options, and the solve of a compiled tree by CFR, sampling CFR or the LP.

The command reads its options into one :class:`~.solve_options.SolveOptions` and hands it
to the way of solving the game calls for: a hold'em spot (:mod:`.holdem`), CFR-D
(:mod:`.solve_cfr_d`), board sampling in a card abstraction (:mod:`.solve_boards`), or a
compiled tree (here). Every size is estimated before anything is built, through the one
memory policy (:class:`~subgame.tree.size.MemoryLimit`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from ..blueprint.card_abstraction import BucketStrategy, CardBuckets
from ..decompose import Executor, make_executor
from ..errors import StrategyFileError
from ..eval.best_response import exploitability
from ..experiments.convergence import curve_point, exploitability_record, log_spaced
from ..games import load_game
from ..games.base import Game
from ..games.poker.game import PokerGame
from ..solve import driver
from ..solve.abstraction import Abstraction
from ..solve.cfr import PRESETS, CFRSolver
from ..solve.mccfr import SCHEMES, MCCFRSolver
from ..tree.estimate import estimate_size
from ..tree.public_tree import PublicTree
from ..tree.size import MemoryLimit, SizeBudget, gib
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
    reports_errors,
    save_strategy,
    show,
)
from .holdem import HoldemOptions, is_holdem, solve_holdem
from .options import parse_duration
from .solve_cfr_d import solve_cfr_d
from .solve_options import SolveOptions, refuse_foreign_options, run_with_progress

#: The solving algorithms, from the registries: the CFR presets, the LP, CFR-D, the sampling schemes.
ALGORITHMS: tuple[str, ...] = (*PRESETS, "lp", "cfr-d", *SCHEMES)
CFR_ALGORITHMS: tuple[str, ...] = tuple(PRESETS)
SAMPLING_ALGORITHMS: tuple[str, ...] = tuple(SCHEMES)
SAMPLING_NAMES = {"mccfr-es": "external sampling", "mccfr-os": "outcome sampling", "pcs": "public chance sampling"}
if TYPE_CHECKING:
    Algorithm = str
    Weighting = str
else:  # typer offers the registries' names as the choices
    Algorithm = Literal[ALGORITHMS]
    Weighting = Literal[tuple(PRESETS)]
Backend = Literal["serial", "process", "ray"]
Precision = Literal["float64", "float32"]
DEFAULT_ITERATIONS = 1000
HOLDEM_ITERATION_CAP = 100_000  # a hold'em spot run by --time alone stops at its target or its time
DEFAULT_EPSILON = SCHEMES["mccfr-os"].epsilon

__all__ = ["ALGORITHMS", "CFR_ALGORITHMS", "SAMPLING_ALGORITHMS", "parse_duration", "solve_command"]


@reports_errors
def solve_command(
    game: Annotated[str, typer.Argument(help="Game name (see 'subgame games').")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write the average strategy (.npz); optional for hold'em spots.")
    ] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    algo: Annotated[
        Algorithm,
        typer.Option(help=f"CFR: {', '.join(PRESETS)}; lp (exact sequence-form LP); cfr-d (CFR with decomposition); "
                          f"sampling CFR: {', '.join(f'{k} ({v})' for k, v in SAMPLING_NAMES.items())}."),
    ] = "cfr+",
    iterations: Annotated[
        int | None, typer.Option("--iterations", "-n", help="Total iterations (default 1000; with --time: no limit).")
    ] = None,
    time_limit: Annotated[
        str | None, typer.Option("--time", help="Stop after this wall-clock time: 90s, 10m, 1h (CFR and sampling algorithms).")
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Seed of the sampling algorithms' generator; recorded in the strategy file.")
    ] = 0,
    weighting: Annotated[
        Weighting, typer.Option(help=f"{', '.join(SCHEMES)}: the update rule, a CFR preset ({', '.join(PRESETS)}; "
                                     "lcfr: linear MCCFR).")
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
    workers: Annotated[int, typer.Option(help="cfr-d: processes (or Ray CPUs) for the subgame solves; mccfr-es, "
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
    dtype: Annotated[Precision, typer.Option(help="CFR presets and hold'em spots: float32 stores the regrets and "
                                             "average strategy in half the memory (the sweeps still compute in float64); a "
                                             "resumed run keeps its checkpoint's precision.")] = "float64",
    drop_zero_weight: Annotated[bool, typer.Option(
        "--drop-zero-weight/--keep-zero-weight",
        help="Hold'em spots: the depth-first passes keep rows only for the hands the ranges hold, as postflop-solver "
             "does (the same average strategy bit for bit, faster, less memory); --keep-zero-weight keeps every hand's "
             "row.")] = True,
    compact: Annotated[bool, typer.Option(help="Hold'em spots: store regrets and average per node only for its own actions "
                                               "and kept hands, as postflop-solver does; --no-compact pads every node to "
                                               "the tree's most actions. The same strategy: bit for bit below eight "
                                               "actions, to rounding from eight on.")] = True,
    compute: Annotated[Precision, typer.Option(help="Hold'em spots: float32 runs the passes in float32 as "
                                               "postflop-solver does (needs --dtype float32; other iterates, the "
                                               "exploitability still evaluated in float64).")] = "float64",
    compress: Annotated[bool, typer.Option(help="Hold'em spots: store the regrets and average in 16 bits, a unit per "
                                                "node, as postflop-solver's compression (needs --dtype float32 --compute "
                                                "float32 and --algo dcfr-postflop; a quarter of float64's memory, "
                                                "other iterates).")] = False,
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
    o = SolveOptions.of(locals())  # every parameter, as given, in one record
    if is_holdem(game):
        _solve_spot(o)
        return
    spot = _spot_options(o)
    if spot.given():
        raise CommandLineError(f"{', '.join(spot.given())}: hold'em options; GAME must be 'holdem-subgame' or an endgame file")
    params = parse_params(list(o.param))
    _refuse_misplaced(o)
    if o.algo == "pcs" and o.abstraction_file is not None and (o.board_sampling or _too_big_to_compile(o, params)):
        from .solve_boards import solve_board_sampling

        if o.workers != 1 or o.backend != "serial" or o.ray_address is not None:
            raise CommandLineError("--workers, --backend and --ray-address: board sampling runs in this process; drop them")
        game_obj = _poker_game(o, params)
        iterations = o.iterations if o.iterations is not None or o.seconds is not None else DEFAULT_ITERATIONS
        solve_board_sampling(o, game_obj, params, o.abstraction_file, iterations)
        return
    if o.board_sampling or o.boards_per_pass != 1:
        raise CommandLineError("--board-sampling and --boards-per-pass sample flops in a card abstraction: they need "
                               "--abstraction FILE")
    if o.exact and o.algo != "cfr-d":
        raise CommandLineError("--exact applies to --algo cfr-d, or to pcs with board sampling; drop it")
    if o.out is None:
        raise CommandLineError("--out PATH is needed: where to write the average strategy")
    iterations = o.iterations
    if iterations is None and (o.seconds is None or o.algo == "modicum"):
        iterations = DEFAULT_ITERATIONS  # modicum leaves a share of the planned run out of its average: it needs a length
    o.check_new_checkpoint()
    if o.algo == "lp" and (o.checkpoint_file is not None or o.resume):
        raise CommandLineError("--checkpoint-file and --resume apply to the CFR algorithms, not to --algo lp")
    o.needs_resume_checkpoint()
    if o.ray_address is not None and o.backend == "process":
        raise CommandLineError("--ray-address joins a Ray cluster; it does not go with --backend process")
    cadence = driver.Cadence(iterations=o.checkpoint_every, seconds=o.checkpoint_seconds or None)
    if o.algo == "cfr-d":
        solve_cfr_d(o, params, iterations or DEFAULT_ITERATIONS, cadence, o.out)
        return
    _solve_tree(o, params, iterations, cadence, o.out)


def _spot_options(o: SolveOptions, seconds: float | None = None) -> HoldemOptions:
    """The hold'em options given (``seconds``: the spot's time budget; ``--time`` serves every algorithm)."""
    return HoldemOptions(o.board, o.pot, o.stack, o.starting_stack, o.ranges, o.bets, o.raise_cap, o.target, seconds,
                         o.evaluate_every, o.grid, o.isomorphism, o.dtype, o.drop_zero_weight, o.compact, o.compute,
                         o.compress)


def _solve_spot(o: SolveOptions) -> None:
    """``solve`` of a hold'em spot (:mod:`.holdem`): its own options, no checkpoints."""
    ignored = [flag for flag, used in (("-p", bool(o.param)), ("--checkpoint-file", o.checkpoint_file is not None),
                                       ("--resume", o.resume), ("--checkpoint-every", o.checkpoint_every is not None)) if used]
    if ignored:
        raise CommandLineError(f"{', '.join(ignored)}: not available for hold'em spots; the spot is given by "
                               "--board, --pot, --stack, --ranges and --bets (or an endgame file)")
    iterations = o.iterations
    if iterations is None:
        iterations = DEFAULT_ITERATIONS if o.seconds is None else HOLDEM_ITERATION_CAP
    solve_holdem(o.game, _spot_options(o, o.seconds), o.algo, iterations, o.out, o.seed, o.max_memory, o.as_json)


def _refuse_misplaced(o: SolveOptions) -> None:
    """Refuse options given with an algorithm they do not apply to."""
    cfr_d, iterative, parallel = ("cfr-d",), CFR_ALGORITHMS + SAMPLING_ALGORITHMS, ("cfr-d", *SAMPLING_ALGORITHMS)
    refuse_foreign_options(o.algo, [
        ("--trunk-depth", o.trunk_depth, 1, cfr_d), ("--trunk-public-depth", o.trunk_public_depth, None, cfr_d),
        ("--subgame-iterations", o.subgame_iterations, 100, cfr_d), ("--subgame-batch", o.subgame_batch, 1, cfr_d),
        ("--cached-subgames", o.cached_subgames, 0, cfr_d), ("--workers", o.workers, 1, parallel),
        ("--backend", o.backend, "serial", parallel), ("--exact", o.exact, False, (*cfr_d, "pcs")),
        ("--ray-address", o.ray_address, None, parallel),
        ("--weighting", o.weighting, "lcfr", SAMPLING_ALGORITHMS), ("--epsilon", o.epsilon, DEFAULT_EPSILON, ("mccfr-os",)),
        ("--time", o.time_limit, None, iterative), ("--abstraction", o.abstraction_file, None, iterative),
        ("--boards-per-pass", o.boards_per_pass, 1, ("pcs",)),
        ("--board-sampling", o.board_sampling, False, ("pcs",)),
        ("--dtype", o.dtype, "float64", CFR_ALGORITHMS),
    ])


def _poker_game(o: SolveOptions, params: dict[str, str]) -> PokerGame:
    game = load_game(o.game, **params)
    if not isinstance(game, PokerGame):
        raise CommandLineError(f"--abstraction: {o.game} is not a poker game; card buckets are for the poker family")
    return game


def _too_big_to_compile(o: SolveOptions, params: dict[str, str]) -> bool:
    """Whether a poker game's whole tree and solver state exceed the memory allowed (estimated, nothing built)."""
    game = load_game(o.game, **params)
    if not isinstance(game, PokerGame) or sum(game.spec.board_cards) == len(game.spec.board):
        return False
    return not MemoryLimit.of(o.max_bytes).fits(estimate_size(game).peak_bytes)


def _check_solver_fits(game: Game, algo: str, max_bytes: int | None) -> None:
    """Refuse, before anything is allocated, a poker game whose tree and solver state exceed the memory allowed.

    The compiler refuses a tree that alone would not fit; this adds the solver's regrets and
    strategy sums and the buffers an iteration sweeps (:func:`~subgame.tree.estimate.estimate_size`,
    one walk of the betting tree) and points to CFR-D, which holds the trunk and one subgame at a time.
    """
    if not isinstance(game, PokerGame):
        return
    limit = MemoryLimit.of(max_bytes)
    if limit.max_bytes is None:
        return
    spec = game.spec
    SizeBudget.of(game.name, limit.max_bytes).check_hands(comb(spec.deck_size, spec.hole_cards), spec.deck_size)
    est = estimate_size(game)
    if est.tree_bytes <= limit.max_bytes:  # a tree too big alone is refused by the compiler
        limit.require(est.peak_bytes, f"{est.game}: --algo {algo}",
                      f"it holds the tree ({sum(est.private_states):,} private states: {gib(est.tree_bytes)}), the solver "
                      f"state ({gib(est.solver_bytes)}) and the buffers an iteration sweeps ({gib(est.sweep_bytes)}); use "
                      "--algo cfr-d, which holds the trunk and one subgame at a time, --algo pcs --abstraction FILE, which "
                      "samples flops in a card abstraction, or a smaller game")


def _solve_tree(o: SolveOptions, params: dict[str, str], iterations: int | None, cadence: driver.Cadence, out: Path) -> None:
    """``solve`` of a compiled tree: the LP, or CFR or sampling CFR (optionally in a card abstraction) run by the driver."""
    if o.abstraction_file is None:
        _check_solver_fits(load_game(o.game, **params), o.algo, o.max_bytes)
    tree = compile_named(o.game, params, o.max_memory)
    meta: dict[str, Any] = {"game": o.game, "params": params, "algo": o.algo, "seed": o.seed}
    title = f"{game_label(o.game, params)}: {o.algo}"
    started = time.perf_counter()
    if o.algo == "lp":
        _solve_lp(tree, out, meta, title, started, o.as_json)
        return
    if o.blueprint_out is not None and o.abstraction_file is None:
        raise CommandLineError("--blueprint-out writes a strategy per bucket; give the buckets with --abstraction FILE")
    buckets = None if o.abstraction_file is None else CardBuckets.load(o.abstraction_file)
    abstraction = None if buckets is None else buckets.abstraction(_poker_game(o, params), tree)
    if buckets is not None:
        meta["abstraction"] = str(o.abstraction_file)
    executor = None
    if o.algo in SAMPLING_ALGORITHMS and (o.backend != "serial" or o.ray_address is not None):
        backend: Backend = "ray" if o.ray_address is not None else o.backend
        executor = make_executor(backend, o.workers, **({"address": o.ray_address} if o.ray_address is not None else {}))
    try:
        solver = _start_solver(o, tree, iterations, abstraction, executor, params, meta)
        if iterations is not None:
            solver.plan(iterations)
        # with a time budget only, evaluate at powers of two (and where the run stops)
        points = log_spaced(iterations, o.checkpoints) if iterations is not None else [2**k for k in range(63)]
        run = run_with_progress(solver, iterations, o.seconds, o.as_json, evaluate_at=points, on_evaluation=curve_point,
                                checkpoint=o.checkpoint_file, checkpoint_every=replace(cadence, at=frozenset(points)))
    finally:
        if executor is not None:
            executor.close()
    curve = list(run.evaluations)
    save_strategy(solver.average_strategy(), out, tree, game=o.game, params=params, algo=o.algo, seed=o.seed)
    if o.blueprint_out is not None and buckets is not None and abstraction is not None:
        BucketStrategy.of(_poker_game(o, params), buckets, tree, abstraction, solver.average_strategy().probs).save(
            o.blueprint_out, game=o.game, params=params, algo=o.algo, iterations=solver.iteration)
    seconds = time.perf_counter() - started
    if o.as_json:
        echo_json({
            **meta, "iterations": solver.iteration, "interrupted": run.interrupted, "stopped": run.stopped,
            "curve": [p.to_json() for p in curve], "final": curve[-1].to_json() if curve else None,
            "out": str(out), "checkpoint": None if o.checkpoint_file is None else str(o.checkpoint_file), "seconds": seconds,
        })
    elif curve:
        show(curve_table(curve, f"{title}, exploitability of the average strategy"))
    exit_if_interrupted(run.interrupted, solver.iteration, o.checkpoint_file, "average strategy", out)
    if not o.as_json:
        show(f"wrote {out} ({solver.iteration} iterations, {seconds:.2f} s)")


def _start_solver(o: SolveOptions, tree: PublicTree, iterations: int | None, abstraction: Abstraction | None,
                  executor: Executor | None, params: dict[str, str], meta: dict[str, Any]) -> CFRSolver:
    """A fresh CFR or sampling solver, or with ``--resume`` the one saved in the checkpoint (same options, its precision)."""
    if o.algo in SAMPLING_ALGORITHMS:
        scheme, config = replace(SCHEMES[o.algo], epsilon=o.epsilon), PRESETS[o.weighting]
        if o.resume and o.checkpoint_file is not None:
            sampler: MCCFRSolver = _resumed(o, MCCFRSolver.load_checkpoint(
                _existing(o.checkpoint_file), tree, abstraction, executor=executor, game=load_game(o.game, **params)),
                iterations, scheme=scheme, config=config)
        else:
            sampler = MCCFRSolver(tree, scheme, config, seed=o.seed, streams=o.workers, executor=executor,
                                  game=load_game(o.game, **params), abstraction=abstraction)
        meta.update(weighting=o.weighting, **({"epsilon": o.epsilon} if o.algo == "mccfr-os" else {}),
                    streams=len(sampler.streams), backend=o.backend if o.ray_address is None else "ray")
        return sampler
    if not o.resume or o.checkpoint_file is None:
        return CFRSolver(tree, PRESETS[o.algo], abstraction=abstraction, dtype=o.dtype)
    return _resumed(o, CFRSolver.load_checkpoint(_existing(o.checkpoint_file), tree, abstraction), iterations,
                    config=PRESETS[o.algo])


def _existing(checkpoint: Path) -> Path:
    if not checkpoint.exists():
        raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
    return checkpoint


def _preset_name(config: object) -> str | None:
    return next((name for name, c in PRESETS.items() if c == config), None)


def _resumed(o: SolveOptions, solver: Any, iterations: int | None, *, config: object, scheme: object = None) -> Any:
    """``solver`` loaded from the checkpoint, refused if another algorithm wrote it or it is already done."""
    if scheme is not None and (solver.scheme != scheme or solver.config != config):
        weighting = _preset_name(solver.config) or str(solver.config)
        eps = f" --epsilon {solver.scheme.epsilon}" if solver.scheme.name == "mccfr-os" else ""
        raise CommandLineError(f"{o.checkpoint_file} was written by --algo {solver.scheme.name} --weighting {weighting}{eps}; "
                               "resume it with the same options")
    if scheme is None and solver.config != config:
        written_by = _preset_name(solver.config)
        how = f"--algo {written_by}" if written_by else f"the configuration {solver.config}"
        raise CommandLineError(f"{o.checkpoint_file} was written by {how}, not --algo {o.algo}; resume it with the same algorithm")
    if iterations is not None and solver.iteration >= iterations:
        raise CommandLineError(
            f"{o.checkpoint_file} is already at iteration {solver.iteration}; ask for more with --iterations (now {iterations})"
        )
    return solver


def _solve_lp(tree: PublicTree, out: Path, meta: dict[str, Any], title: str, started: float, as_json: bool) -> None:
    """``solve --algo lp``: the exact sequence-form equilibrium, written and evaluated."""
    from ..exploit.methods import solve_size
    from ..solve.lp import solve_lp

    need, what = solve_size(tree)
    MemoryLimit.of().require(need, what, "solve it with CFR (--algo cfr+), or a smaller game")
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
