"""``subgame agent-eval``: the exact exploitability of the search agent built on a blueprint file (or of any agent spec, ``--agent``).

The agent (:class:`~subgame.agents.search.SearchAgent`, depth-limited paper Appendix A) is
asked at every information set it can reach in both seats, solving as it would in play;
the strategy it plays is evaluated by the exact best response and shown beside the
blueprint's exploitability.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ..agents.exact import agent_exploitability
from ..agents.search import SearchAgent, SearchConfig
from ..agents.specs import load_agent
from ..eval.best_response import exploitability
from ..experiments.convergence import exploitability_record
from ..solve.cfr import PRESETS
from ..solve.driver import Budget
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


@reports_errors
def agent_eval_command(
    file: Annotated[Path, typer.Argument(help="The blueprint: a strategy file written by 'subgame solve'.")],
    values: Annotated[int, typer.Option("--values", help="K, the opponent's continuations per leaf state.")] = 4,
    continuations: Annotated[str, typer.Option(help="Continuation set: bias or self-generative.")] = "bias",
    leaf_values: Annotated[str, typer.Option(help="Leaf values: exact or rollouts.")] = "exact",
    rollouts: Annotated[int, typer.Option(help="Rollouts per leaf history and continuation (--leaf-values rollouts).")] = 3,
    iterations: Annotated[int, typer.Option("--iterations", "-n", help="CFR iterations of every solve (the "
                                                                              "budget per decision).")] = 200,
    seconds: Annotated[float | None, typer.Option(help="Also stop every solve after this many seconds (then the "
                                                       "result depends on the machine's speed).")] = None,
    algo: Annotated[str, typer.Option(help=f"CFR update rule of the solves: {', '.join(PRESETS)}.")] = "modicum",
    chance_limit: Annotated[int, typer.Option(help="Depth-limited subgames end after this many public chance "
                                                   "events (1: the end of the betting round).")] = 1,
    safe_gadget: Annotated[str, typer.Option(help="Gadget of safe solving once the rest of the game fits: resolve "
                                                  "or maxmargin.")] = "resolve",
    first_final: Annotated[str, typer.Option(help="The first subgame that reaches the end of the game: safe (from "
                                                  "the depth-limited values) or unsafe (from the beliefs).")] = "safe",
    early: Annotated[str, typer.Option(help="Depth-limited subgames after the first: unsafe (Bayesian beliefs, "
                                            "Modicum) or safe (from the previous solve's values).")] = "unsafe",
    seed: Annotated[int, typer.Option(help="Seed of the agent (rollouts).")] = 0,
    agent_spec: Annotated[str | None, typer.Option("--agent", help="Evaluate this agent spec instead of the search agent "
                                                                   "(e.g. cdbr:FILE:2, cdrnr:FILE:0.5); FILE names the game.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the agent's strategy (both seats) here.")] = None,
    game: Annotated[str | None, typer.Option(help="The game, when the file does not record it.")] = None,
    param: ParamsOption = [],  # noqa: B006 (typer reads the default, never mutates it)
    as_json: JsonOption = False,
) -> None:
    """Exact exploitability of the search agent (nested depth-limited solving) built on a blueprint."""
    if algo not in PRESETS:
        raise CommandLineError(f"unknown --algo {algo!r}; choose one of {', '.join(PRESETS)}")
    config = SearchConfig(
        num_values=values, continuations=continuations,  # type: ignore[arg-type]
        leaf_values=leaf_values, rollouts=rollouts,  # type: ignore[arg-type]
        budget=Budget(iterations=iterations, seconds=seconds), config=PRESETS[algo], chance_limit=chance_limit,
        safe_gadget=safe_gadget, first_final=first_final, early=early,  # type: ignore[arg-type]
    )
    started = time.perf_counter()
    blueprint, name, params, game_obj, tree = load_strategy_on_game(file, game, param)
    blueprint.check(tree)
    agent = SearchAgent(game_obj, tree, blueprint, config, seed=seed) if agent_spec is None else load_agent(agent_spec, tree, game_obj)
    total = tree.players[0].num_infosets + tree.players[1].num_infosets
    answered = [0]
    with progress_bar(total, 0, not as_json, label="agent", unit="information set") as update:
        def step(count: int) -> None:
            answered[0] += 1
            update(answered[0])

        result, profile = agent_exploitability(agent, game_obj, tree, seed=seed, on_infoset=step)
    before = exploitability(tree, blueprint)
    seconds_taken = time.perf_counter() - started
    if out is not None:
        save_strategy(profile, out, tree, game=name, params=params,
                      algo=agent.name if agent_spec is not None else f"search agent on {blueprint.meta.algo or '?'}",
                      seed=seed)
    record = {
        "file": str(file), "game": name, "params": params, "values": values, "continuations": continuations,
        "leaf_values": leaf_values, "iterations": iterations, "seconds_per_solve": seconds, "algo": algo,
        "chance_limit": chance_limit, "safe_gadget": safe_gadget, "first_final": first_final, "early": early, "seed": seed,
        "agent_spec": agent_spec, "subgames_solved": len(agent.solves) if isinstance(agent, SearchAgent) else None,
        "information_sets_answered": answered[0],
        "blueprint": exploitability_record(before), "agent": exploitability_record(result),
        "out": None if out is None else str(out), "seconds": seconds_taken,
    }
    if as_json:
        echo_json(record)
        return
    if not isinstance(agent, SearchAgent):
        title = f"{game_label(name, params)}: agent {agent_spec}"
        show(exploitability_rows(title, (("file", before), (agent.name, result))))
        show(f"{answered[0]} information sets answered in {seconds_taken:.1f} s" + (f"; wrote {out}" if out else ""))
        return
    title = (f"{game_label(name, params)}: search agent, K = {values} ({continuations}, {leaf_values} values), "
             f"{iterations} {algo} iterations per solve, {len(agent.solves)} subgames solved")
    show(exploitability_rows(title, (("blueprint", before), ("search agent", result))))
    show(f"{answered[0]} information sets answered in {seconds_taken:.1f} s" + (f"; wrote {out}" if out else ""))
