"""The size estimate against the trees the compilers build: counts exact, bytes within 25 %."""

from __future__ import annotations

import json

import pytest

from subgame.games import load_game
from subgame.solve.cfr import CFRSolver
from subgame.tree.compile import compile_game
from subgame.tree.estimate import estimate_size
from subgame.tree.size import array_bytes, human_bytes, tree_bytes
from tests.cli.test_cli import invoke

GAMES = [
    ("kuhn", {}),
    ("leduc", {}),
    ("leduc", {"num_ranks": 5}),
    ("leduc_nolimit", {}),
    ("poker", {"num_ranks": 4, "num_suits": 3, "hole_cards": 2, "board_cards": (0, 1)}),
    ("leduc", {"num_ranks": 4, "num_suits": 3, "board_cards": (0, 2)}),
    ("poker", {"num_ranks": 4, "num_suits": 3, "hole_cards": 2, "board_cards": (1, 1), "board": (5,)}),  # a pre-dealt board
    ("coin_toss", {}),
    ("rps", {}),
    ("matching_pennies", {}),
    ("red_green_coin", {}),
    ("goofspiel", {}),
    ("goofspiel", {"num_cards": 4, "imp_info": False}),
    ("liars_dice", {"dice_sides": 3}),
]


@pytest.mark.parametrize(("name", "params"), GAMES, ids=[f"{n}{p or ''}" for n, p in GAMES])
@pytest.mark.slow
def test_the_estimate_counts_what_the_compiler_builds(name, params):
    game = load_game(name, **params)
    est = estimate_size(game)
    tree = compile_game(game)
    assert est.exact
    assert est.public_nodes == len(tree.kind)
    assert est.private_states == (tree.players[0].num_states, tree.players[1].num_states)
    assert est.infoset_actions == (tree.players[0].legal.size, tree.players[1].legal.size)
    if tree.layout is not None:  # a solve by depth-first passes: the tree without its index arrays, and the solver
        solver = CFRSolver(tree)
        held = array_bytes(tree) + array_bytes([solver.regrets, solver.strategy_sum])
        assert 0.75 <= est.passes_bytes / held <= 1.25 and est.passes_bytes < est.peak_bytes, (est.passes_bytes, held)
    else:
        assert est.passes_bytes == 0
    measured = tree_bytes(tree)
    assert 0.75 <= est.tree_bytes / measured <= 1.25, (est.tree_bytes, measured)
    solver = CFRSolver(tree)
    state = array_bytes([solver.regrets, solver.strategy_sum, solver._legal])
    assert 0.75 <= est.solver_bytes / state <= 1.25, (est.solver_bytes, state)


def test_a_walk_that_stops_early_reports_a_lower_bound():
    game = load_game("goofspiel")
    full, cut = estimate_size(game), estimate_size(game, max_histories=50)
    assert not cut.exact and cut.public_nodes < full.public_nodes and sum(cut.private_states) < sum(full.private_states)


def test_a_hold_em_size_is_counted_in_a_moment_without_building_it():
    holdem = load_game("poker", num_ranks=13, num_suits=4, hole_cards=2, board_cards=(0, 3, 1, 1), ante=0,
                       blinds=(1, 2), raise_sizes=(2, 2, 4, 4), max_raises=(3, 4, 4, 4), first_player=(1, 0, 0, 0))
    est = estimate_size(holdem)
    # every river public node holds C(52 - 5, 2) = 1081 hands per player, and there are 52C3 * 49 * 48 river boards
    assert est.private_states[0] > 22100 * 49 * 48 * 1081
    assert est.tree_bytes > 2**40


@pytest.mark.slow
def test_games_size_on_the_command_line():
    result = invoke("games", "--size", "leduc", "-p", "num_ranks=4", "--json")
    assert result.exit_code == 0
    record = json.loads(result.output)
    tree = compile_game(load_game("leduc", num_ranks=4))
    assert record["public_nodes"] == len(tree.kind) and record["private_states"][1] == tree.players[1].num_states
    assert record["total_bytes"] == record["tree_bytes"] + record["solver_bytes"]
    assert 0 < record["passes_bytes"] < record["peak_bytes"]  # a poker tree: solved by depth-first passes
    table = invoke("games", "--size", "kuhn")
    assert table.exit_code == 0 and "private states" in table.output and "KiB" in table.output
    lone = invoke("games", "-p", "num_ranks=4")
    assert lone.exit_code == 2 and "--size" in lone.output and "Traceback" not in lone.output


def test_human_bytes():
    assert [human_bytes(n) for n in (5, 2048, 3 * 2**30, 2**50 * 7)] == ["5 B", "2.0 KiB", "3.0 GiB", "7.0 PiB"]


def test_the_estimate_counts_long_labels_regression_openspiel_goofspiel():
    """OpenSpiel's goofspiel observes long strings: the estimate was 0.47 of the tree before it counted them."""
    pytest.importorskip("pyspiel")
    game = load_game("openspiel:goofspiel", num_cards=3, imp_info=True)
    ratio = estimate_size(game).tree_bytes / tree_bytes(compile_game(game))
    assert 0.75 <= ratio <= 1.25, ratio


PARTS = [("leduc", {}), ("poker", {"num_ranks": 4, "betting": "nolimit", "stack": 8, "bet_fractions": (1.0,), "max_raises": (1, 1)}),
         ("liars_dice", {"dice_sides": 3}), ("goofspiel", {})]


@pytest.mark.parametrize(("name", "params"), PARTS, ids=[n for n, _ in PARTS])
@pytest.mark.parametrize("limits", [{}, {"depth_limit": 1}, {"depth_limit": 2}, {"chance_limit": 1}], ids=str)
def test_the_estimate_of_a_part_counts_what_the_compiler_builds_below_a_public_state(name, params, limits):
    game = load_game(name, **params)
    full = compile_game(game)
    nodes = [0, 1, 3, full.num_nodes // 3, full.num_nodes // 2]
    for n in (n for n in nodes if full.kind[n] != 2):  # terminal nodes are no subgame
        tree = compile_game(game, public_state=full.public_key[n], **limits)
        est = estimate_size(game, public_state=full.public_key[n], **limits)
        assert est.exact and est.public_nodes == tree.num_nodes
        assert est.private_states == (tree.players[0].num_states, tree.players[1].num_states)
        assert est.infoset_actions == (tree.players[0].legal.size, tree.players[1].legal.size)
    whole = estimate_size(game, **limits)
    assert whole.public_nodes == compile_game(game, **limits).num_nodes
