"""``subgame games``: the registered games with their parameters and defaults, or one game's size."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from ..games import GAMES, load_game
from ..tree.estimate import SizeEstimate, estimate_size
from ..tree.size import available_bytes, human_bytes
from .app import CommandLineError, JsonOption, ParamsOption, echo_json, game_label, parse_params, reports_errors, show


@reports_errors
def games_command(
    size: Annotated[
        str | None,
        typer.Option("--size", metavar="GAME", help="Count GAME's public nodes, private states and bytes without building it."),
    ] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    as_json: JsonOption = False,
) -> None:
    """List the registered games with their parameters and defaults, or estimate one game's size (--size)."""
    if size is not None:
        _size(size, parse_params(param), as_json)
        return
    if param:
        raise CommandLineError("-p applies to --size GAME only; give the game, e.g. subgame games --size leduc -p num_ranks=4")
    if as_json:
        echo_json([{"name": e.name, "description": e.description, "parameters": dict(e.defaults)} for e in GAMES.values()])
        return
    table = Table(title="games", title_justify="left",
                  caption="Also: openspiel:NAME (with open-spiel installed), efg:PATH (Gambit .efg files) and ACPC .game files.")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("description")
    table.add_column("parameters (-p key=value; defaults shown)")
    for e in GAMES.values():
        params = ", ".join(f"{k}={_format_default(v)}" for k, v in e.defaults.items()) or "none"
        table.add_row(e.name, e.description, params)
    show(table)


def _size(name: str, params: dict[str, str], as_json: bool) -> None:
    est = estimate_size(load_game(name, **params))
    free = available_bytes()
    if as_json:
        echo_json({**_record(est), "available_bytes": free})
        return
    at_least = "" if est.exact else "≥ "
    table = Table(title=f"{game_label(name, params)}: size without building it ({est.method})", title_justify="left")
    table.add_column("quantity")
    table.add_column("player 0", justify="right")
    table.add_column("player 1", justify="right")
    table.add_row("public nodes", f"{at_least}{est.public_nodes:,}", "")
    table.add_row("private states", *(f"{at_least}{n:,}" for n in est.private_states))
    table.add_row("infoset × action slots", *(f"{at_least}{n:,}" for n in est.infoset_actions))
    table.add_row("compiled tree", f"{at_least}{human_bytes(est.tree_bytes)}", "")
    table.add_row("CFR solver state", f"{at_least}{human_bytes(est.solver_bytes)}", "")
    table.add_row("buffers of one iteration", f"{at_least}{human_bytes(est.sweep_bytes)}", "")
    table.add_row("a CFR solve's peak (sweeps)", f"{at_least}{human_bytes(est.peak_bytes)}", "")
    if est.passes_bytes:
        table.add_row("a CFR solve's peak (depth-first passes)", f"{at_least}{human_bytes(est.passes_bytes)}", "")
    table.add_row("memory available now", human_bytes(free) if free is not None else "unknown", "")
    show(table)
    if not est.exact:
        show("The walk stopped early: the game is at least this large.")


def _record(est: SizeEstimate) -> dict[str, Any]:
    return {
        "game": est.game, "public_nodes": est.public_nodes, "private_states": list(est.private_states),
        "infoset_actions": list(est.infoset_actions), "terminal_entries": est.terminal_entries,
        "tree_bytes": est.tree_bytes, "solver_bytes": est.solver_bytes, "total_bytes": est.total_bytes,
        "sweep_bytes": est.sweep_bytes, "peak_bytes": est.peak_bytes, "passes_bytes": est.passes_bytes or None,
        "solve_bytes": est.solve_bytes, "exact": est.exact, "method": est.method,
    }


def _format_default(value: Any) -> str:
    """A default as it is written after ``-p key=``: tuples comma-separated."""
    if isinstance(value, tuple):
        return ",".join(map(str, value)) if value else "()"
    return str(value)
