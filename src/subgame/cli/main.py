"""The ``subgame`` command line: list games, solve one, evaluate a strategy file, run the quickstart.

Every error a user can cause is a :class:`~subgame.errors.SubgameError` (or an operating
system error on a file) and is printed as one red line ``error: <message>`` with exit
code 2. Exploitability is NashConv / 2 in game units (chips) and in mbb/g (1000 × chips).
"""

from __future__ import annotations

import functools
import inspect
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, Literal, NoReturn, ParamSpec, TypeVar, get_args

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..errors import GameDefinitionError, StrategyFileError, SubgameError
from ..eval.best_response import Exploitability, exploitability
from ..experiments import EXPERIMENTS
from ..experiments.convergence import (
    CURVE_HEADERS,
    MBB_PER_CHIP,
    CurvePoint,
    curve_markdown,
    curve_point,
    curve_rows,
    exploitability_record,
    iter_convergence,
    plot_curve,
)
from ..experiments.report import format_cell
from ..games import GAMES, load_game
from ..solve.cfr import PRESETS, CFRSolver
from ..strategy import Strategy
from ..subgame import METHODS, resolve_all, subgame_roots
from ..tree.compile import compile_game
from ..tree.public_tree import PublicTree

Algorithm = Literal["cfr", "cfr+", "lcfr", "dcfr", "lp", "cfr-d"]
Backend = Literal["serial", "process", "ray"]
CFR_ALGORITHMS: tuple[str, ...] = tuple(a for a in get_args(Algorithm) if a in PRESETS)
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
QUICKSTART_EVALUATIONS = 20

app = typer.Typer(
    name="subgame",
    help="Solve two-player zero-sum imperfect-information games and measure exploitability.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

P = ParamSpec("P")
R = TypeVar("R")


class CommandLineError(SubgameError, ValueError):
    """Command-line options that do not fit together."""


# -- errors, parameters, output ---------------------------------------------------------


def _line_to_stderr(message: str, style: str) -> None:
    Console(stderr=True).print(message.replace("\n", " "), style=style, markup=False, highlight=False, soft_wrap=True)


def _warn(message: str) -> None:
    _line_to_stderr(message, "yellow")


def _fail(message: str) -> NoReturn:
    _line_to_stderr("error: " + message, "red")
    raise typer.Exit(EXIT_USAGE)


def _reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn the library's errors and file errors into one red line and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except SubgameError as exc:
            _fail(str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            _fail(where + (exc.strerror or str(exc)))

    return wrapper


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


def _compile(game: str, params: dict[str, str]) -> PublicTree:
    return compile_game(load_game(game, **params))


def _game_label(game: str, params: dict[str, str]) -> str:
    return game + (f" ({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")


def _format_default(value: Any) -> str:
    """A default as it is written after ``-p key=``: tuples comma-separated."""
    if isinstance(value, tuple):
        return ",".join(map(str, value)) if value else "()"
    return str(value)


def _echo_json(obj: dict[str, Any] | list[Any]) -> None:
    typer.echo(json.dumps(obj))


def _print(*renderables: Any) -> None:
    Console(soft_wrap=True).print(*renderables, highlight=False)


def _curve_table(curve: list[CurvePoint], title: str) -> Table:
    table = Table(*CURVE_HEADERS, title=title, title_justify="left")
    for column in table.columns:
        column.justify = "right"
    for row in curve_rows(curve):
        table.add_row(*map(format_cell, row))
    return table


def _evaluation_table(result: Exploitability, title: str) -> Table:
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


def _save_strategy(strategy: Strategy, out: Path, tree: PublicTree, **meta: Any) -> Path:
    """Write ``strategy`` with ``meta`` (game, params, algo, seed) added, so ``evaluate`` can rebuild the game."""
    return Strategy(strategy.game_id, strategy.probs, {**strategy.meta, **meta}).save(out, tree)


# -- running CFR --------------------------------------------------------------------------


class _DeferredInterrupt:
    """Ctrl-C stops the run at the end of the current iteration, so a checkpoint never holds half of one.

    Inside the ``with`` block SIGINT only sets a flag and :meth:`check` (called after
    every iteration) raises :class:`KeyboardInterrupt`. Outside the main thread signals
    cannot be handled and Ctrl-C behaves as usual.
    """

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def __enter__(self) -> _DeferredInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._request)
        return self

    def _request(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt

    def __exit__(self, *exc_info: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


@contextmanager
def _progress(total: int, done: int, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr; yields ``update(iterations_done)``."""
    console = Console(stderr=True)
    with Progress(
        TextColumn("CFR"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        console=console, transient=True, disable=not (enabled and console.is_terminal),
    ) as progress:
        task = progress.add_task("iterations", total=total, completed=done)
        yield lambda iterations: progress.update(task, completed=iterations)


@dataclass
class _CFRRun:
    solver: CFRSolver
    curve: list[CurvePoint]
    interrupted: bool


def _start_solver(tree: PublicTree, algo: str, iterations: int, checkpoint: Path | None, resume: bool) -> CFRSolver:
    """A fresh solver, or with ``resume`` the one saved in ``checkpoint`` (same game and algorithm)."""
    if not resume:
        return CFRSolver(tree, PRESETS[algo])
    if checkpoint is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if not checkpoint.exists():
        raise StrategyFileError(f"{checkpoint}: no such checkpoint file to resume from")
    solver = CFRSolver.load_checkpoint(checkpoint, tree)
    if solver.config != PRESETS[algo]:
        written_by = next((name for name, c in PRESETS.items() if c == solver.config), None)
        how = f"--algo {written_by}" if written_by else f"the configuration {solver.config}"
        raise CommandLineError(
            f"{checkpoint} was written by {how}, not --algo {algo}; resume it with the same algorithm"
        )
    if solver.iteration >= iterations:
        raise CommandLineError(
            f"{checkpoint} is already at iteration {solver.iteration}; "
            f"ask for more with --iterations (now {iterations})"
        )
    return solver


def _run_cfr(
    solver: CFRSolver, iterations: int, evaluations: int, checkpoint: Path | None, show_progress: bool
) -> _CFRRun:
    """Run to ``iterations`` with evaluations at log-spaced points, checkpointing at each and on Ctrl-C."""
    curve: list[CurvePoint] = []
    with _DeferredInterrupt() as interrupt, _progress(iterations, solver.iteration, show_progress) as update:

        def after_iteration(s: CFRSolver) -> None:
            update(s.iteration)
            interrupt.check()

        try:
            for point in iter_convergence(solver, iterations, evaluations, after_iteration):
                curve.append(point)
                if checkpoint is not None:
                    solver.save_checkpoint(checkpoint)
        except KeyboardInterrupt:
            if checkpoint is not None:
                solver.save_checkpoint(checkpoint)
            if solver.iteration > (curve[-1].iteration if curve else 0):
                curve.append(curve_point(solver))
            return _CFRRun(solver, curve, interrupted=True)
    return _CFRRun(solver, curve, interrupted=False)


# -- commands -----------------------------------------------------------------------------

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]
ParamsOption = Annotated[
    list[str], typer.Option("--param", "-p", help="Game parameter key=value (repeatable), e.g. -p num_ranks=4.")
]


@app.command("games")
@_reports_errors
def games_command(as_json: JsonOption = False) -> None:
    """List the registered games with their parameters and defaults."""
    if as_json:
        _echo_json(
            [{"name": e.name, "description": e.description, "parameters": dict(e.defaults)} for e in GAMES.values()]
        )
        return
    table = Table(title="games", title_justify="left",
                  caption="Also: openspiel:NAME (with open-spiel installed) and ACPC .game files.")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("description")
    table.add_column("parameters (-p key=value; defaults shown)")
    for e in GAMES.values():
        params = ", ".join(f"{k}={_format_default(v)}" for k, v in e.defaults.items()) or "none"
        table.add_row(e.name, e.description, params)
    _print(table)


@app.command("solve")
@_reports_errors
def solve_command(
    game: Annotated[str, typer.Argument(help="Game name (see 'subgame games').")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the average strategy (.npz).")],
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    algo: Annotated[Algorithm, typer.Option(help="cfr, cfr+, lcfr, dcfr, or lp (exact sequence-form LP).")] = "cfr+",
    iterations: Annotated[int, typer.Option("--iterations", "-n", min=1, help="Total CFR iterations.")] = 1000,
    seed: Annotated[int, typer.Option(help="Recorded in the strategy file; the solvers are deterministic.")] = 0,
    checkpoints: Annotated[
        int, typer.Option(min=1, help="Number of evaluation points, log-spaced up to --iterations.")
    ] = 10,
    checkpoint_file: Annotated[
        Path | None, typer.Option(help="Save the solver state here at every evaluation point and on Ctrl-C.")
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue from --checkpoint-file.")] = False,
    trunk_depth: Annotated[
        int, typer.Option(min=1, help="cfr-d: the trunk ends after this many public chance events (1: Leduc's first round).")
    ] = 1,
    trunk_public_depth: Annotated[
        int | None, typer.Option(min=1, help="cfr-d: end the trunk at this public depth instead (games without public chance).")
    ] = None,
    subgame_iterations: Annotated[int, typer.Option(min=1, help="cfr-d: inner CFR+ iterations per subgame solve.")] = 100,
    subgame_batch: Annotated[
        int, typer.Option(min=1, help="cfr-d: subgames per inner solve; 1 keeps memory at trunk + one subgame, more is faster.")
    ] = 1,
    cached_subgames: Annotated[
        int, typer.Option(min=0, help="cfr-d: compiled subgame structures kept between iterations (no solver state).")
    ] = 0,
    workers: Annotated[int, typer.Option(min=1, help="cfr-d: processes (or Ray CPUs) for the subgame solves.")] = 1,
    backend: Annotated[Backend, typer.Option(help="cfr-d: where subgame solves run: serial, process, ray.")] = "serial",
    as_json: JsonOption = False,
) -> None:
    """Solve GAME and write the average strategy; prints exploitability at log-spaced iterations.

    Ctrl-C stops at the end of the current iteration, saves the checkpoint (with
    --checkpoint-file) and writes the average strategy so far to --out. With --algo cfr-d
    (Burch et al. 2014) the file holds the trunk strategy and the average subgame-root
    values instead; 'subgame resolve FILE' rebuilds the full strategy from it.
    """
    params = parse_params(param)
    if algo == "lp" and (checkpoint_file is not None or resume):
        raise CommandLineError("--checkpoint-file and --resume apply to the CFR algorithms, not to --algo lp")
    if resume and checkpoint_file is None:
        raise CommandLineError("--resume needs --checkpoint-file PATH, the checkpoint to continue from")
    if algo == "cfr-d":
        from ..decompose import CFRDConfig, TrunkSplit

        split = TrunkSplit(rounds=trunk_depth) if trunk_public_depth is None else TrunkSplit(depth=trunk_public_depth)
        config = CFRDConfig(subgame_iterations, batch=subgame_batch, cached_chunks=cached_subgames)
        _solve_cfr_d(game, params, iterations, split, config, workers, backend, out, seed, as_json, checkpoint_file, resume)
        return
    tree = _compile(game, params)
    for path in (out, checkpoint_file):
        if path is not None:  # fail before a long run, not after it
            path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"game": game, "params": params, "algo": algo, "seed": seed}
    title = f"{_game_label(game, params)}: {algo}"
    started = time.perf_counter()
    if algo == "lp":
        _solve_lp(tree, out, meta, title, started, as_json)
        return
    solver = _start_solver(tree, algo, iterations, checkpoint_file, resume)
    run = _run_cfr(solver, iterations, checkpoints, checkpoint_file, show_progress=not as_json)
    _save_strategy(solver.average_strategy(), out, tree, **meta)
    seconds = time.perf_counter() - started
    if as_json:
        _echo_json({
            **meta, "iterations": solver.iteration, "interrupted": run.interrupted,
            "curve": [p.to_json() for p in run.curve], "final": run.curve[-1].to_json() if run.curve else None,
            "out": str(out), "checkpoint": None if checkpoint_file is None else str(checkpoint_file),
            "seconds": seconds,
        })
    elif run.curve:
        _print(_curve_table(run.curve, f"{title}, exploitability of the average strategy"))
    if run.interrupted:
        saved = f"; checkpoint saved to {checkpoint_file} (continue with --resume)" if checkpoint_file else ""
        _warn(f"interrupted at iteration {solver.iteration}{saved}; average strategy so far written to {out}")
        raise typer.Exit(EXIT_INTERRUPTED)
    if not as_json:
        _print(f"wrote {out} ({solver.iteration} iterations, {seconds:.2f} s)")


def _solve_cfr_d(game: str, params: dict[str, str], iterations: int, split: Any, config: Any,
                 workers: int, backend: str, out: Path, seed: int, as_json: bool,
                 checkpoint: Path | None, resume: bool) -> None:
    """``solve --algo cfr-d``: CFR-D, writing the trunk strategy and average root values.

    With ``checkpoint`` the run is saved every twentieth of the way and on Ctrl-C (then
    what CFR-D has so far is also written to ``out``); ``resume`` continues it.
    """
    from ..decompose import CFRDSolver, make_executor, save_cfr_d, stored_value_exploitability

    for path in (out, checkpoint):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    game_obj = load_game(game, **params)
    executor = make_executor(backend if workers > 1 or backend == "ray" else "serial", workers)
    interrupted = False
    try:
        if resume:
            solver = CFRDSolver.load_checkpoint(checkpoint, game_obj, executor=executor)  # type: ignore[arg-type]
            if solver.iteration >= iterations:
                raise CommandLineError(f"{checkpoint} is already at iteration {solver.iteration}; ask for more with --iterations")
        else:
            solver = CFRDSolver(game_obj, split=split, config=config, executor=executor)
        every = max(1, iterations // 20)
        with _DeferredInterrupt() as interrupt, _progress(iterations, solver.iteration, not as_json) as update:
            try:
                while solver.iteration < iterations:
                    solver.step()
                    update(solver.iteration)
                    if checkpoint is not None and (solver.iteration % every == 0 or solver.iteration == iterations):
                        solver.save_checkpoint(checkpoint)
                    interrupt.check()
            except KeyboardInterrupt:
                interrupted = True
                if checkpoint is not None:
                    solver.save_checkpoint(checkpoint)
    finally:
        executor.close()
    solution = solver.solution()
    save_cfr_d(out, solution, game=game, params=params, seed=seed)
    bound = stored_value_exploitability(solution)
    seconds = time.perf_counter() - started
    meta = {"game": game, "params": params, "algo": "cfr-d", "seed": seed, "iterations": solver.iteration,
            "trunk_rounds": solver.split.rounds, "trunk_public_depth": solver.split.depth,
            "subgame_iterations": solver.config.subgame_iterations}
    if as_json:
        _echo_json({**meta, "interrupted": interrupted, "stored_value_bound": exploitability_record(bound),
                    "out": str(out), "checkpoint": None if checkpoint is None else str(checkpoint), "seconds": seconds})
    else:
        _print(_evaluation_table(bound, f"{_game_label(game, params)}: CFR-D, {solver.iteration} trunk iterations × "
                                        f"{solver.config.subgame_iterations} subgame iterations; exploitability "
                                        "certified by the stored values"))
    if interrupted:
        saved = f"; checkpoint saved to {checkpoint} (continue with --resume)" if checkpoint else ""
        _warn(f"interrupted at iteration {solver.iteration}{saved}; trunk strategy and root values so far written to {out}")
        raise typer.Exit(EXIT_INTERRUPTED)
    if not as_json:
        _print(f"wrote {out} (trunk strategy and root values; rebuild the full strategy with 'subgame resolve {out}') "
               f"({seconds:.2f} s)")


def _solve_lp(tree: PublicTree, out: Path, meta: dict[str, Any], title: str, started: float, as_json: bool) -> None:
    """``solve --algo lp``: the exact sequence-form equilibrium, written and evaluated."""
    from ..solve.lp import solve_lp

    lp = solve_lp(tree)
    _save_strategy(lp.strategy, out, tree, **meta)
    result = exploitability(tree, lp.strategy)
    seconds = time.perf_counter() - started
    if as_json:
        _echo_json({**meta, "iterations": 0, "curve": [], "final": exploitability_record(result),
                    "lp_value": lp.value, "out": str(out), "seconds": seconds})
        return
    _print(_evaluation_table(result, f"{title}, game value {lp.value:.6g} for player 0"))
    _print(f"wrote {out} ({seconds:.2f} s)")


@app.command("evaluate")
@_reports_errors
def evaluate_command(
    file: Annotated[Path, typer.Argument(help="A strategy file written by 'subgame solve'.")],
    game: Annotated[
        str | None, typer.Option(help="The game, when the file does not record it (files from 'subgame solve' do).")
    ] = None,
    param: ParamsOption = [],  # noqa: B006
    as_json: JsonOption = False,
) -> None:
    """Exploitability, best-response values and the value of a strategy file.

    The game and its parameters come from the file; --game replaces both, -p alone
    overrides single parameters.
    """
    from ..decompose import is_cfr_d_file

    if is_cfr_d_file(file):
        raise StrategyFileError(
            f"{file} holds CFR-D's trunk strategy and root values, not a full strategy; "
            f"rebuild one with 'subgame resolve {file} --out FULL.npz' and evaluate that"
        )
    strategy = Strategy.load(file)
    name, params = _strategy_game(file, strategy, game, param)
    tree = _compile(name, params)
    result = exploitability(tree, strategy.check(tree))
    if as_json:
        _echo_json({"file": str(file), "game": name, "params": params, **exploitability_record(result)})
        return
    iterations = strategy.meta.get("iterations")
    how = f", {strategy.meta['algo']}" if "algo" in strategy.meta else ""
    how += f", {iterations} iterations" if iterations else ""
    how += f", subgames re-solved with {strategy.meta['resolved']}" if "resolved" in strategy.meta else ""
    _print(_evaluation_table(result, f"{file}: {_game_label(name, params)}{how}"))


@app.command("quickstart")
@_reports_errors
def quickstart_command(
    iterations: Annotated[int, typer.Option("--iterations", "-n", min=1, help="CFR+ iterations.")] = 1000,
    out_dir: Annotated[Path, typer.Option(help="Folder for the plot, the table and the strategy.")] = Path("out"),
    seed: Annotated[int, typer.Option(help="Recorded with the results; CFR+ is deterministic.")] = 0,
) -> None:
    """Solve Leduc hold'em with CFR+ and write its convergence curve (PNG, markdown) and strategy."""
    game, algo = "leduc", "cfr+"
    tree = _compile(game, {})
    out_dir.mkdir(parents=True, exist_ok=True)
    solver = CFRSolver(tree, PRESETS[algo])
    run = _run_cfr(solver, iterations, QUICKSTART_EVALUATIONS, checkpoint=None, show_progress=True)
    if run.interrupted:
        _warn(f"interrupted at iteration {solver.iteration}; nothing written")
        raise typer.Exit(EXIT_INTERRUPTED)
    title = f"Leduc hold'em, CFR+, {iterations} iterations (seed {seed})"
    table_path = out_dir / "leduc_cfr_plus_convergence.md"
    table_path.write_text(curve_markdown(run.curve, title))
    plot_path = plot_curve(run.curve, out_dir / "leduc_cfr_plus_convergence.png", title)
    strategy_path = _save_strategy(solver.average_strategy(), out_dir / "leduc_cfr_plus.npz", tree,
                                   game=game, params={}, algo=algo, seed=seed)
    _print(_curve_table(run.curve, title))
    for what, path in (("plot", plot_path), ("table", table_path), ("strategy", strategy_path)):
        _print(f"{what:>8}: {path}")


def _strategy_game(file: Path, strategy: Strategy, game: str | None, param: list[str]) -> tuple[str, dict[str, str]]:
    """The game a strategy file was computed for: recorded in it, or given by --game / -p."""
    name = game or strategy.meta.get("game")
    if not name:
        raise StrategyFileError(f"{file}: the file does not record its game; pass --game NAME (and -p key=value)")
    recorded = {} if game else strategy.meta.get("params", {})
    if not isinstance(recorded, dict):
        raise StrategyFileError(f"{file}: the recorded game parameters are not a key=value mapping")
    return name, {**{str(k): str(v) for k, v in recorded.items()}, **parse_params(param)}


@app.command("resolve")
@_reports_errors
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
    param: ParamsOption = [],  # noqa: B006
    as_json: JsonOption = False,
) -> None:
    """Apply a subgame-solving method to every subgame, for both players, and compare exploitability."""
    if method not in METHODS:
        raise CommandLineError(f"unknown method {method!r}; methods are: {', '.join(METHODS)}")
    from ..decompose import is_cfr_d_file

    if is_cfr_d_file(file):
        _resolve_cfr_d(file, iterations, out, as_json)
        return
    blueprint = Strategy.load(file)
    name, params = _strategy_game(file, blueprint, game, param)
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
    out.parent.mkdir(parents=True, exist_ok=True)
    _save_strategy(resolved, out, tree, game=name, params=params, algo=blueprint.meta.get("algo", "?"), resolved=method)
    _report_resolve(
        f"{_game_label(name, params)}: {method} on {len(roots)} subgames, {iterations} iterations each",
        (("blueprint", before), (method, after)),
        {"file": str(file), "game": name, "method": method, "subgames": len(roots), "iterations": iterations},
        out, started, as_json,
    )


def _report_resolve(title: str, rows: tuple[tuple[str, Exploitability], tuple[str, Exploitability]],
                    record: dict[str, Any], out: Path, started: float, as_json: bool) -> None:
    """Print exploitability before and after re-solving (a table, or one JSON object)."""
    seconds = time.perf_counter() - started
    if as_json:
        _echo_json({**record, "before": exploitability_record(rows[0][1]), "after": exploitability_record(rows[1][1]),
                    "out": str(out), "seconds": seconds})
        return
    table = Table(title=title)
    for col in ("", "exploitability (chips)", "mbb/g"):
        table.add_column(col, justify="right")
    for label, result in rows:
        table.add_row(label, format_cell(result.exploitability), format_cell(MBB_PER_CHIP * result.exploitability))
    _print(table)
    _print(f"wrote {out} ({seconds:.2f} s)")


def _resolve_cfr_d(file: Path, iterations: int, out: Path, as_json: bool) -> None:
    """``resolve`` of a CFR-D file: re-solve every subgame from the stored root values."""
    from ..decompose import load_cfr_d, reconstruct, stored_value_exploitability

    started = time.perf_counter()
    solution = load_cfr_d(file)
    before = stored_value_exploitability(solution)
    rebuilt = reconstruct(solution, iterations=iterations)
    after = rebuilt.exploitability()
    name, params = solution.meta.get("game"), solution.meta.get("params", {})
    out.parent.mkdir(parents=True, exist_ok=True)
    _save_strategy(rebuilt.strategy, out, rebuilt.tree, game=name, params=params, algo="cfr-d", resolved="resolve")
    _report_resolve(
        f"{file}: CFR-D trunk + every subgame re-solved from the stored values, {iterations} iterations",
        (("certified by the stored values", before), ("re-solved full strategy", after)),
        {"file": str(file), "game": name, "method": "resolve", "iterations": iterations},
        out, started, as_json,
    )


@app.command("reproduce")
@_reports_errors
def reproduce_command(
    name: Annotated[str, typer.Argument(help=f"Experiment: {', '.join(EXPERIMENTS)}.")],
    full: Annotated[bool, typer.Option("--full", help="The paper's sizes (slow); default is the reduced form.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of every random choice; one seed prints one table.")] = 0,
    out_dir: Annotated[Path, typer.Option(help="Folder for NAME.md and NAME.png.")] = Path("out"),
    workers: Annotated[int, typer.Option(min=1, help="Processes, for experiments that run in parallel (cfr-d).")] = 1,
    as_json: JsonOption = False,
) -> None:
    """Run one of the papers' experiments; write its markdown table and PNG plot."""
    experiment = EXPERIMENTS.get(name)
    if experiment is None:
        raise CommandLineError(f"unknown experiment {name!r}; experiments are: {', '.join(EXPERIMENTS)}")
    options: dict[str, Any] = {"full": full, "seed": seed}
    if "workers" in inspect.signature(experiment).parameters:
        options["workers"] = workers
    elif workers > 1:
        raise CommandLineError(f"experiment {name!r} runs in one process; drop --workers")
    console = Console(stderr=True)
    with console.status(f"running {name}{' (full)' if full else ''}…") if console.is_terminal and not as_json else nullcontext():
        result = experiment(**options)
    md, png = result.write(out_dir)
    if as_json:
        _echo_json({"name": name, "headers": list(result.headers), "rows": [list(map(format_cell, r)) for r in result.rows],
                    "table": str(md), "plot": str(png) if png else None})
        return
    table = Table(title=result.title)
    for h in result.headers:
        table.add_column(h, justify="right")
    for row in result.rows:
        table.add_row(*(format_cell(c) for c in row))
    _print(table)
    for note in result.notes:
        _print(note)
    _print(f"   table: {md}")
    if png:
        _print(f"    plot: {png}")
