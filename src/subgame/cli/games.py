"""``subgame games``: the registered games with their parameters and defaults."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from ..games import GAMES
from .app import JsonOption, echo_json, reports_errors, show


@reports_errors
def games_command(as_json: JsonOption = False) -> None:
    """List the registered games with their parameters and defaults."""
    if as_json:
        echo_json([{"name": e.name, "description": e.description, "parameters": dict(e.defaults)} for e in GAMES.values()])
        return
    table = Table(title="games", title_justify="left",
                  caption="Also: openspiel:NAME (with open-spiel installed) and ACPC .game files.")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("description")
    table.add_column("parameters (-p key=value; defaults shown)")
    for e in GAMES.values():
        params = ", ".join(f"{k}={_format_default(v)}" for k, v in e.defaults.items()) or "none"
        table.add_row(e.name, e.description, params)
    show(table)


def _format_default(value: Any) -> str:
    """A default as it is written after ``-p key=``: tuples comma-separated."""
    if isinstance(value, tuple):
        return ",".join(map(str, value)) if value else "()"
    return str(value)
