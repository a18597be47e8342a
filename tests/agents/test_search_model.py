"""The search agent as LBR's opponent model: exactly what the agent plays, on a reduced four-round deck."""

from __future__ import annotations

import pickle

import pytest

from subgame.agents.exact import agent_strategy
from subgame.agents.lbr import LBRConfig, LocalBestResponse
from subgame.agents.match import play_match
from subgame.agents.search_model import SearchModel
from subgame.agents.specs import load_agent
from subgame.errors import SubgameError
from subgame.eval.best_response import best_response, expected_value
from subgame.games import load_game
from subgame.solve.driver import Budget
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from tests.agents.test_hunl_search import _agent, _blueprint, _game, pytestmark  # noqa: F401  (the loop's skip)

SEED = 5


@pytest.mark.parametrize("responder", [0, 1])
def test_cdbr_to_the_end_against_the_model_is_a_best_response_to_the_search_agent(responder):
    """CDBR looking to the end with every legal action, its model a twin of the search agent: the exact value of its
    play against the agent's behaviour strategy is the best response's (so the model is what the agent plays, at
    every hand and public state, its range included)."""
    game = _game()
    tree = compile_game(game)
    seat = 1 - responder
    played = agent_strategy(_agent(game, search_round=3), game, tree, seat, seed=SEED)
    model = SearchModel(_agent(game, search_round=3), seed=SEED)
    cdbr = LocalBestResponse(game, model, LBRConfig(sizes=None, call_preflop=False, depth=None))
    mine = agent_strategy(cdbr, game, tree, responder, seed=SEED)
    pair = (mine, played) if responder == 0 else (played, mine)
    value = expected_value(tree, Strategy(tree.game_id, pair))
    value = value if responder == 0 else -value
    br = best_response(tree, Strategy(tree.game_id, pair), responder).value
    assert value == pytest.approx(br, abs=1e-9)
    assert model.agent.fallbacks == []
    # the beliefs LBR reached are kept (the answers above used them), a path met again is the same one, and a copy
    # sent to a worker process starts with none
    first = model.start(seat)
    name = game.action_name(first.state, game.legal_actions(first.state)[0])
    assert model.start(seat) is first and first.after(name) is model.start(seat).after(name) and len(model._beliefs) > 2
    assert pickle.loads(pickle.dumps(model))._beliefs == {}



def test_lbr_search_spec_plays_a_match_without_a_tree(tmp_path):
    """``lbr:search:BP[...]``: LBR with a twin of ``search:BP[...]`` as its model, on the rules alone."""
    _blueprint().save(tmp_path / "bp.npz")
    game = _game()
    agent = load_agent(f"lbr:search:{tmp_path / 'bp.npz'}:k1:10", None, game)
    assert isinstance(agent, LocalBestResponse) and isinstance(agent.model, SearchModel)
    twin = agent.model.agent
    assert (twin.config.num_values, twin.config.budget, twin.search_round) == (1, Budget(iterations=10), 2)
    searched = load_agent(f"search:{tmp_path / 'bp.npz'}:k1:10", None, game)
    result = play_match(game, None, (agent, searched), 4, seed=1)
    assert result.error is None and result.deals == 4
    with pytest.raises(SubgameError, match="other rules"):  # a blueprint of another game
        load_agent(f"lbr:search:{tmp_path / 'bp.npz'}", None, load_game("kuhn"))
