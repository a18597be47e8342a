"""``subgame match``: two agents play duplicate hands; winrate with a 95 % interval, AIVAT and the exact value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from ..agents.base import Agent
from ..agents.match import ESTIMATORS, Estimator, MatchResult, play_match, plot_running, reference_profile
from ..agents.specs import load_agent, treeless_agent
from ..experiments.report import format_cell
from ..files import write_text
from ..games import load_game
from ..games.base import Game
from ..parallel import Executor, ProcessExecutor, SerialExecutor
from ..tree.compile import compile_game
from ..tree.estimate import estimate_size
from ..tree.public_tree import PublicTree
from ..tree.size import MemoryLimit, gib_to_bytes
from .app import (
    EXIT_INTERRUPTED,
    JsonOption,
    ParamsOption,
    SecondsOption,
    echo_json,
    game_label,
    parse_params,
    progress_bar,
    reports_errors,
    show,
    warn,
)

AivatValues = Literal["both", "a", "uniform"]
ESTIMATOR_NAMES = {"plain": "duplicate", "luck": "luck-adjusted", "aivat": "AIVAT"}


@reports_errors
def match_command(
    agent_a: Annotated[str, typer.Argument(metavar="A", help="Agent A: one of the specs listed below.")],
    agent_b: Annotated[str, typer.Argument(metavar="B", help="Agent B, as A.")],
    game: Annotated[str, typer.Option(help="The game (see 'subgame games').")],
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    hands: Annotated[int, typer.Option(help="Duplicate hands: deals, each played twice with the seats swapped.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of the agents' randomness.")] = 0,
    workers: Annotated[int, typer.Option(help="Processes playing blocks of deals (results do not change).")] = 1,
    aivat: Annotated[bool, typer.Option(help="Luck-adjusted and AIVAT estimates (one walk over the game's histories; "
                                              "without a tree, the cards' value).")] = True,
    aivat_values: Annotated[
        AivatValues, typer.Option(help="AIVAT's value function: both agents' strategies, A's only (B's taken as unknown), or uniform.")
    ] = "both",
    exact: Annotated[bool, typer.Option(help="The exact expected value, where both agents' strategies are known.")] = True,
    out: Annotated[Path | None, typer.Option(help="Write the results as JSON to this file.")] = None,
    plot: Annotated[Path | None, typer.Option(help="Write a PNG of the running winrate with its 95 % interval.")] = None,
    seconds_per_decision: SecondsOption = None,
    max_memory: Annotated[float | None, typer.Option(
        min=0.001, help="GiB the compiled tree may take (default: the memory available now); a game whose tree does not fit is "
                      "played without one, by agents that need none, with the duplicate estimate only.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Play agent A against agent B on duplicate deals and report A's winrate.

    Every deal is played twice, A in seat 0 and then in seat 1, with the same cards. The
    winrate is in mbb/hand for poker (1000 per big blind; 1 chip where the game has only
    antes) with a 95 % confidence interval: plain duplicate, with the luck of chance
    removed, and AIVAT (Burch et al. 2018). Where both agents' strategies are known the
    exact expected value is shown beside them. Agents that need no tree (baselines,
    blueprint:, lookup:, lbr:, cdbr:, search: on a blueprint) play games whose tree does not fit
    (HUNL): the tree is not built, and AIVAT's value function is the value of the cards (the pot
    called down to the showdown with both hands known) instead of the agents' strategies.
    """
    params = parse_params(param)
    g = load_game(game, **params)
    tree, agents = _agents(g, (agent_a, agent_b), seconds_per_decision, max_memory)
    executor: Executor = ProcessExecutor(workers) if workers > 1 else SerialExecutor()
    try:
        with progress_bar(hands, 0, not as_json, label="match", unit="deal") as update:
            use = {"both": (True, True), "a": (True, False), "uniform": (False, False)}[aivat_values]
            reference = reference_profile(agents, tree, use) if aivat and tree is not None else None
            result = play_match(g, tree, agents, hands, seed, aivat=aivat, reference=reference, exact=exact, executor=executor,
                                progress=lambda r: update(r.deals, _status(r)))
    finally:
        executor.close()
    if result.error is not None:
        warn(f"match stopped at deal {result.error.deal}: {result.error.agent or 'match'}: {result.error.message}; "
             f"{result.deals} finished deals kept")
    record = {**result.to_json(), "game": game, "params": params, "specs": [agent_a, agent_b],
              "aivat_values": aivat_values if aivat else None}
    if out is not None:
        write_text(out, json.dumps(record, indent=2) + "\n", "results file")
    if plot is not None:
        plot_running(result, plot)
    if as_json:
        echo_json(record)
    else:
        show(_table(result, f"{result.agents[0]} vs {result.agents[1]}: {game_label(game, params)}, {result.deals} deals "
                        f"({result.hands} hands), seed {seed}"))
        for path in (out, plot):
            if path is not None:
                show(f"wrote {path}")
    if result.error is not None and result.error.seat < 0:
        raise typer.Exit(EXIT_INTERRUPTED)


def _agents(game: Game, specs: tuple[str, str], seconds: float | None, max_memory: float | None
            ) -> tuple[PublicTree | None, tuple[Agent, Agent]]:
    """The match's agents and the game's compiled tree; the tree's size is estimated first, and a tree that
    does not fit is not built: then every agent must be one that needs none."""
    treeless = [treeless_agent(spec, game, seconds) for spec in specs]
    limit = MemoryLimit.of(gib_to_bytes(max_memory))
    need = estimate_size(game).tree_bytes
    if not limit.fits(need) and treeless[0] is not None and treeless[1] is not None:
        return None, (treeless[0], treeless[1])
    needs = next((spec for spec, agent in zip(specs, treeless) if agent is None), None)
    limit.require(need, f"the compiled tree of {game.name}" + (f" (agent {needs!r} plays on it)" if needs else ""),
                  "play agents that need no tree (random, call, blueprint:, lookup:, lbr:, search: on a blueprint)")
    tree = compile_game(game)
    a, b = (agent if agent is not None else load_agent(spec, tree, game) for spec, agent in zip(specs, treeless))
    return tree, (a, b)


def _status(result: MatchResult) -> str:
    best: Estimator = "aivat" if result.has_aivat else "plain"
    e = result.estimate(best)
    return f"{result.agents[0]}: {format_cell(e.mean)} ± {format_cell(e.half_width)} {result.unit}"


def _table(result: MatchResult, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for header in ("estimate", result.unit, "95 % interval", "std/deal"):
        table.add_column(header, justify="left" if header == "estimate" else "right")
    for estimator in ESTIMATORS if result.has_aivat else ("plain",):
        e = result.estimate(estimator)
        table.add_row(ESTIMATOR_NAMES[estimator], format_cell(e.mean), f"[{format_cell(e.low)}, {format_cell(e.high)}]",
                      format_cell(e.std))
    if result.exact is not None:
        table.add_row("exact", format_cell(result.scale * result.exact), "", "")
    if not result.has_aivat and result.absent is not None:
        table.caption = f"duplicate mean only; luck-adjusted and AIVAT absent: {result.absent}"
        table.caption_justify = "left"
    elif result.has_aivat and result.values is not None:
        table.caption = f"AIVAT's value function: {result.values}"
        table.caption_justify = "left"
    return table
