"""The behaviour strategy of an agent on a compiled tree (agents.exact)."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.agents import Decision, View, infoset_key
from subgame.agents.exact import agent_exploitability, agent_strategy
from subgame.errors import SubgameError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.strategy import Strategy
from subgame.tree.public_tree import infoset_index
from tests.conftest import compiled


class _TableAgent:
    """Plays a fixed strategy of the tree, looked up by the view's information set (independent of the walk)."""

    def __init__(self, tree, strategy: Strategy) -> None:
        self.tree, self.strategy, self.player, self.calls = tree, strategy, 0, 0
        self.index = (infoset_index(tree, 0), infoset_index(tree, 1))

    @property
    def name(self) -> str:
        return "table"

    def new_hand(self, player: int, seed: int) -> None:
        self.player = player

    def act(self, view: View) -> Decision:
        self.calls += 1
        inf = self.index[view.player][infoset_key(view)]
        pa = self.tree.players[view.player]
        return Decision({int(a): float(p) for a, p, ok in zip(pa.action_ids[inf], self.strategy.probs[view.player][inf],
                                                                 pa.legal[inf]) if ok})


def test_agent_strategy_recovers_a_fully_mixed_strategy(rng):
    tree = compiled("leduc")
    strategy = Strategy.random(tree, rng)
    agent = _TableAgent(tree, strategy)
    for p in (0, 1):
        probs = agent_strategy(agent, load_game("leduc"), tree, p)
        np.testing.assert_allclose(probs, strategy.probs[p], atol=1e-12)
    assert agent.calls == tree.players[0].num_infosets + tree.players[1].num_infosets  # once per information set


def test_unreached_information_sets_do_not_change_the_exploitability():
    tree = compiled("leduc")
    pure = Strategy.first_action(tree)  # never raises: many information sets are never reached
    agent = _TableAgent(tree, pure)
    result, profile = agent_exploitability(agent, load_game("leduc"), tree)
    assert agent.calls < tree.players[0].num_infosets + tree.players[1].num_infosets
    expected = exploitability(tree, pure)
    assert result.br_values == pytest.approx(expected.br_values, abs=1e-12)
    assert result.game_value == pytest.approx(expected.game_value, abs=1e-12)
    profile.check(tree)


def test_a_tree_of_another_game_is_refused():
    tree = compiled("kuhn")
    agent = _TableAgent(tree, Strategy.uniform(tree))
    with pytest.raises(SubgameError, match="names no information set"):
        agent_strategy(agent, load_game("leduc"), tree, 0)
    with pytest.raises(SubgameError, match="seat"):
        agent_strategy(agent, load_game("kuhn"), tree, 2)
