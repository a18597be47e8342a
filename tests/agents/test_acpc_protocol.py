"""The ACPC protocol's text and its replay on PokerGame, checked against the protocol's own examples."""

from pathlib import Path

import pytest

from subgame.agents.acpc import Action, Codec, Deck, ProtocolError, replay
from subgame.agents.acpc.protocol import NamingError, parse_betting, parse_log
from subgame.games.base import CHANCE
from subgame.games.poker.acpc import load_acpc_game
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import infoset_keys

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"

# Match states of the protocol's specification (two-player hold'em, version 2.0.0).
LIMIT_HOLDEM = [
    "MATCHSTATE:0:0::TdAs|",
    "MATCHSTATE:0:0:rrc/:TdAs|/2c8c3h",
    "MATCHSTATE:0:0:rrc/rc/crc/crc:TdAs|8hTc/2c8c3h/9c/Kh",
    "MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th",
]
NOLIMIT_HOLDEM = [
    "MATCHSTATE:0:30:cc/r250c/r500c/r1250c:9s8h|9c6h/8c8d5c/6s/2d",
    "MATCHSTATE:1:31:r300r900c/r1800r3600r9000:|JdTc/6dJc9c",
    "MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc",
]


@pytest.fixture(scope="module")
def leduc():
    return load_acpc_game(DATA / "leduc.game")


@pytest.fixture(scope="module")
def nolimit():
    return load_acpc_game(DATA / "holdem_nolimit.game")


def test_limit_holdem_examples_round_trip_and_replay():
    game = load_acpc_game(DATA / "holdem_limit.game")
    codec = Codec(game.spec)
    for line in LIMIT_HOLDEM:
        ms = codec.parse(line)
        assert codec.format(ms) == line
        hand = replay(game, ms)
        assert codec.format(hand.match_state(ms.position, ms.hand)) == line
    final = replay(game, codec.parse(LIMIT_HOLDEM[2]))
    # TdAs is ace high on 2c8c3h 9c Kh, 8hTc a pair of eights; each put in 30 + 10 + 20 + 20 chips
    assert final.finished and final.showdown
    assert final.values() == (-80.0, 80.0)
    folded = replay(game, codec.parse(LIMIT_HOLDEM[3]))
    assert folded.finished and not folded.showdown and folded.values()[1] < 0


def test_nolimit_examples_values_and_off_tree_raises(nolimit):
    codec = Codec(nolimit.spec)
    first = replay(nolimit, codec.parse(NOLIMIT_HOLDEM[0]))
    assert first.values() == (1250.0, -1250.0)  # trips beat two pair; each put in 1250
    assert [o.size for o in first.off_tree] == [250, 1250]  # the abstraction (50 %, 100 %, all-in) has r200, r300, ...
    assert first.off_tree[0].legal == ("c", "r200", "r300", "r20000")
    assert codec.format(first.match_state(0, 30)) == NOLIMIT_HOLDEM[0]
    mid = replay(nolimit, codec.parse(NOLIMIT_HOLDEM[1]))
    assert mid.actor == 1 and not mid.finished
    view = mid.view(1)
    assert [m.public for m in view.moves][-3:] == ["r1800", "r3600", "r9000"]  # the real sizes, as observed
    assert mid.raise_bounds() == (14400, 20000)  # call 9000, raise by at least the last raise (5400)
    # 50 % of the real pot after calling: 9000 + 0.5 * (9000 + 9000); 100 % would pass the stack
    assert set(mid.names()) == {"f", "c", "r18000", "r20000"}
    # the agent's pot-fraction raise is sized on the real pot
    assert mid.protocol_action(max(view.legal)) == Action("r", 20000)
    last = replay(nolimit, codec.parse(NOLIMIT_HOLDEM[2]))
    assert last.values() == (-20000.0, 20000.0)  # JdTc's straight beats KsJs's two pair, all in


def test_view_matches_the_trees_information_sets(leduc):
    """Every decision the protocol can show is an information set of the compiled game."""
    tree = compile_game(leduc)
    keys = [set(infoset_keys(tree, p)) for p in (0, 1)]
    codec = Codec(leduc.spec)
    seen = 0
    for line in ["MATCHSTATE:0:0::Ks|", "MATCHSTATE:1:0:r:|Qh", "MATCHSTATE:0:1:rr:Ah|",
                 "MATCHSTATE:1:2:rc/c:|As/Kh", "MATCHSTATE:0:3:cc/rr:Qs|/Qh"]:
        hand = replay(leduc, codec.parse(line))
        v = hand.view(hand.actor)
        assert hand.actor == codec.parse(line).position
        assert (v.public_key, v.private_label) in keys[v.player]
        seen += 1
    assert seen == 5


@pytest.mark.parametrize("line, words", [
    ("MATCHSTATE:0:0:rrc/:Ks|", "section"),
    ("MATCHSTATE:2:0::Ks|", "position"),
    ("MATCHSTATE:0:x::Ks|", "hand number"),
    ("MATCHSTATE:0:0:rx:Ks|", "not a sequence of actions"),
    ("MATCHSTATE:0:0::3d|", "not in this game's deck"),
    ("MATCHSTATE:0:0::Ks|Ks", "twice"),
    ("MATCHSTATE:0:0:r", "expected MATCHSTATE:position:hand:betting:cards"),
    ("garbage", "expected MATCHSTATE"),
    ("MATCHSTATE:0:0:r/r/r:Ks|/Qh/Ah", "rounds in a game of 2"),
])
def test_malformed_match_states_are_refused_with_the_reason(leduc, line, words):
    with pytest.raises(ProtocolError, match=words):
        Codec(leduc.spec).parse(line)


@pytest.mark.parametrize("line, words", [
    ("MATCHSTATE:0:0:rrr:Ks|", "no raise is allowed"),
    ("MATCHSTATE:0:0:f:Ks|", "fold with nothing to call"),
    ("MATCHSTATE:0:0:rc:Ks|", "string shows 1 round"),
    ("MATCHSTATE:0:0:r/c:Ks|/Qh", "after the round closed"),
    ("MATCHSTATE:0:0:rfc:Ks|", "hand is over"),
])
def test_betting_against_the_rules_is_refused(leduc, line, words):
    with pytest.raises(ProtocolError, match=words):
        replay(leduc, Codec(leduc.spec).parse(line))


def test_nolimit_raise_sizes_are_checked(nolimit):
    codec = Codec(nolimit.spec)
    with pytest.raises(ProtocolError, match="outside the legal sizes 200 to 20000"):
        replay(nolimit, codec.parse("MATCHSTATE:1:0:r150:|JdTc"))
    with pytest.raises(ProtocolError, match="names its size"):
        codec.parse("MATCHSTATE:1:0:r:|JdTc")
    hand = replay(nolimit, codec.parse("MATCHSTATE:1:0:r300:|JdTc"))
    assert hand.raise_bounds() == (500, 20000)  # call 300, raise by at least the last raise (200)
    assert hand.fixed(Action("r", 400)) == (Action("r", 500), "raise to 400 is outside the legal sizes 500 to 20000: changed to r500")
    assert hand.fixed(Action("r", 10**6))[0] == Action("r", 20000)


def test_all_in_shows_every_round(nolimit):
    codec = Codec(nolimit.spec)
    line = "MATCHSTATE:0:7:r20000c///:9s8h|9c6h/8c8d5c/6s/2d"
    hand = replay(nolimit, codec.parse(line))
    assert hand.finished and hand.showdown and codec.format(hand.match_state(0, 7)) == line


def test_fixes_follow_the_acpc_dealer(leduc):
    codec = Codec(leduc.spec)
    capped = replay(leduc, codec.parse("MATCHSTATE:0:0:rr:Ks|"))
    assert capped.fixed(Action("r"))[0] == Action("c")
    opening = replay(leduc, codec.parse("MATCHSTATE:0:0::Ks|"))
    assert opening.fixed(Action("f")) == (Action("c"), "fold with nothing to call (check instead): changed to c")
    assert opening.fixed(Action("r")) == (Action("r"), None)


def test_deck_namings():
    """The ACPC dealer deals a small deck's highest ranks and suits; OpenSpiel names the same cards from the deuce up."""
    acpc, spiel = Deck(3, 2), Deck(3, 2, "openspiel")
    assert acpc.names(tuple(range(6))) == "QhQsKhKsAhAs"
    assert Deck(3, 1).names((0, 1, 2)) == "QsKsAs"  # Kuhn
    assert spiel.names(tuple(range(6))) == "2c2d3c3d4c4d"
    assert acpc.parse("KsAh") == spiel.parse("3d4c") == (3, 4)
    with pytest.raises(NamingError, match="use the 'openspiel' naming"):
        acpc.parse("3d")
    with pytest.raises(NamingError, match="use the 'acpc' naming"):
        spiel.parse("Ks")
    with pytest.raises(ProtocolError, match="not in this game's deck") as refused:
        acpc.parse("7c")  # in neither naming's deck
    assert not isinstance(refused.value, NamingError)
    assert Deck(13, 4).names((0, 51)) == Deck(13, 4, "openspiel").names((0, 51)) == "2cAs"


def test_betting_and_log_parsing():
    assert parse_betting("r300c/", "nolimit") == ((Action("r", 300), Action("c")), ())
    with pytest.raises(ProtocolError, match="single letter"):
        parse_betting("r2", "limit")
    hands, score, names = parse_log("# header\nSTATE:0:rf:3d|2c:1|-1:a|b\nSCORE:1|-1:a|b\n")
    assert hands[0].values == (1.0, -1.0) and hands[0].names == ("a", "b") and score == (1.0, -1.0) and names == ("a", "b")
    with pytest.raises(ProtocolError, match="log line 1"):
        parse_log("STATE:0:rf\n")


def test_hidden_cards_do_not_change_the_view(leduc):
    """The opponent's stand-in cards are never observed: two deals that differ only there give one view."""
    codec = Codec(leduc.spec)
    a = replay(leduc, codec.parse("MATCHSTATE:0:0:rc/:Ks|/Ah")).view(0)
    from subgame.agents.acpc.hand import Hand

    b = Hand.deal(leduc, ((3,), (0,)), ((), (4,)))
    for act in (Action("r"), Action("c")):
        b = b.play(act)
    assert b.view(0) == a
    assert leduc.actor(Hand.deal(leduc, ((3,), (0,)), ((),)).state) != CHANCE


def test_a_replay_continued_from_the_last_state_equals_a_fresh_one(nolimit):
    """The client replays only new moves; at a showdown it swaps in the opponent's real cards."""
    codec = Codec(nolimit.spec)
    states = ["MATCHSTATE:1:31::|JdTc", "MATCHSTATE:1:31:r300r900c/:|JdTc/6dJc9c",
              "MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc"]
    hand = None
    for line in states:
        ms = codec.parse(line)
        hand = replay(nolimit, ms, hand)
        fresh = replay(nolimit, ms)
        assert (hand.moves, hand.state, hand.betting, hand.hole) == (fresh.moves, fresh.state, fresh.betting, fresh.hole)
    assert hand.values() == (-20000.0, 20000.0)
    other = replay(nolimit, codec.parse("MATCHSTATE:0:32::AsAd|"), hand)  # another hand: not continued
    assert other.hole[0] == codec.deck.parse("AsAd") and other.betting == ((),)
