"""Bet abstraction and randomized pseudo-harmonic action translation (Ganzfried & Sandholm 2013)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, SubgameError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.resolving import BetAbstraction, pseudo_harmonic, restrict, translate, translation_strategy
from subgame.resolving.nested import reachable
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import DECISION, infoset_keys
from tests.toy_games import SMALL, small_game


@pytest.fixture(scope="module")
def small():
    return small_game(200)


def test_pseudo_harmonic_endpoints_value_and_monotone():
    assert pseudo_harmonic(0.5, 0.5, 1.0) == pytest.approx(1.0)
    assert pseudo_harmonic(1.0, 0.5, 1.0) == pytest.approx(0.0)
    # f(0.75) = (0.25 · 1.5) / (0.5 · 1.75) = 3/7
    assert pseudo_harmonic(0.75, 0.5, 1.0) == pytest.approx(3 / 7)
    xs = np.linspace(0.25, 4.0, 60)
    f = [pseudo_harmonic(x, 0.25, 4.0) for x in xs]
    assert all(a > b for a, b in zip(f, f[1:]))
    assert all(0.0 <= v <= 1.0 for v in f)


@pytest.mark.parametrize("x", [0.5, 0.6, 0.75, 0.99, 1.0, 1.7, 3.0])
def test_translate_probabilities_sum_to_one_over_adjacent_sizes(x):
    sizes = (3.0, 0.5, 1.0)  # any order
    out = translate(x, sizes)
    assert sum(p for _, p in out) == pytest.approx(1.0)
    chosen = sorted(sizes[i] for i, _ in out)
    assert chosen[0] <= x <= chosen[-1]
    assert len(out) == 1 or not any(chosen[0] < s < chosen[1] for s in sizes)


def test_bet_outside_every_abstraction_interval_is_one_clear_error():
    with pytest.raises(SubgameError, match="outside every abstraction interval"):
        translate(0.25, (0.5, 1.0))
    with pytest.raises(SubgameError, match="outside the abstraction interval"):
        pseudo_harmonic(2.0, 0.5, 1.0)
    game = load_game("poker", **{**SMALL, "all_in": False})
    abstraction = BetAbstraction(game, (0.5,), False)  # 0.75 and 1 pot lie above every abstract size
    tree = compile_game(game)
    blueprint = CFRSolver(restrict(game, tree, abstraction), CFR_PLUS).run(2).average_strategy()
    with pytest.raises(SubgameError, match="outside every abstraction interval"):
        translation_strategy(game, tree, abstraction, blueprint, 0)


def test_bad_abstractions_are_refused():
    game = load_game("poker", **SMALL)
    with pytest.raises(GameDefinitionError, match="not bet sizes"):
        BetAbstraction(game, (0.5, 0.6))
    with pytest.raises(GameDefinitionError, match="no-limit"):
        BetAbstraction(load_game("leduc"), (0.5,))  # type: ignore[arg-type]


@pytest.mark.slow
def test_restricted_tree_is_the_abstract_game(small):
    game, tree, abstraction, _ = small
    live = reachable(restrict(game, tree, abstraction))
    abstract_tree = compile_game(abstraction.abstract_game)
    assert {tree.public_key[n] for n in np.flatnonzero(live)} == set(abstract_tree.public_key)


@pytest.mark.slow
def test_translation_without_off_tree_actions_is_the_blueprint(small):
    game, tree, _, _ = small
    everything = BetAbstraction(game, (0.5, 0.75, 1.0), True)
    blueprint = CFRSolver(tree, CFR_PLUS).run(50).average_strategy()
    for p in (0, 1):
        np.testing.assert_allclose(translation_strategy(game, tree, everything, blueprint, p), blueprint.probs[p], atol=1e-12)


@pytest.mark.slow
def test_translation_strategy_is_a_valid_and_exploitable_real_game_strategy(small):
    game, tree, abstraction, blueprint = small
    probs = tuple(translation_strategy(game, tree, abstraction, blueprint, p) for p in (0, 1))
    strategy = Strategy(tree.game_id, probs)
    strategy.check(tree)
    real = exploitability(tree, strategy).exploitability
    abstract = exploitability(restrict(game, tree, abstraction), blueprint).exploitability
    assert real > abstract + 1e-3  # off-tree bets exploit the translated responder


@pytest.mark.slow
@pytest.mark.slow
def test_a_tree_restricted_again_with_other_states_opened_is_restricted_as_a_fresh_one():
    """restrict keeps the slots an abstraction keeps per tree: opening states, then none, then other abstractions and
    players, each gives what the same call gives on a tree object met for the first time."""
    game = load_game("poker", **{**SMALL, "stack": 20})
    tree = compile_game(game)
    decisions = [k for n, k in enumerate(tree.public_key) if tree.kind[n] == DECISION][:3]
    calls = [(BetAbstraction(game, (0.5, 1.0), True), (0, 1), ()),
             (BetAbstraction(game, (0.5, 1.0), True), (0, 1), decisions[:2]),
             (BetAbstraction(game, (0.5, 1.0), True), (1,), decisions[1:]),
             (BetAbstraction(game, (1.0,), False), (0, 1), ())]
    abstraction = calls[0][0]
    calls += [(abstraction, (0, 1), decisions), (abstraction, (0,), ()), (abstraction, (0, 1), ())]
    for abstraction, players, opened in calls:
        again = restrict(game, tree, abstraction, players=players, open_at=opened)
        fresh = restrict(game, replace(tree), abstraction, players=players, open_at=opened)  # a tree object of its own
        for q in (0, 1):
            np.testing.assert_array_equal(again.players[q].legal, fresh.players[q].legal)
    assert not np.array_equal(restrict(game, tree, abstraction).players[0].legal,
                              restrict(game, tree, abstraction, open_at=decisions).players[0].legal)


def test_own_off_tree_bet_is_followed_by_the_blueprint_of_the_translated_bet():
    # Player 0 opens 0.75 pot (r5, off-tree at the first action only); the responder shoves (r20).
    game = load_game("poker", **{**SMALL, "stack": 20})
    full = compile_game(game)
    abstraction = BetAbstraction(game, (0.5, 1.0), True)
    root = full.public_key[0]
    abstract = restrict(game, full, abstraction)
    real = restrict(game, full, abstraction, open_at={root})
    blueprint = CFRSolver(abstract, CFR_PLUS).run(50).average_strategy()
    plain = translation_strategy(game, real, abstraction, blueprint, 0)
    own = translation_strategy(game, real, abstraction, blueprint, 0, own_off_tree=True)
    keys = infoset_keys(real, 0)
    below = np.array([len(k[0]) > 2 and k[0][2] == "r5" for k in keys])
    assert below.any()
    np.testing.assert_array_equal(own[~below], plain[~below])  # elsewhere nothing changes
    np.testing.assert_array_equal(plain[below], blueprint.probs[0][below])  # without it: rows the blueprint never trained
    index = {k: i for i, k in enumerate(keys)}
    p = pseudo_harmonic(0.75, 0.5, 1.0)  # the probability of translating to 0.5 pot (r4); else 1 pot (r6)
    checked = 0
    for label in sorted({k[1] for k in keys if k[0] == root}):
        opening = blueprint.probs[0][index[(root, label)]]
        names = real.players[0].action_names[index[(root, label)]]
        w4, w6 = p * opening[names.index("r4")], (1 - p) * opening[names.index("r6")]
        if w4 + w6 == 0:
            continue
        at = [index[(root + (b, "r20"), label)] for b in ("r4", "r6", "r5")]
        want = (w4 * blueprint.probs[0][at[0]] + w6 * blueprint.probs[0][at[1]]) / (w4 + w6)
        np.testing.assert_allclose(own[at[2]], want, atol=1e-12)
        assert not np.allclose(own[at[2]], plain[at[2]])
        checked += 1
    assert checked > 0
