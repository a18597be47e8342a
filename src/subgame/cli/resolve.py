"""``subgame resolve``: re-solve every subgame of a blueprint (or of a CFR-D file) and compare exploitability.

With ``--depth-limit`` (or ``--chance-limit``) the blueprint is re-solved by depth-limited
solving with multi-valued states instead (depth-limited paper §4): at the game's start, or
at every public state of ``--depth``, cut at the limit, against K opponent continuations.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ..decompose import is_cfr_d_file, load_cfr_d, reconstruct, stored_value_exploitability
from ..depthlimited import CONTINUATIONS, DepthLimitedSpec, TableValues, depth_limited_resolve, load_leaf_tables, save_leaf_tables
from ..eval.best_response import Exploitability, exploitability
from ..experiments.convergence import exploitability_record
from ..resolving import METHODS, resolve_all, subgame_roots
from ..resolving.spot_resolve import SPOT_METHODS
from .app import (
    CommandLineError,
    JsonOption,
    ParamsOption,
    echo_json,
    exploitability_rows,
    game_label,
    load_strategy_on_game,
    progress_bar,
    reports_errors,
    save_strategy,
    show,
)
from .holdem import is_holdem, resolve_holdem


@reports_errors
def resolve_command(
    file: Annotated[Path, typer.Argument(help="The blueprint: a strategy file written by 'subgame solve', a CFR-D file, "
                                               "or a Libratus endgame file (.txt) to re-solve against a coarser blueprint.")],
    method: Annotated[str | None, typer.Option(help=f"Subgame-solving method: {', '.join(METHODS)} (default resolve); for "
                                                    f"an endgame, one or more of {', '.join(SPOT_METHODS)} (default all).")] = None,
    depth: Annotated[
        int | None,
        typer.Option(help="Root the subgames at the public nodes of this depth (default: the start of every betting "
                          "round that follows a public chance event, e.g. Leduc's second round)."),
    ] = None,
    iterations: Annotated[int, typer.Option("--iterations", "-n", help="CFR+ iterations per subgame solve.")] = 1000,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the combined strategy.")] = Path("resolved.npz"),
    game: Annotated[str | None, typer.Option(help="The game, when the file does not record it.")] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    depth_limit: Annotated[
        int | None,
        typer.Option(help="Depth-limited solving with multi-valued states: cut each re-solved tree this many public "
                          "levels below its root (the game's start, or the nodes of --depth)."),
    ] = None,
    chance_limit: Annotated[
        int | None,
        typer.Option(help="Depth-limited solving cut after this many public chance events instead (1: at Leduc's "
                          "second round)."),
    ] = None,
    values: Annotated[int | None, typer.Option("--values", help="K, the opponent's continuations per leaf state "
                                                                "(depth-limited solving; default 4).")] = None,
    continuations: Annotated[
        str | None, typer.Option(help=f"Continuation set: {', '.join(CONTINUATIONS)} (default bias).")
    ] = None,
    leaf_values: Annotated[str, typer.Option(help="Leaf values: exact or rollouts.")] = "exact",
    rollouts: Annotated[int, typer.Option(help="Rollouts per leaf history and continuation (--leaf-values rollouts).")] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the rollouts.")] = 0,
    value_table: Annotated[
        Path | None, typer.Option(help="Stored leaf values (written by --save-values) to use instead of computing them.")
    ] = None,
    save_values: Annotated[Path | None, typer.Option(help="Write the leaf values used to this file.")] = None,
    weaken: Annotated[bool, typer.Option("--weaken", help="Weaken the continuations to do no better than the blueprint "
                                                          "against the re-solver's blueprint (depth-limited paper §4).")] = False,
    bets: Annotated[str | None, typer.Option(help="Endgame: the bets it is re-solved in (default 0.5,1,allin).")] = None,
    blueprint_bets: Annotated[str | None, typer.Option(help="Endgame: the blueprint's coarser bets, e.g. 1,allin.")] = None,
    raise_cap: Annotated[int, typer.Option(min=0, help="Endgame: most bets and raises per street in both bet abstractions (0: no cap).")] = 3,
    blueprint_target: Annotated[str | None, typer.Option(help="Endgame: solve the blueprint to this exploitability "
                                                              "(default 0.5%pot).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Apply a subgame-solving method to every subgame, for both players, and compare exploitability."""
    endgame_options = {"--bets": bets, "--blueprint-bets": blueprint_bets, "--blueprint-target": blueprint_target}
    if is_holdem(str(file)):
        resolve_holdem(file, method, bets, blueprint_bets, raise_cap, iterations, blueprint_target, out, as_json)
        return
    given = [name for name, v in endgame_options.items() if v is not None] + ["--raise-cap"] * (raise_cap != 3)
    if given:
        raise CommandLineError(f"{given[0]} is an option of re-solving a hold'em endgame file (.txt)")
    method = method or "resolve"
    if method not in METHODS:
        raise CommandLineError(f"unknown method {method!r}; methods are: {', '.join(METHODS)}")
    dl_options = {"--values": values, "--continuations": continuations, "--value-table": value_table,
                  "--save-values": save_values}
    if depth_limit is None and chance_limit is None:
        given = [name for name, v in dl_options.items() if v is not None]
        if given:
            raise CommandLineError(f"{given[0]} is an option of depth-limited solving: give --depth-limit (or --chance-limit)")
    else:
        if is_cfr_d_file(file):
            raise CommandLineError("depth-limited solving re-solves a strategy file, not a CFR-D file")
        if method not in ("resolve", "unsafe"):
            raise CommandLineError(f"depth-limited solving takes --method resolve or unsafe (the root gadget), not {method!r}")
        _resolve_depth_limited(
            file, game, param, depth, iterations, out, as_json, method,
            DepthLimitedSpec(depth_limit=depth_limit, chance_limit=chance_limit, num_values=4 if values is None else values,
                             continuations=continuations or "bias",  # type: ignore[arg-type]
                             leaf_values=leaf_values, rollouts=rollouts, seed=seed,  # type: ignore[arg-type]
                             gadget=method, iterations=iterations, weaken=weaken),  # type: ignore[arg-type]
            value_table, save_values,
        )
        return
    if is_cfr_d_file(file):
        _resolve_cfr_d(file, iterations, out, as_json)
        return
    blueprint, name, params, game_obj, tree = load_strategy_on_game(file, game, param)
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


def _resolve_depth_limited(
    file: Path, game: str | None, param: list[str], depth: int | None, iterations: int, out: Path, as_json: bool,
    method: str, spec: DepthLimitedSpec, value_table: Path | None, save_values: Path | None,
) -> None:
    """``resolve --depth-limit``: depth-limited solving with multi-valued states for both players."""
    started = time.perf_counter()
    blueprint, name, params, game_obj, tree = load_strategy_on_game(file, game, param)
    blueprint.check(tree)
    roots = None
    if depth is not None:
        roots = [tree.public_key[n] for n in range(tree.num_nodes) if tree.depth[n] == depth and tree.kind[n] in (0, 1)]
        if not roots:
            raise CommandLineError(f"{name} has no public state to re-solve at depth {depth}; pick another --depth")
    tables = None if value_table is None else TableValues(load_leaf_tables(value_table, game_obj))
    before = exploitability(tree, blueprint)
    solves = 2 * (1 if roots is None else len(roots))
    with progress_bar(solves, 0, not as_json) as update:
        result = depth_limited_resolve(game_obj, tree, blueprint, spec, roots=roots, tables=tables, on_solve=update)
    after = exploitability(tree, result.strategy)
    save_strategy(result.strategy, out, tree, game=name, params=params, algo=blueprint.meta.algo or "?",
                  resolved=f"depth-limited-{method}")
    if save_values is not None:
        save_leaf_tables(save_values, result.tables)
    where = "the game's start" if roots is None else f"{len(roots)} public states of depth {depth}"
    limit = f"depth limit {spec.depth_limit}" if spec.depth_limit is not None else f"chance limit {spec.chance_limit}"
    source = str(value_table) if value_table is not None else spec.leaf_values
    label = f"depth-limited, K={spec.num_values}"
    _report(
        f"{game_label(name, params)}: depth-limited solving at {where}, {limit}, K = {spec.num_values} "
        f"({'stored' if tables is not None else spec.continuations}, {source} values), {iterations} iterations",
        (("blueprint", before), (label, after)),
        {"file": str(file), "game": name, "method": method, "depth_limit": spec.depth_limit,
         "chance_limit": spec.chance_limit, "values": spec.num_values,
         "continuations": "stored" if tables is not None else spec.continuations, "leaf_values": source,
         "roots": len(result.roots), "iterations": iterations, "weaken": spec.weaken,
         "depth_limited_values": [s.value for s in result.solutions],
         "value_table": None if save_values is None else str(save_values)},
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
    show(exploitability_rows(title, rows))
    show(f"wrote {out} ({seconds:.2f} s)")
