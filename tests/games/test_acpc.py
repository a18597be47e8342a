"""ACPC game-definition files: parsing, seat conventions, errors, the writer, and OpenSpiel."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subgame.errors import GameDefinitionError
from subgame.games import load_game
from subgame.games.base import CHANCE, TERMINAL, Game, game_fingerprint
from subgame.games.poker import KUHN, LEDUC, LEDUC_NOLIMIT, PokerGame, PokerSpec
from subgame.games.poker.acpc import load_acpc_game, parse_acpc, to_acpc
from subgame.games.poker.game import CALL, FOLD, RAISE
from subgame.tree.compile import compile_game

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"
REPO = Path(__file__).resolve().parents[2]
DATA_FILES = sorted(p.name for p in DATA.glob("*.game"))

# Line numbers matter: the error tests below name them.
BASE = """\
# a Leduc-type game
GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 1
raiseSize = 2 4
firstPlayer = 1 1
maxRaises = 2 2
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""
NOLIMIT = BASE.replace("limit\n", "nolimit\nstack = 20 20\n", 1).replace("maxRaises = 2 2\n", "")


def edit(text: str, line: int, new: str | None) -> str:
    """``text`` with 1-based ``line`` replaced by ``new`` (removed when None)."""
    lines = text.splitlines()
    if new is None:
        del lines[line - 1]
    else:
        lines[line - 1] = new
    return "\n".join(lines) + "\n"


def same_game(a: Game, b: Game) -> int:
    """Walk two games in lockstep, checking they agree everywhere; returns the history count."""
    count, stack = 0, [(a.root(), b.root())]
    while stack:
        sa, sb = stack.pop()
        count += 1
        who = a.actor(sa)
        assert who == b.actor(sb)
        if who == TERMINAL:
            assert a.utility(sa) == b.utility(sb)
            continue
        if who == CHANCE:
            assert list(a.chance_outcomes(sa)) == list(b.chance_outcomes(sb))
            actions = [x for x, _ in a.chance_outcomes(sa)]
        else:
            actions = list(a.legal_actions(sa))
            assert actions == list(b.legal_actions(sb))
        stack.extend((a.next_state(sa, x), b.next_state(sb, x)) for x in actions)
    return count


# -- the data files ------------------------------------------------------------------------


def test_leduc_file_through_load_game_has_leducs_936_infosets(monkeypatch, leduc_tree):
    monkeypatch.chdir(REPO)
    game = load_game("tests/data/acpc/leduc.game")
    assert isinstance(game, PokerGame)
    assert game.spec.blinds == (1, 1) and game.spec.ante == 0
    tree = compile_game(game)
    assert tree.players[0].num_infosets + tree.players[1].num_infosets == 936
    assert tree.summary() == leduc_tree.summary()


def test_equal_blinds_play_exactly_like_an_ante_in_limit_games():
    # Equal blinds: no one faces a bet, so no fold at the first decision, and the big-blind
    # option never arises; every history, legal action and payoff matches Leduc's ante of 1.
    blinds = load_acpc_game(DATA / "leduc.game")
    assert same_game(blinds, load_game("leduc")) == 9457
    assert same_game(load_acpc_game(DATA / "kuhn.game"), load_game("kuhn")) == 58


def test_ante_extension_and_lenient_syntax_give_leduc_exactly():
    # leduc_ante.game mixes case, omits '=', and has an inline comment.
    game = load_acpc_game(DATA / "leduc_ante.game")
    assert game.spec == LEDUC
    assert game_fingerprint(game) == game_fingerprint(load_game("poker", **dataclasses.asdict(LEDUC)))


def test_heads_up_nolimit_seats_blinds_and_first_players():
    game = load_acpc_game(DATA / "holdem_nolimit.game", bet_fractions=(1.0,), all_in=False)
    s = game.spec
    assert (s.betting, s.num_ranks, s.num_suits, s.hole_cards) == ("nolimit", 13, 4, 2)
    assert s.board_cards == (0, 3, 1, 1) and s.stack == 20000
    assert s.blinds == (100, 50)  # seat 1 = player 0 posts the big blind
    assert s.first_player == (1, 0, 0, 0)  # the small blind acts first pre-flop only
    assert (s.bet_fractions, s.all_in) == ((1.0,), False)
    assert (s.raise_sizes, s.max_raises) == ((), ())
    st_ = game.root()
    for _ in range(2):  # deal both players' hole cards
        st_ = game.next_state(st_, game.chance_outcomes(st_)[0][0])
    assert game.actor(st_) == 1 and st_.contrib == (100, 50)
    assert list(game.legal_actions(st_)) == [FOLD, CALL, RAISE]  # pot-size raise: to 300
    st_ = game.next_state(st_, CALL)
    assert game.actor(st_) == 0 and FOLD not in game.legal_actions(st_)  # the big blind's option
    st_ = game.next_state(st_, CALL)
    assert game.actor(st_) == CHANCE and st_.round == 1
    st_ = game.next_state(st_, game.chance_outcomes(st_)[0][0])  # the flop
    assert game.actor(st_) == 0  # the big blind acts first after the flop


def test_limit_holdem_caps_raises_not_counting_the_blind():
    game = load_acpc_game(DATA / "holdem_limit.game")
    s = game.spec
    assert s.blinds == (10, 5) and s.first_player == (1, 0, 0, 0)
    assert s.raise_sizes == (10, 10, 20, 20) and s.max_raises == (3, 4, 4, 4) and s.stack == 0
    st_ = game.root()
    for _ in range(2):
        st_ = game.next_state(st_, game.chance_outcomes(st_)[0][0])
    assert game.actor(st_) == 1 and list(game.legal_actions(st_)) == [FOLD, CALL, RAISE]
    for _ in range(3):
        st_ = game.next_state(st_, RAISE)
    assert st_.contrib == (30, 40) and game.actor(st_) == 0
    assert list(game.legal_actions(st_)) == [FOLD, CALL]  # the fourth bet was the last


@pytest.mark.parametrize("name", DATA_FILES)
def test_data_files_round_trip(name):
    spec = load_acpc_game(DATA / name).spec
    text = to_acpc(spec)
    assert parse_acpc(text) == spec
    assert to_acpc(parse_acpc(text)) == text


# -- the writer ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [KUHN, LEDUC, dataclasses.replace(LEDUC_NOLIMIT, raise_sizes=(), max_raises=()),
     dataclasses.replace(LEDUC, stack=13)],  # 13 = the most a player can put in: never binds
    ids=["kuhn", "leduc", "leduc_nolimit", "leduc_stack"],
)
def test_known_specs_round_trip(spec):
    assert parse_acpc(to_acpc(spec), bet_fractions=spec.bet_fractions, all_in=spec.all_in) == spec


def test_writer_output_is_plain_acpc():
    text = to_acpc(LEDUC)
    assert text.startswith("GAMEDEF\nlimit\nnumPlayers = 2\n") and text.endswith("END GAMEDEF\n")
    assert "blind = 0 0\n" in text and "ante = 1\n" in text and "firstPlayer = 1 1\n" in text
    nolimit = to_acpc(LEDUC_NOLIMIT)
    assert "stack = 20 20\n" in nolimit and "raiseSize" not in nolimit and "maxRaises" not in nolimit


@pytest.mark.parametrize(
    "spec, message",
    [
        (dataclasses.replace(LEDUC, num_ranks=14), "num_ranks=14 exceeds the ACPC limit of 13"),
        (dataclasses.replace(LEDUC, num_suits=5), "num_suits=5"),
        (dataclasses.replace(LEDUC, stack=12), "stack 12 can run out"),
        (dataclasses.replace(LEDUC, start=(2,)), "starts after betting"),
    ],
)
def test_writer_refuses_specs_without_a_faithful_acpc_form(spec, message):
    with pytest.raises(GameDefinitionError, match=message):
        to_acpc(spec)


@st.composite
def acpc_specs(draw: st.DrawFn) -> PokerSpec:
    rounds = draw(st.integers(1, 4))

    def per_round(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(draw(st.lists(st.integers(lo, hi), min_size=rounds, max_size=rounds)))

    suits, ranks, hole = draw(st.integers(1, 4)), draw(st.integers(1, 13)), draw(st.integers(1, 3))
    board = per_round(0, 3)
    assume(2 * hole + sum(board) <= suits * ranks)
    ante, blinds = draw(st.integers(0, 3)), (draw(st.integers(0, 50)), draw(st.integers(0, 50)))
    assume(ante + max(blinds) > 0)
    common = dict(num_ranks=ranks, num_suits=suits, hole_cards=hole, board_cards=board, ante=ante,
                  blinds=blinds, first_player=per_round(0, 1))
    if draw(st.booleans()):
        return PokerSpec(betting="limit", raise_sizes=per_round(1, 20), max_raises=per_round(0, 5), **common)
    fractions = tuple(draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 2.0]), max_size=3, unique=True)))
    return PokerSpec(betting="nolimit", stack=ante + max(blinds) + draw(st.integers(0, 1000)), raise_sizes=(),
                     max_raises=(), bet_fractions=fractions, all_in=draw(st.booleans()) or not fractions, **common)


@settings(max_examples=200, deadline=None)
@given(acpc_specs())
@pytest.mark.slow
def test_every_representable_spec_round_trips(spec):
    assert parse_acpc(to_acpc(spec), bet_fractions=spec.bet_fractions, all_in=spec.all_in) == spec


# -- errors --------------------------------------------------------------------------------


def test_base_text_is_valid():
    assert parse_acpc(BASE).blinds == (1, 1)
    assert parse_acpc(NOLIMIT).stack == 20


@pytest.mark.parametrize(
    "text, expected",
    [
        (edit(BASE, 2, None), ["line 2", "expected GAMEDEF", "'limit'"]),
        ("# nothing here\n\n", ["no GAMEDEF line"]),
        (edit(BASE, 14, None), ["no END GAMEDEF", "opened at line 2"]),
        (BASE + "numRanks = 4\n", ["line 15", "after END GAMEDEF", "'numRanks = 4'"]),
        (edit(BASE, 6, "blinds = 1 1"), ["line 6", "unknown key 'blinds'", "did you mean 'blind'"]),
        (edit(BASE, 3, "no-limit"), ["line 3", "'no-limit'", "did you mean 'nolimit'"]),
        (edit(BASE, 3, "pot-limit"), ["line 3", "pot-limit betting is not supported"]),
        (edit(BASE, 3, "limit = 3"), ["line 3", "'= 3'"]),
        (edit(BASE, 7, "raiseSize = 2 4 8"), ["line 7", "one value per round (numRounds = 2), got 3", "'2 4 8'"]),
        (edit(BASE, 13, "numBoardCards = 0"), ["line 13", "numBoardCards", "got 1", "'0'"]),
        (edit(BASE, 6, "blind = 1"), ["line 6", "one value per seat", "got 1"]),
        (edit(BASE, 7, "raiseSize = 2 four"), ["line 7", "'four' is not an integer"]),
        (edit(BASE, 11, "numRanks = 2.5"), ["line 11", "'2.5' is not an integer"]),
        (edit(BASE, 11, "numRanks ="), ["line 11", "numRanks has no value"]),
        (edit(BASE, 4, "numPlayers = 3"), ["line 4", "'3' is out of range", "must be 2", "two-player"]),
        (edit(BASE, 8, "firstPlayer = 0 1"), ["line 8", "'0' is out of range", "1-based"]),
        (edit(BASE, 11, "numRanks = 14"), ["line 11", "'14'", "from 1 to 13"]),
        (edit(BASE, 6, "blind = -1 1"), ["line 6", "'-1'"]),
        (edit(BASE, 5, "numRounds = 5"), ["line 5", "'5'", "from 1 to 4"]),
        (BASE.replace("numRanks = 3\n", "numRanks = 3\nnumranks = 4\n"),
         ["line 12", "numRanks given twice (line 11"]),
        (BASE.replace("limit\n", "limit\nlimit\n", 1), ["line 4", "betting type given twice"]),
        (edit(BASE, 10, None), ["missing numSuits", "numSuits = 4"]),
        (edit(BASE, 6, None), ["missing blind"]),
        (edit(BASE, 9, None), ["without maxRaises", "255", "maxRaises = 3 3"]),
        (edit(BASE, 7, None), ["missing raiseSize"]),
        # more cards than the deck: PokerSpec's own check, carrying the file name
        (edit(BASE, 11, "numRanks = 1"), ["the deal needs 3 cards", "deck has only 2", "GAMEDEF block at line 2"]),
        (BASE.replace("blind = 1 1", "blind = 0 0"), ["needs an ante or blinds"]),
        (BASE.replace("blind = 1 1", "blind = 1 1\nstack = 5 5"), ["line 7", "stack 5 can run out", "at least 13"]),
        (NOLIMIT.replace("stack = 20 20", "stack = 20 30"), ["line 4", "unequal stacks 20 and 30", "stack = 20 20"]),
        (NOLIMIT.replace("stack = 20 20\n", ""), ["no-limit game without a stack"]),
        (NOLIMIT.replace("numSuits", "maxRaises = 2 2\nnumSuits"), ["line 10", "maxRaises in a no-limit game"]),
        (NOLIMIT.replace("stack = 20 20", "stack = 1 1").replace("blind = 1 1", "blind = 2 1"),
         ["stack 1 is smaller than ante plus blind"]),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else "text",
)
def test_bad_files_name_the_file_line_and_token(tmp_path, text, expected):
    path = tmp_path / "bad.game"
    path.write_text(text)
    with pytest.raises(GameDefinitionError) as info:
        load_acpc_game(path)
    message = str(info.value)
    assert message.startswith(str(path))
    for part in expected:
        assert part in message


def test_parse_errors_use_the_source_name():
    with pytest.raises(GameDefinitionError, match=r"^<string>, line 6: unknown key 'blinds'"):
        parse_acpc(edit(BASE, 6, "blinds = 1 1"))
    with pytest.raises(GameDefinitionError, match=r"^my\.game, line 7: "):
        parse_acpc(edit(BASE, 7, "raiseSize = x"), source="my.game")


def test_missing_file(tmp_path):
    with pytest.raises(GameDefinitionError, match=r"missing\.game: no such ACPC game file"):
        load_acpc_game(tmp_path / "missing.game")
    with pytest.raises(GameDefinitionError, match="no such ACPC game file"):
        load_game(str(tmp_path / "missing.game"))
    with pytest.raises(GameDefinitionError, match="is a directory"):
        load_acpc_game(tmp_path)


def test_binary_file_is_rejected(tmp_path):
    path = tmp_path / "binary.game"
    path.write_bytes(b"GAMEDEF\n\xff\xfe\n")
    with pytest.raises(GameDefinitionError, match="not a text file"):
        load_acpc_game(path)


# -- OpenSpiel's universal_poker reads the same files the same way -------------------------


def universal_poker_params(spec: PokerSpec) -> dict[str, object]:
    join = lambda values: " ".join(str(v) for v in values)  # noqa: E731
    params: dict[str, object] = dict(
        betting=spec.betting, numPlayers=2, numRounds=spec.num_rounds, blind=join(spec.blinds),
        firstPlayer=join(p + 1 for p in spec.first_player), numSuits=spec.num_suits,
        numRanks=spec.num_ranks, numHoleCards=spec.hole_cards, numBoardCards=join(spec.board_cards),
    )
    if spec.betting == "limit":
        params.update(raiseSize=join(spec.raise_sizes), maxRaises=join(spec.max_raises))
    else:  # fold, call, pot-size raise, all-in: our bet_fractions=(1.0,), all_in=True
        params.update(stack=join([spec.stack] * 2), bettingAbstraction="fcpa")
    return params


def walk_against_universal_poker(game: PokerGame) -> tuple[int, list[int]]:
    """Lockstep walk: same actor, chance outcomes, legal actions and payoffs everywhere.

    Works for one-card deals, where both games' chance action is the card ``rank *
    num_suits + suit``. Returns the history count and universal_poker's infosets per player.
    """
    pyspiel = pytest.importorskip("pyspiel")
    up = pyspiel.load_game("universal_poker", universal_poker_params(game.spec))
    infosets: list[set[str]] = [set(), set()]
    count, stack = 0, [(up.new_initial_state(), game.root())]
    while stack:
        u, s = stack.pop()
        count += 1
        who = game.actor(s)
        if u.is_terminal():
            assert who == TERMINAL and u.returns()[0] == game.utility(s), str(u)
            continue
        if u.is_chance_node():
            assert who == CHANCE
            actions = sorted(a for a, _ in u.chance_outcomes())
            assert actions == [a for a, _ in game.chance_outcomes(s)]
        else:
            assert who == u.current_player(), str(u)
            actions = list(u.legal_actions())
            assert actions == list(game.legal_actions(s)), str(u)
            infosets[who].add(u.information_state_string())
        stack.extend((u.child(a), game.next_state(s, a)) for a in actions)
    return count, [len(i) for i in infosets]


@pytest.mark.parametrize(
    "text, histories, infosets",
    [
        (BASE, 9457, 468),  # Leduc with blinds 1 1
        # unequal blinds and per-round first players: seat 1 posts 2, seat 2 posts 1 and starts
        (BASE.replace("blind = 1 1", "blind = 2 1").replace("firstPlayer = 1 1", "firstPlayer = 2 1"), 9487, 468),
        (BASE.replace("blind = 1 1", "blind = 1 2").replace("firstPlayer = 1 1", "firstPlayer = 1 2"), 9487, 468),
        (NOLIMIT.replace("blind = 1 1", "blind = 2 1").replace("firstPlayer = 1 1", "firstPlayer = 2 1"),
         12907, 576),
    ],
    ids=["leduc", "blinds_2_1", "blinds_1_2", "nolimit_blinds_2_1"],
)
@pytest.mark.slow
def test_same_game_as_openspiel_universal_poker(text, histories, infosets):
    game = PokerGame(parse_acpc(text, bet_fractions=(1.0,), all_in=True))
    count, up_infosets = walk_against_universal_poker(game)
    tree = compile_game(game)
    assert count == histories
    assert up_infosets == [infosets, infosets]
    assert [tree.players[p].num_infosets for p in (0, 1)] == up_infosets
