"""``subgame solve --algo pcs --abstraction`` over sampled flops: a blueprint per bucket, never the whole tree."""

from __future__ import annotations

import time
from pathlib import Path

from ..blueprint.board_sampling import BoardSamplingPCS
from ..blueprint.card_abstraction import CardBuckets
from ..errors import StrategyFileError
from ..eval.board_pass import board_pass_exploitability
from ..experiments.convergence import exploitability_record
from ..games.poker.game import PokerGame
from ..solve import driver
from ..solve.cfr import PRESETS
from .app import CommandLineError, echo_json, evaluation_table, exit_if_interrupted, game_label, show
from .solve_options import SolveOptions, run_with_progress

#: Flops per forest when ``solve`` evaluates a board-sampled blueprint with ``--exact``.
EXACT_BOARD_BATCH = 8


def _start(o: SolveOptions, game: PokerGame, buckets: CardBuckets, iterations: int | None) -> BoardSamplingPCS:
    """A fresh board-sampling solver, or with ``--resume`` the one saved in the checkpoint (same options)."""
    config, checkpoint = PRESETS[o.weighting], o.checkpoint_file
    if not o.resume or checkpoint is None:
        return BoardSamplingPCS(game, buckets, config, seed=o.seed, boards_per_pass=o.boards_per_pass)
    if not checkpoint.exists():
        raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
    solver = BoardSamplingPCS.load_checkpoint(checkpoint, game, buckets)
    if solver.config != config or solver.boards_per_pass != o.boards_per_pass:
        written = next((name for name, c in PRESETS.items() if c == solver.config), str(solver.config))
        raise CommandLineError(f"{checkpoint} was written with --weighting {written} --boards-per-pass "
                               f"{solver.boards_per_pass}; resume it with the same options")
    if iterations is not None and solver.iteration >= iterations:
        raise CommandLineError(f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations")
    return solver


def _target(o: SolveOptions) -> Path:
    if o.out is not None and o.blueprint_out is not None:
        raise CommandLineError("board sampling writes only the blueprint per bucket (no whole-game strategy): give "
                               "--blueprint-out PATH (or --out PATH), not both")
    target = o.blueprint_out if o.blueprint_out is not None else o.out
    if target is None:
        raise CommandLineError("--blueprint-out PATH is needed: where to write the blueprint per bucket")
    return target


def solve_board_sampling(o: SolveOptions, game: PokerGame, params: dict[str, str], buckets: Path,
                         iterations: int | None) -> None:
    """``solve --algo pcs --abstraction`` over sampled flops (:class:`BoardSamplingPCS`), never the whole tree.

    Writes the blueprint per bucket (``--blueprint-out``, or ``--out``), which ``subgame
    evaluate`` reads by a pass over boards; with ``--exact`` that pass runs here at the end.
    ``buckets``: the bucket file (``--abstraction``).
    """
    target = _target(o)
    o.check_new_checkpoint()
    o.needs_resume_checkpoint()
    started = time.perf_counter()
    solver = _start(o, game, CardBuckets.load(buckets), iterations)
    if iterations is not None:
        solver.plan(iterations)
    run = run_with_progress(solver, iterations, o.seconds, o.as_json, checkpoint=o.checkpoint_file,
                            checkpoint_every=driver.Cadence(iterations=o.checkpoint_every, seconds=o.checkpoint_seconds or None))
    blueprint = solver.blueprint()
    blueprint.save(target, game=o.game, params=params, algo="pcs", weighting=o.weighting, seed=o.seed, board_sampling=True,
                   boards_per_pass=o.boards_per_pass, iterations=solver.iteration)
    passed = None
    if o.exact and not run.interrupted:
        passed = board_pass_exploitability(game, lambda t, p: blueprint.rows(game, t, p), batch=EXACT_BOARD_BATCH)
    seconds = time.perf_counter() - started
    title = f"{game_label(o.game, params)}: pcs over sampled flops ({o.boards_per_pass} of {len(solver.cut.deals):,} per pass)"
    big_blind = game.spec.blinds[0]
    if o.as_json:
        echo_json({
            "game": o.game, "params": params, "algo": "pcs", "board_sampling": True, "boards_per_pass": o.boards_per_pass,
            "flops": len(solver.cut.deals), "weighting": o.weighting, "seed": o.seed, "abstraction": str(buckets),
            "abstract_infosets": [len(k) for k in solver.tables.keys], "iterations": solver.iteration,
            "interrupted": run.interrupted, "stopped": run.stopped, "solve_seconds": run.seconds,
            "seconds_per_iteration": run.seconds / run.iterations_run if run.iterations_run else None,
            "final": None if passed is None else {**exploitability_record(passed.exploitability),
                                                  "mbb_per_hand": 1000.0 * passed.exploitability.exploitability / big_blind},
            "blueprint": str(target), "checkpoint": None if o.checkpoint_file is None else str(o.checkpoint_file),
            "seconds": seconds,
        })
    elif passed is not None:
        show(evaluation_table(passed.exploitability, f"{title}, {solver.iteration} iterations; exact exploitability by a "
                                                      f"pass over {passed.boards:,} flops"))
        show(f"exploitability {1000.0 * passed.exploitability.exploitability / big_blind:.3f} mbb/hand (big blind "
             f"{big_blind} chips)")
    exit_if_interrupted(run.interrupted, solver.iteration, o.checkpoint_file, "blueprint per bucket", target)
    if not o.as_json:
        per = f", {run.seconds / run.iterations_run:.3f} s per iteration" if run.iterations_run else ""
        show(f"{title}: wrote {target} ({solver.iteration} iterations, {seconds:.2f} s{per}); evaluate it with "
             f"'subgame evaluate {target}'")
