"""``subgame solve`` on a hold'em spot: a Libratus endgame file or ``holdem-subgame`` with board, pot and ranges.

The spot is solved with a CFR preset under its ranges until the exploitability reaches a
target in % of the pot (or the iterations or seconds run out); progress shows the
exploitability in % of the pot. ``--json`` reports seconds, iterations, peak memory
(the process's maximum resident set size, and that maximum when the spot's work began: in a
process of its own, the interpreter and the libraries) and the exploitability.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..files import write_atomic
from ..games.poker.holdem import GAME_NAME, BetSizing, HoldemSpot
from ..games.poker.libratus import read_endgame
from ..games.poker.ranges import SUIT_CHARS, Range, format_range, parse_board, read_ranges
from ..parallel import peak_rss_bytes
from ..resolving.spot_resolve import RISE_TOLERANCE_PCT_POT, SPOT_METHODS, resolve_endgame
from ..resolving.spots import HandGrid, SpotPoint, hand_grid, holdem_problem, solve_spot
from ..solve.cfr import PRESETS
from ..strategy import Strategy
from ..tree.isomorphism import SuitClasses
from ..tree.size import gib_to_bytes
from .app import PLAIN_PROGRESS_SECONDS, CommandLineError, echo_json, exit_if_interrupted, save_strategy, show

CLI_NAMES = (GAME_NAME, GAME_NAME.replace("_", "-"))


@dataclass(frozen=True)
class HoldemOptions:
    """The options of ``solve`` that describe a hold'em spot (``None``: not given)."""

    board: str | None = None
    pot: int | None = None
    stack: int | None = None
    starting_stack: int | None = None
    ranges: str | None = None
    bets: str | None = None
    raise_cap: int = 3
    target: str | None = None
    seconds: float | None = None
    evaluate_every: int = 10
    grid: Path | None = None
    isomorphism: bool = True
    dtype: str = "float64"  #: the precision of the stored regrets and average (also taken by other CFR solves)
    drop_zero_weight: bool = True  #: rows only of the hands in the ranges (the same average strategy)
    compact: bool = True  #: regrets and average per node over its own actions only
    compute: str = "float64"  #: the precision the passes compute in (float32: as postflop-solver)
    compress: bool = False  #: regrets and average in 16 bits, a unit per node (postflop-solver's compression)

    def given(self) -> list[str]:
        names = {"board": "--board", "pot": "--pot", "stack": "--stack", "starting_stack": "--starting-stack",
                 "ranges": "--ranges", "bets": "--bets", "target": "--target", "seconds": "--time", "grid": "--grid"}
        out = [flag for field, flag in names.items() if getattr(self, field) is not None]
        out += ["--raise-cap"] * (self.raise_cap != 3) + ["--evaluate-every"] * (self.evaluate_every != 10)
        out += ["--no-isomorphism"] * (not self.isomorphism) + ["--keep-zero-weight"] * (not self.drop_zero_weight)
        out += ["--no-compact"] * (not self.compact) + ["--compute"] * (self.compute != "float64")
        out += ["--compress"] * self.compress
        return out


def is_holdem(game: str) -> bool:
    """Whether ``solve GAME`` names a hold'em spot: ``holdem-subgame`` or an endgame file (``.txt``)."""
    return game in CLI_NAMES or Path(game).suffix.lower() == ".txt"


def parse_target(text: str) -> float:
    """``"0.5%pot"``, ``"0.5%"`` or ``"0.5"`` -> 0.5 (percent of the pot)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(%\s*(pot)?)?\s*", text)
    if match is None or not float(match.group(1)) > 0:
        raise CommandLineError(f"--target {text!r}: write a positive percentage of the pot, e.g. '0.5%pot'")
    return float(match.group(1))


def _spot_and_ranges(game: str, opts: HoldemOptions, bets: BetSizing) -> tuple[HoldemSpot, tuple[Range, Range], str]:
    if game not in CLI_NAMES:  # an endgame file: board, pot and ranges come from it
        given = [flag for flag, value in (("--board", opts.board), ("--pot", opts.pot), ("--stack", opts.stack),
                                          ("--starting-stack", opts.starting_stack), ("--ranges", opts.ranges))
                 if value is not None]
        if given:
            raise CommandLineError(f"{', '.join(given)}: an endgame file gives the board, pot, stacks and ranges; "
                                   "drop these options or use 'holdem-subgame'")
        endgame = read_endgame(game)
        return endgame.spot(bets), endgame.ranges, Path(game).name
    missing = [flag for flag, value in (("--board", opts.board), ("--pot", opts.pot)) if value is None]
    if opts.stack is None and opts.starting_stack is None:
        missing.append("--stack (chips behind) or --starting-stack")
    if missing:
        raise CommandLineError(f"holdem-subgame needs {', '.join(missing)}")
    if opts.stack is not None and opts.starting_stack is not None:
        raise CommandLineError("give --stack (chips each player has behind) or --starting-stack, not both")
    board, pot = parse_board(opts.board or ""), opts.pot or 0
    if opts.starting_stack is not None:
        spot = HoldemSpot.from_starting_stack(board, pot, opts.starting_stack, bets)
    else:
        spot = HoldemSpot(board, pot, opts.stack or 0, bets)
    if spot.stack == 0:
        raise CommandLineError(f"{spot.describe()}: nothing behind, so nobody can bet and there is nothing to solve; "
                               "give the chips each player has behind with --stack")
    where = opts.ranges or "uniform"
    if where == "uniform":
        ranges = (Range.uniform(board), Range.uniform(board))
    elif Path(where).is_file():
        ranges = read_ranges(where, board)
    else:
        why = "not a file" if Path(where).exists() else "no such file"
        raise CommandLineError(f"--ranges {where}: {why}; give a range file (one line for both players, or two lines, "
                               "as in examples/ranges/) or 'uniform'")
    return spot, ranges, game


def solve_holdem(game: str, opts: HoldemOptions, algo: str, iterations: int, out: Path | None, seed: int,
                 max_memory: float | None, as_json: bool) -> None:
    """``subgame solve`` for a hold'em spot (see the module docstring)."""
    if algo not in PRESETS:
        raise CommandLineError(f"--algo {algo} does not solve hold'em spots; use one of {', '.join(PRESETS)}")
    target = None if opts.target is None else parse_target(opts.target)
    started, rss_at_start = time.perf_counter(), peak_rss_bytes()
    bets = BetSizing.parse(opts.bets or "0.5,1,allin", opts.raise_cap)
    spot, ranges, label = _spot_and_ranges(game, opts, bets)
    problem = holdem_problem(spot, ranges, max_bytes=gib_to_bytes(max_memory), isomorphism=opts.isomorphism)
    compiled = time.perf_counter() - started
    if not as_json:
        show(f"{label}: {spot.describe()}; {problem.tree.num_nodes:,} public nodes, "
             f"{problem.tree.players[0].num_states + problem.tree.players[1].num_states:,} private states "
             f"(built in {compiled:.2f} s; {_suits_text(problem.suits)})")
    with _progress(iterations, not as_json) as update:
        solved = solve_spot(problem, PRESETS[algo], target_pct_pot=target, iterations=iterations, seconds=opts.seconds,
                            evaluate_every=opts.evaluate_every, progress=update, dtype=opts.dtype,
                            drop_zero_weight=None if opts.drop_zero_weight else False,
                            compact=None if opts.compact else False, compute=opts.compute, compress=opts.compress)
    peak = peak_rss_bytes()
    if out is not None:
        avg = solved.strategy
        extra = {"ranges": [format_range(r) for r in ranges], "isomorphism": problem.suits is not None}
        strategy = Strategy(avg.game_id, avg.probs, replace(avg.meta, extra=extra))
        save_strategy(strategy, out, problem.tree, game=GAME_NAME, params={k: str(v) for k, v in spot.params().items()},
                      algo=algo, seed=seed)
    if opts.grid is not None:
        plot_hand_grid(hand_grid(problem, solved.strategy), opts.grid)
    final = solved.final
    record: dict[str, Any] = {
        "game": GAME_NAME, "source": game, "spot": spot.params(), "algo": algo, "iterations": solved.iterations,
        "stopped": solved.stopped, "target_pct_pot": target, "seconds": solved.seconds, "build_seconds": compiled,
        "peak_rss_mib": peak / 2**20, "rss_at_start_mib": rss_at_start / 2**20, "exploitability_pct_pot": final.pct_pot,
        "exploitability_chips": final.chips,
        "br_values_chips": list(final.br_values), "value_chips": final.game_value,
        "curve": [{"iteration": p.iteration, "seconds": p.seconds, "pct_pot": p.exploitability.pct_pot}
                  for p in solved.curve],
        "out": None if out is None else str(out), "grid": None if opts.grid is None else str(opts.grid),
        "isomorphism": _suits_text(problem.suits), "public_nodes": problem.tree.num_nodes,
        "private_states": problem.tree.num_private_states,
        "loops": solved.solver.loops,
        "dtype": opts.dtype,
        "drop_zero_weight": solved.solver.drop_zero_weight,
        "compact": solved.solver.compact,
        "compute": solved.solver.compute,
        "compress": solved.solver.compress,
    }
    if as_json:
        echo_json(record)
    else:
        show(_summary(record))
    exit_if_interrupted(solved.stopped == "interrupted", solved.iterations, None, "average strategy",
                        out if out is not None else Path("(not written: no --out)"))
    if out is not None and not as_json:
        show(f"wrote {out}")


def _suits_text(suits: SuitClasses | None) -> str:
    """``"suits h=d=c interchangeable"`` or ``"no suit isomorphism"``."""
    if suits is None:
        return "no suit isomorphism"
    return "suits " + ", ".join("=".join(SUIT_CHARS[s] for s in c) for c in suits.classes if len(c) > 1) + " interchangeable"


def _summary(record: dict[str, Any]) -> Table:
    table = Table(title=f"{record['source']}: {record['algo']}, stopped by {record['stopped']}", title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    rows = [
        ("iterations", f"{record['iterations']}"),
        ("seconds (solve, evaluations included)", f"{record['seconds']:.2f}"),
        ("seconds (building the tree)", f"{record['build_seconds']:.2f}"),
        ("loops (passes: depth-first over the layout; compiled: the sweeps)", record["loops"]),
        ("peak memory (max RSS, MiB)", f"{record['peak_rss_mib']:.0f}"),
        ("memory when the spot's work began (RSS, MiB)", f"{record['rss_at_start_mib']:.0f}"),
        ("exploitability (% of the pot)", f"{record['exploitability_pct_pot']:.4f}"),
        ("exploitability (chips per deal)", f"{record['exploitability_chips']:.3f}"),
        ("value for the first player (chips)", f"{record['value_chips']:.3f}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    return table


def resolve_holdem(file: Path, methods: str | None, bets: str | None, blueprint_bets: str | None, raise_cap: int,
                   iterations: int, blueprint_target: str | None, out: Path, as_json: bool) -> None:
    """``subgame resolve ENDGAME.txt``: re-solve an endgame in ``--bets`` against its blueprint in ``--blueprint-bets``.

    The blueprint is the endgame solved in the coarser bets to ``--blueprint-target``; each
    method re-solves both players in the finer bets with the blueprint's counterfactual
    best-response values as the opponent's alternative payoffs (:mod:`subgame.resolving.spot_resolve`).
    """
    names = tuple(m.strip() for m in (methods or ",".join(SPOT_METHODS)).split(","))
    unknown = [m for m in names if m not in SPOT_METHODS]
    if unknown or not names:
        raise CommandLineError(f"--method {methods!r}: an endgame is re-solved with {', '.join(SPOT_METHODS)} "
                               "(one, or several separated by commas)")
    if blueprint_bets is None:
        raise CommandLineError("re-solving an endgame needs the blueprint's coarser bets, e.g. --blueprint-bets 1,allin")
    started = time.perf_counter()
    fine_bets = BetSizing.parse(bets or "0.5,1,allin", raise_cap)
    coarse_bets = BetSizing.parse(blueprint_bets, raise_cap)
    endgame = read_endgame(file)
    fine = holdem_problem(endgame.spot(fine_bets), endgame.ranges)
    target = 0.5 if blueprint_target is None else parse_target(blueprint_target)
    blueprint, resolves = resolve_endgame(fine, coarse_bets, names, iterations=iterations,  # type: ignore[arg-type]
                                          blueprint_target=target)
    if len(resolves) == 1:
        strategy = Strategy(resolves[0].strategy.game_id, resolves[0].strategy.probs,
                            replace(resolves[0].strategy.meta, extra={"ranges": [format_range(r) for r in endgame.ranges],
                                                                      "isomorphism": fine.suits is not None}))
        save_strategy(strategy, out, fine.tree, game=GAME_NAME, params={k: str(v) for k, v in fine.spot.params().items()},
                      algo="cfr+", resolved=names[0])
    rows = [{"method": r.method, "exploitability_pct_pot": r.exploitability.pct_pot,
             "value_change_chips": list(r.value_change), "worst_rise_pct_pot": list(r.worst_rise),
             "hands_above_blueprint": list(r.hands_above),
             "seconds": r.seconds} for r in resolves]
    record = {"file": str(file), "spot": fine.spot.params(), "blueprint_bets": str(coarse_bets),
              "blueprint_iterations_pct_pot": blueprint.exploitability.pct_pot, "blueprint_seconds": blueprint.seconds,
              "iterations": iterations, "methods": rows, "out": str(out) if len(resolves) == 1 else None,
              "seconds": time.perf_counter() - started}
    if as_json:
        echo_json(record)
        return
    table = Table(title=f"{endgame.describe()}: re-solved in bets {fine_bets} against a blueprint in bets {coarse_bets} "
                        f"({blueprint.exploitability.pct_pot:.3f} % pot in its own bets), {iterations} iterations",
                  title_justify="left")
    for column in ("method", "% pot", "gain p0/p1 (chips)", "worst hand p0/p1 (% pot)",
                   f"hands > {RISE_TOLERANCE_PCT_POT} % pot", "s"):
        table.add_column(column, justify="left" if column == "method" else "right")
    for r in resolves:
        table.add_row(r.method, f"{r.exploitability.pct_pot:.3f}", f"{r.value_change[0]:+.1f}/{r.value_change[1]:+.1f}",
                      f"{r.worst_rise[0]:.2f}/{r.worst_rise[1]:.2f}", f"{r.hands_above[0]}/{r.hands_above[1]}",
                      f"{r.seconds:.1f}")
    show(table)
    show("% pot: exploitability of the two re-solves under the ranges; gain: the opponent's best-response value "
         "against each re-solver minus hers against the blueprint (chips per deal); worst hand: the largest rise of "
         "one opponent hand's value over the blueprint's, per deal of that hand", wrap=True)
    if len(resolves) == 1:
        show(f"wrote {out}")


def evaluate_holdem(file: Path, strategy: Strategy, as_json: bool) -> bool:
    """``subgame evaluate`` of a hold'em spot's strategy file under the ranges it records; False if it records none."""
    ranges_text = strategy.meta.extra.get("ranges")
    if strategy.meta.game != GAME_NAME or not isinstance(ranges_text, list) or len(ranges_text) != 2:
        return False
    params = strategy.meta.params or {}
    bets = BetSizing.parse(params.get("bets", "0.5,1,allin"), int(params.get("raise_cap", "3")))
    spot = HoldemSpot(parse_board(params.get("board", "")), int(params.get("pot", "0")), int(params.get("stack", "0")), bets)
    ranges = (Range.parse(ranges_text[0], spot.board), Range.parse(ranges_text[1], spot.board))
    problem = holdem_problem(spot, ranges, isomorphism=strategy.meta.extra.get("isomorphism") is True)
    result = problem.exploitability(strategy.check(problem.tree))
    record = {"file": str(file), "game": GAME_NAME, "spot": spot.params(), "exploitability_pct_pot": result.pct_pot,
              "exploitability_chips": result.chips, "br_values_chips": list(result.br_values),
              "value_chips": result.game_value}
    if as_json:
        echo_json(record)
        return True
    table = Table(title=f"{file}: {spot.describe()}, under the ranges the file records", title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_row("exploitability (% of the pot)", f"{result.pct_pot:.4f}")
    table.add_row("exploitability (chips per deal)", f"{result.chips:.3f}")
    table.add_row("best-response value, player 0 (chips)", f"{result.br_values[0]:.3f}")
    table.add_row("best-response value, player 1 (chips)", f"{result.br_values[1]:.3f}")
    table.add_row("value for the first player (chips)", f"{result.game_value:.3f}")
    show(table)
    return True


def plot_hand_grid(grid: HandGrid, path: Path) -> Path:
    """Draw a :class:`HandGrid` as a PNG: each cell split in bars by action probability, the class named."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    ranks = "AKQJT98765432"
    names = grid.actions
    bets = [a for a in names if a not in ("f", "c")]
    reds = {a: (0.95 - 0.55 * k / max(1, len(bets) - 1) if len(bets) > 1 else 0.8, 0.25, 0.25) for k, a in enumerate(bets)}
    colors = [(0.35, 0.55, 0.85) if a == "f" else (0.35, 0.75, 0.4) if a == "c" else reds[a] for a in names]
    fig = Figure(figsize=(8.0, 8.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i in range(13):
        for j in range(13):
            probs = grid.probs[i, j]
            x = float(j)
            if not np.isnan(probs).any():
                for q, color in zip(probs, colors):
                    ax.add_patch(Rectangle((x, 12 - i), q, 1.0, color=color, linewidth=0))
                    x += q
            else:
                ax.add_patch(Rectangle((j, 12 - i), 1.0, 1.0, color=(0.9, 0.9, 0.9), linewidth=0))
            label = ranks[i] + ranks[j] if i == j else ranks[min(i, j)] + ranks[max(i, j)] + ("s" if i < j else "o")
            ax.text(j + 0.5, 12.5 - i, label, ha="center", va="center", fontsize=7)
    ax.set_xlim(0, 13)
    ax.set_ylim(0, 13)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    labels = {"f": "fold", "c": "check / call"}
    ax.legend(handles=[Patch(color=c, label=labels.get(a, a)) for a, c in zip(names, colors)], loc="upper center",
              bbox_to_anchor=(0.5, -0.01), ncol=min(6, len(names)), fontsize=8)
    ax.set_title(grid.title, fontsize=9)
    return write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=110))


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Callable[[SpotPoint], None]]:
    """A bar with the latest exploitability in % of the pot (plain lines when stderr is not a terminal)."""
    console = Console(stderr=True)
    if enabled and not console.is_terminal:
        last = [float("-inf")]

        def line(point: SpotPoint) -> None:
            if point.seconds - last[0] >= PLAIN_PROGRESS_SECONDS:
                last[0] = point.seconds
                print(f"iteration {point.iteration}, {point.seconds:.1f} s, exploitability "
                      f"{point.exploitability.pct_pot:.3f} % pot", file=sys.stderr, flush=True)

        yield line
        return
    with Progress(TextColumn("CFR"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[gap]}"),
                  TimeElapsedColumn(), console=console, transient=True, disable=not enabled) as progress:
        task = progress.add_task("iterations", total=total, gap="")

        def update(point: SpotPoint) -> None:
            progress.update(task, completed=point.iteration, gap=f"{point.exploitability.pct_pot:.3f} % pot")

        yield update


__all__ = ["HoldemOptions", "evaluate_holdem", "is_holdem", "parse_target", "resolve_holdem", "solve_holdem"]
