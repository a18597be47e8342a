"""``subgame resolve``: re-solve every subgame of a blueprint (or of a CFR-D file) and compare exploitability."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..decompose import is_cfr_d_file, load_cfr_d, reconstruct, stored_value_exploitability
from ..eval.best_response import Exploitability, exploitability
from ..experiments.convergence import MBB_PER_CHIP, exploitability_record
from ..experiments.report import format_cell
from ..files import output_file
from ..games import load_game
from ..strategy import Strategy
from ..subgame import METHODS, resolve_all, subgame_roots
from ..tree.compile import compile_game
from .app import CommandLineError, JsonOption, ParamsOption, echo_json, game_label, reports_errors, save_strategy, show, strategy_game


@reports_errors
def resolve_command(
    file: Annotated[Path, typer.Argument(help="The blueprint: a strategy file written by 'subgame solve'.")],
    method: Annotated[str, typer.Option(help=f"Subgame-solving method: {', '.join(METHODS)}.")] = "resolve",
    depth: Annotated[
        int | None,
        typer.Option(help="Root the subgames at the public nodes of this depth (default: the start of every betting "
                          "round that follows a public chance event, e.g. Leduc's second round)."),
    ] = None,
    iterations: Annotated[int, typer.Option("--iterations", "-n", min=1, help="CFR+ iterations per subgame solve.")] = 1000,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the combined strategy.")] = Path("resolved.npz"),
    game: Annotated[str | None, typer.Option(help="The game, when the file does not record it.")] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    as_json: JsonOption = False,
) -> None:
    """Apply a subgame-solving method to every subgame, for both players, and compare exploitability."""
    if method not in METHODS:
        raise CommandLineError(f"unknown method {method!r}; methods are: {', '.join(METHODS)}")
    output_file(out, "--out")
    if is_cfr_d_file(file):
        _resolve_cfr_d(file, iterations, out, as_json)
        return
    blueprint = Strategy.load(file)
    name, params = strategy_game(file, blueprint, game, param)
    game_obj = load_game(name, **params)
    tree = compile_game(game_obj)
    blueprint.check(tree)
    if depth is None:
        roots = subgame_roots(tree)
    else:
        roots = [int(n) for n in range(tree.num_nodes) if tree.depth[n] == depth and tree.kind[n] in (0, 1)]
    if not roots:
        raise CommandLineError(f"{name} has no subgame to re-solve at {'depth ' + str(depth) if depth is not None else 'a round start'}; "
                               "pick another --depth")
    started = time.perf_counter()
    before = exploitability(tree, blueprint)
    resolved = resolve_all(game_obj, tree, blueprint, method, roots=roots, iterations=iterations)
    after = exploitability(tree, resolved)
    save_strategy(resolved, out, tree, game=name, params=params, algo=blueprint.meta.algo or "?", resolved=method)
    _report(
        f"{game_label(name, params)}: {method} on {len(roots)} subgames, {iterations} iterations each",
        (("blueprint", before), (method, after)),
        {"file": str(file), "game": name, "method": method, "subgames": len(roots), "iterations": iterations},
        out, started, as_json,
    )


def _resolve_cfr_d(file: Path, iterations: int, out: Path, as_json: bool) -> None:
    """``resolve`` of a CFR-D file: re-solve every subgame from the stored root values."""
    started = time.perf_counter()
    solution = load_cfr_d(file)
    before = stored_value_exploitability(solution)
    rebuilt = reconstruct(solution, iterations=iterations)
    after = rebuilt.exploitability()
    name, params = solution.meta.get("game"), solution.meta.get("params", {})
    save_strategy(rebuilt.strategy, out, rebuilt.tree, game=name, params=params, algo="cfr-d", resolved="resolve")
    _report(
        f"{file}: CFR-D trunk + every subgame re-solved from the stored values, {iterations} iterations",
        (("certified by the stored values", before), ("re-solved full strategy", after)),
        {"file": str(file), "game": name, "method": "resolve", "iterations": iterations},
        out, started, as_json,
    )


def _report(title: str, rows: tuple[tuple[str, Exploitability], tuple[str, Exploitability]],
            record: dict[str, Any], out: Path, started: float, as_json: bool) -> None:
    """Print exploitability before and after re-solving (a table, or one JSON object)."""
    seconds = time.perf_counter() - started
    if as_json:
        echo_json({**record, "before": exploitability_record(rows[0][1]), "after": exploitability_record(rows[1][1]),
                   "out": str(out), "seconds": seconds})
        return
    table = Table(title=title)
    for col in ("", "exploitability (chips)", "mbb/g"):
        table.add_column(col, justify="right")
    for label, result in rows:
        table.add_row(label, format_cell(result.exploitability), format_cell(MBB_PER_CHIP * result.exploitability))
    show(table)
    show(f"wrote {out} ({seconds:.2f} s)")
