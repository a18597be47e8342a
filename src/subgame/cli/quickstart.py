"""``subgame quickstart``: Leduc hold'em solved with CFR+, its convergence curve and strategy written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..experiments.convergence import curve_markdown, curve_point, log_spaced, plot_curve
from ..files import write_text
from ..solve import driver
from ..solve.cfr import PRESETS, CFRSolver
from .app import (
    EXIT_INTERRUPTED,
    compile_named,
    curve_table,
    output_folder,
    progress_bar,
    reports_errors,
    save_strategy,
    show,
    warn,
)

QUICKSTART_EVALUATIONS = 20


@reports_errors
def quickstart_command(
    iterations: Annotated[int, typer.Option("--iterations", "-n", help="CFR+ iterations.")] = 1000,
    out_dir: Annotated[Path, typer.Option(help="Folder for the plot, the table and the strategy.")] = Path("out"),
    seed: Annotated[int, typer.Option(help="Recorded with the results; CFR+ is deterministic.")] = 0,
) -> None:
    """Solve Leduc hold'em with CFR+ and write its convergence curve (PNG, markdown) and strategy."""
    game, algo = "leduc", "cfr+"
    tree = compile_named(game, {})
    output_folder(out_dir, "--out-dir")
    solver = CFRSolver(tree, PRESETS[algo])
    with progress_bar(iterations, solver.iteration, enabled=True) as update:
        run = driver.run(solver, driver.Budget(iterations=iterations), evaluate_at=log_spaced(iterations, QUICKSTART_EVALUATIONS),
                         on_evaluation=curve_point, progress=update)
    if run.interrupted:
        warn(f"interrupted at iteration {solver.iteration}; nothing written")
        raise typer.Exit(EXIT_INTERRUPTED)
    curve = list(run.evaluations)
    title = f"Leduc hold'em, CFR+, {iterations} iterations (seed {seed})"
    table_path = out_dir / "leduc_cfr_plus_convergence.md"
    write_text(table_path, curve_markdown(curve, title))
    plot_path = plot_curve(curve, out_dir / "leduc_cfr_plus_convergence.png", title)
    strategy_path = save_strategy(solver.average_strategy(), out_dir / "leduc_cfr_plus.npz", tree,
                                  game=game, params={}, algo=algo, seed=seed)
    show(curve_table(curve, title))
    for what, path in (("plot", plot_path), ("table", table_path), ("strategy", strategy_path)):
        show(f"{what:>8}: {path}")
