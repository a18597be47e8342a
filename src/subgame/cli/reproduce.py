"""``subgame reproduce``: one of the papers' experiments, its markdown table and PNG plot."""

from __future__ import annotations

import inspect
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ..experiments import EXPERIMENTS
from ..experiments.report import format_cell
from .app import CommandLineError, JsonOption, echo_json, fitted_tables, output_folder, reports_errors, show


@reports_errors
def reproduce_command(
    name: Annotated[str, typer.Argument(help=f"Experiment: {', '.join(EXPERIMENTS)}.")],
    full: Annotated[bool, typer.Option("--full", help="The paper's sizes (slow); default is the reduced form.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of every random choice; one seed prints one table.")] = 0,
    out_dir: Annotated[Path, typer.Option(help="Folder for NAME.md and NAME.png.")] = Path("out"),
    workers: Annotated[int, typer.Option(help="Processes, for experiments that run in parallel (cfr-d).")] = 1,
    game: Annotated[str | None, typer.Option(help="The game, for experiments that have several (technique-table, nested-table: nlfh).")] = None,
    flops: Annotated[int | None, typer.Option(min=1, help="Flops re-solved, sampled (nlfh; default: 6 for technique-table, 4 for "
                                                                                 "nested-table; --full: all).")] = None,
    checkpoint_dir: Annotated[Path | None, typer.Option(help="Folder of finished work; a run with it resumes (nlfh, "
                                                                  "modicum-table).")] = None,
    deals: Annotated[int | None, typer.Option(min=1, help="Duplicate deals per match (modicum-table).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Run one of the papers' experiments; write its markdown table and PNG plot."""
    experiment = EXPERIMENTS.get(name)
    if experiment is not None:
        output_folder(out_dir, "--out-dir")
    if experiment is None:
        raise CommandLineError(f"unknown experiment {name!r}; experiments are: {', '.join(EXPERIMENTS)}")
    options: dict[str, Any] = {"full": full, "seed": seed}
    if "workers" in inspect.signature(experiment).parameters:
        options["workers"] = workers
    elif workers > 1:
        raise CommandLineError(f"experiment {name!r} runs in one process; drop --workers")
    console = Console(stderr=True)
    accepts = inspect.signature(experiment).parameters
    for key, flag, value in (("game", "--game", game), ("flops", "--flops", flops), ("checkpoint", "--checkpoint-dir", checkpoint_dir),
                              ("deals", "--deals", deals)):
        if value is not None and key not in accepts:
            raise CommandLineError(f"experiment {name!r} takes no {flag}")
        if value is not None:
            options[key] = value
    if "progress" in accepts and not as_json:
        options["progress"] = lambda line: console.print(line, highlight=False)
    with console.status(f"running {name}{' (full)' if full else ''}…") if console.is_terminal and not as_json else nullcontext():
        result = experiment(**options)
    md, png = result.write(out_dir)
    if as_json:
        echo_json({"name": name, "setup": list(result.setup), "headers": list(result.headers),
                   "rows": [list(map(format_cell, r)) for r in result.rows], "table": str(md), "plot": str(png) if png else None})
        return
    for line in result.setup:
        show(line, wrap=True)
    show(*fitted_tables(result.title, result.headers, result.rows))
    for note in result.notes:
        show(note, wrap=True)
    show(f"   table: {md}")
    if png:
        show(f"    plot: {png}")
