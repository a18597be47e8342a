"""``subgame serve``: a local web page to play hands against an agent."""

from __future__ import annotations

from typing import Annotated

import typer

from ..web import create_app, require_flask, serve
from .app import ParamsOption, reports_errors, show
from .play import AgentOption, GameOption, SeatOption, SeedOption, open_table


@reports_errors
def serve_command(
    agent: AgentOption,
    game: GameOption = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8000,
    host: Annotated[str, typer.Option("--host", help="Address to listen on; the default serves this machine only.")] = "127.0.0.1",
    seed: SeedOption = 0,
    seat: SeatOption = None,
) -> None:
    """Serve a page to play hands against an agent; after each hand it shows the agent's cards and strategy.

    Needs Flask (the package's extra named web, or pip install flask). Stop it with Ctrl-C.
    """
    require_flask()
    table = open_table(agent, game, param, seed, seat)
    app = create_app(table)
    try:
        serve(app, host, port, on_ready=lambda url: show(f"playing {table.agent.name} at {table.label}: open {url} (Ctrl-C stops)"))
    except KeyboardInterrupt:  # before the server loop, which ends on Ctrl-C by returning
        pass
    show(f"stopped after {table.hands_played} hands; your result {table.total:+g}")
