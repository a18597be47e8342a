"""Our ACPC client against our dealer on the loopback interface, and what happens when things go wrong."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from subgame.agents import CallAgent, Decision, RandomAgent, StrategyAgent, View
from subgame.agents.acpc import Codec, Dealer, DealerConfig, MatchResult, deal, parse_log, play_match, replay
from subgame.agents.acpc.client import ClientResult
from subgame.agents.acpc.protocol import VERSION
from subgame.games.poker.acpc import load_acpc_game
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game

DATA = Path(__file__).resolve().parents[1] / "data" / "acpc"
NOLIMIT = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 2
stack = 20 20
blind = 1 1
firstPlayer = 1 1
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""
FAST = {"response_timeout_s": 5.0, "start_timeout_s": 10.0}


@pytest.fixture(scope="module")
def leduc():
    return load_acpc_game(DATA / "leduc.game")


@pytest.fixture(scope="module")
def nolimit_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("acpc") / "leduc_nolimit.game"
    path.write_text(NOLIMIT)
    return path


@pytest.fixture(scope="module")
def halves(nolimit_file):
    """The small no-limit game with bets of half the pot, the pot and all-in, and its tree."""
    game = load_acpc_game(nolimit_file, bet_fractions=(0.5, 1.0))
    return game, compile_game(game)


class _Thread(threading.Thread):
    """A thread that keeps its target's return value or exception."""

    def __init__(self, target: Callable[[], object]):
        super().__init__(daemon=True)
        self._target_fn = target
        self.value: object = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self._target_fn()
        except BaseException as exc:  # noqa: BLE001 (re-raised in the test's thread)
            self.error = exc

    def result(self, timeout: float = 60.0) -> object:
        self.join(timeout)
        assert not self.is_alive(), "thread did not finish"
        if self.error is not None:
            raise self.error
        return self.value


def _match(dealer: Dealer, *clients: Callable[[int], object]) -> tuple[MatchResult, list[object]]:
    """Run ``dealer`` and one client per port (each given its port) in threads."""
    run = _Thread(dealer.run)
    run.start()
    threads = [_Thread(lambda c=c, p=p: c(p)) for c, p in zip(clients, dealer.ports)]
    for t in threads:
        t.start()
    out = [t.result() for t in threads]
    return run.result(), out  # type: ignore[return-value]


def _client(agent, game, seed=0, **kw) -> Callable[[int], ClientResult]:
    return lambda port: play_match(agent, game, "127.0.0.1", port, seed=seed, timeout_s=10.0, **kw)


def _raw_client(answer: Callable[[str], str | None], stop: Callable[[str], bool] = lambda _l: False) -> Callable[[int], list[str]]:
    """A hand-written client: ``answer(line)`` is sent back when not None; ``stop(line)`` closes the connection."""

    def run(port: int) -> list[str]:
        seen: list[str] = []
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall((VERSION + "\r\n").encode())
            reader = sock.makefile("r", newline="\r\n")
            for raw in reader:
                line = raw.rstrip("\r\n")
                seen.append(line)
                if stop(line):
                    break
                reply = answer(line)
                if reply is not None:
                    sock.sendall((reply + "\r\n").encode())
        return seen

    return run


def _check_agrees(result: MatchResult, clients: list[ClientResult], log: Path) -> None:
    """Every hand a client finished is the dealer's hand, with the same chips, and the log says the same."""
    by_hand = {h.hand: h for h in result.hands}
    for player, client in enumerate(clients):
        for ch in client.hands:
            record = by_hand[ch.hand]
            assert record.players[ch.position] == player
            assert record.values[ch.position] == ch.chips
        assert sum(ch.chips for ch in client.hands if ch.hand in by_hand) == pytest.approx(
            sum(h.values[h.players.index(player)] for h in result.hands if h.hand in {c.hand for c in client.hands}))
    hands, score, names = parse_log(log.read_text())
    assert [h.hand for h in hands] == [h.hand for h in result.hands]
    assert [h.values for h in hands] == [h.values for h in result.hands]
    assert all(sum(h.values) == 0 for h in hands)
    assert score == result.totals and names == result.names
    assert sum(result.totals) == 0


@pytest.mark.slow
def test_thousand_hands_random_against_call_limit(leduc, tmp_path):
    log = tmp_path / "match.log"
    dealer = Dealer(leduc, DealerConfig(1000, seed=7, names=("random", "call"), **FAST), log_file=log)
    result, clients = _match(dealer, _client(RandomAgent(), leduc, seed=1), _client(CallAgent(), leduc))
    assert result.complete and len(result.hands) == 1000 and result.events == ()
    assert [len(c.hands) for c in clients] == [1000, 1000]
    assert all(c.errors == () and c.ended == "the dealer closed the connection" for c in clients)
    _check_agrees(result, clients, log)
    assert clients[0].total_chips == result.totals[0] and clients[1].total_chips == result.totals[1]
    # the log shows the seeded deal; the call agent never bets, so nobody ever folds or re-raises
    hands, _, _ = parse_log(log.read_text())
    codec = Codec(leduc.spec)
    assert all(h.cards.split("/")[0] == codec.cards(deal(leduc, 7, h.hand)[0], ((),)) for h in hands)
    assert not any("f" in h.betting or "rr" in h.betting for h in hands)
    assert sum("r" in h.betting for h in hands) > 500  # the random player bets in most hands


def test_nolimit_match_with_off_tree_raises(nolimit_file, tmp_path):
    """The two clients use different bet abstractions, so each sees raises the other's tree has, off its own."""
    halves = load_acpc_game(nolimit_file, bet_fractions=(0.5, 1.0))
    thirds = load_acpc_game(nolimit_file, bet_fractions=(0.33, 0.75), all_in=False)
    log = tmp_path / "nolimit.log"
    dealer = Dealer(halves, DealerConfig(200, seed=3, duplicate=True, **FAST), log_file=log)
    result, clients = _match(dealer, _client(RandomAgent(), halves, seed=1), _client(RandomAgent(), thirds, seed=2))
    assert result.complete and len(result.hands) == 200 and result.events == ()
    _check_agrees(result, clients, log)
    bets = {tok for h in parse_log(log.read_text())[0] for tok in h.betting.replace("/", " ").replace("c", " ").replace("f", " ").split()}
    assert {"r20"} <= bets and len(bets) > 4  # all-in from one abstraction, pot fractions from both
    # duplicate deals: hands 2i and 2i+1 show the same cards by position
    hands = parse_log(log.read_text())[0]
    cards = [h.cards.split("/")[0] for h in hands]
    assert all(cards[2 * i] == cards[2 * i + 1] for i in range(100)) and len(set(cards)) > 1


def test_strategy_agent_meets_an_off_tree_raise_and_the_match_goes_on(halves, nolimit_file, tmp_path):
    halves, tree = halves
    thirds = load_acpc_game(nolimit_file, bet_fractions=(0.33,), all_in=False)
    agent = StrategyAgent(tree, Strategy.uniform(tree), name="uniform")
    log = tmp_path / "m.log"
    dealer = Dealer(halves, DealerConfig(60, seed=5, **FAST), log_file=log)
    result, clients = _match(dealer, _client(agent, halves, seed=1), _client(RandomAgent(), thirds, seed=2))
    assert result.complete and len(result.hands) == 60
    assert clients[0].errors and all("off-tree" in e and "answering c" in e for e in clients[0].errors)
    _check_agrees(result, clients, log)


class _Illegal:
    """An agent that always answers an action id no game has."""

    name = "illegal"

    def new_hand(self, player: int, seed: int) -> None:
        pass

    def act(self, view: View) -> Decision:
        return Decision.pure(99)


def test_an_agent_with_illegal_actions_calls_and_the_match_goes_on(leduc, tmp_path):
    log = tmp_path / "m.log"
    dealer = Dealer(leduc, DealerConfig(20, seed=1, **FAST), log_file=log)
    result, clients = _match(dealer, _client(_Illegal(), leduc), _client(RandomAgent(), leduc, seed=3))
    assert result.complete and len(result.hands) == 20 and result.events == ()
    assert clients[0].errors and all("illegal action(s) [99]" in e and "answering c" in e for e in clients[0].errors)
    _check_agrees(result, clients, log)


def test_dealer_fixes_invalid_and_malformed_answers(leduc, tmp_path):
    """Fold with nothing to call, an unreadable action, garbage and silence (a raise past the cap: test_fixes_follow_the_acpc_dealer)."""
    codec = Codec(leduc.spec)
    answers = iter(["f", "x", None, "c"])
    slept = []

    def answer(line: str) -> str | None:
        if not line.startswith("MATCHSTATE:"):
            return None
        ms = codec.parse(line)
        hand = replay(leduc, ms)
        if hand.finished or hand.actor != ms.position:
            return None
        kind = next(answers, "c")
        if kind is None:  # stay silent past the timeout, then answer the stale state
            time.sleep(0.5)
            slept.append(line)
            return "garbage line"
        return f"{line}:{kind}"

    log = tmp_path / "m.log"
    config = DealerConfig(30, seed=2, response_timeout_s=0.2, start_timeout_s=10.0, max_timeouts=100)  # a loaded machine may be slow too
    dealer = Dealer(leduc, config, log_file=log)
    result, (raw, other) = _match(dealer, _raw_client(answer), _client(CallAgent(), leduc))
    assert result.complete and len(result.hands) == 30
    events = "\n".join(result.events)
    assert "fold with nothing to call (check instead): changed to c" in events
    assert "bad action 'x'" in events
    assert "did not answer within 0.2 s" in events
    assert "ignoring an answer to another state: 'garbage line'" in events
    assert slept
    text = log.read_text()
    assert text.count("# WARNING:") == len(result.events)
    _check_agrees(result, [ClientResult("raw", (), (), ""), other], log)


def test_a_client_that_disconnects_ends_the_match_cleanly(leduc, tmp_path):
    log = tmp_path / "m.log"
    dealer = Dealer(leduc, DealerConfig(50, seed=4, **FAST), log_file=log)
    leave = _raw_client(lambda line: f"{line}:c", stop=lambda line: line.startswith("MATCHSTATE:") and line.split(":")[2] == "5")
    result, (_raw, other) = _match(dealer, leave, _client(RandomAgent(), leduc, seed=9))
    assert not result.complete and "disconnected" in result.ended and "hand 5" in result.ended
    assert [h.hand for h in result.hands] == [0, 1, 2, 3, 4]
    assert [h.hand for h in other.hands] == [0, 1, 2, 3, 4]  # type: ignore[attr-defined]
    assert other.ended == "closed during a hand"  # type: ignore[attr-defined]
    text = log.read_text()
    assert "# ERROR:" in text and "the match ends after 5 of 50 hands" in text and text.rstrip().splitlines()[-1].startswith("SCORE:")
    _check_agrees(result, [ClientResult("raw", (), (), ""), other], log)  # type: ignore[list-item]


def test_a_dealer_that_sends_garbage(leduc):
    """Garbage and rule-breaking lines are logged and skipped; the hand and its result are kept."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    received: list[str] = []

    def fake_dealer() -> None:
        conn, _ = server.accept()
        with conn:
            f = conn.makefile("r", newline="\r\n")
            received.append(f.readline().strip())
            for line in ["# a comment", "hello there", "MATCHSTATE:0:0:rrrr:Ks|", "MATCHSTATE:0:0::Ks|"]:
                conn.sendall((line + "\r\n").encode())
            received.append(f.readline().strip())
            for line in ["MATCHSTATE:0:0:r:Ks|", "MATCHSTATE:0:0:rf:Ks|", "\x00\x01junk", "MATCHSTATE:1:1::|Qh"]:
                conn.sendall((line + "\r\n").encode())
        server.close()

    thread = _Thread(fake_dealer)
    thread.start()
    result = play_match(CallAgent(), leduc, "127.0.0.1", server.getsockname()[1], timeout_s=5.0)
    thread.result()
    assert received == [VERSION, "MATCHSTATE:0:0::Ks|:c"]
    assert [(h.hand, h.position, h.chips) for h in result.hands] == [(0, 0, 1.0)]
    assert len(result.errors) == 4 and sum("malformed message from the dealer" in e for e in result.errors) == 3
    assert "during hand 1" in result.errors[-1] and result.ended == "closed during a hand"


def _scripted_dealer(lines: list[str]) -> tuple[int, _Thread]:
    """A dealer that sends ``lines``, stops sending and returns every line it received until the client leaves."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def run() -> list[str]:
        conn, _ = server.accept()
        server.close()
        with conn:
            for line in lines:
                conn.sendall((line + "\r\n").encode())
            conn.shutdown(socket.SHUT_WR)
            return [raw.rstrip("\r\n") for raw in conn.makefile("r", newline="\r\n")]

    thread = _Thread(run)
    thread.start()
    return server.getsockname()[1], thread


def test_a_state_that_contradicts_the_last_one_is_refused(leduc):
    """Hand numbers and betting only go forward; a state that goes back or changes what was seen is refused, not replayed."""
    final = "MATCHSTATE:0:0:crc/cc:Ks|Qh/Ah"
    lines = ["MATCHSTATE:0:0::Ks|", "MATCHSTATE:0:0:c:Ks|",
             "MATCHSTATE:0:0::Ks|",  # the hand's betting goes back
             "MATCHSTATE:0:0:cr:Ks|", "MATCHSTATE:0:0:crc/:Ks|/Ah", "MATCHSTATE:0:0:crc/c:Ks|/Ah", final,
             "MATCHSTATE:1:1::|Qs",
             final,  # a hand that has ended, after the next began
             "MATCHSTATE:1:1:r:|Qs",
             "MATCHSTATE:1:1:r:|Kh",  # other hole cards
             "MATCHSTATE:0:1:rc/:Qs|/Ah"]  # another position
    port, dealer = _scripted_dealer(lines)
    result = play_match(CallAgent(), leduc, "127.0.0.1", port, timeout_s=5.0)
    answers = dealer.result()
    assert answers == [VERSION, "MATCHSTATE:0:0::Ks|:c", "MATCHSTATE:0:0:cr:Ks|:c", "MATCHSTATE:0:0:crc/:Ks|/Ah:c",
                       "MATCHSTATE:1:1:r:|Qs:c"]
    assert [(h.hand, h.position, h.chips) for h in result.hands] == [(0, 0, 3.0)]  # K high beats Q high on an ace
    refused = [e for e in result.errors if "contradicts the last one" in e]
    assert len(refused) == 4 and len(result.errors) == 5
    assert "does not continue" in refused[0] and "hand 0 after hand 1" in refused[1]
    assert "does not continue" in refused[2] and "position 0 in hand 1" in refused[3]
    assert result.ended == "closed during a hand" and not result.complete


def test_a_match_is_complete_only_when_the_dealer_ends_it_between_hands(leduc):
    port, dealer = _scripted_dealer(["MATCHSTATE:1:0::|Ks", "MATCHSTATE:1:0:c:|Ks", "MATCHSTATE:1:0:cc/:|Ks/Ah",
                                     "MATCHSTATE:1:0:cc/r:|Ks/Ah", "MATCHSTATE:1:0:cc/rc:Qh|Ks/Ah"])
    result = play_match(CallAgent(), leduc, "127.0.0.1", port, timeout_s=5.0)
    assert dealer.result()[1:] == ["MATCHSTATE:1:0:c:|Ks:c", "MATCHSTATE:1:0:cc/r:|Ks/Ah:c"]
    assert result.complete and result.ended == "the dealer closed the connection"
    assert [(h.hand, h.position, h.chips) for h in result.hands] == [(0, 1, 5.0)]
    for lines in ([], ["garbage", "MATCHSTATE:9"], ["MATCHSTATE:0:0::Ks|"]):  # no hand, only garbage, closed in a hand
        port, dealer = _scripted_dealer(lines)
        result = play_match(CallAgent(), leduc, "127.0.0.1", port, timeout_s=5.0)
        dealer.result()
        assert not result.complete and result.hands == ()


def test_a_silent_dealer_times_out(leduc):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    started = time.monotonic()
    result = play_match(CallAgent(), leduc, "127.0.0.1", server.getsockname()[1], timeout_s=0.3)
    server.close()
    assert result.ended == "timeout" and "no message from the dealer for 0.3 s" in result.errors[0]
    assert time.monotonic() - started >= 0.3


def test_deals_are_seeded_and_duplicate(leduc):
    assert deal(leduc, 1, 0) == deal(leduc, 1, 0) and deal(leduc, 1, 0) != deal(leduc, 2, 0)
    hole, board = deal(leduc, 1, 0)
    cards = [c for h in hole for c in h] + [c for b in board for c in b]
    assert len(set(cards)) == len(cards) == 3 and all(0 <= c < 6 for c in cards)
    counts = np.zeros(6)
    for i in range(600):
        counts[deal(leduc, 0, i)[0][0][0]] += 1
    assert counts.min() > 60  # every card is dealt (uniform: 100 each)


def test_no_client_connects(leduc, tmp_path):
    log = tmp_path / "m.log"
    dealer = Dealer(leduc, DealerConfig(5, start_timeout_s=0.2), log_file=log)
    result = dealer.run()
    assert not result.complete and "did not connect" in result.ended and result.hands == ()
    assert log.read_text().splitlines()[-1] == "SCORE:0|0:player0|player1"


def _openspiel_game(spec):
    """The same rules as OpenSpiel's ``universal_poker`` (built on the ACPC dealer's own game code)."""
    pyspiel = pytest.importorskip("pyspiel")

    def row(values):
        return " ".join(map(str, values))

    params = {"betting": spec.betting, "numPlayers": 2, "numRounds": spec.num_rounds, "blind": row(spec.blinds),
              "firstPlayer": row(p + 1 for p in spec.first_player), "numSuits": spec.num_suits, "numRanks": spec.num_ranks,
              "numHoleCards": spec.hole_cards, "numBoardCards": row(spec.board_cards)}
    if spec.betting == "limit":
        params.update(raiseSize=row(spec.raise_sizes), maxRaises=row(spec.max_raises))
    else:
        params.update(stack=row((spec.stack, spec.stack)), bettingAbstraction="fullgame")
    return pyspiel.load_game("universal_poker(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")")


def _check_with_openspiel(game, log: Path) -> int:
    """Replay every logged hand in OpenSpiel: same legal actions, same final state string, same chips."""
    spiel = _openspiel_game(game.spec)
    acpc = Codec(game.spec)  # the dealer's names (the ACPC dealer's)
    spiel_names = Codec(game.spec, "openspiel")  # OpenSpiel names a small deck from the deuce up
    checked = 0
    for h in parse_log(log.read_text())[0]:
        ms = acpc.parse(f"MATCHSTATE:0:{h.hand}:{h.betting}:{h.cards}")
        cards = iter([c for hole in ms.hole for c in hole] + [c for b in ms.board for c in b])
        state = spiel.new_initial_state()
        for action in (a for r in ms.betting for a in r):
            while state.is_chance_node():
                state.apply_action(next(cards))
            code = {"f": 0, "c": 1}.get(action.kind, action.size if game.spec.betting == "nolimit" else 2)
            assert code in state.legal_actions(), (h, action)
            state.apply_action(code)
        while state.is_chance_node():
            state.apply_action(next(cards))
        assert state.is_terminal()
        assert tuple(state.returns()) == h.values
        spiel_line = str(state).split("ACPC State: ")[1].splitlines()[0]
        line = spiel_names.state_line(0, ms.betting, ms.hole, ms.board, h.values, ("a", "b"))
        assert spiel_line.split(":", 2)[2] == line.split(":", 2)[2].rsplit(":", 2)[0]  # betting and cards
        checked += 1
    return checked


def test_logged_hands_agree_with_openspiel(leduc, nolimit_file, tmp_path):
    halves = load_acpc_game(nolimit_file, bet_fractions=(0.5, 1.0))
    thirds = load_acpc_game(nolimit_file, bet_fractions=(0.33, 0.75), all_in=False)
    for game, other, name in ((leduc, leduc, "limit"), (halves, thirds, "nolimit")):
        log = tmp_path / f"{name}.log"
        dealer = Dealer(game, DealerConfig(100, seed=11, **FAST), log_file=log)
        _match(dealer, _client(RandomAgent(), game, seed=1), _client(RandomAgent(), other, seed=2))
        assert _check_with_openspiel(game, log) == 100


@pytest.mark.slow
def test_strategy_agents_in_their_own_abstraction_find_every_information_set(leduc, halves, tmp_path):
    """Each view the client builds during play names an information set of the compiled game."""
    for game, tree in ((leduc, compile_game(leduc)), halves):
        rng = np.random.default_rng(0)
        agents = [StrategyAgent(tree, Strategy.random(tree, rng), name=f"s{k}") for k in (0, 1)]
        log = tmp_path / "m.log"
        dealer = Dealer(game, DealerConfig(60, seed=13, **FAST), log_file=log)
        result, clients = _match(dealer, _client(agents[0], game, seed=1), _client(agents[1], game, seed=2))
        assert result.complete and [c.errors for c in clients] == [(), ()]
        _check_agrees(result, clients, log)


def test_card_names_from_the_deuce_up(leduc, tmp_path):
    log = tmp_path / "m.log"
    dealer = Dealer(leduc, DealerConfig(20, seed=1, naming="openspiel", **FAST), log_file=log)
    result, clients = _match(dealer, _client(RandomAgent(), leduc, seed=1, naming="openspiel"),
                             _client(RandomAgent(), leduc, seed=2, naming="openspiel"))
    assert result.complete and [c.errors for c in clients] == [(), ()]
    assert set("".join(h.cards for h in parse_log(log.read_text())[0])) <= set("234cd|/")
    _check_agrees(result, clients, log)


def test_our_dealer_names_cards_as_the_acpc_dealer(leduc, tmp_path):
    log = tmp_path / "m.log"
    result, _ = _match(Dealer(leduc, DealerConfig(20, seed=1, **FAST), log_file=log),
                       _client(RandomAgent(), leduc, seed=1), _client(RandomAgent(), leduc, seed=2))
    assert result.complete
    assert set("".join(h.cards for h in parse_log(log.read_text())[0])) <= set("QKAhs|/")
