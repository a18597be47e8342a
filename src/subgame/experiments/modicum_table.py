"""Head-to-head of the depth-limited search agent against a lookup-table bot (depth-limited paper, Table 1).

Brown, Sandholm & Amos (2018), §6 and Table 1: a blueprint, naive depth-limited solving (one
value per leaf state, K = 1) and depth-limited solving with multi-valued states (K = 4, the
bias continuations) on that blueprint, each played against prior bots. Here the three agents
are :class:`~subgame.agents.blueprint.BlueprintAgent` and
:class:`~subgame.agents.hunl_search.HunlSearchAgent` with ``num_values`` 1 and 4 (the flop,
as the paper's agent, and the turn each solved to the end of its betting round, K continuations
at its leaves; the river to the end of the game; :attr:`TableSetup.flop_search`), all on one
implicit-MCCFR blueprint. Their opponents:

* a lookup-table bot: a second blueprint in a coarser action and card abstraction, played
  with pseudo-harmonic translation and no search (standing in for Baby Tartanian8 and
  Slumbot, which are not available here);
* the agents' own blueprint (the paper's second question: does search beat what it searches on);
* local best response (:class:`~subgame.agents.lbr.LocalBestResponse`, Lisý & Bowling 2017), an
  exploitability probe, with the agent it plays as its model: the blueprint's rows, or a twin of
  the search agent (:class:`~subgame.agents.search_model.SearchModel`).

Two forms. The reduced one plays a four-round deck small enough to compile, so every number
is also computed exactly: each agent's behaviour strategy is asked at every information set
(:func:`~subgame.agents.exact.agent_strategy`), the head-to-head values are exact, the
matches are scored by AIVAT with the agents' own strategies as its reference, and each
agent's exploitability is exact. The full one plays heads-up no-limit hold'em (the ACPC
game, 200 big blinds): no tree, so AIVAT with the cards' value as its value function; its blueprints are kept in
the checkpoint folder and each finished match too, so an interrupted run resumes where it
stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..agents.base import Agent
from ..agents.beliefs import BlueprintModel
from ..agents.blueprint import BlueprintAgent
from ..agents.hunl_search import HunlSearchAgent, HunlSearchConfig
from ..agents.lbr import LocalBestResponse
from ..agents.match import mbb_scale
from ..agents.search_model import KEPT_SOLVES, SearchModel
from ..blueprint.actions import ActionAbstraction, parse_actions
from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import DealAbstraction
from ..errors import SubgameError
from ..eval import exploitability
from ..games import load_game
from ..games.poker.game import PokerGame
from ..solve.driver import Budget
from ..strategy import Strategy
from ..tree.compile import compile_game
from .hunl_matches import (
    HUNL,
    REDUCED,
    Cell,
    Pair,
    behaviour,
    estimate_cell,
    estimate_header,
    play_table,
    run_folder,
    trained_blueprint,
)
from .report import ExperimentResult, Series
from .search_agent import PAPER_TABLE_1


@dataclass(frozen=True)
class TableSetup:
    """One form of the experiment: the game, both blueprints, the agents' search and the matches.

    Attributes:
        game: parameters of the ``poker`` game.
        actions, buckets, iterations: the agents' blueprint: its action abstraction (``None``: the
            game's own sizes), card buckets per round (``None``: exact cards) and MCCFR iterations.
        lookup_actions, lookup_buckets, lookup_iterations: the lookup-table bot's blueprint.
        solve_iterations: CFR+ iterations of every search solve (a fixed budget: the agents
            are deterministic given the seed).
        river_cards: river cards sampled at each turn leaf (``None``: every card).
        raise_cap: bets and raises a round of a search subgame offers (``None``: the game's rule).
        deals: duplicate deals of each match (two hands each).
        river_sample: river cards of the leaves a CFR iteration values, a fresh sample each (``None``: all).
        flop_search: the flop solved to the end of its betting round too, its leaves valued by the blueprint's
            turn and river (the paper's agent searched its first two rounds so); else the flop is the blueprint's.
        rollout_cards: river cards summed below each turn card of a flop leaf, a seeded sample (``None``: all).
    """

    name: str
    game: dict[str, object]
    actions: str | None
    buckets: tuple[int, ...] | None
    iterations: int
    lookup_actions: str
    lookup_buckets: tuple[int, ...]
    lookup_iterations: int
    solve_iterations: int
    river_cards: int | None
    raise_cap: int | None
    deals: int
    river_sample: int | None = None
    flop_search: bool = True
    rollout_cards: int | None = None


SETUPS: dict[str, TableSetup] = {
    "reduced": TableSetup("reduced four-round deck (3 ranks x 2 suits, 1 hole card, 3 big blinds deep)", REDUCED,
                          None, None, 20_000, "100:1", (3, 2, 2, 2), 20_000, 100, None, None, 300),
    "hunl": TableSetup("heads-up no-limit hold'em (ACPC rules, 200 big blinds)", HUNL,
                       "50,100,allin/100,allin:3", (169, 8, 8, 8), 60_000, "100,allin/allin:2", (169, 4, 4, 4), 60_000,
                       50, None, 3, 100, river_sample=2, rollout_cards=2),
}

#: The rows: each agent's name and its search configuration (``None``: the blueprint alone).
AGENTS: dict[str, int | None] = {"blueprint": None, "naive depth-limited (K = 1)": 1, "depth-limited (K = 4)": 4}
#: The columns: each opponent's name.
OPPONENTS = ("lookup-table bot", "own blueprint", "LBR")


@dataclass(frozen=True)
class _Blueprints:
    game: PokerGame
    agents: tuple[Blueprint, DealAbstraction]
    lookup: tuple[Blueprint, DealAbstraction]
    seconds: float  #: spent training (or 0 where read back from the checkpoint folder)


def _blueprints(setup: TableSetup, seed: int, folder: Path | None) -> _Blueprints:
    game = load_game("poker", **setup.game)
    if not isinstance(game, PokerGame):  # pragma: no cover - the setups are poker games
        raise SubgameError("the modicum table plays a poker game")
    started = time.perf_counter()
    own = parse_actions(setup.actions) if setup.actions else ActionAbstraction.of_spec(game.spec)
    bp, ab, new_bp = trained_blueprint(folder, "blueprint", game, own, setup.buckets, setup.iterations, seed)
    lk, lab, new_lk = trained_blueprint(folder, "lookup", game, parse_actions(setup.lookup_actions), setup.lookup_buckets,
                                 setup.lookup_iterations, seed + 1)
    return _Blueprints(game, (bp, ab), (lk, lab), time.perf_counter() - started if new_bp or new_lk else 0.0)


def _agent(name: str, bps: _Blueprints, setup: TableSetup) -> Agent:
    blueprint, abstraction = bps.agents
    k = AGENTS[name]
    if k is None:
        return BlueprintAgent(bps.game, blueprint, abstraction, name="blueprint")
    rounds = bps.game.spec.num_rounds
    config = HunlSearchConfig(budget=Budget(iterations=setup.solve_iterations),
                              search_round=max(0, rounds - (3 if setup.flop_search else 2)) if rounds > 3 else None,
                              num_values=k, river_cards=setup.river_cards, river_sample=setup.river_sample,
                              rollout_cards=setup.rollout_cards, raise_cap=setup.raise_cap)
    return HunlSearchAgent(bps.game, blueprint, abstraction, config, name=f"search K={k}")


def _opponent(name: str, bps: _Blueprints, agent: str, setup: TableSetup, seed: int, twin: Agent | None = None) -> Agent:
    """Column ``name`` against row ``agent``: LBR's model is that agent (a search agent's twin seeded ``seed``; ``twin``:
    one whose solves of this seed are kept, all of them: the exact form's)."""
    if name == "lookup-table bot":
        return BlueprintAgent(bps.game, *bps.lookup, name="lookup")
    if name == "own blueprint":
        return BlueprintAgent(bps.game, *bps.agents, name="blueprint")
    keep = None if twin is not None else KEPT_SOLVES
    twin = twin or _agent(agent, bps, setup)
    model = (SearchModel(twin, seed=seed, keep=keep) if isinstance(twin, HunlSearchAgent)
             else BlueprintModel(bps.game, *bps.agents))
    return LocalBestResponse(bps.game, model, name="lbr")


def modicum_table(
    *,
    full: bool = False,
    seed: int = 0,
    workers: int = 1,
    checkpoint: Path | None = None,
    deals: int | None = None,
    progress: Callable[[str], None] | None = None,
    setup: TableSetup | None = None,
) -> ExperimentResult:
    """The search agent, naive depth-limited solving and the blueprint against a lookup-table bot, the blueprint and LBR.

    Args:
        full: heads-up no-limit hold'em (AIVAT with the cards' value); the default is the reduced
            deck, where every value is also exact.
        seed: seeds the blueprints, the deals and every agent.
        workers: processes playing blocks of deals (results do not depend on it).
        checkpoint: a folder for the blueprints, the exact behaviour strategies (reduced form) and each finished
            match; a run with it resumes.
        deals: duplicate deals per match instead of the setup's.
        progress: called with a line during each match (deals done, time to go) and after it.
        setup: another :class:`TableSetup` (tests).
    """
    setup = setup or SETUPS["hunl" if full else "reduced"]
    setup = replace(setup, deals=deals or setup.deals)
    say = progress or (lambda line: None)
    folder = run_folder(checkpoint, "modicum-table", (setup, seed))
    started = time.perf_counter()
    bps = _blueprints(setup, seed, folder)
    game = bps.game
    scale, unit = mbb_scale(game)
    tree = None if full else compile_game(game)
    todo = [(a, o) for a in AGENTS for o in OPPONENTS if not (a == "blueprint" and o == "own blueprint")]
    references: dict[tuple[str, str], Pair] = {}
    exploit: dict[str, float] = {}
    if tree is not None:
        behaviours: dict[str, Strategy] = {}
        asked: dict[str, Agent] = {}
        kept = (bps.agents[0], bps.lookup[0])  # what every agent plays from: its behaviour is kept with their digest
        for name in (*AGENTS, "lookup-table bot"):
            agent = asked[name] = _agent(name, bps, setup) if name in AGENTS else _opponent(name, bps, "blueprint", setup, seed)
            behaviours[name] = behaviour(agent, game, tree, seed, folder, name, kept)
            exploit[name] = exploitability(tree, behaviours[name]).exploitability * scale
        behaviours["own blueprint"] = behaviours["blueprint"]
        for a, o in todo:  # LBR's is its play against that agent's model: the agent just asked, its solves kept
            column = (behaviours[o] if o in behaviours
                      else behaviour(_opponent(o, bps, a, setup, seed, asked[a]), game, tree, seed, folder, f"{o} of {a}", kept))
            references[a, o] = (behaviours[a], column)
    cells = play_table(game, tree, todo, lambda a, o: (_agent(a, bps, setup), _opponent(o, bps, a, setup, seed)),
                       references, setup.deals, seed, folder, workers, say)
    return _result(setup, seed, workers, bps, cells, exploit, unit, time.perf_counter() - started)


def _result(setup: TableSetup, seed: int, workers: int, bps: _Blueprints,
            cells: dict[tuple[str, str], Cell], exploit: dict[str, float], unit: str, seconds: float) -> ExperimentResult:
    exact = bool(exploit)
    headers = ["agent"]
    for o in OPPONENTS:
        headers.append(f"vs {o} ({estimate_header(exact)})")
    if exact:
        headers.append("exploitability, exact")
    headers += ["paper: vs Baby Tartanian8", "paper: vs Slumbot"]
    rows: list[list[object]] = []
    for a, paper in zip(AGENTS, PAPER_TABLE_1.values()):
        row: list[object] = [a]
        for o in OPPONENTS:
            c = cells.get((a, o))
            if c is None:
                row.append("0 (itself)")
                continue
            row.append(estimate_cell(c))
        if exact:
            row.append(f"{exploit[a]:.1f}")
        rows.append(row + list(paper))
    if exact:
        rows.append(["lookup-table bot", *[""] * len(OPPONENTS), f"{exploit['lookup-table bot']:.1f}", "", ""])
    blueprint, lookup = bps.agents[0], bps.lookup[0]
    setup_lines = [
        f"Game: {setup.name}. Every value is the row agent's winrate in {unit} (1000 / big blind), duplicate deals "
        f"({setup.deals} deals, {2 * setup.deals} hands per match, seed {seed}), 95 % intervals.",
        f"Blueprint of the agents: implicit external-sampling MCCFR, {blueprint.iterations:,} iterations, actions "
        f"{setup.actions or 'the game own sizes'}, cards {'exact' if setup.buckets is None else '/'.join(map(str, setup.buckets)) + ' buckets'}. "
        f"Lookup-table bot: {lookup.iterations:,} iterations, actions {setup.lookup_actions}, cards "
        f"{'/'.join(map(str, setup.lookup_buckets))} buckets, translation, no search.",
        ("Search: the flop and the turn each solved to the end of its betting round with K continuation strategies "
         "at its leaves (the blueprint, and fold, call, raise x10; below a flop leaf the blueprint's turn and river, "
         + ("every river card" if setup.rollout_cards is None else f"{setup.rollout_cards} sampled river card(s) a "
            "turn card") + "), the river to the end of the game" if setup.flop_search else
         "Search: the flop from the blueprint; the turn solved to the end of its betting round with K continuation "
         "strategies at its leaves (the blueprint, and fold, call, raise x10), the river to the end of the game")
        + f"; {setup.solve_iterations} CFR+ iterations a solve"
        + (f", {setup.river_cards} sampled card(s) at each leaf's deal" if setup.river_cards else "")
        + (f", {setup.river_sample} of the leaves' cards valued per iteration (a fresh sample each)"
           if setup.river_sample else "")
        + (f", at most {setup.raise_cap} bets and raises a round in a subgame" if setup.raise_cap else "")
        + "; ranges by Bayes' rule (unsafe nested solving, as Modicum). LBR: local best response with the row agent "
        "as its model: the blueprint's rows, or a twin of the search agent (its Bayes ranges and its solves' rows at "
        "every hand)" + ("; the twin's sampled river cards are its own draw, not the agent's." if setup.river_cards
                         else "."),
    ]
    notes = [
        "Paper (Brown, Sandholm & Amos 2018, Table 1): HUNL, AIVAT, against Baby Tartanian8 and Slumbot; its blueprint "
        "took about 700 core hours and its agent 20 s a hand on 4 cores. Ours: the opponents are a lookup-table bot of "
        "our own (the paper's are not available), the blueprints are far smaller, and a solve runs a fixed number of "
        "iterations, not a time budget"
        + ("" if setup.flop_search else "; the paper's agent searched the flop too, this form plays it from the blueprint")
        + ". Compare the shape: the blueprint below K = 1 below K = 4.",
        (f"Exact values: the agents' behaviour strategies asked at every information set of the compiled game; AIVAT "
         f"takes them as its reference; exploitability is NashConv / 2 in {unit}."
         if exact else
         "No tree of HUNL is built: AIVAT takes the value of the cards as its value function (the pot called down "
         "with both hands known; the agents' strategies are not known on a tree), and LBR stands in for "
         "exploitability. The second interval is the luck-adjusted estimate, AIVAT's chance corrections alone: "
         "both are unbiased, and without the agents' strategies the action corrections add variance."),
        f"Wall time {seconds:.0f} s on {workers} process(es)"
        + (f", of which {bps.seconds:.1f} s training the blueprints." if bps.seconds else ", blueprints read back.")
        + " Wall times are not deterministic; every other number is, for a seed.",
    ]
    series = [Series(o, list(range(len(AGENTS))), [cells[a, o]["aivat" if "aivat" in cells[a, o] else "plain"]
                                                   if (a, o) in cells else 0.0 for a in AGENTS]) for o in OPPONENTS]
    return ExperimentResult(
        "modicum-table", "Search agent head-to-head (depth-limited paper, Table 1)", tuple(headers), rows, series,
        "agent", f"winrate ({unit})", logx=False, logy=False, notes=tuple(notes), xticklabels=tuple(AGENTS),
        setup=tuple(setup_lines),
    )
