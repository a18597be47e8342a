"""Ranges, cards and boards in the notation of poker solvers."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, InvalidRangeError
from subgame.games.poker.ranges import (
    HANDS,
    NUM_HANDS,
    Range,
    format_range,
    hand_index,
    hand_name,
    parse_board,
    parse_cards,
    parse_range,
    read_ranges,
)


def _names(r: Range) -> set[str]:
    return {hand_name(h) for h in np.flatnonzero(r.weights)}


def test_hand_order_is_the_libratus_order():
    assert [hand_name(h) for h in range(4)] == ["2s2h", "2s2d", "2s2c", "3s2s"]
    assert hand_name(NUM_HANDS - 1) == "AdAc"
    np.testing.assert_array_equal(hand_index(HANDS), np.arange(NUM_HANDS))
    np.testing.assert_array_equal(hand_index(HANDS[:, ::-1]), np.arange(NUM_HANDS))


@pytest.mark.parametrize(("text", "count"), [
    ("AA", 6), ("AKs", 4), ("AKo", 12), ("AK", 16), ("A5s-A2s", 16), ("A2s-A5s", 16), ("99-55", 30),
    ("TT+", 30), ("A9s+", 20), ("KTo+", 36), ("AsKs", 1), ("AA,KK,AQs:0.75,A5s-A2s,KQo", 6 + 6 + 4 + 16 + 12),
])
def test_items_name_the_right_number_of_hands(text, count):
    assert int((parse_range(text).weights > 0).sum()) == count


def test_weights_and_specific_combinations():
    r = parse_range("AQs:0.75, KhKd:0.5, 72o")
    assert _names(Range(r.weights == 0.75)) == {"AsQs", "AhQh", "AdQd", "AcQc"}
    assert r.weights[hand_index(np.array(parse_cards("Kh Kd")))] == 0.5
    assert r.weights[hand_index(np.array(parse_cards("7s 2h")))] == 1.0
    assert r.weights[hand_index(np.array(parse_cards("7s 2s")))] == 0.0


def test_format_then_parse_gives_the_same_range():
    rng = np.random.default_rng(5)
    for _ in range(5):
        w = rng.random(NUM_HANDS) * (rng.random(NUM_HANDS) < 0.4)
        w[parse_range("AA,KQs,T9o").weights > 0] = 0.25  # whole classes written as one item
        r = Range(w)
        assert parse_range(format_range(r)) == r
    assert format_range(parse_range("AA,AKs:0.5,KhKd")) == "AA,AKs:0.5,KhKd"


@pytest.mark.parametrize(("text", "match"), [
    ("AX", "not a hand class"), ("AAs", "neither suited nor offsuit"), ("AKs:1.5", "outside"), ("AKs:x", "not a number"),
    ("AK,AKs", "already named"), ("A5s-K2s", "span"), ("AsAs", "twice"), ("AKq", "not a hand class"),
])
def test_bad_items_are_refused_with_the_item_named(text, match):
    with pytest.raises(InvalidRangeError, match=match):
        parse_range(text)


def test_boards():
    assert parse_board("Js Ks 5c Qs 7d") == parse_board("JsKs5cQs7d") == (36, 44, 15, 40, 22)
    with pytest.raises(GameDefinitionError, match="Js twice"):
        parse_board("Js Ks Js")
    with pytest.raises(GameDefinitionError, match="3 .flop., 4 .turn. or 5"):
        parse_board("Js Ks")
    with pytest.raises(GameDefinitionError, match="not a card"):
        parse_board("Js Ks 1c")


def test_a_range_over_board_cards_is_refused():
    board = parse_board("Js Ks 5c")
    with pytest.raises(InvalidRangeError, match="weighs 3 hand.s. holding a card of the board"):
        parse_range("KK,QQ").check_board(board)
    assert (parse_range("KK,QQ", board).check_board(board).weights > 0).sum() == 3 + 6  # classes: the hands left
    with pytest.raises(InvalidRangeError, match="'KsKh' holds a card of the board"):
        parse_range("QQ,KsKh", board)
    with pytest.raises(InvalidRangeError, match="'55': every one of its hands"):
        parse_range("55", parse_board("5s 5h 5d"))
    assert (Range.uniform(board).weights > 0).sum() == 1176


def test_range_files(tmp_path):
    both = tmp_path / "both.txt"
    both.write_text("# one line for both players\nAA,KK\n")
    r0, r1 = read_ranges(both)
    assert r0 == r1 == parse_range("AA,KK")
    bad = tmp_path / "bad.txt"
    bad.write_text("AA\n\nKK,QZ\n")
    with pytest.raises(InvalidRangeError, match=r"bad.txt, line 3: .*'QZ'"):
        read_ranges(bad)
