"""The search agent: nested depth-limited solving as play proceeds (depth-limited paper, Appendix A)."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.agents import Agent, Move, View
from subgame.agents.exact import agent_exploitability, agent_strategy
from subgame.agents.search import SearchAgent, SearchConfig
from subgame.errors import GameDefinitionError, SubgameError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, MODICUM, CFRSolver
from subgame.solve.driver import Budget
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from tests.conftest import compiled

SMALL_LEDUC = {"num_ranks": 2}


def _blueprint(tree, iterations=100):
    return CFRSolver(tree, CFR_PLUS).run(iterations).average_strategy()


def test_first_decision_of_a_game_that_fits_is_the_solve_of_the_whole_game():
    # Kuhn has no public chance event: at the start the rest of the game fits, the opponent's
    # belief is uninformed, so the first solve is CFR on the whole game with the agent's budget.
    game, tree = load_game("kuhn"), compiled("kuhn")
    agent = SearchAgent(game, tree, _blueprint(tree, 20), SearchConfig(budget=Budget(iterations=60)))
    probs = agent_strategy(agent, game, tree, 0)
    direct = CFRSolver(tree, MODICUM).run(60).average_strategy().probs[0]
    pa = tree.players[0]
    root = np.flatnonzero(tree.depth[pa.node[pa.infoset_priv]] == 0)
    np.testing.assert_allclose(probs[root], direct[root], atol=1e-12)
    first = agent.solves[(0, tree.public_key[0])]
    assert first.gadget == "unsafe" and not first.depth_limited and first.iterations == 60


@pytest.mark.slow
def test_search_beats_its_blueprint_and_is_deterministic():
    game = load_game("leduc", **SMALL_LEDUC)
    tree = compiled("leduc", **SMALL_LEDUC)
    blueprint = _blueprint(tree)
    config = SearchConfig(num_values=4, budget=Budget(iterations=100))
    agent = SearchAgent(game, tree, blueprint, config)
    result, profile = agent_exploitability(agent, game, tree)
    assert 0 <= result.exploitability < exploitability(tree, blueprint).exploitability / 2
    kinds = {(s.gadget, s.depth_limited) for s in agent.solves.values()}
    # unsafe depth-limited solving in the first round, safe solving once the rest of the game fits
    assert ("unsafe", True) in kinds and ("resolve", False) in kinds
    solved = len(agent.solves)
    again, _ = agent_exploitability(agent, game, tree)
    assert len(agent.solves) == solved  # every subgame came from the cache the second time
    assert again.br_values == result.br_values
    other, other_profile = agent_exploitability(SearchAgent(game, tree, blueprint, config), game, tree)
    for p in (0, 1):
        np.testing.assert_array_equal(other_profile.probs[p], profile.probs[p])


def first_view(game) -> View:
    """Player 0's view at her first decision, every chance event taking its first outcome."""
    state, moves = game.root(), []
    while game.actor(state) < 0:  # the deal
        a = game.chance_outcomes(state)[0][0]
        pub, o0, _ = game.observations(state, a)
        moves.append(Move(pub, o0))
        state = game.next_state(state, a)
    return View(0, tuple(moves), tuple(game.legal_actions(state)))


def test_act_answers_a_view_from_play():
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    agent = SearchAgent(game, tree, _blueprint(tree, 30), SearchConfig(num_values=2, budget=Budget(iterations=20)))
    view = first_view(game)
    agent.new_hand(0, 1)
    decision = agent.act(view)
    assert set(decision.probs) <= set(view.legal) and sum(decision.probs.values()) == pytest.approx(1.0)
    with pytest.raises(SubgameError, match="seat"):
        agent.act(View(1, view.moves, view.legal))
    with pytest.raises(SubgameError, match="not a decision"):
        agent.act(View(0, (*view.moves, Move("nowhere", "")), view.legal))


def test_time_budget_runs_at_least_one_iteration():
    game, tree = load_game("kuhn"), compiled("kuhn")
    agent = SearchAgent(game, tree, _blueprint(tree, 10), SearchConfig(budget=Budget(seconds=0.01)))
    agent_strategy(agent, game, tree, 1)
    assert all(s.iterations >= 1 for s in agent.solves.values())


@pytest.mark.parametrize("bad", [{"num_values": 0}, {"continuations": "greedy"}, {"leaf_values": "oracle"},
                                 {"chance_limit": 0}, {"safe_gadget": "unsafe"}, {"first_final": "maybe"},
                                 {"early": "never"}])
def test_bad_configuration_is_one_clear_error(bad):
    with pytest.raises(SubgameError):
        SearchConfig(**bad)


def test_more_values_than_the_bias_set_has_is_refused_when_first_needed():
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    agent = SearchAgent(game, tree, _blueprint(tree, 10), SearchConfig(num_values=9, budget=Budget(iterations=5)))
    with pytest.raises(SubgameError, match="K = 9"):
        agent_strategy(agent, game, tree, 0)


@pytest.mark.parametrize("options", [{"continuations": "self-generative", "generation_iterations": 20},
                                     {"leaf_values": "rollouts", "rollouts": 2}])
@pytest.mark.slow
def test_other_value_sources_are_seeded_and_play_valid_strategies(options):
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    blueprint = _blueprint(tree, 30)
    config = SearchConfig(num_values=2, budget=Budget(iterations=20), **options)
    agents = [SearchAgent(game, tree, blueprint, config, seed=3) for _ in range(2)]
    assert isinstance(agents[0], Agent)
    results = [agent_exploitability(a, game, tree)[1] for a in agents]
    for p in (0, 1):
        np.testing.assert_array_equal(results[0].probs[p], results[1].probs[p])
    results[0].check(tree)


def test_a_tree_of_another_game_or_with_leaves_is_refused():
    tree = compiled("kuhn")
    with pytest.raises(GameDefinitionError, match="tree is of game"):
        SearchAgent(load_game("leduc"), tree, _blueprint(tree, 5))
    game = load_game("leduc", **SMALL_LEDUC)
    cut = compile_game(game, chance_limit=1)
    with pytest.raises(GameDefinitionError, match="without depth-limit leaves"):
        SearchAgent(game, cut, Strategy.uniform(cut))


@pytest.mark.slow
def test_the_search_agent_plays_matches_by_its_spec_with_its_exact_strategy(tmp_path):
    from subgame.agents import load_agent
    from subgame.agents.match import exact_value, play_match

    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    blueprint = _blueprint(tree, 50)
    path = blueprint.save(tmp_path / "bp.npz", tree)
    agent = load_agent(f"search:{path}:30", tree, game)
    assert isinstance(agent, SearchAgent) and agent.config.budget == Budget(iterations=30)
    known = agent.behaviour(tree)
    fresh = SearchAgent(game, tree, blueprint, SearchConfig(budget=Budget(iterations=30)))
    for p in (0, 1):
        np.testing.assert_array_equal(known.probs[p], agent_strategy(fresh, game, tree, p))
    result = play_match(game, tree, (agent, load_agent(str(path), tree, game)), deals=40, seed=3)
    assert result.exact == pytest.approx(exact_value(tree, known, blueprint))
    with pytest.raises(SubgameError, match="unknown agent"):
        load_agent(f"search:{tmp_path / 'missing.npz'}", tree, game)
