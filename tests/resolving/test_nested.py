"""Nested subgame solving for off-tree actions (safe-and-nested §6)."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import IllegalActionError, SubgameError
from subgame.eval import best_response, exploitability
from subgame.games import load_game
from subgame.resolving import BetAbstraction, nested_strategy, restrict, solve_off_tree, translation_strategy
from subgame.resolving.problem import GadgetSpec, SubgameProblem, resolve_subgame
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from tests.toy_games import SMALL, small_game


@pytest.fixture(scope="module")
def small():
    return small_game(300)


def _with(blueprint: Strategy, player: int, probs: np.ndarray) -> Strategy:
    return blueprint.with_player(player, probs)


@pytest.mark.parametrize("method,root", [("resolve", "inexpensive"), ("maxmargin", "inexpensive"),
                                         ("resolve", "expensive")])
@pytest.mark.slow
def test_off_tree_actions_gain_her_no_more_than_the_abstraction_plus_the_slack(small, method, root):
    """§6 relaxes safety: with C̃BV alternative payoffs the opponent's best response in the real
    game is bounded by her best response in the abstraction plus what the re-solves could not
    keep under the alternative payoffs (negative margins), level after level."""
    game, tree, abstraction, blueprint = small
    abstract = restrict(game, tree, abstraction)
    for responder in (0, 1):
        r = nested_strategy(game, tree, abstraction, blueprint, responder, method, root=root, iterations=150)
        assert r.subgames > 0 and r.levels >= 1
        opp = 1 - responder
        real_br = best_response(tree, _with(blueprint, responder, r.probs), opp).value
        abstract_br = best_response(abstract, blueprint, opp).value
        assert real_br <= abstract_br + r.slack + 1e-9
        assert real_br >= abstract_br - 1e-9  # she keeps every abstract option


@pytest.mark.slow
def test_nested_solving_beats_translation_and_unsafe_can_do_worse(small):
    game, tree, abstraction, blueprint = small

    def expl(probs: tuple[np.ndarray, np.ndarray]) -> float:
        return exploitability(tree, Strategy(tree.game_id, probs)).exploitability

    translated = expl((translation_strategy(game, tree, abstraction, blueprint, 0),
                       translation_strategy(game, tree, abstraction, blueprint, 1)))
    nested = expl(tuple(nested_strategy(game, tree, abstraction, blueprint, p, "resolve", iterations=150).probs
                        for p in (0, 1)))  # type: ignore[arg-type]
    unsafe = expl(tuple(nested_strategy(game, tree, abstraction, blueprint, p, "unsafe", root="expensive",
                                        iterations=150).probs for p in (0, 1)))  # type: ignore[arg-type]
    assert nested < 0.5 * translated
    assert unsafe > nested


def test_nothing_to_answer_leaves_the_blueprint(small):
    game, tree, _, _ = small
    everything = BetAbstraction(game, (0.5, 0.75, 1.0), True)
    blueprint = CFRSolver(tree, CFR_PLUS).run(20).average_strategy()
    r = nested_strategy(game, tree, everything, blueprint, 0, "resolve")
    assert r.subgames == 0 and r.levels == 0
    np.testing.assert_array_equal(r.probs, blueprint.probs[0])


@pytest.mark.slow
def test_one_off_tree_action(small):
    game, tree, abstraction, blueprint = small
    sol = solve_off_tree(game, tree, abstraction, blueprint, ("", ""), "r5", "resolve", iterations=100)
    assert sol.player == 1 and sol.keys == ((("", "", "r5"),))
    assert np.allclose(sol.probs.sum(axis=1), 1.0)
    expensive = solve_off_tree(game, tree, abstraction, blueprint, ("", ""), "r5", "unsafe", root="expensive",
                               iterations=50)
    assert expensive.keys == ((("", ""),))


def test_an_unsafe_re_solve_is_the_opponents_unsafe_re_solve_bit_for_bit(small):
    """Unsafe solving fixes both root ranges, so one run solves the same game as the opponent's own unsafe re-solve:
    nested solving takes her strategy below an off-tree action from the responder's run."""
    game, tree, abstraction, blueprint = small
    for iterations in (1, 7, 40):
        sol = solve_off_tree(game, tree, abstraction, blueprint, ("", ""), "r5", "unsafe", root="expensive",
                             iterations=iterations)
        problem = sol.problem
        mirror = SubgameProblem(problem.part, problem.opponent, problem.opponent_reach,
                                np.full(len(problem.root_reach), np.nan), GadgetSpec("unsafe"),
                                opponent_reach=problem.root_reach)
        hers = resolve_subgame(mirror, iterations=iterations)
        assert sol.opponent_probs is not None and hers.opponent_probs is not None
        np.testing.assert_array_equal(hers.probs, sol.opponent_probs)
        np.testing.assert_array_equal(hers.opponent_probs, sol.probs)


def test_bad_off_tree_input_is_one_clear_error(small):
    game, tree, abstraction, blueprint = small
    with pytest.raises(IllegalActionError, match="not legal"):
        solve_off_tree(game, tree, abstraction, blueprint, ("", ""), "r7", "resolve")
    with pytest.raises(SubgameError, match="in the abstraction"):
        solve_off_tree(game, tree, abstraction, blueprint, ("", ""), "r4", "resolve")
    with pytest.raises(SubgameError, match="not in the abstraction"):
        solve_off_tree(game, tree, abstraction, blueprint, ("", "", "r5"), "r10", "resolve")
    with pytest.raises(SubgameError, match="expensive root"):
        nested_strategy(game, tree, abstraction, blueprint, 0, "unsafe")
    with pytest.raises(SubgameError, match="unknown nested-solving method"):
        nested_strategy(game, tree, abstraction, blueprint, 0, "estimate")


@pytest.mark.parametrize("method,root", [("resolve", "inexpensive"), ("unsafe", "expensive")])
@pytest.mark.slow
def test_second_off_tree_action_is_answered_again(method, root):
    game = load_game("poker", **{**SMALL, "stack": 20})
    tree = compile_game(game)
    abstraction = BetAbstraction(game, (0.5, 1.0), True)
    abstract = restrict(game, tree, abstraction)
    blueprint = CFRSolver(abstract, CFR_PLUS).run(100).average_strategy()
    r = nested_strategy(game, tree, abstraction, blueprint, 0, method, root=root, iterations=60)
    assert r.levels == 2
    strategy = _with(blueprint, 0, r.probs)
    strategy.check(tree)
    if method != "unsafe":
        assert best_response(tree, strategy, 1).value <= best_response(abstract, blueprint, 1).value + r.slack + 1e-9
