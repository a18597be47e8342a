"""What the HUNL head-to-head experiments share: blueprints kept in a run's folder, and a table of duplicate matches
that is written match by match and resumed from what a stopped run finished.

:mod:`.modicum_table` (depth-limited paper, Table 1) and :mod:`.cdbr_hunl` (continual-responses
paper, Table 2) play agents on implicit-MCCFR blueprints against one another. On a deck small
enough to compile every agent's behaviour strategy is asked at every information set, so the
matches are scored by AIVAT with those strategies as reference and their exact values are
computed beside; on HUNL there is no tree, and AIVAT takes the value of the cards instead.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..agents.base import Agent
from ..agents.exact import agent_strategy
from ..agents.match import MatchResult, exact_value, mbb_scale, play_match
from ..blueprint.actions import ActionAbstraction
from ..blueprint.blueprint_file import Blueprint
from ..blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from ..blueprint.deal_abstraction import DealAbstraction, ExactCards
from ..blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR
from ..errors import InvalidRangeError, StrategyFileError, SubgameError
from ..files import write_text
from ..games.poker.game import PokerGame
from ..parallel import Executor, ProcessExecutor
from ..strategy import Strategy
from ..tree.public_tree import PublicTree

#: Heads-up no-limit hold'em as the ACPC's game file has it: 200 big blinds, big blind first after the flop.
HUNL = dict(num_ranks=13, num_suits=4, hole_cards=2, board_cards=(0, 3, 1, 1), betting="nolimit", ante=0,
            blinds=(100, 50), stack=20000, first_player=(1, 0, 0, 0))
#: Four rounds on three ranks of two suits, one hole card, a pot bet and all-in, one raise a round: the whole game
#: compiles in well under a second and every river of the agent's walk is solved in milliseconds.
REDUCED = dict(num_ranks=3, num_suits=2, hole_cards=1, board_cards=(0, 1, 1, 1), betting="nolimit", ante=0,
               blinds=(2, 1), stack=6, bet_fractions=(1.0,), all_in=True, first_player=(1, 0, 0, 0), raise_cap=1)

#: One match of a table: its mean and 95 % half-width per estimate ("plain", "luck", "aivat"), "exact", "seconds", "hands".
Cell = dict[str, float]
#: The two behaviour strategies of a match on a compiled tree (row agent's, column agent's).
Pair = tuple[Strategy, Strategy]
#: The version of a match file; a file of another version (estimated otherwise, or LBR with another model of the
#: agent: 3; without the luck-adjusted estimate: 4) is played again, never read back.
CELL_FORMAT = 4


def run_folder(checkpoint: Path | None, experiment: str, key: object) -> Path | None:
    """The folder of one run under ``checkpoint``: one per experiment and ``key`` (its setup and seed), so that
    nothing of another run is ever read back; ``None`` without a checkpoint folder."""
    if checkpoint is None:
        return None
    folder = Path(checkpoint) / f"{experiment}-{hashlib.sha256(repr(key).encode()).hexdigest()[:12]}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def card_abstraction(game: PokerGame, buckets: tuple[int, ...] | None, seed: int) -> DealAbstraction:
    """Exact cards (``None``) or four-round buckets of these counts."""
    if buckets is None:
        return ExactCards(game.spec)
    return FourRoundBuckets.build(Buckets4Config.of(game.spec, buckets, rollouts=2, fit_boards=2, seed=seed))


def trained_blueprint(folder: Path | None, stem: str, game: PokerGame, actions: ActionAbstraction,
                      buckets: tuple[int, ...] | None, iterations: int, seed: int) -> tuple[Blueprint, DealAbstraction, bool]:
    """An implicit-MCCFR blueprint of ``iterations`` and its card abstraction, read from ``folder`` where a finished
    run left them, else trained (and kept there); the flag says whether it was trained now."""
    if folder is not None and (folder / f"{stem}.npz").is_file() and (buckets is None or (folder / f"{stem}-buckets.npz").is_file()):
        blueprint = Blueprint.load(folder / f"{stem}.npz")
        kept: DealAbstraction = FourRoundBuckets.load(folder / f"{stem}-buckets.npz") if buckets is not None else ExactCards(game.spec)
        return blueprint, kept, False
    abstraction = card_abstraction(game, buckets, seed)
    solver = ImplicitMCCFR(game.spec, actions, abstraction, ImplicitConfig(batch=min(iterations, 1000)), seed=seed)
    while solver.iteration < iterations:
        solver.step()
    blueprint = Blueprint.of(solver)
    if folder is not None:
        if isinstance(abstraction, FourRoundBuckets):
            abstraction.save(folder / f"{stem}-buckets.npz")
        blueprint.save(folder / f"{stem}.npz")
    return blueprint, abstraction, True


def behaviour(agent: Agent, game: PokerGame, tree: PublicTree, seed: int, folder: Path | None = None, label: str = "",
              blueprints: Sequence[Blueprint] = ()) -> Strategy:
    """The strategy ``agent`` plays in both seats of the compiled game (asked at every information set).

    With a run's ``folder`` it is kept there under ``label`` (the agent's place in the table), with a digest of the
    ``blueprints`` it plays from, and read back by a later run while that digest is the same: asking a search agent
    at every information set is most of a reduced table's time, and a blueprint trained again from the same seed is
    the same to the bit (one that differs is asked again)."""
    digest = hashlib.sha256(b"".join(bp.probs.tobytes() for bp in blueprints)).hexdigest()
    file = folder / f"behaviour-{hashlib.sha256(label.encode()).hexdigest()[:10]}.npz" if folder is not None else None
    if file is not None and file.is_file():
        try:
            kept = Strategy.load(file, tree)
        except (StrategyFileError, InvalidRangeError):  # an earlier version's or a damaged one: asked again, rewritten
            kept = None
        if kept is not None and kept.meta.extra.get("agent") == label and kept.meta.extra.get("blueprints") == digest:
            return kept
    strategy = Strategy(tree.game_id, tuple(agent_strategy(agent, game, tree, p, seed=seed) for p in (0, 1)),  # type: ignore[arg-type]
                        {"seed": seed, "agent": label, "blueprints": digest})
    if file is not None:
        strategy.save(file)
    return strategy


def interval(mean: float, half_width: float) -> str:
    """A table's cell: a mean and its 95 % half-width, whole units."""
    return f"{mean:+.0f} ± {half_width:.0f}"


def play_table(game: PokerGame, tree: PublicTree | None, todo: Sequence[tuple[str, str]],
               make: Callable[[str, str], tuple[Agent, Agent]], references: Mapping[tuple[str, str], Pair], deals: int,
               seed: int, folder: Path | None, workers: int, say: Callable[[str], None]) -> dict[tuple[str, str], Cell]:
    """Every match ``(row, column)`` of ``todo`` (``make`` gives its two agents), those ``folder`` holds read back,
    each written there once it ends, blocks of deals played by ``workers`` processes. With a tree and the match's
    pair of behaviour strategies in ``references`` it is scored by AIVAT with them as reference and its exact value
    computed too; without a tree, by AIVAT with the cards' value (:class:`~subgame.agents.aivat_poker.CardValues`)."""
    executor: Executor | None = ProcessExecutor(workers) if workers > 1 else None
    try:
        return _play_table(game, tree, todo, make, references, deals, seed, folder, executor, say)
    finally:
        if executor is not None:
            executor.close()


def _play_table(game: PokerGame, tree: PublicTree | None, todo: Sequence[tuple[str, str]],
                make: Callable[[str, str], tuple[Agent, Agent]], references: Mapping[tuple[str, str], Pair], deals: int,
                seed: int, folder: Path | None, executor: Executor | None,
                say: Callable[[str], None]) -> dict[tuple[str, str], Cell]:
    scale, unit = mbb_scale(game)
    cells: dict[tuple[str, str], Cell] = {}
    for i, (a, o) in enumerate(todo):
        label = f"[{i + 1}/{len(todo)}] {a} vs {o}"
        digest = hashlib.sha256(f"{a}\n{o}".encode()).hexdigest()[:10]
        file = folder / f"match-{digest}.json" if folder is not None else None
        kept = json.loads(file.read_text()) if file is not None and file.is_file() else None
        if kept is not None and kept.get("format") == CELL_FORMAT:
            cells[a, o] = kept
            say(f"{label}: read from {file}")
            continue
        t0 = time.perf_counter()
        reference = references.get((a, o))

        def report(partial: MatchResult, label: str = label, t0: float = t0) -> None:
            done = partial.deals
            if 0 < done < deals:
                say(f"{label}: {done}/{deals} deals, {(time.perf_counter() - t0) / done * (deals - done):.0f} s to go")

        result = play_match(game, tree, make(a, o), deals, seed, aivat=tree is None or reference is not None,
                            exact=False, reference=reference, executor=executor, progress=report)
        if result.error is not None:
            raise SubgameError(f"{a} vs {o}: {result.error.message}")
        plain = result.estimate("plain")
        cell: Cell = {"format": CELL_FORMAT, "plain": plain.mean, "plain_ci": plain.half_width,
                      "seconds": time.perf_counter() - t0, "hands": result.hands}
        if result.has_aivat:
            aivat, luck = result.estimate("aivat"), result.estimate("luck")
            cell |= {"aivat": aivat.mean, "aivat_ci": aivat.half_width, "luck": luck.mean, "luck_ci": luck.half_width}
        if tree is not None and reference is not None:
            cell["exact"] = exact_value(tree, *reference) * scale
        cells[a, o] = cell
        if file is not None:
            write_text(file, json.dumps(cell))
        say(f"{label}: {interval(plain.mean, plain.half_width)} {unit} over {result.hands} hands ({cell['seconds']:.0f} s)")
    return cells


def estimate_cell(cell: Cell) -> str:
    """A match's cell: AIVAT where it was scored so, then the exact value where known (a tree) or else the luck-adjusted
    estimate (the chance corrections alone: without the agents' strategies AIVAT's action terms add noise); without
    AIVAT, the plain estimate."""
    key = "aivat" if "aivat" in cell else "plain"
    text = interval(cell[key], cell[f"{key}_ci"])
    if "exact" in cell:
        return f"{text}; {cell['exact']:+.1f}"
    return f"{text}; {interval(cell['luck'], cell['luck_ci'])}" if "luck" in cell else text


def estimate_header(exact: bool) -> str:
    """What :func:`estimate_cell` gives, for a column's header."""
    return "AIVAT; exact" if exact else "AIVAT; luck-adjusted"
