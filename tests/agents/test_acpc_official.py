"""Our client and our dealer against transcripts of the competition's own ``dealer``.

``tests/data/acpc/*_official.transcript`` is the ACPC dealer's standard error for a whole
match (every message it sent, ``TO <seat>``, and received, ``FROM <seat>``) and
``*_official.log`` its log; the file's first lines say how it was recorded. A stand-in
dealer here replays one seat's messages to our client, which must answer exactly what the
recorded client answered and win, hand by hand, what the official log says.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from subgame.agents import CallAgent, RandomAgent
from subgame.agents.acpc import Codec, parse_log, play_match, replay
from subgame.agents.acpc.protocol import VERSION
from subgame.games.poker.acpc import load_acpc_game
from tests.agents.test_acpc_match import _Thread

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"
#: (game, the recorded clients' agents by seat: (agent, seed)) of each transcript
MATCHES = {
    "leduc": ((RandomAgent, 1), (RandomAgent, 2)),
    "kuhn": ((RandomAgent, 1), (CallAgent, 0)),
}


def _transcript(name: str) -> list[tuple[str, int, str]]:
    """``(direction, seat from 0, line)`` of every message of the transcript, in order."""
    out = []
    for line in (DATA / f"{name}_official.transcript").read_text().splitlines():
        parts = line.split(" ", 4)
        if parts[0] in ("TO", "FROM") and parts[2] == "at":
            out.append((parts[0], int(parts[1]) - 1, parts[4]))
    return out


def _replay_seat(name: str, seat: int, **client) -> tuple[object, list[str], list[str]]:
    """Our client in ``seat`` against a dealer that sends it the transcript's messages.

    Returns the client's result, the answers it sent and the answers the transcript has.
    """
    messages = [(d, line) for d, s, line in _transcript(name) if s == seat]
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    sent: list[str] = []

    def dealer() -> None:
        conn, _ = server.accept()
        with conn:
            reader = conn.makefile("r", newline="\r\n")
            assert reader.readline().strip() == VERSION
            for direction, line in messages:
                if direction == "FROM":
                    sent.append(reader.readline().strip())
                    if not sent[-1]:
                        return  # the client left
                    continue
                try:
                    conn.sendall((line + "\r\n").encode())
                except OSError:
                    return  # the client left
        server.close()

    thread = _Thread(dealer)
    thread.start()
    agent, seed = MATCHES[name][seat]
    game = load_acpc_game(DATA / f"{name}.game")
    result = play_match(agent(), game, "127.0.0.1", server.getsockname()[1], seed=seed, timeout_s=5.0, **client)
    thread.result()
    return result, sent, [line for d, line in messages if d == "FROM"]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "leduc" else n for n in sorted(MATCHES)])
def test_our_client_plays_the_official_dealers_match(name):
    hands, score, names = parse_log((DATA / f"{name}_official.log").read_text())
    assert score is not None and names is not None
    for seat in (0, 1):
        result, sent, recorded = _replay_seat(name, seat)
        assert result.errors == () and result.complete  # type: ignore[attr-defined]
        assert sent == recorded and recorded
        by_hand = {h.hand: h for h in hands}
        mine = [(h.hand, h.chips) for h in result.hands]  # type: ignore[attr-defined]
        # the log gives values by position; seat k holds position (k + hand) % 2 (the dealer moves the players)
        assert mine == [(h.hand, by_hand[h.hand].values[(seat + h.hand) % 2]) for h in hands]
        assert result.total_chips == pytest.approx(score[seat])  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_our_dealer_writes_the_official_dealers_messages(name):
    """Every recorded message, replayed on our game and written by our codec, is the same text."""
    game = load_acpc_game(DATA / f"{name}.game")
    codec = Codec(game.spec)
    lines = [line for d, _, line in _transcript(name) if d == "TO"]
    assert lines
    for line in lines:
        ms = codec.parse(line)
        assert codec.format(replay(game, ms).match_state(ms.position, ms.hand)) == line
    hands, _, _ = parse_log((DATA / f"{name}_official.log").read_text())
    for h in hands:  # the log's lines and values, rewritten from the replayed hand
        ms = codec.parse(f"MATCHSTATE:0:{h.hand}:{h.betting}:{h.cards}")
        hand = replay(game, ms)
        assert hand.finished and hand.values() == h.values


def test_the_other_card_naming_leaves_at_once_with_the_fix():
    result, sent, _ = _replay_seat("leduc", 0, naming="openspiel")
    assert not result.complete and result.hands == ()  # type: ignore[attr-defined]
    assert len(result.errors) == 1 and "--cards acpc" in result.errors[0]  # type: ignore[attr-defined]
    assert result.ended == "the dealer's cards are named another way"  # type: ignore[attr-defined]
    assert sent == [""]  # it answered nothing and closed the connection
