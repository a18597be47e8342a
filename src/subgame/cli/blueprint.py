"""``subgame blueprint``: train a no-limit blueprint by implicit sampling CFR, as a resumable job."""

from __future__ import annotations

import math
import resource
import time
from pathlib import Path
from typing import Annotated

import typer

from ..blueprint.actions import DEFAULT_ACTIONS, parse_actions
from ..blueprint.blueprint_file import Blueprint, strategy_on
from ..blueprint.buckets4 import FourRoundBuckets
from ..blueprint.deal_abstraction import load_deal_abstraction
from ..blueprint.implicit_mccfr import DEFAULT_MAX_BYTES, ImplicitConfig, ImplicitMCCFR, size_report
from ..errors import StrategyFileError
from ..eval.best_response import exploitability
from ..files import output_file
from ..games import load_game
from ..games.poker.game import PokerGame
from ..solve import driver
from ..tree.compile import compile_game
from ..tree.size import human_bytes
from .app import (
    EXIT_INTERRUPTED,
    CommandLineError,
    JsonOption,
    ParamsOption,
    echo_json,
    exit_if_interrupted,
    game_label,
    parse_params,
    progress_bar,
    reports_errors,
    save_strategy,
    show,
    warn,
)
from .options import parse_duration
from .solve_options import check_new_checkpoint


@reports_errors
def blueprint_command(
    game: Annotated[str, typer.Argument(help="A no-limit poker game: a name (see 'subgame games') or an ACPC .game file.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Where to write the blueprint (.npz); not needed with --size.")] = None,
    actions: Annotated[str, typer.Option(help="Bet sizes per round and raise depth ('50,100,allin/100,allin:3; ...') "
                                         "or a .toml file.")] = DEFAULT_ACTIONS,
    buckets: Annotated[str, typer.Option(help="Card abstraction: 'exact' (small decks), bucket counts per round "
                                         "(169,200,200,200: four-round buckets fitted now) or a bucket file.")] = "exact",
    buckets_out: Annotated[Path | None, typer.Option(help="Save the four-round buckets (with every board bucketed so far) "
                                                     "here, to reuse with --buckets FILE.")] = None,
    rollouts: Annotated[int, typer.Option(min=0, help="Four-round buckets: sampled futures per board on the flop and "
                                          "turn; 0: every future (exact histograms).")] = 0,
    fill: Annotated[str | None, typer.Option(help="Four-round buckets: bucket every canonical board of these rounds "
                                             "first ('1,2': flop and turn), saved to --buckets-out on the checkpoint "
                                             "cadence; without --out the command stops there.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes for --fill and for the walks of each batch (more than "
                                         "one: the batch split in parts walked against its starting regrets).")] = 1,
    fit_boards: Annotated[int, typer.Option(min=1, help="Four-round buckets: boards per round the centres are fitted on.")]
    = 60,
    time_budget: Annotated[str | None, typer.Option("--time", help="Train this long: 90s, 10m, 2h.")] = None,
    iterations: Annotated[int | None, typer.Option(min=1, help="Train to this many iterations in all.")] = None,
    checkpoint_file: Annotated[Path | None, typer.Option(help="Checkpoint written on a cadence, at the end and on "
                                                         "SIGINT/SIGTERM/SIGHUP.")] = None,
    checkpoint_seconds: Annotated[float, typer.Option(min=0.0, help="Seconds between checkpoints (0: end only).")] = 600.0,
    resume: Annotated[bool, typer.Option(help="Continue the run saved in --checkpoint-file (bitwise).")] = False,
    force: Annotated[bool, typer.Option(help="Overwrite an existing --checkpoint-file.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the sampling.")] = 0,
    batch: Annotated[int, typer.Option(min=1, help="Iterations per compiled call and per linear-weighting step.")] = 1000,
    prune_after: Annotated[int, typer.Option(min=0, help="Iterations before negative-regret pruning (0: never).")] = 0,
    max_memory: Annotated[float, typer.Option(min=0.0, help="Refuse tables above this many GiB.")] = DEFAULT_MAX_BYTES / 2**30,
    size_only: Annotated[bool, typer.Option("--size", help="Print the abstract game's size and stop.")] = False,
    exact: Annotated[bool, typer.Option(help="At the end, the blueprint's exact exploitability in the real game (a game "
                                        "small enough to compile: reduced decks).")] = False,
    strategy_out: Annotated[Path | None, typer.Option(help="With --exact: also write the blueprint as a strategy file of "
                                                      "the real game (for 'subgame exploit --method lbr', 'evaluate').")]
    = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    as_json: JsonOption = False,
) -> None:
    """External-sampling MCCFR over the histories of the abstract game (action x card abstraction), never compiled.

    The abstract game's size is printed before anything is allocated; progress shows the
    time left; the checkpoint resumes bitwise ('--resume'). The blueprint file plays as
    the agent 'blueprint:FILE'.
    """
    params = parse_params(param)
    game_obj = load_game(game, **params)
    if not isinstance(game_obj, PokerGame) or game_obj.spec.betting != "nolimit":
        raise CommandLineError(f"{game} is not a no-limit poker game; a blueprint needs one")
    spec = game_obj.spec
    action_abstraction = parse_actions(actions)
    started_buckets = time.perf_counter()
    abstraction = load_deal_abstraction(buckets, spec, rollouts=rollouts, fit_boards=fit_boards, seed=seed)
    bucket_seconds = time.perf_counter() - started_buckets
    report = size_report(spec, action_abstraction, tuple(abstraction.num_buckets))
    if size_only:
        echo_json({"size": report, "bucket_seconds": bucket_seconds}) if as_json else show(report)
        return
    fill_rounds = _fill_rounds(fill, spec.num_rounds)
    if fill_rounds and (buckets_out is None or not isinstance(abstraction, FourRoundBuckets)):
        raise CommandLineError("--fill needs four-round buckets (--buckets as counts per round or such a file) and "
                               "--buckets-out FILE to keep them in")
    if out is None and not fill_rounds:
        raise CommandLineError("give --out FILE: where to write the blueprint")
    seconds_limit = None if time_budget is None else parse_duration(time_budget)
    if out is not None and seconds_limit is None and iterations is None:
        raise CommandLineError("give --time (e.g. 10m) or --iterations: how long to train")
    check_new_checkpoint(checkpoint_file, resume, force)
    if buckets_out is not None:
        output_file(buckets_out, "--buckets-out")
        if not isinstance(abstraction, FourRoundBuckets):
            raise CommandLineError("--buckets-out saves four-round buckets: give --buckets as counts per round or such a file")
    if resume and checkpoint_file is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if strategy_out is not None:
        if not exact:
            raise CommandLineError("--strategy-out writes the blueprint on the compiled game: give --exact too")
        output_file(strategy_out, "--strategy-out")
    if not as_json:
        show(report)
    if fill_rounds and isinstance(abstraction, FourRoundBuckets) and buckets_out is not None:
        filled = _fill_boards(abstraction, fill_rounds, buckets_out, workers, checkpoint_seconds, as_json)
        if out is None:
            if as_json:
                echo_json(filled)
            return
    assert out is not None  # checked above: only a fill runs without it
    config = ImplicitConfig(batch=batch, prune_after=prune_after, workers=workers)
    solver = ImplicitMCCFR(spec, action_abstraction, abstraction, config, seed=seed, max_bytes=int(max_memory * 2**30))
    if resume and checkpoint_file is not None:
        if not checkpoint_file.exists():
            raise StrategyFileError(f"{checkpoint_file}: no such checkpoint file to resume from")
        solver.restore(checkpoint_file)
        if iterations is not None and solver.iteration >= iterations:
            raise CommandLineError(f"{checkpoint_file} is already at iteration {solver.iteration}; ask for more")
    start_iteration = solver.iteration
    bar_total = iterations if iterations is not None else math.ceil(seconds_limit or 1)
    with progress_bar(bar_total, solver.iteration if iterations is not None else 0, not as_json, label="MCCFR",
                      unit="iteration" if iterations is not None else "second") as update:
        started = time.perf_counter()

        def tick(iteration: int) -> None:
            rate = (iteration - start_iteration) / max(time.perf_counter() - started, 1e-9)
            done = iteration if iterations is not None else min(bar_total, int(time.perf_counter() - started))
            update(done, f"{iteration:,} iterations, {rate:,.0f}/s")

        try:
            run = driver.run(solver, driver.Budget(iterations=iterations, seconds=seconds_limit),
                             checkpoint=checkpoint_file, checkpoint_every=driver.Cadence(seconds=checkpoint_seconds or None),
                             progress=tick)
        finally:
            solver.close()
    target = Blueprint.of(solver).save(output_file(out, "--out"))
    if buckets_out is not None and isinstance(abstraction, FourRoundBuckets):
        abstraction.save(buckets_out)
    seen = list(abstraction.boards_seen()) if isinstance(abstraction, FourRoundBuckets) else None
    rate = run.iterations_run / run.seconds if run.seconds > 0 else 0.0
    out_bytes, peak = target.stat().st_size, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    record = {"game": game, "params": params, "actions": solver.actions.text(), "buckets": abstraction.name,
              "num_buckets": list(abstraction.num_buckets), "bucket_seconds": bucket_seconds, "boards_bucketed": seen,
              "iterations": solver.iteration,
              "iterations_run": run.iterations_run, "seconds": run.seconds, "iterations_per_second": rate,
              "stopped": run.stopped, "table_bytes": solver.layout.num_bytes, "out": str(target),
              "out_bytes": out_bytes, "peak_rss_bytes": peak,
              "checkpoint": None if checkpoint_file is None else str(checkpoint_file)}
    if exact and not run.interrupted:
        tree = compile_game(game_obj)
        strategy = strategy_on(Blueprint.of(solver), game_obj, tree, abstraction)
        result = exploitability(tree, strategy)
        if strategy_out is not None:
            save_strategy(strategy, strategy_out, tree, game=game, params=params, algo="implicit-mccfr", seed=seed)
        record["exploitability"] = result.exploitability
        record["mbb_per_hand"] = 1000.0 * result.exploitability / max(spec.blinds)
    if as_json:
        echo_json(record)
    exit_if_interrupted(run.interrupted, solver.iteration, checkpoint_file, "blueprint", target)
    if not as_json:
        show(f"{game_label(game, params)}: wrote {target} ({human_bytes(out_bytes)}) after {solver.iteration:,} "
             f"iterations ({run.seconds:.1f} s, {rate:,.0f} iterations/s; tables {human_bytes(solver.layout.num_bytes)}, "
             f"peak memory {human_bytes(peak)})")
        if "exploitability" in record:
            show(f"exact exploitability in the real game: {record['exploitability']:.6f} chips, "
                 f"{record['mbb_per_hand']:.1f} mbb/hand")


def _fill_rounds(text: str | None, num_rounds: int) -> tuple[int, ...]:
    """The rounds ``--fill`` names (``1,2``), checked."""
    if text is None:
        return ()
    try:
        rounds = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise CommandLineError(f"--fill {text!r}: give round numbers separated by commas, e.g. 1,2 (flop and turn)") from None
    bad = [r for r in rounds if not 1 <= r < num_rounds]
    if bad:
        raise CommandLineError(f"--fill {text!r}: rounds with board cards are 1..{num_rounds - 1}, got {bad}")
    return rounds


def _fill_boards(abstraction: FourRoundBuckets, rounds: tuple[int, ...], buckets_out: Path, workers: int,
                 checkpoint_seconds: float, as_json: bool) -> dict[str, object]:
    """Bucket every canonical board of ``rounds`` (a job: progress, the bucket file on the cadence and on stop signals)."""
    from ..blueprint.bucket_fill import BoardFill
    from ..parallel import make_executor

    executor = make_executor("process" if workers > 1 else "serial", workers)
    try:
        job = BoardFill(abstraction, rounds, executor=executor, workers=workers)
        seconds, interrupted = 0.0, False
        if job.total == 0:  # nothing left (a run budget needs at least one step): the file as it is
            abstraction.save(buckets_out)
        else:
            with progress_bar(job.total, 0, not as_json, label="bucketing", unit="board") as update:
                run = driver.run(job, driver.Budget(iterations=job.total), checkpoint=buckets_out,
                                 checkpoint_every=driver.Cadence(seconds=checkpoint_seconds or None),
                                 progress=lambda n: update(n))
            seconds, interrupted = run.seconds, run.interrupted
    finally:
        executor.close()
    record = {"boards_filled": job.iteration, "boards_to_fill": job.total, "fill_seconds": seconds,
              "boards_bucketed": list(abstraction.boards_seen()), "buckets_out": str(buckets_out)}
    if not as_json:
        show(f"bucketed {job.iteration:,} of {job.total:,} canonical boards of rounds {', '.join(map(str, rounds))} in "
             f"{seconds:.1f} s ({workers} process{'es' if workers > 1 else ''}); boards per round now "
             f"{', '.join(f'{n:,}' for n in abstraction.boards_seen())}; saved to {buckets_out}")
    if interrupted:
        warn(f"interrupted after {job.iteration:,} of {job.total:,} boards; every board bucketed so far is in "
             f"{buckets_out} (continue with --buckets {buckets_out} --fill ...)")
        raise typer.Exit(EXIT_INTERRUPTED)
    return record
