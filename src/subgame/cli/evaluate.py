"""``subgame evaluate``: exploitability, best-response values and the value of a strategy file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..decompose import is_cfr_d_file
from ..errors import StrategyFileError
from ..eval.best_response import exploitability
from ..experiments.convergence import exploitability_record
from ..strategy import Strategy, StrategyMeta
from .app import JsonOption, ParamsOption, compile_named, echo_json, evaluation_table, game_label, reports_errors, show, strategy_game
from .holdem import evaluate_holdem


@reports_errors
def evaluate_command(
    file: Annotated[Path, typer.Argument(help="A strategy file written by 'subgame solve'.")],
    game: Annotated[
        str | None, typer.Option(help="The game, when the file does not record it (files from 'subgame solve' do).")
    ] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    as_json: JsonOption = False,
) -> None:
    """Exploitability, best-response values and the value of a strategy file.

    The game and its parameters come from the file; --game replaces both, -p alone
    overrides single parameters.
    """
    if is_cfr_d_file(file):
        raise StrategyFileError(
            f"{file} holds CFR-D's trunk strategy and root values, not a full strategy; "
            f"rebuild one with 'subgame resolve {file} --out FULL.npz' and evaluate that"
        )
    strategy = Strategy.load(file)
    if game is None and not param and evaluate_holdem(file, strategy, as_json):
        return
    name, params = strategy_game(file, strategy, game, param)
    tree = compile_named(name, params)
    result = exploitability(tree, strategy.check(tree))
    if as_json:
        echo_json({"file": str(file), "game": name, "params": params, **exploitability_record(result)})
        return
    show(evaluation_table(result, f"{file}: {game_label(name, params)}{_provenance(strategy.meta)}"))


def _provenance(meta: StrategyMeta) -> str:
    """``, cfr+, 300 iterations, subgames re-solved with resolve``: what the file records of its making."""
    how = f", {meta.algo}" if meta.algo is not None else ""
    how += f", {meta.iterations} iterations" if meta.iterations else ""
    how += f", subgames re-solved with {meta.resolved}" if meta.resolved is not None else ""
    return how
