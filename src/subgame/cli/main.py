"""The ``subgame`` command line: the application with its commands, in the order ``--help`` lists them.

Each command lives in its own module and calls the library; :mod:`.app` holds what they
share (options, error reporting, output). A command's module (and with it numpy and the
engine) is imported only when that command runs or shows its help, so ``subgame --help``
lists the commands from :data:`COMMANDS` alone.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from typer.core import TyperCommand
from typer.main import get_command_from_info
from typer.models import CommandInfo

from .. import __version__
from .app import OneLineErrors


@dataclass(frozen=True)
class CommandEntry:
    """A command of the application: the module and function that implement it, and its one-line summary.

    ``summary`` is the first paragraph of the function's docstring (a test holds them equal);
    it is what ``subgame --help`` shows without importing the module.
    """

    module: str
    function: str
    summary: str
    lists_agents: bool = False  #: its help ends with every agent spec (a line each fits where an option's column does not)


COMMANDS: dict[str, CommandEntry] = {
    "games": CommandEntry("games", "games_command", "List the registered games with their parameters and defaults, or estimate "
                                                    "one game's size (--size)."),
    "solve": CommandEntry("solve", "solve_command", "Solve GAME and write the average strategy; prints exploitability at "
                                                    "log-spaced iterations."),
    "evaluate": CommandEntry("evaluate", "evaluate_command", "Exploitability, best-response values and the value of a strategy file."),
    "quickstart": CommandEntry("quickstart", "quickstart_command", "Solve Leduc hold'em with CFR+ and write its convergence "
                                                                   "curve (PNG, markdown) and strategy."),
    "resolve": CommandEntry("resolve", "resolve_command", "Apply a subgame-solving method to every subgame, for both players, "
                                                          "and compare exploitability."),
    "reproduce": CommandEntry("reproduce", "reproduce_command", "Run one of the papers' experiments; write its markdown table "
                                                                "and PNG plot."),
    "exploit": CommandEntry("exploit", "exploit_command", "Compute a counter-strategy to MODEL; print its gain against it and "
                                                          "its exploitability."),
    "nested": CommandEntry("nested", "nested_command", "Exact exploitability of a player who uses a bet abstraction and meets "
                                                       "every off-tree bet by pseudo-harmonic translation or by nested subgame "
                                                       "solving (safe-and-nested §6); with --off-tree, the re-solve of one "
                                                       "off-tree bet and its margins."),
    "serve": CommandEntry("serve", "serve_command", "Serve a page to play hands against an agent; after each hand it shows the "
                                                    "agent's cards and strategy.", lists_agents=True),
    "play": CommandEntry("play", "play_command", "Play hands against an agent in the terminal.", lists_agents=True),
    "match": CommandEntry("match", "match_command", "Play agent A against agent B on duplicate deals and report A's winrate.",
                          lists_agents=True),
    "acpc-client": CommandEntry("acpc", "acpc_client_command", "Play a match at an ACPC dealer with an agent: one line per hand "
                                                               "on stderr, the total at the end."),
    "dealer": CommandEntry("acpc", "dealer_command", "Deal a match between two ACPC clients: prints the two ports, then the score."),
    "abstract": CommandEntry("abstract", "abstract_command", "Bucket every (board, hand) pair of each round by hand strength, "
                                                             "on canonical boards (suit isomorphism)."),
    "agent-eval": CommandEntry("agent_eval", "agent_eval_command", "Exact exploitability of the search agent (nested "
                                                                   "depth-limited solving) built on a blueprint."),
    "blueprint": CommandEntry("blueprint", "blueprint_command", "External-sampling MCCFR over the histories of the abstract "
                                                                "game (action x card abstraction), never compiled."),
}


def command_function(name: str) -> Any:
    """The function that implements command ``name`` (its module imported now)."""
    entry = COMMANDS[name]
    return getattr(importlib.import_module(f"{__package__}.{entry.module}"), entry.function)


def _agents_epilog() -> str:
    from rich.markup import escape

    from ..agents.specs import SPEC_HELP

    return escape(f"Agents: {SPEC_HELP}.")


class _Commands(OneLineErrors):
    """The command group: a command's module is imported when it is run or its help shown, not to list it."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if self._listing:
            return TyperCommand(cmd_name, help=entry.summary)
        info = CommandInfo(name=cmd_name, callback=command_function(cmd_name), epilog=_agents_epilog() if entry.lists_agents else None)
        return get_command_from_info(info, pretty_exceptions_short=True, rich_markup_mode=self.rich_markup_mode)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    cls=_Commands,
    name="subgame",
    help="Solve two-player zero-sum imperfect-information games and measure exploitability.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"subgame {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Solve two-player zero-sum imperfect-information games and measure exploitability."""


__all__ = ["COMMANDS", "app"]

if __name__ == "__main__":
    app(prog_name="subgame")
