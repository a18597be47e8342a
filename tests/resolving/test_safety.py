"""The gadgets' exact behaviour on tiny cases and the safety theorems as seeded property tests.

Pinned by hand: the follow/terminate gadget's regret matching+ (Burch et al. 2014, Fig. 2;
Tammelin 2014), the max-margin choice normalised per subgame (safe-and-nested §4.2), the
distributional gadget's follow probability (its docstring), the re-solver's average root
range and the recovery gap (the exploitability of the re-solving game, decomposition paper
Theorem 3) recomputed by walking the game's rules. Property tests: on forests of many
subgames from weak blueprints, every safe method never raises either player's
best-response value (safe-and-nested Theorems 1–2), a forest is exactly one independent
solve per subgame, and split gifts never add up to more than the gift (§5).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from subgame.eval import best_response, counterfactual_values, exploitability
from subgame.games import load_game
from subgame.games.base import CHANCE, TERMINAL
from subgame.resolving import (
    METHODS,
    SAFE_METHODS,
    DistributionalGadget,
    MaxMarginGadget,
    ResolveGadget,
    blueprint_problem,
    blueprint_values,
    resolve_all,
    resolve_subgame,
    restrict,
    solve_off_tree,
    subgame_forest,
    subgame_roots,
)
from subgame.solve.cfr import CFR, CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from tests.conftest import compiled
from tests.toy_games import coin_toss_blueprint, small_game

# -- the gadgets by hand --------------------------------------------------------------------------


def test_resolve_gadget_floors_regrets_at_zero():
    """alt = 1/2; follow worth 1 then 0. RM+: regrets (1/4, 0) then (1/4, 1/2), follow 1/3 (plain RM: 1/2)."""
    g = ResolveGadget(0, np.array([0.5]))
    assert g.root_range() == pytest.approx([0.5])
    g.update(0, np.array([1.0]), 1)
    assert g.root_range() == pytest.approx([1.0])
    g.update(1, np.array([-5.0]), 1)  # the re-solver's values do not move her gadget
    g.update(0, np.array([0.0]), 2)
    assert g.root_range() == pytest.approx([1 / 3], abs=1e-15)


def test_max_margin_choice_is_a_distribution_per_subgame():
    """Two subgames (root states 0–1 and 2–4), alt 0, values (1, 0 | 0, 0, 3).

    Uniform per subgame: 1/2, 1/2 | 1/3 ×3; each subgame's value 1/2 and 1; regrets
    (1/2, −1/2 | −1, −1, 2) floored: the choice is (1, 0 | 0, 0, 1).
    """
    g = MaxMarginGadget(1, np.zeros(5), np.array([0, 0, 1, 1, 1]))
    np.testing.assert_allclose(g.root_range(), [0.5, 0.5, 1 / 3, 1 / 3, 1 / 3], rtol=0, atol=1e-15)
    g.update(1, np.array([1.0, 0.0, 0.0, 0.0, 3.0]), 1)
    np.testing.assert_allclose(g.root_range(), [1.0, 0.0, 0.0, 0.0, 1.0], rtol=0, atol=1e-15)


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def test_distributional_gadget_follows_when_following_is_worth_more():
    """est 0, cbv (1, 1), spread 1/2: sd 1/2. Smoothed values 1/4 then 1/4 + 0.1·(1 − 1/4)."""
    g = DistributionalGadget(0, np.zeros(2), np.ones(2), spread=0.5, step=0.1)
    np.testing.assert_allclose(g.root_range(), [0.5, 0.5])
    g.update(0, np.array([0.25, -0.25]), 1)
    np.testing.assert_allclose(g.root_range(), [_normal_cdf(0.5), _normal_cdf(-0.5)], rtol=0, atol=1e-12)
    assert g.root_range()[0] > 0.5  # following is worth more than the estimate: she mostly follows
    g.update(0, np.array([1.0, -0.25]), 2)
    np.testing.assert_allclose(g.root_range(), [_normal_cdf(0.325 / 0.5), _normal_cdf(-0.5)], rtol=0, atol=1e-12)


# -- the re-solver's average root range and recovery gap ---------------------------------------------


class _RecordingGadget:
    """A gadget that remembers its root range at each of its own updates (the range of that iteration)."""

    def __init__(self, inner) -> None:
        self.inner, self.player, self.ranges = inner, inner.player, []

    def root_range(self) -> np.ndarray:
        return self.inner.root_range()

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None:
        if player == self.player:
            self.ranges.append(self.inner.root_range().copy())
        self.inner.update(player, root_cfv, t)


def _coin_toss_play_problem():
    game, tree = load_game("coin_toss"), compiled("coin_toss")
    bv = blueprint_values(tree, coin_toss_blueprint(tree))
    play = tree.node_of_key[("", "Play")]
    return game, blueprint_problem(bv, subgame_forest(game, tree, [play]), 1, "resolve")


def test_root_range_is_the_average_of_the_iterates():
    """CFR+ averages iteration t with weight t: so must the gadget player's reported root range."""
    _, problem = _coin_toss_play_problem()
    gadget = _RecordingGadget(ResolveGadget(problem.opponent, problem.alt))
    sol = resolve_subgame(problem, iterations=7, gadget=gadget)
    ranges = np.array(gadget.ranges)
    assert len(ranges) == 7 and np.ptp(ranges, axis=0).max() > 0.1  # the iterates do move
    weights = np.arange(1, 8, dtype=float)
    np.testing.assert_allclose(sol.root_range, weights @ ranges / weights.sum(), rtol=0, atol=1e-12)


def _root_labels(sol) -> list[str]:
    """[R_opp] the private label of each of the opponent's root states in the solved forest."""
    opp, tree = 1 - sol.player, sol.tree
    rs = tree.root_slice[opp]
    return [tree.players[opp].label[g] for g in range(rs.start, rs.stop)]


def _re_solving_nash_conv(game, key, player: int, labels, alt, follow, sigma) -> float:
    """The re-solving game's NashConv, walking the rules: one re-solver decision below ``key``, then the end.

    The opponent picks at each root state follow (her counterfactual value: chance to the
    root times the payoff) or terminate (``alt``); the re-solver plays ``sigma``.
    """
    opp = 1 - player
    value = {label: None for label in labels}

    def walk(st, pub, label, chance):
        if pub == key:
            assert game.actor(st) == player
            u = []
            for a in game.legal_actions(st):
                end = game.next_state(st, a)
                assert game.actor(end) == TERMINAL
                u.append(chance * game.utility(end) * (1 if opp == 0 else -1))
            value[label] = np.asarray(u) if value[label] is None else value[label] + np.asarray(u)
            return
        if len(pub) >= len(key) or game.actor(st) == TERMINAL:
            return
        who = game.actor(st)
        branches = game.chance_outcomes(st) if who == CHANCE else [(a, 1.0) for a in game.legal_actions(st)]
        assert who != player  # the re-solver has no decision above the root here: her root reach is 1
        for a, p in branches:
            o_pub, *private = game.observations(st, a)
            own = private[opp]
            walk(game.next_state(st, a), pub + (o_pub,), (label + "/" + own if label else own) if own else label,
                 chance * p)

    walk(game.root(), (), "", 1.0)
    u = np.array([value[label] for label in labels])  # [R_opp, A]
    her_best = np.maximum(alt, u @ sigma).sum()
    resolver_best = ((1 - follow) * alt).sum() + (follow @ u).min()
    return float(her_best - resolver_best)


@pytest.mark.parametrize("iterations", [3, 20, 300])
def test_recovery_gap_is_the_re_solving_games_exploitability_coin_toss(iterations):
    game, problem = _coin_toss_play_problem()
    sol = resolve_subgame(problem, iterations=iterations)
    expected = _re_solving_nash_conv(game, ("", "Play"), 1, _root_labels(sol), sol.alt, sol.root_range, sol.probs[0])
    assert sol.recovery_gap is not None and sol.recovery_gap.shape == (1,)
    assert sol.recovery_gap[0] == pytest.approx(expected, abs=1e-12)
    assert expected >= -1e-12


@pytest.mark.parametrize("iterations", [3, 20])
def test_recovery_gap_is_the_re_solving_games_exploitability_rps(iterations):
    """Decomposition paper, Fig. 1: the re-solving gadget of RPS below player 0's move."""
    game, tree = load_game("rps"), compiled("rps")
    rng = np.random.default_rng(8)
    blueprint = Strategy(tree.game_id, (rng.dirichlet(np.ones(3))[None, :], rng.dirichlet(np.ones(3))[None, :]))
    sub = tree.node_of_key[("p0 moved",)]
    problem = blueprint_problem(blueprint_values(tree, blueprint), subgame_forest(game, tree, [sub]), 1, "resolve")
    sol = resolve_subgame(problem, iterations=iterations)
    expected = _re_solving_nash_conv(game, ("p0 moved",), 1, _root_labels(sol), sol.alt, sol.root_range, sol.probs[0])
    assert sol.recovery_gap is not None
    assert sol.recovery_gap[0] == pytest.approx(expected, abs=1e-12)


# -- safety on forests of many subgames ------------------------------------------------------------


def _weak_blueprints(tree, counts=(15, 40)):
    return [CFRSolver(tree, CFR).run(n).average_strategy() for n in counts]


SAFETY_GAMES = ["leduc", "small-nolimit"]


def _game(name):
    if name == "small-nolimit":
        game, tree, _, _ = small_game(1)
        return game, tree
    return load_game(name), compiled(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SAFETY_GAMES)
def test_every_safe_method_never_raises_a_best_response_value(name):
    """Safe-and-nested Theorems 1–2, per player, on every subgame of the game at once.

    Blueprints from weak (a seeded random strategy, 15 CFR iterations) to nearly solved
    (30 CFR+ iterations), where splitting the gifts matters: not splitting them raises
    player 0's best-response value on Leduc by 0.018. The tolerance is the re-solver's
    own: 400 CFR+ iterations of each forest.
    """
    game, tree = _game(name)
    roots = subgame_roots(tree)
    assert len(roots) > 4
    forest = subgame_forest(game, tree, roots)
    blueprints = [Strategy.random(tree, np.random.default_rng(17)), CFRSolver(tree, CFR).run(15).average_strategy(),
                  CFRSolver(tree, CFR_PLUS).run(30).average_strategy()]
    for k, blueprint in enumerate(blueprints):
        bv = blueprint_values(tree, blueprint)
        before = np.array(exploitability(tree, blueprint).br_values)
        for method in SAFE_METHODS:
            resolved = resolve_all(game, tree, blueprint, method, roots=roots, iterations=400, values=bv, forest=forest)
            after = np.array(exploitability(tree, resolved).br_values)
            assert np.all(after <= before + 2e-3), (k, method, before, after)


@pytest.mark.slow
@pytest.mark.parametrize("method", [m for m, spec in METHODS.items() if spec.gifts == "none"])
@pytest.mark.slow
def test_a_forest_is_one_independent_solve_per_subgame(method):
    """Solving the subgames together equals solving each alone: no gadget couples them."""
    game, tree = load_game("leduc"), compiled("leduc")
    roots = subgame_roots(tree)[:4]
    blueprint = _weak_blueprints(tree, (15,))[0]
    bv = blueprint_values(tree, blueprint)
    together = resolve_all(game, tree, blueprint, method, roots=roots, iterations=60, values=bv)
    for p in (0, 1):
        alone = blueprint.probs[p].copy()
        for r in roots:
            alone += resolve_all(game, tree, blueprint, method, roots=[r], iterations=60, values=bv).probs[p] - blueprint.probs[p]
        np.testing.assert_allclose(together.probs[p], alone, rtol=0, atol=1e-9, err_msg=f"player {p}")


@pytest.mark.parametrize("method", ["reach-resolve", "reach-maxmargin", "reach-estimate-distributional"])
def test_split_gifts_add_up_to_at_most_the_gifts(method):
    """§5: a gift is shared among the root states below it, so the raised payoffs add up to at most the gifts."""
    game, tree = load_game("leduc"), compiled("leduc")
    roots = subgame_roots(tree)
    forest = subgame_forest(game, tree, roots)
    bv = blueprint_values(tree, _weak_blueprints(tree, (50,))[0])
    base = {"reach-resolve": "resolve", "reach-maxmargin": "maxmargin", "reach-estimate-distributional": "distributional"}
    above = np.zeros(tree.num_nodes, dtype=bool)  # public nodes with a subgame root below them
    for r in roots:
        n = int(tree.parent[r])
        while n >= 0:
            above[n], n = True, int(tree.parent[n])
    given = 0.0
    for player in (0, 1):
        pa = tree.players[1 - player]
        gifts_above = bv.gift[1 - player][above[pa.node[pa.infoset_priv]]].sum()
        plain = blueprint_problem(bv, forest, player, base[method]).alt
        raised = blueprint_problem(bv, forest, player, method).alt - plain
        assert raised.min() >= 0
        assert raised.sum() <= gifts_above + 1e-12
        given += raised.sum()
        if method + "-nosplit" in METHODS and raised.sum() > 0:  # every root state given the whole gift: more than there is
            whole = blueprint_problem(bv, forest, player, method + "-nosplit").alt - plain
            assert whole.sum() > raised.sum() + 1e-3
    assert given > 1e-3  # this blueprint does give gifts on the way to the roots


# -- nested solving ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
@pytest.mark.slow
def test_nested_alternative_payoffs_are_the_blueprints_counterfactual_best_response_values(method):
    """§6: at I·a the alternative payoff is C̃BV(I), her counterfactual best response value at I before the off-tree action."""
    game, tree, abstraction, blueprint = small_game(30)
    base = restrict(game, tree, abstraction)
    sol = solve_off_tree(game, tree, abstraction, blueprint, ("", ""), "r5", method)  # 0.75 pot, off the tree
    opp = 0
    at = base.node_of_key[("", "")]
    pa = base.players[opp]
    cbv = best_response(base, blueprint, opp).cbv
    by_label = {pa.label[g]: cbv[g] for g in np.flatnonzero(pa.node == at)}
    expected = np.array([by_label[label] for label in _root_labels(sol)])
    np.testing.assert_allclose(sol.alt, expected, rtol=0, atol=1e-12)
    cfv = counterfactual_values(base, blueprint)[opp]
    assert np.abs(expected - np.array([cfv[np.flatnonzero((pa.node == at) & (np.array(pa.label) == lb))[0]]
                                        for lb in _root_labels(sol)])).max() > 1e-3  # CBV and CFV differ here
