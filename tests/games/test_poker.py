"""The poker family: rules, hand ranking, validation of parameters and actions."""

from __future__ import annotations

import pytest

from subgame.errors import GameDefinitionError, IllegalActionError, UnknownGameError
from subgame.games import load_game
from subgame.games.base import CHANCE, TERMINAL
from subgame.games.poker.hands import FLUSH, FULL_HOUSE, PAIR, STRAIGHT, STRAIGHT_FLUSH, TWO_PAIR, hand_strength


def cards(text: str, num_ranks: int = 13, num_suits: int = 4) -> list[int]:
    ranks, suits = "23456789TJQKA"[13 - num_ranks :], "shdc"
    return [ranks.index(text[i]) * num_suits + suits.index(text[i + 1]) for i in range(0, len(text), 2)]


@pytest.mark.parametrize(
    "hand, category",
    [
        ("AsKsQsJsTs2h3d", STRAIGHT_FLUSH),
        ("5s4h3d2cAs", STRAIGHT),
        ("AhKhQh2h9h", FLUSH),
        ("AhAdAsKhKd", FULL_HOUSE),
        ("AhAdKsKh2d", TWO_PAIR),
        ("AhAd7s5h2d", PAIR),
    ],
)
def test_hand_categories(hand, category):
    assert hand_strength(cards(hand), 13, 4)[0] == category


def test_hand_order():
    s = lambda h: hand_strength(cards(h), 13, 4)  # noqa: E731
    assert s("5s4h3d2cAs") < s("6s5h4d3c2s")  # the wheel is the lowest straight
    assert s("AhAd7s5h2d") > s("KhKdAsQh2d")
    assert s("AhAd7s5h2d") == s("AsAc7h5d2h")  # suits do not matter without a flush
    assert s("2h2d2s3h3d") > s("AhKhQh2h9h")


def test_leduc_ranking_pair_beats_high_card():
    game = load_game("leduc")
    jack, queen, king = 0, 2, 4  # card = rank * 2 + suit
    assert game.strength((jack, jack + 1)) > game.strength((king, queen))
    assert game.strength((king, jack)) > game.strength((queen, jack))


def test_leduc_betting_sequence_and_payoff():
    game = load_game("leduc")
    s = game.root()
    for a in (0, 3):  # deal J♠ to player 0, Q♥ to player 1
        assert game.actor(s) == CHANCE
        s = game.apply(s, a)
    assert game.actor(s) == 0
    assert list(game.legal_actions(s)) == [1, 2]  # no fold when no bet is faced
    for a in (2, 2, 1):  # raise, re-raise, call
        s = game.apply(s, a)
    assert game.actor(s) == CHANCE
    s = game.apply(s, 1)  # board J♥: player 0 pairs
    s = game.apply(s, 1)  # player 0 checks
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(s, 0)  # fold is illegal when no bet is faced
    s = game.apply(s, 2)  # player 1 bets 4
    s = game.apply(s, 0)  # player 0 folds
    assert game.actor(s) == TERMINAL
    assert game.utility(s) == -(1 + 2 + 2)  # ante, raise, call of the re-raise


def test_nolimit_bets_never_exceed_the_stack():
    game = load_game("leduc_nolimit")
    s = game.apply(game.apply(game.root(), 0), 2)
    seen = 0
    frontier = [s]
    while frontier and seen < 2000:
        st = frontier.pop()
        seen += 1
        if game.actor(st) == TERMINAL:
            assert max(st.contrib) <= 20
            continue
        moves = [a for a, _ in game.chance_outcomes(st)] if game.actor(st) == CHANCE else game.legal_actions(st)
        frontier.extend(game.next_state(st, a) for a in moves)
    assert seen > 100


@pytest.mark.parametrize(
    "name, params, message",
    [
        ("leduc_nolimit", {"stack": -5}, "positive stack"),
        ("leduc", {"num_ranks": 2, "num_suits": 1}, "deck has only 2"),
        ("leduc", {"hole_cards": 0}, "hole_cards"),
        ("leduc", {"raise_sizes": (2,)}, "per round"),
        ("leduc", {"betting": "potlimit"}, "betting must be"),
        ("leduc", {"colour": 3}, "unknown parameter"),
        ("leduc", {"num_ranks": "many"}, "not a valid int"),
    ],
)
def test_invalid_parameters(name, params, message):
    with pytest.raises(GameDefinitionError, match=message):
        load_game(name, **params)


def test_string_parameters_are_converted():
    game = load_game("leduc", num_ranks="4", raise_sizes="2,4")
    assert game.spec.num_ranks == 4 and game.spec.raise_sizes == (2, 4)


def test_unknown_game_lists_known_ones():
    with pytest.raises(UnknownGameError, match="known games: .*kuhn.*leduc"):
        load_game("holdem9000")


@pytest.mark.parametrize("all_in", [True, False])
def test_a_bet_of_the_whole_stack_is_the_all_in_whether_or_not_allin_is_listed(all_in):
    """Regression: a pot-size bet equal to the stack was dropped when 'allin' was not listed,
    leaving a spot with no betting at all."""
    from subgame.games.poker.holdem import BetSizing, HoldemSpot
    from subgame.tree.compile import compile_game

    spot = HoldemSpot("Js Ks 5c Qs 7d", 100, 100, BetSizing(((1.0,),), all_in=all_in, raise_cap=1))
    game = spot.game()
    s = game.root()
    while game.actor(s) == CHANCE:
        s = game.apply(s, game.chance_outcomes(s)[0][0])
    assert [game.action_name(s, a) for a in game.legal_actions(s)] == ["c", "r150"]  # 50 in, 100 behind
    assert game.legal_actions(s) == (1, 3)  # the all-in's id: after the pot fractions, as where 'allin' is listed
    bet = game.apply(s, 3)
    assert [game.action_name(bet, a) for a in game.legal_actions(bet)] == ["f", "c"]
    # Leduc with ante 1 and stack 3: a pot-size bet is the stack; the same tree with 'allin' listed or not
    trees = [compile_game(load_game("leduc_nolimit", stack=3, bet_fractions=(1.0,), all_in=listed)) for listed in (all_in, True)]
    assert trees[0].num_nodes == trees[1].num_nodes > 20
    assert trees[0].players[0].action_names == trees[1].players[0].action_names


def test_a_spot_with_no_betting_is_refused_by_the_solve_command():
    from tests.cli.test_cli import invoke

    result = invoke("solve", "holdem-subgame", "--board", "Js Ks 5c Qs 7d", "--pot", "100", "--stack", "0", "--bets", "1")
    assert result.exit_code == 2 and "nothing behind, so nobody can bet" in " ".join(result.output.split())
    assert "Traceback" not in result.output
