"""The blueprint agent: its play equals the blueprint's rows where nothing is off-tree, it translates off-tree bets,
and it plays heads-up no-limit hold'em over ACPC without a compiled tree."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.agents import CallAgent
from subgame.agents.acpc import Dealer, DealerConfig, parse_log
from subgame.agents.base import Move, View
from subgame.agents.blueprint import BlueprintAgent
from subgame.agents.exact import agent_strategy
from subgame.agents.specs import load_agent
from subgame.blueprint.actions import ActionAbstraction, parse_actions
from subgame.blueprint.blueprint_file import Blueprint, strategy_on
from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from subgame.blueprint.deal_abstraction import ExactCards
from subgame.blueprint.implicit_mccfr import ImplicitConfig, ImplicitMCCFR
from subgame.errors import GameDefinitionError
from subgame.games import load_game
from subgame.games.poker.acpc import load_acpc_game
from subgame.tree.compile import compile_game
from tests.agents.test_acpc_match import FAST, _client, _match
from tests.blueprint.conftest import REDUCED, needs_loop

pytestmark = needs_loop


def _views(tree, player, rows):
    pa = tree.players[player]
    for i in rows:
        key, label = tree.public_key[pa.node[pa.infoset_priv[i]]], pa.label[pa.infoset_priv[i]]
        moves = [Move(key[0], label if player == 0 else ""), Move(key[1], label if player == 1 else "")]
        moves += [Move(o, "") for o in key[2:]]
        yield i, View(player, tuple(moves), tuple(int(a) for a in pa.action_ids[i][pa.legal[i]]))


def _solved(game, actions, iterations=20_000):
    solver = ImplicitMCCFR(game.spec, actions, ExactCards(game.spec), ImplicitConfig(batch=1000), seed=2)
    while solver.iteration < iterations:
        solver.step()
    return Blueprint.of(solver)


def test_agent_plays_the_blueprint_rows(reduced_game):
    game, tree = reduced_game
    bp = _solved(game, ActionAbstraction.of_spec(game.spec))
    rows = strategy_on(bp, game, tree, ExactCards(game.spec))
    agent = BlueprintAgent(game, bp, ExactCards(game.spec))
    rng = np.random.default_rng(0)
    for p in (0, 1):
        pa = tree.players[p]
        for i, view in _views(tree, p, rng.choice(pa.num_infosets, 150, replace=False)):
            decision = agent.act(view).checked(view)
            want = {int(a): float(q) for a, q, ok in zip(pa.action_ids[i], rows.probs[p][i], pa.legal[i]) if ok}
            assert decision.probs.keys() == want.keys()
            assert all(abs(decision.probs[a] - want[a]) < 1e-6 for a in want)


def test_off_tree_bets_translated_to_legal_play(reduced_game):
    game, _ = reduced_game
    real = load_game("poker", **{**REDUCED, "bet_fractions": (0.5, 1.0, 2.0), "raise_cap": 2})
    tree = compile_game(real)
    agent = BlueprintAgent(real, _solved(game, parse_actions("100,allin:1"), 4000), ExactCards(game.spec))
    rng = np.random.default_rng(1)
    for p in (0, 1):
        pa = tree.players[p]
        for _, view in _views(tree, p, rng.choice(pa.num_infosets, 120, replace=False)):
            agent.new_hand(p, 5)
            first = agent.act(view).checked(view)
            assert agent.act(view).probs == first.probs  # the translation's draw is the hand's, the same each time


def test_raise_of_a_size_the_game_lacks(reduced_game):
    """Over ACPC an opponent's raise keeps its real size (r4 here, where the game bets 100 % or all-in)."""
    game, _ = reduced_game
    agent = BlueprintAgent(game, _solved(game, ActionAbstraction.of_spec(game.spec), 4000), ExactCards(game.spec))
    agent.new_hand(0, 3)
    view = View(0, (Move("", "Ts"), Move("", ""), Move("r4", "")), (0, 1, 3))
    decision = agent.act(view).checked(view)
    # the only abstract raise here is all-in (r6): r4 translates to it, so the answer is the one to a real all-in
    all_in = View(0, (Move("", "Ts"), Move("", ""), Move("r6", "")), (0, 1))
    assert decision.probs == agent.act(all_in).probs and decision.probs[0] > 0.5


def test_other_rules_refused(reduced_game):
    game, _ = reduced_game
    bp = _solved(game, ActionAbstraction.of_spec(game.spec), 1000)
    other = load_game("poker", **{**REDUCED, "stack": 8})
    with pytest.raises(GameDefinitionError, match="other rules"):
        BlueprintAgent(other, bp, ExactCards(game.spec))


def test_hunl_over_acpc_against_call(tmp_path):
    game = load_acpc_game("tests/data/acpc/holdem_nolimit.game")
    buckets = FourRoundBuckets.build(Buckets4Config.of(game.spec, (169, 4, 4, 4), rollouts=2, fit_boards=2))
    solver = ImplicitMCCFR(game.spec, parse_actions("100,allin:2"), buckets)
    Blueprint.of(solver).save(tmp_path / "bp.npz")
    buckets.save(tmp_path / "b4.npz")
    agent = load_agent(f"blueprint:{tmp_path / 'bp.npz'}:{tmp_path / 'b4.npz'}", None, game)  # no tree: HUNL
    dealer = Dealer(game, DealerConfig(6, seed=3, **FAST), log_file=tmp_path / "match.log")
    result, clients = _match(dealer, _client(agent, game, seed=1), _client(CallAgent(), game))
    assert result.complete and len(result.hands) == 6 and result.events == ()
    assert all(c.errors == () for c in clients)
    hands, _, _ = parse_log((tmp_path / "match.log").read_text())
    assert any("r" in h.betting for h in hands)  # the call agent never raises: the blueprint's raises


def test_a_bet_translated_to_a_check_that_closes_the_abstract_round_is_called(tmp_path):
    """The abstraction has no raise after the small blind's limp; the big blind's real all-in there is translated to a
    check, which closes the abstract first round while the real one goes on: the small blind's agent is off its
    abstraction (its node is of the flop, the board empty) and calls; a read-back bucket file and a fresh one play
    alike (a node of another round once bucketed the empty board as a flop and kept it)."""
    game = load_game("poker", **REDUCED)
    spec4 = Buckets4Config.of(game.spec, (3, 2, 2, 2), rollouts=2, fit_boards=2, seed=2)
    buckets = FourRoundBuckets.build(spec4)
    solver = ImplicitMCCFR(game.spec, parse_actions("100:1"), buckets, ImplicitConfig(batch=500), seed=2)
    while solver.iteration < 1000:
        solver.step()
    bp = Blueprint.of(solver)
    buckets.save(tmp_path / "b4.npz")
    agent = BlueprintAgent(game, bp, buckets)
    limp = bp.tree.child(0, "c")
    assert not [a for a in bp.tree.actions_of(limp) if a.startswith("r")]
    agent.new_hand(1, 0)
    view = View(1, (Move("", "Qh"), Move("", ""), Move("c", ""), Move("r6", "")), (0, 1))
    assert agent.act(view).probs == {1: 1.0}
    fresh, loaded = FourRoundBuckets.build(spec4), FourRoundBuckets.load(tmp_path / "b4.npz")
    tree = compile_game(game)
    for p in (0, 1):
        np.testing.assert_array_equal(agent_strategy(BlueprintAgent(game, bp, fresh), game, tree, p, seed=1),
                                      agent_strategy(BlueprintAgent(game, bp, loaded), game, tree, p, seed=1))
