"""Hold'em spots: the game from a public state, ranges as root reach, the Libratus endgames."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, InvalidRangeError
from subgame.eval.best_response import exploitability
from subgame.games import load_game
from subgame.games.base import game_fingerprint
from subgame.games.poker import PokerGame, PokerSpec
from subgame.games.poker.game import CALL
from subgame.games.poker.hands import hand_strength
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.libratus import parse_endgame, read_endgame
from subgame.games.poker.ranges import HANDS, Range, parse_board, parse_range
from subgame.resolving.spots import estimate_size, hand_grid, holdem_problem, pair_mass, solve_spot
from subgame.solve.cfr import CFR_PLUS, DCFR, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.enumeration import enumerate_game
from subgame.tree.poker_compile import compile_poker

ENDGAMES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "libratus-endgames"
needs_endgames = pytest.mark.skipif(not ENDGAMES.is_dir(), reason="the Libratus endgame fixtures are not beside the repository")
RIVER = "Js Ks 5c Qs 7d"


# -- the game of a spot ----------------------------------------------------------------------------
@pytest.mark.slow
def test_a_known_board_matches_the_generic_compiler_on_a_small_deck():
    spec = PokerSpec(num_ranks=4, num_suits=2, hole_cards=1, board_cards=(2, 1), betting="nolimit", ante=2, stack=8,
                     bet_fractions=(1.0,), first_player=(0, 0), board=(0, 5), raise_cap=2,
                     round_bet_fractions=((1.0,), (0.5,)))
    game = PokerGame(spec)
    fast, slow = compile_poker(game), enumerate_game(game)
    assert fast.public_key == slow.public_key and fast.players[0].label == slow.players[0].label
    s = Strategy.random(fast, np.random.default_rng(3))
    a, b = exploitability(fast, s), exploitability(slow, Strategy(slow.game_id, s.probs))
    assert a.nash_conv == pytest.approx(b.nash_conv, abs=1e-12) and a.game_value == pytest.approx(b.game_value, abs=1e-12)


def test_the_raise_cap_and_the_sizes_of_each_street():
    spot = HoldemSpot(parse_board("Js Ks 5c Qs"), 100, 1000, BetSizing.parse("1,allin/0.5,allin", raise_cap=2))
    game = spot.game()
    st = game.root()._replace(hole=((0, 1), (2, 3)))
    assert [game.action_name(st, a) for a in game.legal_actions(st)] == ["c", "r150", "r1050"]  # pot bet, all-in
    st = game.next_state(st, game.legal_actions(st)[1])  # bet 100
    st = game.next_state(st, game.legal_actions(st)[2])  # raise (one pot: to 450)
    assert [game.action_name(st, a) for a in game.legal_actions(st)] == ["f", "c"]  # capped at two
    assert spot.spec().round_bet_fractions == ((1.0,), (0.5,))


def test_the_registered_game_is_the_spot():
    spot = HoldemSpot(parse_board(RIVER), 3750, 18125, BetSizing.parse("0.5,1,allin", raise_cap=3))
    assert game_fingerprint(load_game("holdem_subgame", **spot.params())) == game_fingerprint(spot.game())
    assert game_fingerprint(load_game("holdem_subgame")) == game_fingerprint(spot.game())  # the defaults


def test_older_poker_fingerprints_are_unchanged():
    assert "board" not in load_game("leduc").params and "raise_cap" not in load_game("leduc_nolimit").params


# -- errors ------------------------------------------------------------------------------------------
def test_one_clear_error_each():
    with pytest.raises(GameDefinitionError, match="holds Js twice"):
        HoldemSpot("Js Ks Js 2c", 100, 100)  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="smaller than the pot commitment 1875"):
        HoldemSpot.from_starting_stack(RIVER, 3750, 1000)
    with pytest.raises(GameDefinitionError, match="even"):
        HoldemSpot(parse_board(RIVER), 375, 100)
    spot = HoldemSpot(parse_board(RIVER), 3750, 18125, BetSizing.parse("0.5,1,allin"))
    with pytest.raises(InvalidRangeError, match="player 1's range weighs 3 hand"):
        holdem_problem(spot, (parse_range("AA"), parse_range("KK")))
    wide = HoldemSpot(parse_board(RIVER), 3750, 18125, BetSizing.parse("0.25,0.5,0.75,1,1.5,allin"))  # 1.2 M private states
    with pytest.raises(GameDefinitionError, match="more than the 0.01 GiB allowed .* use fewer bet sizes"):
        holdem_problem(wide, (Range.uniform(wide.board), Range.uniform(wide.board)), max_bytes=10 * 2**20)


@pytest.mark.parametrize(("board", "bets", "cap"), [(RIVER, "1,allin", 2), ("Js Ks 5c Qs", "allin", 1)])
@pytest.mark.slow
def test_the_size_estimate_counts_what_the_compiler_builds(board, bets, cap):
    spot = HoldemSpot(parse_board(board), 100, 50, BetSizing.parse(bets, raise_cap=cap))  # the turn: all-in run-outs too
    size = estimate_size(spot.game())
    tree = compile_poker(spot.game())
    assert size.public_nodes == tree.num_nodes
    assert size.private_states == tree.players[0].num_states + tree.players[1].num_states


# -- ranges as root reach ----------------------------------------------------------------------------
def _check_down(problem) -> Strategy:
    """Both players check and call every bet."""
    return Strategy(problem.tree.game_id, tuple((pa.action_ids == CALL).astype(float) for pa in problem.tree.players))


def test_values_and_exploitability_under_ranges_match_a_brute_force_count():
    board = parse_board(RIVER)
    spot = HoldemSpot(board, 200, 1000, BetSizing.parse("1,allin"))
    rng = np.random.default_rng(7)
    weights = []
    for _ in range(2):
        w = np.zeros(len(HANDS))
        free = np.flatnonzero(Range.uniform(board).weights)
        w[rng.choice(free, 25, replace=False)] = rng.random(25)
        weights.append(w)
    problem = holdem_problem(spot, (Range(weights[0]), Range(weights[1])))
    result = problem.exploitability(_check_down(problem))
    # brute force over pairs of hands, with the slow evaluator
    hands = [np.flatnonzero(w) for w in weights]
    strength = {h: hand_strength(tuple(HANDS[h].tolist()) + board, 13, 4) for h in np.concatenate(hands)}
    sign = np.zeros((len(hands[0]), len(hands[1])))
    for (i, a), (j, b) in product(enumerate(hands[0]), enumerate(hands[1])):
        if not set(HANDS[a]) & set(HANDS[b]):
            sign[i, j] = (strength[a] > strength[b]) - (strength[a] < strength[b])
    r0, r1 = weights[0][hands[0]], weights[1][hands[1]]
    disjoint = np.array([[not set(HANDS[a]) & set(HANDS[b]) for b in hands[1]] for a in hands[0]])
    mass = r0 @ disjoint @ r1
    assert pair_mass(weights[0], weights[1]) == pytest.approx(mass, rel=1e-12)
    assert result.game_value == pytest.approx(100 * (r0 @ sign @ r1) / mass, rel=1e-9)
    # against check-and-call, the best response shoves its winning hands and checks the others
    edge0, edge1 = sign @ r1, -(r0 @ sign)
    br0 = r0 @ np.where(edge0 > 0, 1100 * edge0, 100 * edge0) / mass
    br1 = r1 @ np.where(edge1 > 0, 1100 * edge1, 100 * edge1) / mass
    assert result.br_values == pytest.approx((br0, br1), rel=1e-9)
    assert result.pct_pot == pytest.approx(100 * (br0 + br1) / 2 / 200, rel=1e-9)


def test_uniform_root_reach_is_no_root_reach():
    spot = HoldemSpot(parse_board(RIVER), 200, 400, BetSizing.parse("allin"))
    problem = holdem_problem(spot, (Range.uniform(spot.board), Range.uniform(spot.board)))
    s = CFRSolver(problem.tree, CFR_PLUS).run(3).average_strategy()
    plain = exploitability(problem.tree, s)
    ones = exploitability(problem.tree, s, root_reach=tuple(np.ones_like(r) for r in problem.root_reach))
    assert ones.br_values == pytest.approx(plain.br_values, rel=1e-12)


# -- the Libratus endgames ---------------------------------------------------------------------------
@needs_endgames
@pytest.mark.parametrize(("name", "board", "pot"), [
    ("subgame1", "7s 9h 9c Tc", 500), ("subgame2", "Ts 6h Ah 7c", 4780),
    ("subgame3", "4s 8h Tc 9h 2s", 500), ("subgame4", "Js Ks 5c Qs 7d", 3750),
])
def test_the_endgame_files_are_read(name, board, pot):
    endgame = read_endgame(ENDGAMES / f"{name}.txt")
    assert endgame.board == parse_board(board) and endgame.pot == pot
    assert endgame.round == {4: 3, 5: 4}[len(endgame.board)]
    assert all((r.weights > 0).sum() > 300 for r in endgame.ranges)
    assert endgame.spot().stack == 20_000 - pot // 2


@needs_endgames
def test_a_river_endgame_converges_under_its_ranges():
    endgame = read_endgame(ENDGAMES / "subgame4.txt")
    problem = holdem_problem(endgame.spot(BetSizing.parse("1,allin", raise_cap=2)), endgame.ranges)
    solved = solve_spot(problem, DCFR, iterations=40, evaluate_every=20)
    first, last = (p.exploitability.pct_pot for p in solved.curve)
    assert 0 < last < first
    assert solved.final.chips == pytest.approx(solved.final.pct_pot * 3750 / 100)
    again = solve_spot(problem, DCFR, target_pct_pot=first, iterations=40, evaluate_every=20)
    assert again.stopped == "target" and again.iterations == 20


GOOD = "-round 4\n-board JsKs5cQs7d\n-pot 3750\n-reach " + " ".join(["0.5"] * 2652) + "\n"


@pytest.mark.parametrize(("text", "match"), [
    (GOOD.replace("-pot 3750", "-pot x"), "line 3: -pot takes one whole number"),
    (GOOD.replace("-round 4", "-round 3"), "line 2: round 3 has 4 board cards"),
    (GOOD.replace("-board JsKs5cQs7d", "-board JsKs5cQsJs"), "line 2: .*Js twice"),
    (GOOD.replace("-pot 3750\n", ""), "missing -pot"),
    (GOOD.replace(" 0.5\n", "\n"), "line 4: -reach has 2651 values"),
    (GOOD.replace("-reach 0.5", "-reach nan"), "line 4: reach value 1 .nan. is not a probability"),
    (GOOD.replace("-reach 0.5", "-reach zero"), "line 4: reach value 1 .'zero'. is not a number"),
    (GOOD + "-pot 3\n", "line 5: -pot given twice"),
    (GOOD.replace("-round", "round"), "line 1: expected one of"),
])
def test_malformed_endgame_files_are_refused_with_the_line(text, match):
    with pytest.raises(GameDefinitionError, match=match):
        parse_endgame(text, "bad.txt")


def test_reach_on_board_hands_is_refused():
    with pytest.raises(GameDefinitionError, match="bad.txt, line 4: the first player's reach weighs"):
        parse_endgame(GOOD, "bad.txt")  # every hand has reach 0.5, those holding board cards too


def test_the_hand_grid_averages_each_class_by_reach():
    spot = HoldemSpot(parse_board(RIVER), 200, 400, BetSizing.parse("1,allin"))
    ranges = (parse_range("AA,AKs,AKo:0.5,T9s", spot.board), parse_range("QQ+", spot.board))
    problem = holdem_problem(spot, ranges)
    s = CFRSolver(problem.tree, CFR_PLUS, root_reach=problem.root_reach).run(5).average_strategy()
    grid = hand_grid(problem, s)
    assert grid.actions == ("c", "r300", "r500")  # a pot bet to 300, all-in to 500
    assert grid.weight[0, 0] == 6 and grid.weight[0, 1] == 3 and grid.weight[1, 0] == 0.5 * 9 and grid.weight[4, 5] == 4
    assert grid.weight.sum() == pytest.approx(ranges[0].weights.sum())
    held = grid.weight > 0
    np.testing.assert_allclose(grid.probs[held].sum(axis=1), 1.0)
    assert np.isnan(grid.probs[~held]).all()


@pytest.mark.slow
def test_a_turn_check_down_is_worth_its_average_over_the_river_cards():
    board = parse_board("Ts 6h Ah 7c")
    spot = HoldemSpot(board, 100, 0, BetSizing.parse("allin"))  # nothing behind: both check to the showdown
    hands = [parse_range("AsKs,QcQd,8s7s:0.5", board), parse_range("AcKd,6s6d:0.25,9c8d:0.75", board)]
    problem = holdem_problem(spot, (hands[0], hands[1]))
    value = problem.exploitability(_check_down(problem)).game_value
    total = mass = 0.0
    for a, b in product(np.flatnonzero(hands[0].weights), np.flatnonzero(hands[1].weights)):
        h0, h1 = HANDS[a].tolist(), HANDS[b].tolist()
        if set(h0) & set(h1):
            continue
        w = hands[0].weights[a] * hands[1].weights[b]
        rivers = [c for c in range(52) if c not in set(h0) | set(h1) | set(board)]
        s = [hand_strength(tuple(h0) + board + (c,), 13, 4) > hand_strength(tuple(h1) + board + (c,), 13, 4) for c in rivers]
        t = [hand_strength(tuple(h0) + board + (c,), 13, 4) < hand_strength(tuple(h1) + board + (c,), 13, 4) for c in rivers]
        total += w * 50 * (sum(s) - sum(t)) / len(rivers)
        mass += w
    assert value == pytest.approx(total / mass, rel=1e-9)
