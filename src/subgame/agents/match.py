"""Duplicate matches between two agents, with exact values and AIVAT variance reduction.

**Duplicate deals.** Deal ``d`` of a match with seed ``s`` draws every chance outcome
(hole cards, boards) from one stream seeded by ``(s, d)``; it is played twice, agent A in
seat 0 and then in seat 1, with the same stream, so both seatings see the same cards as
long as the hands reach the same chance events. Agents' seeds (:meth:`Agent.new_hand`) and
the draws of their actions from their :class:`~subgame.agents.base.Decision` come from
streams seeded by ``(s, d, play)``. A deal's result is A's mean utility per hand over its
two plays; the winrate is the mean over deals with a 95 % normal confidence interval
(1.96 standard errors of the per-deal results). Deals are independent, so a match run in
parallel (any number of processes) gives bitwise the results of the serial run.

**AIVAT** (Burch, Schmid, Moravčík, Morrill & Bowling, "AIVAT: A New Variance Reduction
Technique for Agent Evaluation in Imperfect Information Games", AAAI 2018, §4). With a
value function ``v`` over histories, every chance event and every decision whose
probabilities are known adds the correction ``v(h·a) − Σ_b σ(b|h) v(h·b)``, which has
expectation zero given ``h``; the estimate is the hand's utility minus the corrections, so
it is unbiased for *any* ``v``. Here every decision is known (the match draws the action
from the agent's returned distribution), chance is known from the rules, and ``v`` is
player 0's exact expected value of each history under a reference profile, computed in one
walk over the game's histories: the agents' own strategies where they are
:class:`~subgame.agents.base.KnownAgent` (a strategy file, the baselines, translation, a
re-solver), the other agent's for one that is not, the uniform strategy if neither is. With
both agents' strategies as the reference the corrections telescope and each hand's
estimate is the exact value (zero variance); with another reference the variance drops by
how well ``v`` predicts the hand. The *luck-adjusted* estimate keeps only the chance
corrections (the chance-correction of duplicate + luck adjustment).

The paper computes ``v`` for the known player's possible private states from her strategy
("imaginary observations", §5); where the match knows both players' cards and strategies,
the exact history values are the better value function, so that is the choice here.

**Exact value.** For two known agents, A's expected utility per hand over both seats is
``(EV(A, B) − EV(B, A)) / 2`` with :func:`~subgame.eval.expected_value` on the compiled tree.

**Without a tree.** A game too large to compile (heads-up no-limit hold'em) is played by
agents that need no tree (baselines, blueprints, the HUNL search agent): the match deals,
applies actions and scores with the game's rules alone (``root``, ``chance_outcomes``,
``next_state``, ``utility``), so duplicate deals are the same. There are no history values of
known strategies, so AIVAT takes the value of the cards (:mod:`.aivat_poker`: the pot called
down with both hands known), unbiased as every AIVAT value function is; a game with no such
values has the plain duplicate mean only (:attr:`MatchResult.absent` says why).
"""

from __future__ import annotations

import math
import os
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, Protocol

import numpy as np

from ..errors import SubgameError
from ..eval.best_response import expected_value
from ..games.base import CHANCE, TERMINAL, Game, game_fingerprint
from ..games.poker.game import PokerGame
from ..parallel import Executor, SerialExecutor
from ..solve.driver import deferred_stop_signals
from ..strategy import Strategy
from ..tree.lookup import lookups
from ..tree.public_tree import PublicTree
from .aivat_poker import CardValues
from .base import Agent, KnownAgent, Move, View, sample_index

Estimator = Literal["plain", "luck", "aivat"]
ESTIMATORS: tuple[Estimator, ...] = ("plain", "luck", "aivat")
Z_95 = 1.959963984540054  #: two-sided 95 % quantile of the standard normal


def mbb_scale(game: Game) -> tuple[float, str]:
    """``(factor, unit)``: game units × factor is the reported unit per hand.

    Poker: milli-big-blinds, 1000 / big blind; a game with antes and no blinds (Kuhn,
    Leduc) counts 1 chip as the big blind, the convention of the papers on these games.
    Other games: their own units.
    """
    if isinstance(game, PokerGame):
        return 1000.0 / float(max(max(game.spec.blinds), 1)), "mbb/hand"
    return 1.0, "units/hand"


# -- history values (AIVAT's value function) ------------------------------------------------

History = tuple[int, ...]


def history_values(game: Game, tree: PublicTree, profile: Strategy) -> Mapping[History, float]:
    """Player 0's expected utility of every history (the actions from the root) under ``profile``.

    One backward pass over the game's histories (:class:`HistoryLayout`, one walk of the game per
    tree); the profile's rows are found by the information sets the observations name. Checked
    against :func:`~subgame.eval.expected_value` at the root in the tests.
    """
    profile.check(tree)
    layout = _history_layouts.get(tree)
    if layout is None:
        layout = _history_layouts[tree] = HistoryLayout.walk(game, tree)
    return layout.values(profile)


@dataclass(frozen=True, eq=False)
class HistoryLayout:
    """Every history of a game as arrays, made by one walk of the game, so that a profile's value of every history
    is one backward pass (a match has two reference profiles, a table of matches many)."""

    index: dict[History, int]  #: each history's row, in the walk's depth-first order (a parent before its children)
    parent: np.ndarray  #: [H] the parent's row (-1 at the root)
    chance: np.ndarray  #: [H] the chance probability of the last action (0 where a player chose it)
    player: np.ndarray  #: [H] who chose the last action (-1: chance, or the root)
    entry: np.ndarray  #: [H] its (information set, action) entry of ``probs[player].ravel()`` (-1: not in the row)
    utility: np.ndarray  #: [H] player 0's utility at terminal histories, 0 elsewhere
    levels: tuple[np.ndarray, ...]  #: the rows at each depth from 1 on, ascending

    @staticmethod
    def walk(game: Game, tree: PublicTree) -> HistoryLayout:
        index = lookups(tree)
        rows: dict[History, int] = {}
        parent: list[int] = []
        chance: list[float] = []
        player: list[int] = []
        entry: list[int] = []
        utility: list[float] = []
        depth: list[int] = []

        @cache
        def row(p: int, i: int) -> dict[int, int]:  # {action: entry} of information set i, built once
            pa = tree.players[p]
            return {int(pa.action_ids[i, k]): int(i * pa.legal.shape[1] + k) for k in np.flatnonzero(pa.legal[i])}

        def visit(st: Any, hist: History, pub: tuple[str, ...], labels: tuple[str, str], up: int, how: tuple[float, int, int]) -> None:
            me = rows[hist] = len(parent)
            parent.append(up)
            chance.append(how[0])
            player.append(how[1])
            entry.append(how[2])
            depth.append(len(hist))
            who = game.actor(st)
            utility.append(float(game.utility(st)) if who == TERMINAL else 0.0)
            if who == TERMINAL:
                return
            if who == CHANCE:
                branches: Sequence[tuple[int, tuple[float, int, int]]] = [(a, (p, -1, -1)) for a, p in game.chance_outcomes(st)]
            else:
                inf = index[who](pub, labels[who])
                if inf < 0:
                    raise SubgameError(f"{game.name}: the tree has no information set of player {who} at {list(pub)!r}")
                entries = row(who, inf)
                branches = [(a, (0.0, who, entries.get(a, -1))) for a in game.legal_actions(st)]
            for a, child in branches:
                o_pub, o0, o1 = game.observations(st, a)
                visit(game.next_state(st, a), hist + (a,), pub + (o_pub,), (_join(labels[0], o0), _join(labels[1], o1)), me, child)

        visit(game.root(), (), (), ("", ""), -1, (0.0, -1, -1))
        d = np.asarray(depth, dtype=np.int64)
        order = np.argsort(d, kind="stable")
        levels = tuple(np.split(order, np.searchsorted(d[order], np.arange(1, int(d.max(initial=0)) + 1)))[1:])
        return HistoryLayout(rows, np.asarray(parent, dtype=np.int64), np.asarray(chance), np.asarray(player, dtype=np.int8),
                             np.asarray(entry, dtype=np.int64), np.asarray(utility), levels)

    def values(self, profile: Strategy) -> Mapping[History, float]:
        """Player 0's expected utility of every history under ``profile``: each parent's value the sum over its children
        in the game's order of probability × value, as the recursion it replaces added them."""
        prob = self.chance.copy()
        for p in (0, 1):
            mine = np.flatnonzero(self.player == p)
            at = self.entry[mine]
            prob[mine] = np.where(at >= 0, profile.probs[p].ravel()[np.maximum(at, 0)], 0.0)
        v = self.utility.copy()
        for level in reversed(self.levels):
            np.add.at(v, self.parent[level], prob[level] * v[level])  # unbuffered, in row order: the children in turn
        return HistoryValues(self.index, v)


class HistoryValues(Mapping[History, float]):
    """A value of every history, read by history (:func:`history_values`)."""

    def __init__(self, index: dict[History, int], values: np.ndarray) -> None:
        self._index, self._values = index, values

    def __getitem__(self, hist: History) -> float:
        return float(self._values[self._index[hist]])

    def __iter__(self) -> Iterator[History]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


#: Each tree's :class:`HistoryLayout`, made at its first match.
_history_layouts: weakref.WeakKeyDictionary[PublicTree, HistoryLayout] = weakref.WeakKeyDictionary()


#: The most histories :func:`history_values` walks (a few seconds per million in CPython).
MAX_AIVAT_HISTORIES = 3_000_000


def history_count(tree: PublicTree) -> int:
    """Histories of the game at its public nodes (pairs of private states, card removal ignored): an upper bound."""
    per_node = [np.bincount(pa.node, minlength=tree.num_nodes) for pa in tree.players]
    return int(np.dot(per_node[0], per_node[1]))


def _join(label: str, obs: str) -> str:
    """A private label after one more private observation (``"/"``-joined, empty ones skipped)."""
    return (label + "/" + obs if label else obs) if obs else label


def reference_profile(agents: tuple[Agent, Agent], tree: PublicTree, use: tuple[bool, bool] = (True, True)) -> tuple[Strategy, Strategy]:
    """AIVAT's reference strategy of each agent: its own if known, else the other's, else uniform.

    ``use[i]`` false treats agent i as unknown (to measure AIVAT as when evaluating an
    agent against an opponent whose strategy is not available).
    """
    known = [a.behaviour(tree) if isinstance(a, KnownAgent) and u else None for a, u in zip(agents, use)]
    fallback = known[0] or known[1] or Strategy.uniform(tree)
    return (known[0] or known[1] or fallback, known[1] or known[0] or fallback)


def exact_value(tree: PublicTree, a: Strategy, b: Strategy) -> float:
    """A's expected utility per hand against B, averaged over both seats (game units)."""
    return 0.5 * (expected_value(tree, a, b) - expected_value(tree, b, a))


# -- playing deals ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchError:
    """What stopped a match: the deal, the play (0: A in seat 0; 1: swapped), the seat and agent, the error.

    ``first_hand`` is A's utility in the deal's first hand when the second one failed (in
    game units, halved as in a deal's result): a finished hand with no duplicate, kept
    here but left out of the winrates.
    """

    deal: int
    play: int
    seat: int
    agent: str
    message: str
    first_hand: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "play": self.play, "seat": self.seat, "agent": self.agent, "message": self.message,
                "first_hand": self.first_hand}


class _AgentFailed(Exception):
    def __init__(self, seat: int, message: str) -> None:
        super().__init__(message)
        self.seat = seat


def _stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def _agent_seeds(seed: int, deal: int, play: int) -> tuple[int, int]:
    """The seeds of the agents in seats 0 and 1 for one play of a deal."""
    a, b = np.random.SeedSequence(seed, spawn_key=(deal, play, 2)).generate_state(2)
    return int(a), int(b)


class Corrections(Protocol):
    """AIVAT's corrections along a hand, for player 0: each has expectation zero given the history before it."""

    def chance(self, hist: History, st: Any, outcomes: Sequence[tuple[int, float]], a: int) -> float:
        """The correction of chance outcome ``a`` among ``outcomes`` at history ``hist`` (state ``st``)."""
        ...

    def decision(self, hist: History, st: Any, probs: Mapping[int, float], a: int) -> float:
        """The correction of action ``a`` drawn from the acting agent's ``probs`` at history ``hist``."""
        ...


@dataclass(frozen=True, eq=False)
class HistoryTable:
    """Corrections from a value of every history: ``v(h·a) − Σ_b σ(b|h)·v(h·b)``."""

    values: Mapping[History, float]

    def chance(self, hist: History, st: Any, outcomes: Sequence[tuple[int, float]], a: int) -> float:
        v = self.values
        return v[hist + (a,)] - sum(p * v[hist + (b,)] for b, p in outcomes)

    def decision(self, hist: History, st: Any, probs: Mapping[int, float], a: int) -> float:
        v = self.values
        return v[hist + (a,)] - sum(p * v[hist + (b,)] for b, p in probs.items())


def play_hand(
    game: Game, seats: tuple[Agent, Agent], deal_rng: np.random.Generator, action_rng: np.random.Generator,
    values: Mapping[History, float] | Corrections | None = None,
) -> tuple[float, float, float]:
    """Play one hand; ``(utility, chance correction, decision correction)`` for player 0.

    The corrections are AIVAT's, with ``values`` (a value of every history, or corrections;
    zero without them).

    Raises:
        _AgentFailed: an agent raised or returned something that is not a distribution
            over the legal actions.
    """
    corrections = HistoryTable(values) if isinstance(values, Mapping) else values
    st = game.root()
    moves: tuple[list[Move], list[Move]] = ([], [])
    hist: History = ()
    chance_corr = decision_corr = 0.0
    while (who := game.actor(st)) != TERMINAL:
        if who == CHANCE:
            outcomes = game.chance_outcomes(st)
            a = outcomes[sample_index([p for _, p in outcomes], deal_rng)][0]
            if corrections is not None:
                chance_corr += corrections.chance(hist, st, outcomes, a)
        else:
            view = View(who, tuple(moves[who]), tuple(game.legal_actions(st)))
            try:
                decision = seats[who].act(view).checked(view)
            except Exception as exc:  # an agent is foreign code: any failure ends the match cleanly
                raise _AgentFailed(who, f"{type(exc).__name__}: {exc}") from exc
            a = decision.sample(action_rng)
            if corrections is not None:
                decision_corr += corrections.decision(hist, st, decision.probs, a)
        pub, o0, o1 = game.observations(st, a)
        moves[0].append(Move(pub, o0))
        moves[1].append(Move(pub, o1))
        hist += (a,)
        st = game.next_state(st, a)
    return float(game.utility(st)), chance_corr, decision_corr


@dataclass(frozen=True, eq=False)
class _Values:
    """AIVAT's value tables of a match, by seating, computed once per process.

    The tables are large (one entry per history), so a task carries only what makes them
    (``tree``, the two seatings' reference profiles) and a ``token``: a process looks the
    token up in :data:`_VALUE_TABLES` (filled by the parent before a forked pool starts)
    and computes the tables only where they are missing (a spawned worker).
    """

    token: str
    game: Game
    tree: PublicTree
    profiles: tuple[Strategy, Strategy]

    def tables(self) -> tuple[Mapping[History, float], Mapping[History, float]]:
        hit = _VALUE_TABLES.get(self.token)
        if hit is None:
            hit = (history_values(self.game, self.tree, self.profiles[0]), history_values(self.game, self.tree, self.profiles[1]))
            _VALUE_TABLES.clear()  # one match at a time per process
            _VALUE_TABLES[self.token] = hit
        return hit


_VALUE_TABLES: dict[str, tuple[Mapping[History, float], Mapping[History, float]]] = {}


@dataclass(frozen=True, eq=False)
class _Cards:
    """AIVAT's corrections of a match without a tree: the cards' value, the same in both seatings (player 0's)."""

    values: CardValues

    def tables(self) -> tuple[CardValues, CardValues]:
        return self.values, self.values


@dataclass(frozen=True, eq=False)
class _Deals:
    """Deals ``start..stop-1`` of a match, as sent to a worker."""

    game: Game
    agents: tuple[Agent, Agent]
    seed: int
    start: int
    stop: int
    values: _Values | _Cards | None


@dataclass(frozen=True, eq=False)
class _DealsResult:
    results: np.ndarray  #: [D, 3] A's plain, luck-adjusted and AIVAT result per hand of each finished deal
    error: MatchError | None


def play_deals(task: _Deals) -> _DealsResult:
    """Play the deals of ``task`` (the function executors map); stops at the first agent error."""
    game, agents = task.game, task.agents
    tables = None if task.values is None else task.values.tables()
    rows: list[np.ndarray] = []
    for d in range(task.start, task.stop):
        row = np.zeros(3)
        for play in (0, 1):
            seats = (agents[0], agents[1]) if play == 0 else (agents[1], agents[0])
            sign = 1.0 if play == 0 else -1.0
            try:
                for seat, agent_seed in enumerate(_agent_seeds(task.seed, d, play)):
                    seats[seat].new_hand(seat, agent_seed)
                u, cc, dc = play_hand(game, seats, _stream(task.seed, d), _stream(task.seed, d, play, 1),
                                      None if tables is None else tables[play])
            except _AgentFailed as exc:
                error = MatchError(d, play, exc.seat, seats[exc.seat].name, str(exc), row[0] if play == 1 else None)
                return _DealsResult(np.array(rows).reshape(-1, 3), error)
            row += 0.5 * sign * np.array([u, u - cc, u - cc - dc])
        rows.append(row)
    return _DealsResult(np.array(rows).reshape(-1, 3), None)


# -- results --------------------------------------------------------------------------------------


#: A spread of per-deal values below this many ulps of the largest plain result is rounding: each value sums
#: a few hundred terms at most, each bounded by that result.
ROUNDING_ULPS = 1024


@dataclass(frozen=True)
class Estimate:
    """A winrate with its 95 % confidence interval, in the match's unit per hand."""

    mean: float
    half_width: float  #: 1.96 standard errors (nan with fewer than two deals)
    std: float  #: standard deviation of the per-deal results

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def contains(self, value: float, *, atol: float = 1e-9) -> bool:
        return self.low - atol <= value <= self.high + atol

    @property
    def exact(self) -> bool:
        """Whether the interval has no width: every deal gave the same value, up to rounding."""
        return self.half_width == 0.0

    @staticmethod
    def of(x: np.ndarray, rounding: float = 0.0, exact: float | None = None) -> Estimate:
        """The mean of ``x`` with its interval; a spread within ``rounding`` is none, and a mean within
        ``rounding`` of ``exact`` (where known) is that exact value."""
        n = x.size
        if n == 0:
            return Estimate(math.nan, math.nan, math.nan)
        if n > 1 and float(np.max(x) - np.min(x)) <= rounding:
            mean = float(np.mean(x))
            return Estimate(exact if exact is not None and abs(mean - exact) <= rounding else mean, 0.0, 0.0)
        std = float(np.std(x, ddof=1)) if n > 1 else math.nan
        return Estimate(float(np.mean(x)), Z_95 * std / math.sqrt(n) if n > 1 else math.nan, std)

    def to_json(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "half_width": self.half_width, "std": self.std}


@dataclass(frozen=True, eq=False)
class MatchResult:
    """A finished (or stopped) match; agent A's results, in ``unit`` (game units × ``scale``).

    Attributes:
        game: the game's description.
        agents: the names of A and B.
        seed: the match seed.
        deals_requested: deals asked for.
        per_deal: [D, 3] A's mean result per hand of each finished deal in game units:
            plain, luck-adjusted, AIVAT (the last two ``nan`` without AIVAT values).
        exact: A's exact expected value per hand in game units, where both are known.
        error: what stopped the match early, if anything (finished deals are kept).
    """

    game: str
    agents: tuple[str, str]
    seed: int
    deals_requested: int
    per_deal: np.ndarray
    scale: float
    unit: str
    exact: float | None = None
    error: MatchError | None = None
    workers: int = 1
    seconds: float = field(default=0.0, compare=False)
    absent: str | None = None  #: why the luck-adjusted and AIVAT estimates are absent, where they are
    values: str | None = None  #: AIVAT's value function where it is not the reference strategies' history values

    @property
    def deals(self) -> int:
        return int(self.per_deal.shape[0])

    @property
    def hands(self) -> int:
        return 2 * self.deals

    @property
    def has_aivat(self) -> bool:
        return bool(self.deals) and not np.isnan(self.per_deal[0, 2])

    def estimate(self, estimator: Estimator = "plain") -> Estimate:
        """A's winrate per hand in ``unit`` by ``estimator``.

        Per-deal values that differ by less than their rounding (:data:`ROUNDING_ULPS` of the
        largest plain result) have no spread: the interval has no width and, where both agents
        are known, the value shown is the exact one (AIVAT with both strategies known is exact).
        """
        x = self.scale * self.per_deal[:, ESTIMATORS.index(estimator)]
        plain = self.scale * self.per_deal[:, 0]
        rounding = ROUNDING_ULPS * np.finfo(float).eps * float(np.max(np.abs(plain))) if plain.size else 0.0
        return Estimate.of(x, rounding, None if self.exact is None else self.scale * self.exact)

    def running(self, estimator: Estimator = "plain") -> tuple[np.ndarray, np.ndarray]:
        """[D] the running mean after each deal and its 95 % half width (nan before two deals)."""
        x = self.scale * self.per_deal[:, ESTIMATORS.index(estimator)]
        n = np.arange(1, x.size + 1)
        mean = np.cumsum(x) / n
        var = np.maximum(np.cumsum(x * x) - n * mean**2, 0.0) / np.maximum(n - 1, 1)
        half = np.where(n > 1, Z_95 * np.sqrt(var / n), np.nan)
        return mean, half

    def to_json(self) -> dict[str, Any]:
        estimators = ESTIMATORS if self.has_aivat else ("plain",)
        return {
            "game": self.game, "agents": list(self.agents), "seed": self.seed, "unit": self.unit,
            "deals_requested": self.deals_requested, "deals": self.deals, "hands": self.hands, "workers": self.workers,
            "winrate": {e: self.estimate(e).to_json() for e in estimators},
            "exact": None if self.exact is None else self.scale * self.exact,
            "error": None if self.error is None else self.error.to_json(),
            "estimators_absent": None if self.has_aivat else self.absent,
            "aivat_value_function": self.values if self.has_aivat else None,
            "seconds": self.seconds,
        }


# -- the match ------------------------------------------------------------------------------------------


def play_match(
    game: Game,
    tree: PublicTree | None,
    agents: tuple[Agent, Agent],
    deals: int,
    seed: int,
    *,
    aivat: bool = True,
    exact: bool = True,
    reference: tuple[Strategy, Strategy] | None = None,
    executor: Executor | None = None,
    chunk: int | None = None,
    progress: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    """Play ``deals`` duplicate deals (``2 × deals`` hands) of agent A = ``agents[0]`` against B.

    Args:
        game, tree: the game and its compiled tree (exact values and AIVAT's values);
            ``None`` for a game whose tree is not built (HUNL): hands are dealt, played and
            scored by the game's rules alone, AIVAT takes the value of the cards
            (:class:`~.aivat_poker.CardValues`) and no exact value is made.
        aivat: compute the luck-adjusted and AIVAT estimates (one walk over the game's
            histories per seating; without a tree, the cards' equity at each step of a hand).
        exact: compute the exact expected value where both agents are known.
        reference: AIVAT's reference strategies of A and B (default
            :func:`reference_profile`).
        executor: runs blocks of deals (a :class:`~subgame.decompose.ProcessExecutor` for
            parallel matches); serial when ``None``. Results do not depend on it.
        chunk: deals per block (default: about 1 % of the match, a block per progress update).
        progress: called with the result so far after every block (or round of blocks).

    Raises:
        SubgameError: ``deals`` < 1, or a tree of another game.
    """
    if deals < 1:
        raise SubgameError(f"a match needs at least one deal, got {deals}")
    absent = None if aivat else "not asked for"
    values: _Values | _Cards | None = None
    if tree is None:
        cards = CardValues.of(game) if aivat else None
        if cards is not None:
            values = _Cards(cards)
        elif aivat:
            absent = ("the game's tree is not built (it does not fit), and the value of its cards is not known here (a poker "
                      "game; on the 52-card deck, with the compiled showdown pass built)")
        aivat = exact = False
    elif tree.game_id != game_fingerprint(game):
        raise SubgameError(f"the tree is of game {tree.game_id!r}, the match is {game_fingerprint(game)!r}; compile the match's game")
    started = time.perf_counter()
    scale, unit = mbb_scale(game)
    if aivat and tree is not None:
        if history_count(tree) > MAX_AIVAT_HISTORIES:
            raise SubgameError(f"{game.name}: AIVAT's history values would walk up to {history_count(tree):,} histories "
                               f"(limit {MAX_AIVAT_HISTORIES:,}); play the match without AIVAT (--no-aivat)")
        ref = reference if reference is not None else reference_profile(agents, tree)
        profiles = (Strategy(tree.game_id, (ref[0].probs[0], ref[1].probs[1])), Strategy(tree.game_id, (ref[1].probs[0], ref[0].probs[1])))
        values = _Values(f"{os.getpid()}:{id(agents)}:{seed}:{time.time_ns()}", game, tree, profiles)
        values.tables()  # in this process, before a forked pool starts
    ev = None
    a, b = agents
    if exact and tree is not None and isinstance(a, KnownAgent) and isinstance(b, KnownAgent):
        ev = exact_value(tree, a.behaviour(tree), b.behaviour(tree))
    executor = executor if executor is not None else SerialExecutor()
    size = chunk or max(1, deals // (100 if executor.workers == 1 else 10 * executor.workers))
    tasks = [_Deals(game, agents, seed, lo, min(lo + size, deals), values) for lo in range(0, deals, size)]
    rows: list[np.ndarray] = []
    error = None
    names = (agents[0].name, agents[1].name)

    def result() -> MatchResult:
        per = np.concatenate(rows) if rows else np.zeros((0, 3))
        if values is None:
            per[:, 1:] = np.nan
        return MatchResult(game.name, names, seed, deals, per, scale, unit, ev, error, executor.workers,
                           time.perf_counter() - started, absent, CardValues.description if isinstance(values, _Cards) else None)

    step = max(1, executor.workers)
    try:
        with deferred_stop_signals() as stop:  # SIGINT/SIGTERM/SIGHUP (an agent's solve passes it on): after the block
            for i in range(0, len(tasks), step):
                for r in executor.map(play_deals, tasks[i : i + step]):
                    rows.append(r.results)
                    if r.error is not None:
                        error = r.error
                        break
                if progress is not None:
                    progress(result())
                if error is not None:
                    break
                if stop.signum is not None:
                    raise KeyboardInterrupt
    except KeyboardInterrupt:
        error = MatchError(sum(len(r) for r in rows), 0, -1, "", "interrupted; the finished deals are kept")
    finally:
        if isinstance(values, _Values):
            _VALUE_TABLES.pop(values.token, None)
    return result()


def plot_running(result: MatchResult, path: Any) -> Any:
    """A PNG of the running winrate with its 95 % interval (plain and AIVAT) and the exact value."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ..files import write_atomic

    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    hands = 2 * np.arange(1, result.deals + 1)
    settled = hands >= 2 * max(20, result.deals // 20)  # the y range follows the interval once it has settled
    span: list[float] = []
    for estimator in ESTIMATORS if result.has_aivat else ("plain",):
        if estimator == "luck":
            continue
        mean, half = result.running(estimator)
        line = ax.plot(hands, mean, label="duplicate" if estimator == "plain" else "AIVAT")[0]
        ax.fill_between(hands, mean - half, mean + half, color=line.get_color(), alpha=0.2)
        if settled.any():
            span += [float(np.nanmin((mean - half)[settled])), float(np.nanmax((mean + half)[settled]))]
    if result.exact is not None:
        ax.axhline(result.scale * result.exact, color="black", linestyle="--", linewidth=1, label="exact")
        span.append(result.scale * result.exact)
    if len(span) > 1 and max(span) > min(span):
        pad = 0.15 * (max(span) - min(span))
        ax.set_ylim(min(span) - pad, max(span) + pad)
    ax.set_xscale("log")
    ax.set_xlabel("hands")
    ax.set_ylabel(f"{result.agents[0]} winrate ({result.unit})")
    ax.set_title(f"{result.agents[0]} vs {result.agents[1]}, {result.game}, seed {result.seed} (95 % interval)", fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend()
    return write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=120), "plot")
