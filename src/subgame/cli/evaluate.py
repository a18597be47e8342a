"""``subgame evaluate``: exploitability, best-response values and the value of a strategy file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..blueprint.card_abstraction import BucketStrategy, is_bucket_strategy_file
from ..decompose import is_cfr_d_file
from ..errors import StrategyFileError
from ..eval.best_response import exploitability
from ..eval.board_pass import BoardPassResult, RowSource, board_pass_exploitability, strategy_rows
from ..experiments.convergence import exploitability_record
from ..games import load_game
from ..games.base import Game
from ..games.poker import PokerGame
from ..strategy import Strategy, StrategyMeta
from ..tree.size import human_bytes
from .app import (
    EXIT_INTERRUPTED,
    CommandLineError,
    JsonOption,
    ParamsOption,
    compile_named,
    echo_json,
    evaluation_table,
    game_label,
    parse_params,
    progress_bar,
    reports_errors,
    show,
    strategy_game,
    warn,
)
from .holdem import evaluate_holdem


@reports_errors
def evaluate_command(
    file: Annotated[Path, typer.Argument(help="A strategy file written by 'subgame solve'.")],
    game: Annotated[
        str | None, typer.Option(help="The game, when the file does not record it (files from 'subgame solve' do).")
    ] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    board_pass: Annotated[
        bool, typer.Option("--board-pass", help="Evaluate one batch of boards at a time below the first chance event "
                           "(exact; automatic for a card-abstracted blueprint file).")
    ] = False,
    batch: Annotated[int, typer.Option("--batch", min=1, help="--board-pass: boards per compiled forest.")] = 8,
    isomorphic: Annotated[
        bool, typer.Option("--isomorphic", help="Board pass compiling one board per class of suit-isomorphic boards "
                           "(implies --board-pass; for suit-symmetric strategies, checked on the trunk and a few boards).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Exploitability, best-response values and the value of a strategy file.

    The game and its parameters come from the file; --game replaces both, -p alone
    overrides single parameters. A card-abstracted blueprint stored per bucket is
    evaluated in the real game by a pass over boards that holds the trunk and one batch
    of boards, never the whole tree (--board-pass asks the same of any strategy file).
    --isomorphic compiles one board per class of suit-isomorphic boards and renames hands
    for the others: exact for a strategy that suit permutations leave unchanged (a blueprint
    whose buckets are suit-invariant, the uniform strategy), and refused otherwise (the
    trunk's reaches and two boards are checked); it is not the default because per-hand
    preflop rows solved by sampling need not be symmetric.
    """
    if is_bucket_strategy_file(file):
        _evaluate_blueprint(file, game, param, batch, isomorphic, as_json)
        return
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
    if board_pass or isomorphic:
        passed = _board_pass(load_game(name, **params), strategy_rows(tree, strategy), batch, isomorphic, as_json)
        _show_board_pass(file, name, params, passed, as_json)
        return
    result = exploitability(tree, strategy.check(tree))
    if as_json:
        echo_json({"file": str(file), "game": name, "params": params, **exploitability_record(result)})
        return
    show(evaluation_table(result, f"{file}: {game_label(name, params)}{_provenance(strategy.meta)}"))


def _evaluate_blueprint(file: Path, game: str | None, param: list[str], batch: int, isomorphic: bool, as_json: bool) -> None:
    """A :class:`BucketStrategy` file: its exact exploitability in the real game by the board pass."""
    blueprint, meta = BucketStrategy.load(file)
    name = game or meta.get("game")
    if not isinstance(name, str):
        raise StrategyFileError(f"{file}: the file does not record its game; pass --game NAME (and -p key=value)")
    recorded = meta.get("params") if not game and isinstance(meta.get("params"), dict) else {}
    params = {**recorded, **parse_params(param)}  # type: ignore[dict-item]
    game_obj = load_game(name, **params)
    if not isinstance(game_obj, PokerGame):
        raise CommandLineError(f"{file}: a card-abstracted blueprint is for a poker game, not {name}")
    result = _board_pass(game_obj, lambda t, p: blueprint.rows(game_obj, t, p), batch, isomorphic, as_json)
    _show_board_pass(file, name, params, result, as_json)


def _board_pass(game: Game, rows: RowSource, batch: int, isomorphic: bool, as_json: bool) -> BoardPassResult:
    """The board pass with its progress on stderr (batches of boards); on Ctrl-C one line saying where it stopped."""
    done = [0, 0]

    with progress_bar(0, 0, not as_json, label="board pass", unit="batch") as update:
        def tick(k: int, total: int) -> None:
            done[:] = [k, total]
            update(k, total=total)

        try:
            return board_pass_exploitability(game, rows, batch=batch, isomorphic=isomorphic, progress=tick)
        except KeyboardInterrupt:
            warn(f"interrupted after {done[0]} of {done[1] or '?'} batches of boards; nothing is kept (evaluate writes no "
                 "file): run it again to evaluate")
            raise typer.Exit(EXIT_INTERRUPTED) from None


def _show_board_pass(file: Path, name: str, params: dict[str, Any], result: BoardPassResult, as_json: bool) -> None:
    game_obj = load_game(name, **params)
    big_blind = max(game_obj.spec.blinds) if isinstance(game_obj, PokerGame) and max(game_obj.spec.blinds) > 0 else 1
    record = {"file": str(file), "game": name, "params": params, **exploitability_record(result.exploitability),
              "mbb_per_hand": 1000.0 * result.exploitability.exploitability / big_blind, "big_blind": big_blind,
              "boards": result.boards, "compiled_boards": result.compiled, "checked_boards": result.checked,
              "batches": result.batches, "trunk_bytes": result.trunk_bytes,
              "largest_batch_bytes": result.largest_batch_bytes, "seconds": result.seconds}
    if as_json:
        echo_json(record)
        return
    show(evaluation_table(result.exploitability, f"{file}: {game_label(name, params)}, by a pass over boards"))
    compiled = f"{result.compiled} of {result.boards} boards compiled" if result.compiled < result.boards else f"{result.boards} boards"
    checked = f" (and {result.checked} to check suit symmetry)" if result.checked else ""
    show(f"exploitability {record['mbb_per_hand']:.3f} mbb/hand (big blind {big_blind} chips); {compiled}{checked} "
         f"in {result.batches} batches, trunk {human_bytes(result.trunk_bytes)}, largest batch "
         f"{human_bytes(result.largest_batch_bytes)}, {result.seconds:.1f} s")


def _provenance(meta: StrategyMeta) -> str:
    """``, cfr+, 300 iterations, subgames re-solved with resolve``: what the file records of its making."""
    how = f", {meta.algo}" if meta.algo is not None else ""
    how += f", {meta.iterations} iterations" if meta.iterations else ""
    how += f", subgames re-solved with {meta.resolved}" if meta.resolved is not None else ""
    return how
