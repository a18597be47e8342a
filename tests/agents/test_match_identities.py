"""Identities a match must meet exactly, on every deal (not only on average).

Unbiasedness and coverage checks pass with estimators that are wrong in ways that average
out (a correction with its sign flipped, the two seatings of a deal on different cards).
These pin each deal: an agent that does not randomize against itself wins exactly 0;
with deterministic known agents and their own strategies as AIVAT's reference, the
luck-adjusted estimate of every deal is the exact value; each hand's corrections equal
AIVAT's formula (Burch et al. 2018, §4) recomputed along the hand's history; the interval
uses the sample standard deviation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from subgame.agents import Decision, StrategyAgent, View
from subgame.agents.match import Estimate, MatchResult, history_values, play_hand, play_match
from subgame.games import load_game
from subgame.games.base import CHANCE, TERMINAL
from subgame.strategy import Strategy
from tests.conftest import compiled


def _pure(tree, seed: int) -> Strategy:
    """A deterministic strategy: at each information set one legal action, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    probs = []
    for pa in tree.players:
        pick = np.where(pa.legal, rng.random(pa.legal.shape), -1.0).argmax(axis=1)
        probs.append(np.eye(pa.legal.shape[1])[pick])
    return Strategy(tree.game_id, (probs[0], probs[1]))


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_a_deterministic_agent_against_itself_wins_exactly_zero_on_every_deal(name):
    game, tree = load_game(name), compiled(name)
    a = StrategyAgent(tree, _pure(tree, 3), name="pure")
    result = play_match(game, tree, (a, a), 40, seed=11)
    assert result.per_deal.shape == (40, 3)
    np.testing.assert_array_equal(result.per_deal, 0.0)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_luck_adjusted_deals_of_deterministic_known_agents_are_the_exact_value(name):
    """No decision is random, so AIVAT's chance corrections alone telescope to the value of each seating."""
    game, tree = load_game(name), compiled(name)
    a, b = StrategyAgent(tree, _pure(tree, 1), name="a"), StrategyAgent(tree, _pure(tree, 2), name="b")
    result = play_match(game, tree, (a, b), 40, seed=5)
    assert result.exact is not None and result.per_deal[:, 0].std() > 0.1  # the cards do matter
    np.testing.assert_allclose(result.per_deal[:, 1], result.exact, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.per_deal[:, 2], result.exact, rtol=0, atol=1e-12)


class _RecordingGame:
    """The game, remembering every (state, action) step a hand takes."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self.steps: list[tuple[Any, int]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def next_state(self, st: Any, a: int) -> Any:
        self.steps.append((st, a))
        return self._game.next_state(st, a)


class _RecordingAgent:
    """A strategy agent remembering the distribution it returned at each decision."""

    def __init__(self, agent: StrategyAgent, log: list[dict[int, float]]) -> None:
        self.agent, self.log, self.name = agent, log, agent.name

    def new_hand(self, player: int, seed: int) -> None:
        self.agent.new_hand(player, seed)

    def act(self, view: View) -> Decision:
        decision = self.agent.act(view)
        self.log.append(dict(decision.probs))
        return decision


@pytest.mark.parametrize("seed", range(3))
def test_each_hands_corrections_recomputed_by_hand(seed):
    """Chance and decision corrections v(h·a) − Σ_b σ(b|h) v(h·b), summed along the hand, for an arbitrary v."""
    game, tree = load_game("leduc"), compiled("leduc")
    rng = np.random.default_rng(seed)
    agents = [StrategyAgent(tree, Strategy.random(tree, rng), name=n) for n in "ab"]
    values = {h: float(x) for h, x in zip(history_values(game, tree, Strategy.uniform(tree)), rng.normal(size=10**6))}
    recording, log = _RecordingGame(game), []
    seats = (_RecordingAgent(agents[0], log), _RecordingAgent(agents[1], log))
    u, chance, decision = play_hand(recording, seats, np.random.default_rng(100 + seed), np.random.default_rng(200 + seed), values)
    hist: tuple[int, ...] = ()
    expect = {"chance": 0.0, "decision": 0.0}
    decisions = iter(log)
    for st, a in recording.steps:
        if game.actor(st) == CHANCE:
            branches, kind = dict(game.chance_outcomes(st)), "chance"
        else:
            branches, kind = next(decisions), "decision"
        expect[kind] += values[hist + (a,)] - sum(p * values[hist + (b,)] for b, p in branches.items())
        hist += (a,)
    last = game.next_state(*recording.steps[-1])
    assert game.actor(last) == TERMINAL and u == game.utility(last)
    assert chance == pytest.approx(expect["chance"], abs=1e-12) and expect["chance"] != 0.0
    assert decision == pytest.approx(expect["decision"], abs=1e-12)


def test_the_interval_uses_the_sample_standard_deviation():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    e = Estimate.of(x)
    assert e.mean == 2.5
    assert e.std == pytest.approx(math.sqrt(5 / 3), abs=1e-15)  # Σ(x − mean)² / (n − 1)
    assert e.half_width == pytest.approx(1.959963984540054 * math.sqrt(5 / 3) / 2, abs=1e-15)
    per = np.column_stack([x, x, x])
    result = MatchResult("g", ("a", "b"), 0, 4, per, 2.0, "u")
    assert result.estimate("plain").std == pytest.approx(2 * math.sqrt(5 / 3), abs=1e-14)
    mean, half = result.running("plain")
    assert mean[-1] == pytest.approx(5.0) and half[-1] == pytest.approx(result.estimate("plain").half_width, abs=1e-12)
    assert half[1] == pytest.approx(1.959963984540054 * math.sqrt(2.0) / math.sqrt(2), abs=1e-12)  # x = 2, 4
