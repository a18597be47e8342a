"""``subgame dealer`` and ``subgame acpc-client`` on the loopback interface."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

from typer.testing import CliRunner

from subgame.agents import CallAgent, RandomAgent
from subgame.agents.acpc import Dealer, DealerConfig, parse_log, play_match
from subgame.cli.main import app
from subgame.games.poker.acpc import load_acpc_game

GAME = Path(__file__).resolve().parents[1] / "data" / "acpc" / "leduc.game"
runner = CliRunner()


def _free_ports() -> tuple[int, int]:
    socks = [socket.socket() for _ in range(2)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = (socks[0].getsockname()[1], socks[1].getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _play_when_listening(agent, port: int, out: dict, key: int) -> None:
    game = load_acpc_game(GAME)
    for _ in range(200):
        try:
            out[key] = play_match(agent, game, "127.0.0.1", port, seed=key, timeout_s=10.0)
            return
        except Exception:  # the dealer is not listening yet
            time.sleep(0.05)


def test_dealer_command_plays_and_logs(tmp_path):
    ports = _free_ports()
    log = tmp_path / "match.log"
    out: dict = {}
    threads = [threading.Thread(target=_play_when_listening, args=(a, p, out, k), daemon=True)
               for k, (a, p) in enumerate(zip((RandomAgent(), CallAgent()), ports))]
    for t in threads:
        t.start()
    result = runner.invoke(app, ["dealer", "--game", str(GAME), "--hands", "40", "--seed", "5", "--port0", str(ports[0]),
                                 "--port1", str(ports[1]), "--log", str(log), "--names", "rnd,cal", "--json"])
    for t in threads:
        t.join(30)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == f"{ports[0]} {ports[1]}"
    record = json.loads(lines[-1])
    hands, score, names = parse_log(log.read_text())
    assert record["hands"] == len(hands) == 40 and record["ended"] == "complete" and names == ("rnd", "cal")
    assert tuple(record["totals_chips"]) == score and score == (out[0].total_chips, out[1].total_chips)


def test_client_command_writes_its_results(tmp_path):
    game = load_acpc_game(GAME)
    dealer = Dealer(game, DealerConfig(30, seed=2, start_timeout_s=20.0))
    done: dict = {}
    run = threading.Thread(target=lambda: done.setdefault("result", dealer.run()), daemon=True)
    run.start()
    other = threading.Thread(target=lambda: done.setdefault("other", play_match(CallAgent(), game, "127.0.0.1", dealer.ports[1])),
                             daemon=True)
    other.start()
    results = tmp_path / "client.json"
    out = runner.invoke(app, ["acpc-client", "--port", str(dealer.ports[0]), "--game", str(GAME), "--agent", "random",
                              "--seed", "3", "--results", str(results), "--quiet"])
    run.join(30)
    other.join(30)
    assert out.exit_code == 0, out.output
    record = json.loads(results.read_text())
    match = done["result"]
    assert record["hands_played"] == 30 and record["ended"] == "the dealer closed the connection"
    assert record["total_chips"] == match.totals[0]
    assert [h["chips"] for h in record["hands"]] == [h.values[h.players.index(0)] for h in match.hands]
    assert "random: 30 hands" in out.output


def test_client_command_reports_a_missing_dealer(tmp_path):
    port = _free_ports()[0]
    out = runner.invoke(app, ["acpc-client", "--port", str(port), "--game", str(GAME), "--agent", "call"])
    assert out.exit_code == 2 and "cannot connect to the dealer" in out.output


def test_client_command_refuses_a_file_that_is_not_a_game(tmp_path):
    bad = tmp_path / "x.txt"
    bad.write_text("GAMEDEF\n")
    out = runner.invoke(app, ["acpc-client", "--port", "1", "--game", str(bad), "--agent", "call"])
    assert out.exit_code == 2 and "ending in .game" in out.output


def test_client_command_plays_a_strategy_file(tmp_path):
    from subgame.solve.cfr import CFR_PLUS, CFRSolver
    from subgame.tree.compile import compile_game

    game = load_acpc_game(GAME)
    tree = compile_game(game)
    strategy_file = tmp_path / "blueprint.npz"
    CFRSolver(tree, CFR_PLUS).run(50).average_strategy().save(strategy_file, tree)
    dealer = Dealer(game, DealerConfig(20, seed=4, start_timeout_s=20.0))
    done: dict = {}
    run = threading.Thread(target=lambda: done.setdefault("result", dealer.run()), daemon=True)
    run.start()
    other = threading.Thread(target=lambda: play_match(RandomAgent(), game, "127.0.0.1", dealer.ports[1]), daemon=True)
    other.start()
    out = runner.invoke(app, ["acpc-client", "--port", str(dealer.ports[0]), "--game", str(GAME), "--agent", str(strategy_file)])
    run.join(30)
    other.join(30)
    assert out.exit_code == 0, out.output
    assert "blueprint: 20 hands" in out.output and "0 error(s)" in out.output
    assert done["result"].complete


def test_client_command_fails_when_the_match_did_not_complete():
    from tests.agents.test_acpc_match import _scripted_dealer

    cases = {"only garbage": ["hello", "MATCHSTATE:nonsense"], "closed during a hand": ["MATCHSTATE:0:0::Ks|"], "no hand": []}
    for why, lines in cases.items():
        port, dealer = _scripted_dealer(lines)
        out = runner.invoke(app, ["acpc-client", "--port", str(port), "--game", str(GAME), "--agent", "call", "--timeout", "5"])
        dealer.result()
        assert out.exit_code == 1, (why, out.output)
        assert "the match did not complete" in out.output and "0 hands" in out.output


def test_client_command_refuses_a_port_out_of_range():
    for port in ("99999", "0", "-1"):
        out = runner.invoke(app, ["acpc-client", "--port", port, "--game", str(GAME), "--agent", "call"])
        assert out.exit_code == 2 and "Invalid value for '--port'" in out.output, out.output
        assert "Connection refused" not in out.output
    out = runner.invoke(app, ["dealer", "--game", str(GAME), "--hands", "1", "--log", "x.log", "--port0", "70000"])
    assert out.exit_code == 2 and "--port0" in out.output


def test_client_command_plays_a_strategy_of_the_built_in_game(tmp_path):
    """A strategy solved for the built-in leduc plays at a match of leduc.game, the same game; another game's is refused."""
    from subgame.games import load_game
    from subgame.solve.cfr import CFR_PLUS, CFRSolver
    from subgame.strategy import Strategy
    from subgame.tree.compile import compile_game

    builtin = compile_game(load_game("leduc"))
    solved = CFRSolver(builtin, CFR_PLUS).run(20).average_strategy()
    file = tmp_path / "leduc.npz"
    Strategy(solved.game_id, solved.probs, {"game": "leduc", "params": {}}).save(file, builtin)
    game = load_acpc_game(GAME)
    dealer = Dealer(game, DealerConfig(10, seed=4, start_timeout_s=20.0))
    run = threading.Thread(target=dealer.run, daemon=True)
    run.start()
    other = threading.Thread(target=lambda: play_match(CallAgent(), game, "127.0.0.1", dealer.ports[1]), daemon=True)
    other.start()
    out = runner.invoke(app, ["acpc-client", "--port", str(dealer.ports[0]), "--game", str(GAME), "--agent", str(file)])
    run.join(30)
    other.join(30)
    assert out.exit_code == 0, out.output
    assert "leduc: 10 hands" in out.output and "0 error(s)" in out.output

    bigger = compile_game(load_game("leduc", raise_sizes="2,6"))
    solved = CFRSolver(bigger, CFR_PLUS).run(5).average_strategy()
    Strategy(solved.game_id, solved.probs, {"game": "leduc", "params": {"raise_sizes": "2,6"}}).save(file, bigger)
    out = runner.invoke(app, ["acpc-client", "--port", "1", "--game", str(GAME), "--agent", str(file)])
    assert out.exit_code == 2 and f"subgame solve {GAME} --out" in out.output, out.output


def test_dealer_command_fails_when_the_match_did_not_complete(tmp_path):
    log = tmp_path / "m.log"
    out = runner.invoke(app, ["dealer", "--game", str(GAME), "--hands", "3", "--log", str(log), "--start-timeout", "0.2", "--json"])
    assert out.exit_code == 1, out.output
    record = json.loads(out.output.strip().splitlines()[-1])
    assert record["hands"] == 0 and "did not connect" in record["ended"]
    assert parse_log(log.read_text())[0] == ()
