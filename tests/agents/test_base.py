import numpy as np
import pytest

from subgame.agents import CallAgent, Decision, Move, RandomAgent, StrategyAgent, View, infoset_key, load_agent
from subgame.errors import IllegalActionError, InvalidRangeError, StrategyFileError, SubgameError
from subgame.games import load_game
from subgame.solve.cfr import CFRSolver
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import infoset_keys
from tests.agents.views import all_views


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_views_name_every_infoset_of_the_tree(name):
    game = load_game(name)
    tree = compile_game(game)
    for p in range(2):
        assert {infoset_key(v) for v in all_views(game, p)} == set(infoset_keys(tree, p))


def test_strategy_agent_returns_the_strategy_row():
    game = load_game("leduc")
    tree = compile_game(game)
    solver = CFRSolver(tree)
    for _ in range(5):
        solver.step()
    strategy = solver.average_strategy()
    agent = StrategyAgent(tree, strategy)
    keys = infoset_keys(tree, 1)
    for view in all_views(game, 1)[:50]:
        row = keys.index(infoset_key(view))
        d = agent.act(view).checked(view)
        pa = tree.players[1]
        expected = {int(pa.action_ids[row, k]): strategy.probs[1][row, k] for k in range(pa.max_actions) if pa.legal[row, k]}
        assert d.probs == pytest.approx(expected)


def test_strategy_agent_refuses_a_view_outside_the_tree():
    tree = compile_game(load_game("kuhn"))
    agent = StrategyAgent(tree, __import__("subgame").strategy.Strategy.uniform(tree))
    with pytest.raises(StrategyFileError, match="no information set"):
        agent.act(View(0, (Move("", "X"),), (0, 1)))


def test_baselines_and_decisions():
    view = View(1, (), (0, 1, 2))
    assert RandomAgent().act(view).probs == pytest.approx({0: 1 / 3, 1: 1 / 3, 2: 1 / 3})
    assert CallAgent().act(view).probs == {1: 1.0}
    assert CallAgent().act(View(0, (), (0, 2))).probs == {0: 1.0}
    rng = np.random.default_rng(3)
    counts = np.bincount([Decision({0: 0.25, 2: 0.75}).sample(rng) for _ in range(4000)], minlength=3)
    assert counts[1] == 0 and abs(counts[2] / 4000 - 0.75) < 0.03
    with pytest.raises(IllegalActionError):
        Decision({3: 1.0}).checked(view)
    with pytest.raises(InvalidRangeError):
        Decision({0: 0.5, 1: 0.2}).checked(view)


def test_load_agent(tmp_path):
    tree = compile_game(load_game("kuhn"))
    assert load_agent("random", tree).name == "random"
    path = __import__("subgame").strategy.Strategy.uniform(tree).save(tmp_path / "u.npz", tree)
    assert isinstance(load_agent(str(path), tree), StrategyAgent)
    with pytest.raises(SubgameError, match="unknown agent"):
        load_agent("nope", tree)
