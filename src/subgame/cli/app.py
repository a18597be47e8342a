"""The ``subgame`` application and what its commands share: options, error reporting, output.

Every error a user can cause is a :class:`~subgame.errors.SubgameError` (or an operating
system error on a file) and is printed as one red line ``error: <message>`` with exit
code 2. Exploitability is NashConv / 2 in game units (chips) and in mbb/g (1000 × chips).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, NoReturn, ParamSpec, TypeVar

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 carries its own copy of click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover (older typer runs on click itself)
    from click import exceptions as click_exceptions  # type: ignore[no-redef]
from rich.cells import cell_len
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..errors import GameDefinitionError, StrategyFileError, SubgameError
from .options import CommandLineError, check_shared

if TYPE_CHECKING:  # the engine is imported inside the functions that use it: '--help' stays fast
    from ..eval.best_response import Exploitability
    from ..experiments.convergence import CurvePoint
    from ..games.base import Game
    from ..strategy import Strategy
    from ..tree.public_tree import PublicTree

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

class OneLineErrors(TyperGroup):
    """The application's command group: a usage error (an unknown option, a value of the wrong
    type, a missing argument) is one red line ``error: ...`` naming the command's help, exit code 2."""

    def main(  # type: ignore[override]
        self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
        standalone_mode: bool = True, **extra: Any,
    ) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
        except click_exceptions.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # a bare command: its help
                exc.show()
                code = exc.exit_code
            else:
                ctx = getattr(exc, "ctx", None)
                hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
                _line_to_stderr(f"error: {exc.format_message()}{hint}", "red")
                code = exc.exit_code
        except typer.Abort:
            _line_to_stderr("aborted", "red")
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code


JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
SecondsOption = Annotated[float | None, typer.Option(
    min=0.001, help="Seconds of every solve of an agent that searches on a blueprint file (search:BP), where its spec "
                    "names no budget.")]
ParamsOption = Annotated[
    list[str], typer.Option("--param", "-p", help="Game parameter key=value (repeatable), e.g. -p num_ranks=4.")
]

P = ParamSpec("P")
R = TypeVar("R")


# -- errors -------------------------------------------------------------------------------


def _line_to_stderr(message: str, style: str) -> None:
    Console(stderr=True).print(message.replace("\n", " "), style=style, markup=False, highlight=False, soft_wrap=True)


def warn(message: str) -> None:
    """One yellow line on stderr."""
    _line_to_stderr(message, "yellow")


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """A library warning (a file's rounded probabilities, a stale compiled library) as one yellow line, no source location."""
    warn(f"warning: {message}")


def fail(message: str) -> NoReturn:
    """One red line ``error: message`` on stderr, then exit code 2."""
    _line_to_stderr("error: " + message, "red")
    raise typer.Exit(EXIT_USAGE)


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Check the shared options (:func:`~subgame.cli.options.check_shared`), then run the command;
    the library's errors and file errors become one red line and exit code 2."""
    signature = inspect.signature(command, eval_str=True)

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _warning_line
                check_shared(signature, kwargs)
                return command(*args, **kwargs)
        except SubgameError as exc:
            fail(str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(where + (exc.strerror or str(exc)))

    return wrapper


# -- games and strategy files -------------------------------------------------------------


def parse_params(items: list[str]) -> dict[str, str]:
    """``["num_ranks=4", "board_cards=0,1"]`` -> ``{"num_ranks": "4", "board_cards": "0,1"}``.

    Values stay strings; :func:`~subgame.games.load_game` converts them to each parameter's type.
    """
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GameDefinitionError(f"bad game parameter {item!r}: write it as key=value, e.g. -p num_ranks=4")
        params[key.strip()] = value.strip()
    return params


def compile_named(game: str, params: dict[str, str], max_memory_gib: float | None = None) -> PublicTree:
    """The public tree of a game named on the command line, refused if it would not fit (or exceed ``max_memory_gib``)."""
    from ..games import load_game
    from ..tree.compile import compile_game
    from ..tree.size import gib_to_bytes

    return compile_game(load_game(game, **params), max_bytes=gib_to_bytes(max_memory_gib))


def game_label(game: str, params: dict[str, str]) -> str:
    return game + (f" ({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")


def strategy_game(file: Path, strategy: Strategy, game: str | None, param: list[str]) -> tuple[str, dict[str, str]]:
    """The game a strategy file was computed for: recorded in it, or given by --game / -p."""
    name = game or strategy.meta.game
    if not name:
        raise StrategyFileError(f"{file}: the file does not record its game; pass --game NAME (and -p key=value)")
    recorded = {} if game else (strategy.meta.params or {})
    return name, {**recorded, **parse_params(param)}


class StrategyOnGame(NamedTuple):
    """A strategy file read with its game: the name and parameters, the rules and their public tree."""

    strategy: Strategy
    name: str
    params: dict[str, str]
    game: Game
    tree: PublicTree


def load_strategy_on_game(file: Path, game: str | None, param: list[str]) -> StrategyOnGame:
    """Read the strategy ``file`` and compile the game it was computed for (:func:`strategy_game`)."""
    from ..games import load_game
    from ..strategy import Strategy
    from ..tree.compile import compile_game

    strategy = Strategy.load(file)
    name, params = strategy_game(file, strategy, game, param)
    rules = load_game(name, **params)
    return StrategyOnGame(strategy, name, params, rules, compile_game(rules))


def save_strategy(
    strategy: Strategy, out: Path, tree: PublicTree, *, game: str | None, params: dict[str, str], algo: str,
    seed: int | None = None, resolved: str | None = None,
) -> Path:
    """Write ``strategy`` with where it came from recorded, so ``evaluate`` can rebuild the game."""
    from ..strategy import Strategy

    meta = replace(strategy.meta, game=game, params=params, algo=algo)
    if seed is not None:
        meta = replace(meta, seed=seed)
    if resolved is not None:
        meta = replace(meta, resolved=resolved)
    return Strategy(strategy.game_id, strategy.probs, meta).save(out, tree)


# -- output -------------------------------------------------------------------------------


def echo_json(obj: dict[str, Any] | list[Any]) -> None:
    typer.echo(json.dumps(obj))


def show(*renderables: Any, wrap: bool = False) -> None:
    """Print to stdout (tables, ``wrote ...`` lines).

    Tables, their titles included, fit the terminal (80 columns where stdout is not one);
    text stays on one line, so that a path can be copied, unless ``wrap`` (prose).
    """
    for r in renderables:
        Console(soft_wrap=not (wrap or isinstance(r, Table))).print(r, highlight=False)


def fitted_tables(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[Table]:
    """``rows`` as one table that fits the terminal (80 columns where stdout is not one), or several.

    No cell is ever cut short. A table too wide for the terminal is split: the text
    columns with a row number ``#`` (wrapped between words if they are still too wide),
    then the numeric columns, as many per table as fit, each with the row number again.
    """
    from ..experiments.report import format_cell

    width = Console().width
    n = len(headers)
    numeric = [all(isinstance(r[j], (int, float)) or r[j] == "" for r in rows) for j in range(n)]
    cells = [[format_cell(r[j]) for r in rows] for j in range(n)]

    def words(text: str) -> list[int]:
        return [cell_len(w) for w in text.split()] or [1]

    # the width a column needs: its header's longest word (headers wrap between words) and its cells, whole or by word
    whole = [max(words(headers[j]) + [cell_len(c) for c in cells[j]]) for j in range(n)]
    by_word = [max(words(headers[j]) + [w for c in cells[j] for w in words(c)]) for j in range(n)]
    number = len(str(len(rows)))

    def table(columns: Sequence[int], numbered: bool, name: str, wrap: bool = False) -> Table:
        t = Table(title=name, title_justify="left")
        if numbered:
            t.add_column("#", justify="right", no_wrap=True, width=number)
        for j in columns:
            t.add_column(headers[j], justify="right", width=by_word[j] if wrap else whole[j])
        for i in range(len(rows)):
            t.add_row(*([str(i + 1)] if numbered else []), *(cells[j][i] for j in columns))
        return t

    def fits(columns: Sequence[int], numbered: bool, wrap: bool = False) -> bool:
        need = sum((by_word if wrap else whole)[j] + 3 for j in columns) + (number + 3 if numbered else 0)
        return need + 1 <= width

    if fits(range(n), False):
        return [table(range(n), False, title)]
    text = [j for j in range(n) if not numeric[j]]
    out = [table(text, True, title, wrap=not fits(text, True))] if text else []
    chunk: list[int] = []
    for j in (j for j in range(n) if numeric[j]):
        if chunk and not fits(chunk + [j], True):
            out.append(table(chunk, True, f"{title} (continued)"))
            chunk = []
        chunk.append(j)
    if chunk:
        out.append(table(chunk, True, f"{title} (continued)"))
    return out


def curve_table(curve: list[CurvePoint], title: str) -> Table:
    from ..experiments.convergence import CURVE_HEADERS, curve_rows
    from ..experiments.report import format_cell

    table = Table(*CURVE_HEADERS, title=title, title_justify="left")
    for column in table.columns:
        column.justify = "right"
    for row in curve_rows(curve):
        table.add_row(*map(format_cell, row))
    return table


def evaluation_table(result: Exploitability, title: str) -> Table:
    from ..experiments.convergence import MBB_PER_CHIP
    from ..experiments.report import format_cell

    table = Table(title=title, title_justify="left")
    for header, justify in (("quantity", "left"), ("chips", "right"), ("mbb/g", "right")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    rows = [
        ("exploitability (NashConv / 2)", result.exploitability),
        ("NashConv", result.nash_conv),
        ("best-response value, player 0", result.br_values[0]),
        ("best-response value, player 1", result.br_values[1]),
    ]
    if result.game_value is not None:
        rows.append(("value of the profile for player 0", result.game_value))
    for name, chips in rows:
        table.add_row(name, format_cell(chips), format_cell(MBB_PER_CHIP * chips))
    return table


#: Seconds between two plain progress lines when stderr is not a terminal (a log file, a batch job).
PLAIN_PROGRESS_SECONDS = 10.0


@contextmanager
def _plain_progress(total: int, unit: str) -> Iterator[Callable[..., None]]:
    started = last = time.monotonic()
    known = total

    def update(done: int, status: str = "", total: int | None = None) -> None:
        nonlocal last, known
        known = total if total is not None else known
        now = time.monotonic()
        if now - last >= PLAIN_PROGRESS_SECONDS or done == known:
            last = now
            print(f"{unit} {done}/{known or '?'}, {now - started:.1f} s{', ' + status if status else ''}", file=sys.stderr, flush=True)

    yield update


@contextmanager
def progress_bar(total: int, done: int, enabled: bool, *, label: str = "CFR", unit: str = "iteration") -> Iterator[Callable[..., None]]:
    """Progress on stderr; yields ``update(done, status="", total=None)`` (``status``: a short text shown beside
    the bar; ``total``: the amount of work where it becomes known only while running; 0 before: unknown).

    A bar on a terminal; elsewhere (a log file) one plain line every
    :data:`PLAIN_PROGRESS_SECONDS` and at the end.
    """
    console = Console(stderr=True)
    if enabled and not console.is_terminal:
        with _plain_progress(total, unit) as update:
            yield update
        return
    with Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        console=console, transient=True, disable=not (enabled and console.is_terminal),
    ) as progress:
        task = progress.add_task(unit, total=total or None, completed=done, status="")

        def update(n: int, status: str = "", total: int | None = None) -> None:
            if total is not None:
                progress.update(task, total=total)
            progress.update(task, completed=n, status=status)

        yield update


def output_folder(path: Path, what: str) -> Path:
    """``path`` as a folder to write into (made if missing), checked before any work."""
    if path.exists() and not path.is_dir():
        raise CommandLineError(f"{what} {path} is not a folder; give a folder's path")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandLineError(f"{what} {path}: cannot create the folder ({exc.strerror})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CommandLineError(f"{what} {path}: no permission to write there; choose another folder")
    return path


def exploitability_rows(title: str, rows: Sequence[tuple[str, Exploitability]]) -> Table:
    """One row per named strategy: its exploitability in chips and mbb/g."""
    from ..experiments.convergence import MBB_PER_CHIP
    from ..experiments.report import format_cell

    table = Table(title=title)
    for col in ("", "exploitability (chips)", "mbb/g"):
        table.add_column(col, justify="right")
    for label, result in rows:
        table.add_row(label, format_cell(result.exploitability), format_cell(MBB_PER_CHIP * result.exploitability))
    return table


def exit_if_interrupted(interrupted: bool, iteration: int, checkpoint: Path | None, what: str, out: Path) -> None:
    """After a run stopped by a signal: one line saying what was kept, then exit 130."""
    if not interrupted:
        return
    saved = f"; checkpoint saved to {checkpoint} (continue with --resume)" if checkpoint else ""
    warn(f"interrupted at iteration {iteration}{saved}; {what} so far written to {out}")
    raise typer.Exit(EXIT_INTERRUPTED)
