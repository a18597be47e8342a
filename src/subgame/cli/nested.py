"""``subgame nested``: a blueprint in a bet abstraction meets off-tree bets by translation or by nested solving."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from ..eval.best_response import Exploitability, exploitability
from ..experiments.convergence import exploitability_record
from ..experiments.report import format_cell
from ..games import load_game
from ..resolving import NESTED_METHODS, BetAbstraction, nested_strategy, restrict, solve_off_tree, translation_strategy
from ..resolving.nested import Root
from ..solve.cfr import CFR_PLUS, CFRSolver
from ..strategy import Strategy
from ..tree.compile import compile_game
from .app import CommandLineError, JsonOption, ParamsOption, echo_json, exploitability_rows, game_label, parse_params, reports_errors, show


def parse_sizes(text: str) -> tuple[tuple[float, ...], bool]:
    """``"50,100,allin"`` -> ``((0.5, 1.0), True)``: bet sizes in percent of the pot, as poker solvers write them."""
    fractions, all_in = [], False
    for item in (s.strip().lower() for s in text.split(",") if s.strip()):
        if item == "allin":
            all_in = True
            continue
        try:
            fractions.append(float(item.rstrip("%")) / 100.0)
        except ValueError:
            raise CommandLineError(f"bad bet size {item!r} in --keep: write percents of the pot and 'allin', e.g. 50,100,allin") from None
    return tuple(fractions), all_in


@reports_errors
def nested_command(
    game: Annotated[str, typer.Argument(help="A no-limit game of the poker family (e.g. leduc_nolimit, or poker with -p).")],
    keep: Annotated[str, typer.Option(help="The abstraction's bet sizes, percent of the pot: e.g. 50,100,allin.")],
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    method: Annotated[str, typer.Option(help=f"Nested-solving method: {', '.join(NESTED_METHODS)}.")] = "resolve",
    root: Annotated[Root, typer.Option(help="inexpensive (subgame after the off-tree bet) or expensive (before it).")] = "inexpensive",
    blueprint_iterations: Annotated[int, typer.Option(min=1, help="CFR+ iterations of the blueprint in the abstraction.")] = 1000,
    iterations: Annotated[int, typer.Option("--iterations", "-n", help="CFR+ iterations per nested subgame.")] = 500,
    off_tree: Annotated[str | None, typer.Option(help="Answer only this bet (its public name, e.g. r5) ...")] = None,
    at: Annotated[str, typer.Option(help="... taken at this public state: the betting after the deal, e.g. 'c,r4' ('' = the first action).")] = "",
    as_json: JsonOption = False,
) -> None:
    """Exact exploitability of a player who uses a bet abstraction and meets every off-tree bet by
    pseudo-harmonic translation or by nested subgame solving (safe-and-nested §6); with
    --off-tree, the re-solve of one off-tree bet and its margins."""
    started = time.perf_counter()
    params = parse_params(param)
    game_obj = load_game(game, **params)
    fractions, all_in = parse_sizes(keep)
    abstraction = BetAbstraction(game_obj, fractions, all_in)  # type: ignore[arg-type]  # refused with a clear error if not poker
    tree = compile_game(game_obj)
    abstract = restrict(game_obj, tree, abstraction)
    blueprint = CFRSolver(abstract, CFR_PLUS).run(blueprint_iterations).average_strategy()
    label = f"{game_label(game, params)}, abstraction {keep}"
    if off_tree is not None:
        state = ("", "") + tuple(s.strip() for s in at.split(",") if s.strip())
        sol = solve_off_tree(game_obj, tree, abstraction, blueprint, state, off_tree, method, root=root, iterations=iterations)
        one = {"game": game, "params": params, "keep": keep, "off_tree": off_tree, "at": list(state[2:]), "method": method,
                  "root": root, "responder": sol.player, "root_infosets": len(sol.margins),
                  "min_margin_chips": float(sol.margins.min()), "seconds": time.perf_counter() - started}
        if as_json:
            echo_json(one)
            return
        show(f"{label}: {off_tree} at [{at}] answered by player {sol.player} with {method} ({root}), {iterations} iterations; "
             f"{len(sol.margins)} root information sets of the opponent, minimum margin {format_cell(float(sol.margins.min()))} chips")
        return
    rows: list[tuple[str, Exploitability]] = [("blueprint (in the abstraction)", exploitability(abstract, blueprint)),
                                              ("pseudo-harmonic translation", _both(tree, [translation_strategy(
                                                  game_obj, tree, abstraction, blueprint, p) for p in (0, 1)]))]
    nested = [nested_strategy(game_obj, tree, abstraction, blueprint, p, method, root=root, iterations=iterations) for p in (0, 1)]
    rows.append((f"nested {method} ({root})", _both(tree, [r.probs for r in nested])))
    record: dict[str, Any] = {"game": game, "params": params, "keep": keep, "method": method, "root": root,
                              "subgames": sum(r.subgames for r in nested), "levels": max(r.levels for r in nested),
                              "rows": {name: exploitability_record(e) for name, e in rows},
                              "seconds": time.perf_counter() - started}
    if as_json:
        echo_json(record)
        return
    show(exploitability_rows(f"{label}: the small-abstraction player in both seats", rows))
    show(f"{record['subgames']} subgames solved, {record['levels']} nesting levels, {record['seconds']:.2f} s")


def _both(tree: Any, probs: list[Any]) -> Exploitability:
    return exploitability(tree, Strategy(tree.game_id, (probs[0], probs[1])))
