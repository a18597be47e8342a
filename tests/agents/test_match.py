import os
import signal

import numpy as np
import pytest

import subgame.agents.match as match_module
from subgame.agents import CallAgent, Decision, Move, RandomAgent, StrategyAgent, View
from subgame.agents.match import exact_value, history_values, play_match, reference_profile
from subgame.decompose import ProcessExecutor
from subgame.eval import expected_value
from subgame.games import load_game
from subgame.games.base import CHANCE, TERMINAL
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from tests import oracle


def _equilibrium(tree, iterations=300):
    return CFRSolver(tree, CFR_PLUS).run(iterations).average_strategy()


def _oracle_value(game, a, b):
    """A's expected utility per hand over both seats, by brute force over the agents' own act()."""

    def policy(seats):
        def dist(player, key, legal):
            view = View(player, tuple(Move(pub, priv) for pub, priv in key), tuple(legal))
            probs = seats[player].act(view).checked(view).probs
            return {x: probs.get(x, 0.0) for x in legal}

        return dist

    return 0.5 * (oracle.expected_value(game, policy((a, b))) - oracle.expected_value(game, policy((b, a))))


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_history_values_at_the_root_are_the_expected_value(name):
    game = load_game(name)
    tree = compile_game(game)
    profile = Strategy.random(tree, np.random.default_rng(4))
    values = history_values(game, tree, profile)
    assert values[()] == pytest.approx(expected_value(tree, profile), abs=1e-12)


def _recursive_values(game, tree, profile):
    """Player 0's value of every history by a recursion over the game, children added in the game's order."""
    from subgame.tree.lookup import lookups

    index, want = lookups(tree), {}

    def walk(st, hist, pub, labels):
        who = game.actor(st)
        if who == TERMINAL:
            v = float(game.utility(st))
        else:
            if who == CHANCE:
                branches = game.chance_outcomes(st)
            else:
                pa, i = tree.players[who], index[who](pub, labels[who])
                policy = {int(pa.action_ids[i, k]): float(profile.probs[who][i, k]) for k in np.flatnonzero(pa.legal[i])}
                branches = [(a, policy.get(a, 0.0)) for a in game.legal_actions(st)]
            v = 0.0
            for a, prob in branches:
                o_pub, o0, o1 = game.observations(st, a)
                v += prob * walk(game.next_state(st, a), hist + (a,), pub + (o_pub,),
                                 tuple((f"{x}/{o}" if x else o) if o else x for x, o in zip(labels, (o0, o1))))
        want[hist] = v
        return v

    walk(game.root(), (), (), ("", ""))
    return want


def test_history_values_are_a_recursion_over_the_games_histories_to_the_bit():
    """The backward pass over the walked histories adds each parent's children in the game's order, as a recursion
    over the game does; the walk is made once per tree and serves every profile."""
    game = load_game("leduc")
    tree = compile_game(game)
    for seed in (5, 6):
        profile = Strategy.random(tree, np.random.default_rng(seed))
        want = _recursive_values(game, tree, profile)
        got = history_values(game, tree, profile)
        assert len(got) == len(want) and all(got[h] == v for h, v in want.items())
    assert tree in match_module._history_layouts


def test_exact_value_matches_a_brute_force_walk_of_the_agents():
    game = load_game("kuhn")
    tree = compile_game(game)
    eq = StrategyAgent(tree, _equilibrium(tree))
    for b in (RandomAgent(), CallAgent()):
        assert exact_value(tree, eq.behaviour(tree), b.behaviour(tree)) == pytest.approx(_oracle_value(game, eq, b), abs=1e-12)


def test_an_agent_against_itself_wins_zero_within_the_interval():
    game = load_game("leduc")
    tree = compile_game(game)
    a = StrategyAgent(tree, _equilibrium(tree, 100), name="bp")
    result = play_match(game, tree, (a, a), 300, seed=1, aivat=False)
    assert result.exact == pytest.approx(0.0, abs=1e-12)
    e = result.estimate("plain")
    assert e.half_width > 0 and e.contains(0.0)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_an_equilibrium_against_random_wins_the_exact_value(name):
    game = load_game(name)
    tree = compile_game(game)
    eq, rnd = StrategyAgent(tree, _equilibrium(tree), name="eq"), RandomAgent()
    result = play_match(game, tree, (eq, rnd), 400, seed=7, reference=reference_profile((eq, rnd), tree, (True, False)))
    exact = exact_value(tree, eq.strategy, Strategy.uniform(tree))
    assert result.exact == pytest.approx(exact) and exact > 0.1  # the equilibrium wins clearly
    for estimator in ("plain", "luck", "aivat"):
        assert result.estimate(estimator).contains(result.scale * exact), estimator


def test_aivat_is_unbiased_and_lowers_the_variance():
    """Kuhn, equilibrium vs random, AIVAT's values from the equilibrium only (random's strategy unused).

    Over many seeds the mean AIVAT estimate is the exact value within 4 standard errors,
    and its per-deal variance is well below the plain duplicate estimate's. (The chance
    corrections alone cancel here: with one reference strategy for both seats, duplicate
    dealing already removes the luck they measure.)
    """
    game = load_game("kuhn")
    tree = compile_game(game)
    eq, rnd = StrategyAgent(tree, _equilibrium(tree), name="eq"), RandomAgent()
    reference = reference_profile((eq, rnd), tree, (True, False))
    per = np.concatenate([play_match(game, tree, (eq, rnd), 100, seed=s, reference=reference, exact=False).per_deal
                          for s in range(20)])
    exact = exact_value(tree, eq.strategy, Strategy.uniform(tree))
    plain, aivat = per[:, 0], per[:, 2]
    for x in (plain, aivat):
        assert abs(x.mean() - exact) < 4 * x.std(ddof=1) / np.sqrt(x.size)
    assert aivat.var() < 0.5 * plain.var()


def test_aivat_with_both_strategies_known_is_exact_every_hand():
    game = load_game("kuhn")
    tree = compile_game(game)
    eq, rnd = StrategyAgent(tree, _equilibrium(tree), name="eq"), RandomAgent()
    result = play_match(game, tree, (eq, rnd), 50, seed=2)
    assert np.allclose(result.per_deal[:, 2], result.exact, atol=1e-12)
    assert result.per_deal[:, 0].std() > 0.1


@pytest.mark.slow
def test_parallel_equals_serial():
    game = load_game("leduc")
    tree = compile_game(game)
    agents = (StrategyAgent(tree, _equilibrium(tree, 50), name="bp"), RandomAgent())
    serial = play_match(game, tree, agents, 24, seed=5, chunk=5)
    with ProcessExecutor(2) as executor:
        parallel = play_match(game, tree, agents, 24, seed=5, executor=executor, chunk=3)
    assert np.array_equal(serial.per_deal, parallel.per_deal)
    again = play_match(game, tree, agents, 24, seed=5)
    assert np.array_equal(serial.per_deal, again.per_deal)
    other = play_match(game, tree, agents, 24, seed=6)
    assert not np.array_equal(serial.per_deal, other.per_deal)


class _BreaksAfter:
    """Plays randomly, then puts probability on an illegal action from its ``n``-th decision on."""

    name = "breaks"

    def __init__(self, n):
        self.n, self.calls = n, 0

    def new_hand(self, player, seed):
        pass

    def act(self, view):
        self.calls += 1
        return Decision({99: 1.0}) if self.calls >= self.n else Decision.uniform(view.legal)


def test_an_illegal_action_ends_the_match_cleanly_keeping_finished_deals():
    game = load_game("kuhn")
    tree = compile_game(game)
    bad = _BreaksAfter(40)
    result = play_match(game, tree, (RandomAgent(), bad), 100, seed=3, chunk=7)
    assert result.error is not None and result.error.agent == "breaks" and "illegal" in result.error.message
    assert result.deals == result.error.deal > 5  # every deal before the failing one is kept
    ref = play_match(game, tree, (RandomAgent(), _BreaksAfter(10**9)), result.deals, seed=3, chunk=7)
    assert np.array_equal(ref.per_deal[:, 0], result.per_deal[:, 0])
    assert result.to_json()["error"]["deal"] == result.deals


def test_a_stop_signal_ends_the_match_after_the_block_under_way_keeping_finished_deals():
    """SIGTERM mid-match (sent here after the first block): the match stops cleanly instead of dying or going on."""
    game = load_game("kuhn")

    def stop_once(partial):
        if partial.deals == 10:
            os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    result = play_match(game, None, (RandomAgent(), CallAgent()), 100, seed=1, chunk=10, progress=stop_once)
    assert result.error is not None and "interrupted" in result.error.message and result.deals == 10
    assert signal.getsignal(signal.SIGTERM) == before


def test_games_without_poker_units():
    game = load_game("matching_pennies")
    tree = compile_game(game)
    result = play_match(game, tree, (RandomAgent(), CallAgent()), 20, seed=0)
    assert result.unit == "units/hand" and result.scale == 1.0
    assert result.estimate("aivat").mean == pytest.approx(result.exact)


def test_aivat_refuses_a_game_too_big_to_walk(monkeypatch):
    import subgame.agents.match as match

    game = load_game("kuhn")
    tree = compile_game(game)
    monkeypatch.setattr(match, "MAX_AIVAT_HISTORIES", 10)
    with pytest.raises(match.SubgameError, match="--no-aivat"):
        play_match(game, tree, (RandomAgent(), CallAgent()), 5, seed=0)
    assert play_match(game, tree, (RandomAgent(), CallAgent()), 5, seed=0, aivat=False).deals == 5


def test_a_match_refuses_a_tree_of_another_game():
    with pytest.raises(match_module.SubgameError, match="compile the match's game"):
        play_match(load_game("leduc"), compile_game(load_game("kuhn")), (RandomAgent(), CallAgent()), 5, seed=0)
    with pytest.raises(match_module.SubgameError, match="at least one deal"):
        play_match(load_game("kuhn"), compile_game(load_game("kuhn")), (RandomAgent(), CallAgent()), 0, seed=0)
