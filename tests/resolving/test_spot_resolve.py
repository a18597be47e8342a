"""Safe re-solving of a hold'em spot against a blueprint in coarser bets (safe-and-nested §3–5)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.ranges import Range, parse_board
from subgame.resolving.spot_resolve import resolve_spot, spot_blueprint
from subgame.resolving.spots import holdem_problem, solve_spot

BOARD = parse_board("Js Ks 5c Qs 7d")
RANGES = (Range.parse("AA,KK,QQ,JJ,AKs,AQs,KQs,T9s,98s,A5s", BOARD), Range.parse("AK,AQ,KQ,QJ,JT,TT-77,A5s-A2s", BOARD))


def spot(bets: str) -> HoldemSpot:
    return HoldemSpot(BOARD, 1000, 3000, BetSizing.parse(bets, raise_cap=2))


@pytest.fixture(scope="module")
def coarse_blueprint():
    return spot_blueprint(holdem_problem(spot("allin"), RANGES), target_pct_pot=0.2)


@pytest.mark.slow
def test_the_unsafe_method_is_the_spot_solved_under_both_ranges(coarse_blueprint):
    fine = holdem_problem(spot("1,allin"), RANGES)
    resolved = resolve_spot(fine, coarse_blueprint, "unsafe", iterations=40)
    direct = solve_spot(fine, iterations=40, evaluate_every=40).strategy
    for p in (0, 1):
        np.testing.assert_allclose(resolved.strategy.probs[p], direct.probs[p], atol=1e-12)


@pytest.mark.parametrize("method", ["resolve", "maxmargin"])
@pytest.mark.slow
def test_in_the_blueprints_own_bets_no_opponent_hand_gains_once_converged(coarse_blueprint, method):
    # The blueprint itself meets every alternative payoff exactly, so a safe re-solve
    # in the same bets can hold every opponent hand to it; unsafe solving does not.
    same = holdem_problem(spot("allin"), RANGES)
    few, many = (resolve_spot(same, coarse_blueprint, method, iterations=n) for n in (20, 1600))
    assert max(many.worst_rise) < 0.05  # % of the pot, for the worst single hand
    assert max(many.worst_rise) < max(few.worst_rise)
    unsafe = resolve_spot(same, coarse_blueprint, "unsafe", iterations=400)
    assert max(unsafe.worst_rise) > 10 * max(many.worst_rise)


def test_a_blueprint_of_another_spot_is_refused(coarse_blueprint):
    other = holdem_problem(replace(spot("1,allin"), pot=1200), RANGES)
    with pytest.raises(GameDefinitionError, match="another spot"):
        resolve_spot(other, coarse_blueprint, "resolve", iterations=5)
    narrower = (RANGES[0], Range.parse("AK,AQ", BOARD))
    with pytest.raises(GameDefinitionError, match="range differs"):
        resolve_spot(holdem_problem(spot("1,allin"), narrower), coarse_blueprint, "resolve", iterations=5)


@pytest.mark.slow
def test_a_suit_isomorphic_turn_re_solves_as_the_plain_tree():
    board = parse_board("Ks 7s 2s 5s")
    ranges = (Range.uniform(board), Range.uniform(board))
    results = []
    for iso in (True, False):
        coarse = holdem_problem(HoldemSpot(board, 100, 100, BetSizing.parse("allin", raise_cap=1)), ranges, isomorphism=iso)
        fine = holdem_problem(HoldemSpot(board, 100, 100, BetSizing.parse("1,allin", raise_cap=1)), ranges, isomorphism=iso)
        assert (fine.suits is not None) == iso
        blueprint = spot_blueprint(coarse, target_pct_pot=5.0, iterations=3)
        results.append([resolve_spot(fine, blueprint, m, iterations=3) for m in ("unsafe", "resolve", "maxmargin")])
    for folded, plain in zip(*results):
        assert folded.exploitability.pct_pot == pytest.approx(plain.exploitability.pct_pot, abs=1e-9)
        assert folded.worst_rise == pytest.approx(plain.worst_rise, abs=1e-9)
