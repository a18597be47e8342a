"""``subgame play``: hands against an agent in the terminal, actions read from standard input.

The hands are those of :class:`~subgame.agents.table.Table` (the page of ``subgame serve``
plays the same ones for the same seed). After each hand the agent's cards and its strategy
at each of its decisions are printed, with its range where the agent exposes one.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..agents.specs import load_agent, treeless_agent
from ..agents.table import AgentDecisionRecord, Table, TableState
from ..errors import IllegalActionError
from ..games import load_game
from ..strategy import Strategy
from .app import EXIT_INTERRUPTED, ParamsOption, compile_named, fail, game_label, parse_params, reports_errors, warn

#: Private states listed per decision before the rest are summarized (hold'em has 1,326).
MAX_ROWS = 24
#: A decision that took at least this long (seconds) says so.
SHOWN_SECONDS = 0.5

AgentOption = Annotated[str, typer.Option("--agent", help="The agent: one of the specs listed below.")]
GameOption = Annotated[
    str | None, typer.Option("--game", help="The game (leduc, leduc_nolimit, ...); default: the strategy file's game, else leduc.")
]
SeedOption = Annotated[int, typer.Option("--seed", help="Seeds the deals and the agent's sampling: the same seed replays the same hands.")]
SeatOption = Annotated[int | None, typer.Option("--seat", min=0, max=1, help="Your seat in every hand (default: alternate, 0 first).")]


def open_table(agent: str, game: str | None, param: list[str], seed: int, seat: int | None) -> Table:
    """The table of the command line's options: the game compiled, the agent loaded for it."""
    if game is None:
        recorded = Strategy.load(agent).meta if Path(agent).is_file() else None
        game = recorded.game if recorded is not None and recorded.game else "leduc"
        params = {**((recorded.params or {}) if recorded is not None else {}), **parse_params(param)}
    else:
        params = parse_params(param)
    rules = load_game(game, **params)
    treeless = treeless_agent(agent, rules)  # an agent that needs no tree plays games too big to compile (HUNL)
    if treeless is not None:
        return Table(rules, treeless, seed=seed, human_seat=seat, label=game_label(game, params))
    tree = compile_named(game, params)
    return Table(rules, load_agent(agent, tree, rules), seed=seed, human_seat=seat, label=game_label(game, params))


@reports_errors
def play_command(
    agent: AgentOption,
    game: GameOption = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    seed: SeedOption = 0,
    hands: Annotated[int | None, typer.Option("--hands", help="Hands to play (default: until 'q' or the end of input).")] = None,
    seat: SeatOption = None,
) -> None:
    """Play hands against an agent in the terminal.

    Type an action's number, its name (f, c, r, r8) or its first word (fold, check,
    call, bet, raise, all-in); 'q' quits. Input may be piped: one action per line.
    """
    table = open_table(agent, game, param, seed, seat)
    console = Console(soft_wrap=True, highlight=False)
    console.print(f"[bold]{table.agent.name}[/] at {table.label}; seed {seed}")
    try:
        quit_ = _play(table, console, sys.stdin, hands)
    except KeyboardInterrupt:
        console.print()
        _summary(console, table)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    _summary(console, table)
    if not quit_ and hands is not None and table.hands_played < hands:
        fail(f"standard input closed after {table.hands_played} of {hands} hands; give one action per line (or fewer --hands)")


def _play(table: Table, console: Console, stdin: TextIO, hands: int | None) -> bool:
    """Play until ``hands`` are done (False), 'q' (True) or the end of input (False)."""
    while hands is None or table.hands_played < hands:
        state = table.new_hand()
        console.rule(f"hand {state.hand}: you are player {state.seat}")
        shown = 0
        while True:
            for step in state.steps[shown:]:
                console.print(("  " if step.actor == "chance" else "") + step.text, style="blue" if step.actor == "agent" else None)
            shown = len(state.steps)
            if state.over:
                _hand_over(console, state)
                break
            console.print(_status(state), style="bold")
            console.print("  ".join(f"[{k}] {a.label}" for k, a in enumerate(state.legal, 1)), markup=False)
            console.print("your action: ", end="")
            line = stdin.readline()
            if not line:
                console.print()
                if any(s.actor == "you" for s in state.steps):
                    warn(f"standard input closed during hand {state.hand}: that hand is abandoned")
                return False
            if not stdin.isatty():
                console.print(line.strip(), markup=False)  # piped input is not echoed by a terminal
            if line.strip().lower() in ("q", "quit", "exit"):
                return True
            try:
                state = table.act(line.strip())
            except IllegalActionError as exc:
                warn(str(exc))
    return False


def _status(state: TableState) -> str:
    parts = [f"your cards {state.your_cards or '-'}"]
    if state.board:
        parts.append(f"board {state.board}")
    if state.pot is not None:
        parts.append(f"pot {state.pot}")
    if state.stacks is not None:
        parts.append(f"stacks: you {state.stacks[state.seat]}, agent {state.stacks[1 - state.seat]}")
    return " · ".join(parts)


def _hand_over(console: Console, state: TableState) -> None:
    result = state.result or 0.0
    outcome = f"you won {result:g}" if result > 0 else f"you lost {-result:g}" if result < 0 else "split: 0"
    console.print(f"[bold]{outcome}[/]; the agent held {state.agent_cards or '-'}")
    for decision in state.decisions:
        console.print(decision_table(decision))


def decision_table(d: AgentDecisionRecord) -> RichTable | Text:
    """One agent decision: what it played and, where exposed, its range and strategy at every private state."""
    chosen = next((a.label for a in d.actions if a.id == d.chosen), str(d.chosen))
    mix = ", ".join(f"{a.label} {p:.0%}" for a, p in zip(d.actions, d.probs))
    path = " ".join(p for p in d.public if p) or "the start"
    took = f" in {d.seconds:.1f} s" if d.seconds >= SHOWN_SECONDS else ""  # a searching agent's time; instant answers stay quiet
    title = f"agent holding {d.private} after {path}: played {chosen} ({mix}){took}"
    if not d.rows:
        return Text(title)
    table = RichTable(title=title, title_justify="left")
    table.add_column("private state")
    table.add_column("range", justify="right")
    for a in d.actions:
        table.add_column(a.label, justify="right")
    rows = sorted(d.rows, key=lambda r: (r.label != d.private, -r.range)) if len(d.rows) > MAX_ROWS else list(d.rows)
    for r in rows[:MAX_ROWS]:
        held = r.label == d.private
        table.add_row(r.label + (" ◀" if held else ""), f"{r.range:.1%}", *(f"{p:.1%}" for p in r.probs), style="bold" if held else None)
    if len(rows) > MAX_ROWS:
        table.caption = f"{len(rows) - MAX_ROWS} more private states with smaller ranges not shown (the page shows them all)"
    return table


def _summary(console: Console, table: Table) -> None:
    n = table.hands_played
    mean = f" ({table.total / n:+.3g} per hand)" if n else ""
    console.print(f"{n} hand{'s' if n != 1 else ''} played; your result {table.total:+g}{mean}")
