"""Exploiting a lookup-table bot in HUNL: CDBR beside LBR (continual-responses paper, §6 "Playing SlumBot", Table 2).

Milec, Kubíček & Lisý played continual depth-limited best response (CDBR) with a fold, call,
pot and all-in (FCPA) abstraction against SlumBot, whose strategy its author gave them as the
model, beside local best response (LBR, also FCPA) and approximate best response (ABR):
ABR 1,259, LBR 1,388 ± 150, CDBR 1,774 ± 137 mbb/hand. Here the opponent is the lookup-table
bot of :mod:`.modicum_table` (a blueprint in a coarse abstraction, translation, no search; a
stand-in for SlumBot, which is not available), and its blueprint is the responders' model, as
SlumBot's strategy was the paper's. The responders are :class:`~subgame.agents.lbr.LocalBestResponse`
with FCPA: LBR is CDBR with a look-ahead of one move and the check/call-down value function,
and CDBR2, CDBR3 look further with the same value function (the paper does not say which it
used in HUNL). All of them act preflop too, as the paper's LBR with FCPA did (Lisý & Bowling's
LBR checked/called preflop; against a bot that shoves, calling every shove loses).

Two forms. The reduced one plays a four-round deck small enough to compile: each responder's
behaviour strategy is asked at every information set, so its exact winrate against the bot is
known beside the AIVAT estimate, and so is the best response's (the most any responder can
win), whose share each responder gets is printed. The full one plays heads-up no-limit
hold'em (ACPC rules, 200 big blinds) by duplicate matches scored by AIVAT with the cards' value
(:class:`~subgame.agents.aivat_poker.CardValues`); the bot's blueprint and each
finished match are kept in the checkpoint folder, so an interrupted run resumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..agents.base import Agent
from ..agents.beliefs import BlueprintModel
from ..agents.blueprint import BlueprintAgent
from ..agents.lbr import FCPA, LBRConfig, LocalBestResponse
from ..agents.match import mbb_scale
from ..blueprint.actions import parse_actions
from ..errors import SubgameError
from ..eval.best_response import best_response
from ..games import load_game
from ..games.poker.game import PokerGame
from ..strategy import Strategy
from ..tree.compile import compile_game
from .hunl_matches import behaviour, estimate_cell, estimate_header, play_table, run_folder, trained_blueprint
from .modicum_table import SETUPS as TABLE_SETUPS
from .report import ExperimentResult, Series

#: Table 2 of the paper: winrates against SlumBot, mbb/hand (95 % half-width; none published for ABR).
PAPER_TABLE_2: dict[str, tuple[float, float | None]] = {"ABR": (1259.0, None), "LBR": (1388.0, 150.0), "CDBR": (1774.0, 137.0)}
#: The opponent's name in the table.
BOT = "lookup-table bot"


@dataclass(frozen=True)
class CdbrSetup:
    """One form of the experiment: the game, the lookup-table bot's blueprint, the look-aheads and the matches.

    Attributes:
        lookup_actions, lookup_buckets, lookup_iterations: the bot's blueprint (:mod:`.modicum_table`'s bot).
        depths: the responders' look-aheads in moves (1: LBR).
        deals: duplicate deals of each match (two hands each).
    """

    name: str
    game: dict[str, object]
    lookup_actions: str
    lookup_buckets: tuple[int, ...]
    lookup_iterations: int
    depths: tuple[int, ...]
    deals: int


SETUPS: dict[str, CdbrSetup] = {
    form: CdbrSetup(t.name, t.game, t.lookup_actions, t.lookup_buckets, t.lookup_iterations, (1, 2, 3), deals)
    for form, t, deals in (("reduced", TABLE_SETUPS["reduced"], 300), ("hunl", TABLE_SETUPS["hunl"], 200))
}


def _row(depth: int) -> str:
    return "LBR = CDBR1 (FCPA)" if depth == 1 else f"CDBR{depth} (FCPA)"


def cdbr_hunl(
    *,
    full: bool = False,
    seed: int = 0,
    workers: int = 1,
    checkpoint: Path | None = None,
    deals: int | None = None,
    progress: Callable[[str], None] | None = None,
    setup: CdbrSetup | None = None,
) -> ExperimentResult:
    """LBR and CDBR with look-aheads of 2 and 3 moves against the lookup-table bot, its blueprint their model.

    Args:
        full: heads-up no-limit hold'em (AIVAT with the cards' value); the default is the reduced
            deck, where every value is also exact.
        seed: seeds the bot's blueprint and the deals.
        workers: processes playing blocks of deals (results do not depend on it).
        checkpoint: a folder for the bot's blueprint, the exact behaviour strategies (reduced form) and each finished
            match; a run with it resumes.
        deals: duplicate deals per match instead of the setup's.
        progress: called with a line during each match (deals done, time to go) and after it.
        setup: another :class:`CdbrSetup` (tests).
    """
    setup = setup or SETUPS["hunl" if full else "reduced"]
    setup = replace(setup, deals=deals or setup.deals)
    say = progress or (lambda line: None)
    folder = run_folder(checkpoint, "cdbr-hunl", (setup, seed))
    started = time.perf_counter()
    game = load_game("poker", **setup.game)
    if not isinstance(game, PokerGame):  # pragma: no cover - the setups are poker games
        raise SubgameError("cdbr-hunl plays a poker game")
    scale, unit = mbb_scale(game)
    blueprint, abstraction, trained = trained_blueprint(folder, "lookup", game, parse_actions(setup.lookup_actions),
                                                        setup.lookup_buckets, setup.lookup_iterations, seed + 1)
    train_seconds = time.perf_counter() - started if trained else 0.0

    def responder(row: str) -> Agent:
        depth = next(d for d in setup.depths if _row(d) == row)
        model = BlueprintModel(game, blueprint, abstraction, name="lookup")
        return LocalBestResponse(game, model, LBRConfig(sizes=FCPA, call_preflop=False, depth=depth), name=f"cdbr{depth}")

    rows = [_row(d) for d in setup.depths]
    tree = None if full else compile_game(game)
    behaviours: dict[str, Strategy] = {}
    best = None
    if tree is not None:
        behaviours[BOT] = behaviour(BlueprintAgent(game, blueprint, abstraction, name="lookup"), game, tree, seed, folder,
                                    BOT, (blueprint,))
        best = 0.5 * sum(best_response(tree, behaviours[BOT], p).value for p in (0, 1)) * scale
        for row in rows:
            behaviours[row] = behaviour(responder(row), game, tree, seed, folder, row, (blueprint,))
    cells = play_table(game, tree, [(row, BOT) for row in rows],
                       lambda row, _: (responder(row), BlueprintAgent(game, blueprint, abstraction, name="lookup")),
                       {(row, BOT): (behaviours[row], behaviours[BOT]) for row in rows if row in behaviours},
                       setup.deals, seed, folder, workers, say)
    exact = tree is not None
    headers = ["responder", f"vs {BOT} ({estimate_header(exact)})"]
    if exact:
        headers.append("share of the best response's gain, exact")
    headers.append("paper: vs SlumBot")
    table: list[list[object]] = []
    for depth, row in zip(setup.depths, rows):
        cell = cells[row, BOT]
        paper = PAPER_TABLE_2["LBR" if depth == 1 else "CDBR"]
        line: list[object] = [row, estimate_cell(cell)]
        if exact:
            assert best is not None
            line.append(f"{100.0 * cell['exact'] / best:.1f} %" if best > 0 else "")
        table.append(line + [f"{paper[0]:+,.0f} ± {paper[1]:.0f}" if paper[1] is not None else f"{paper[0]:+,.0f}"])
    if exact:
        assert best is not None
        table.append(["best response (exact)", f"{best:+.1f}", "100.0 %", ""])
    table.append(["ABR", "not run here", *([""] if exact else []), f"{PAPER_TABLE_2['ABR'][0]:+,.0f}"])
    seconds = time.perf_counter() - started
    setup_lines = (
        f"Game: {setup.name}. Every value is the row responder's winrate in {unit} (1000 / big blind) against the "
        f"{BOT}, duplicate deals ({setup.deals} deals, {2 * setup.deals} hands per match, seed {seed}), 95 % intervals.",
        f"{BOT.capitalize()}: implicit MCCFR, {blueprint.iterations:,} iterations, actions {setup.lookup_actions}, cards "
        f"{'/'.join(map(str, setup.lookup_buckets))} buckets, translation, no search; its blueprint is the responders' "
        "model of it (exact: the model is what it plays).",
        "Responders: fold, call, pot and all-in (FCPA); LBR looks one move ahead (the bot's reply) and CDBRd d moves "
        "(either player's and the deals'), each with LBR's value function at the limit (both check/call to the end); "
        "they act preflop too.",
    )
    notes = (
        "Paper (Milec, Kubíček & Lisý, Table 2): HUNL against SlumBot, its strategy given as the model: ABR 1,259, "
        "LBR 1,388 ± 150, CDBR 1,774 ± 137 mbb/hand (FCPA; its look-ahead and value function are not stated). Ours: "
        "the opponent is a lookup-table bot of our own (SlumBot is not available), the value function is LBR's, and ABR "
        "is not implemented. Compare the shape: CDBR above LBR.",
        ("Exact values: each responder's behaviour strategy asked at every information set of the compiled game; AIVAT "
         "takes it and the bot's as its reference. The best response's gain is the most any responder can win."
         if exact else "No tree of HUNL is built: AIVAT takes the value of the cards as its value function (the pot "
         "called down with both hands known); the second interval is the luck-adjusted estimate, its chance "
         "corrections alone."),
        f"Wall time {seconds:.0f} s on {workers} process(es)"
        + (f", of which {train_seconds:.1f} s training the bot's blueprint." if trained else ", blueprint read back.")
        + " Wall times are not deterministic; every other number is, for a seed.",
    )
    series = [Series(f"vs {BOT}", list(range(len(rows))), [cells[row, BOT]["aivat"] for row in rows])]
    return ExperimentResult(
        "cdbr-hunl", "CDBR and LBR against a lookup-table bot (continual-responses paper, Table 2)", tuple(headers),
        table, series, "responder", f"winrate ({unit})", logx=False, logy=False, notes=notes,
        xticklabels=tuple(rows), setup=setup_lines,
    )
