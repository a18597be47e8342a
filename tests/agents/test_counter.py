"""CDBR and CDRNR as agents: continual solving as play reaches each decision (Milec, Kubíček & Lisý §3–5)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from subgame.agents import Move, View, load_agent
from subgame.agents.counter import CounterAgent
from subgame.agents.exact import agent_strategy
from subgame.agents.match import exact_value, play_match
from subgame.errors import SubgameError
from subgame.exploit import cdbr, cdrnr
from subgame.games import load_game
from subgame.tree.sweep import forward_reach, transition_weights
from tests.cli.test_cli import invoke
from tests.conftest import compiled
from tests.exploit.conftest import random_model

SMALL_LEDUC = {"num_ranks": 2}


def first_views(game, player):
    """The views of ``player``'s first decisions, one per deal (chance moves until she acts)."""
    stack = [(game.root(), ())]
    while stack:
        state, moves = stack.pop()
        if game.actor(state) == player:
            yield View(player, moves, tuple(sorted(game.legal_actions(state))))
            continue
        for a, q in game.chance_outcomes(state):
            if q > 0:
                public, *private = game.observations(state, a)
                stack.append((game.next_state(state, a), moves + (Move(public, private[player]),)))


def _reached(tree, player, probs):
    """[I] the information sets her own play reaches (chance and the opponent taken as reaching all)."""
    pa = tree.players[player]
    rs = tree.plan.root_slice[player]
    reach = forward_reach(tree, player, transition_weights(tree, player, probs), np.ones(rs.stop - rs.start))
    return reach[pa.infoset_priv] > 0


@pytest.mark.parametrize("p", [None, 0.5])
@pytest.mark.slow
def test_the_agent_plays_the_offline_continual_response(p):
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    model = random_model(tree, 4)
    agent = CounterAgent(tree, model, 2, p)
    for seat in (0, 1):
        offline = cdbr(tree, model, seat, 2) if p is None else cdrnr(tree, model, seat, p, 2)
        played = agent_strategy(CounterAgent(tree, model, 2, p), game, tree, seat)
        at = _reached(tree, seat, offline)
        assert at.sum() > 1
        np.testing.assert_allclose(played[at], offline[at], atol=1e-9)
        np.testing.assert_array_equal(agent.behaviour(tree).probs[seat], offline)


def test_a_fresh_agent_solves_only_up_to_the_level_play_reached():
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    agent = CounterAgent(tree, random_model(tree, 1), 1)
    view = next(v for v in first_views(game, 0))
    agent.new_hand(0, 0)
    decision = agent.act(view)
    assert abs(sum(decision.probs.values()) - 1.0) < 1e-9
    assert agent._solved == [1, 0]  # her first decision: level 1 only, nothing for the other seat
    with pytest.raises(SubgameError, match="seat 0"):
        agent.act(View(1, view.moves, view.legal))


def test_specs_play_a_match_with_exact_values(tmp_path):
    game, tree = load_game("leduc", **SMALL_LEDUC), compiled("leduc", **SMALL_LEDUC)
    model = random_model(tree, 2)
    path = model.save(tmp_path / "model.npz", tree)
    agent = load_agent(f"cdbr:{path}:2", tree, game)
    assert isinstance(agent, CounterAgent) and agent.depth == 2 and agent.p is None
    rnr = load_agent(f"cdrnr:{path}:0.25", tree, game)
    assert isinstance(rnr, CounterAgent) and rnr.depth == 1 and rnr.p == 0.25
    result = play_match(game, tree, (agent, load_agent(str(path), tree, game)), deals=20, seed=1)
    assert result.exact == pytest.approx(exact_value(tree, agent.behaviour(tree), model))
    assert result.exact > 0  # a best response within two moves gains against a random model


@pytest.mark.parametrize(("tail", "message"), [
    (":0", "depth limit"), (":1.5", "p must be a number in"), (":x", "P must be a number"), ("", "cdrnr:MODEL:P"),
])
def test_bad_specs_are_one_clear_error(tmp_path, tail, message):
    tree = compiled("leduc", **SMALL_LEDUC)
    path = random_model(tree, 0).save(tmp_path / "model.npz", tree)
    kind = "cdbr" if tail == ":0" else "cdrnr"
    with pytest.raises(SubgameError, match=message):
        load_agent(f"{kind}:{path}{tail}", tree, load_game("leduc", **SMALL_LEDUC))


def test_a_model_of_another_game_is_one_clear_error(tmp_path):
    other = compiled("kuhn")
    path = random_model(other, 0).save(tmp_path / "kuhn.npz", other)
    with pytest.raises(SubgameError, match="give a model of this game"):
        load_agent(f"cdbr:{path}", compiled("leduc", **SMALL_LEDUC), load_game("leduc", **SMALL_LEDUC))


def test_subgame_match_runs_cdbr_on_leduc(tmp_path):
    model = tmp_path / "model.npz"
    assert invoke("solve", "leduc", "-n", "5", "--out", model).exit_code == 0
    result = invoke("match", f"cdbr:{model}", str(model), "--game", "leduc", "--hands", "10", "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["exact"] > 0  # CDBR1 exploits CFR after 5 iterations
    assert abs(record["winrate"]["aivat"]["mean"] - record["exact"]) < 1e-6


def test_agent_eval_gives_the_exact_exploitability_of_a_counter_agent(tmp_path):
    from subgame.eval import exploitability
    from subgame.strategy import Strategy

    model = tmp_path / "model.npz"
    assert invoke("solve", "leduc", "--param", "num_ranks=2", "-n", "5", "--out", model).exit_code == 0
    result = invoke("agent-eval", model, "--agent", f"cdbr:{model}:2", "--json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    tree = compiled("leduc", **SMALL_LEDUC)
    fitted = Strategy.load(model)
    offline = Strategy(tree.game_id, (cdbr(tree, fitted, 0, 2), cdbr(tree, fitted, 1, 2)))
    assert record["agent_spec"] == f"cdbr:{model}:2" and record["subgames_solved"] is None
    assert record["agent"]["exploitability"] == pytest.approx(exploitability(tree, offline).exploitability, abs=1e-9)
