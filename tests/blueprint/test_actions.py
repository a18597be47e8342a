"""The action abstraction: its text and TOML forms, bad input, and the betting tree it spans."""

from __future__ import annotations

import pytest

from subgame.blueprint.actions import ALL_IN, DEFAULT_ACTIONS, MIN_RAISE, ActionAbstraction, BettingTree, parse_actions
from subgame.errors import GameDefinitionError
from subgame.games.poker.acpc import load_acpc_game

HUNL = "tests/data/acpc/holdem_nolimit.game"


def test_text_round_trip():
    a = parse_actions("50,100,allin/min,allin:3; 33,75%:2")
    assert a.sizes == (((0.5, 1.0, ALL_IN), (MIN_RAISE, ALL_IN)), ((0.33, 0.75),))
    assert a.caps == (3, 2)
    assert parse_actions(a.text()) == a
    assert a.for_rounds(4).sizes[3] == a.sizes[1]


def test_toml_file(tmp_path):
    path = tmp_path / "bets.toml"
    path.write_text('[[round]]\nsizes = [[0.5, 1.0, "allin"], [1.0, "allin"]]\ncap = 3\n')
    a = parse_actions(str(path))
    assert a.sizes == (((0.5, 1.0, ALL_IN), (1.0, ALL_IN)),) and a.caps == (3,)


@pytest.mark.parametrize("text, words", [
    ("50,abc", "'abc' is not a size"),
    ("f,c,50", "fold and call are always"),
    ("50:x", "cap 'x'"),
    ("-50", "not a positive pot fraction"),
    (" ; ", "no round"),
])
def test_bad_text_one_clear_error(text, words):
    with pytest.raises(GameDefinitionError, match=words):
        parse_actions(text)


def test_bad_toml(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[round]\nsizes = ")
    with pytest.raises(GameDefinitionError, match="does not parse as TOML"):
        parse_actions(str(bad))
    no_fold = tmp_path / "nofold.toml"
    no_fold.write_text('fold = false\n[[round]]\nsizes = [["allin"]]\n')
    with pytest.raises(GameDefinitionError, match="without fold or call"):
        parse_actions(str(no_fold))
    with pytest.raises(GameDefinitionError, match="not found|no such|does not exist|missing"):
        parse_actions(str(tmp_path / "absent.toml"))


def test_count_matches_built_tree():
    spec = load_acpc_game(HUNL).spec
    a = parse_actions(DEFAULT_ACTIONS)
    tree = BettingTree.build(spec, a)
    per_round = BettingTree.count(spec, a)
    assert per_round == tuple(int(tree.decision_nodes(r).size) for r in range(4))
    # the preflop: the small blind (player 1) acts first with fold, call, 50/100/200 % of the pot and all-in
    assert tree.player[0] == 1 and tree.actions_of(0) == ("f", "c", "r200", "r300", "r500", "r20000")


def test_sizes_follow_poker_rules():
    spec = load_acpc_game(HUNL).spec
    tree = BettingTree.build(spec, ActionAbstraction(((("min", 0.1, 1.0, ALL_IN),),), (1,)))
    # the minimum raise and 10 % both round to a raise to 200 chips: one action
    assert tree.actions_of(0) == ("f", "c", "r200", "r300", "r20000")
    after_all_in = tree.child(0, "r20000")
    assert tree.actions_of(after_all_in) == ("f", "c")
