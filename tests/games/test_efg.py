"""Gambit .efg files: read, written back, refused with file and line, and valued as OpenSpiel's efg_game values them."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.games import load_game
from subgame.games.efg import EFGGame, parse_efg, write_efg
from subgame.solve.lp import solve_lp
from subgame.tree.compile import compile_game
from tests.cli.test_cli import invoke
from tests.toy_games import COIN_EFG as COIN

pyspiel = pytest.importorskip("pyspiel")

def _write(tmp_path, text: str, name: str = "g.efg"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _lp_value(name: str) -> float:
    return solve_lp(compile_game(load_game(name))).value


def _openspiel_check(path) -> float:
    """The game value through OpenSpiel's efg_game: our LP on the adapter's tree, confirmed by
    OpenSpiel's own NashConv (zero) and expected score of that equilibrium."""
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.algorithms.expected_game_score import policy_value

    from subgame.interop.openspiel import to_tabular_policy

    game = load_game(f"openspiel:efg_game(filename={path})")
    tree = compile_game(game)
    lp = solve_lp(tree)
    policy = to_tabular_policy(game, tree, lp.strategy)
    os_game = pyspiel.load_game(f"efg_game(filename={path})")
    assert exploitability.nash_conv(os_game, policy) == pytest.approx(0.0, abs=1e-9)
    value = policy_value(os_game.new_initial_state(), [policy, policy])[0]
    assert value == pytest.approx(lp.value, abs=1e-9)
    return float(value)


# -- reading and writing -------------------------------------------------------------------------
@pytest.mark.parametrize("text", [pyspiel.get_kuhn_poker_efg_data(), pyspiel.get_sample_efg_data(), COIN])
def test_a_file_written_back_reads_the_same(text):
    efg = parse_efg(text)
    again = write_efg(efg)
    assert parse_efg(again) == efg
    assert write_efg(parse_efg(again)) == again


def test_repeated_information_sets_and_outcomes_may_be_left_out():
    short = COIN.replace('p "" 2 1 "guess" { "x" "y" } 0\nt "" 3', 'p "" 2 1 0\nt "" 3')
    short = short.replace('t "" 4 "o4" { 0, 0 }', 't "" 4')  # o4 is not defined before: refused
    with pytest.raises(GameDefinitionError, match=r"line 10: outcome 4 is used before it is defined"):
        parse_efg(short, "short.efg")
    short = short.replace('t "" 4\n', 't "" 1\n')
    efg = parse_efg(short)
    assert efg.nodes[7].outcome == 1 and efg.infosets[(2, 1)].actions == ("x", "y")


def test_decimal_and_fraction_probabilities_are_exact():
    efg = parse_efg(COIN.replace('"H" 1/2 "T" 1/2', '"H" 0.25 "T" 3/4'))
    assert efg.infosets[(0, 1)].probs == (Fraction(1, 4), Fraction(3, 4))


BAD = [
    ("NFG 1 R", 1, "not a Gambit .efg file"),
    (COIN.replace("EFG 2 R", "EFG 3 R"), 1, "only version 2"),
    (COIN.replace('{ "P1" "P2" }', '{ "P1" "P2" "P3" }'), 1, "3 players"),
    (COIN.replace('"H" 1/2 "T" 1/2', '"H" 1/2 "T" 1/3'), 3, "sum to 5/6, not 1"),
    (COIN.replace('"H" 1/2 "T" 1/2', '"H" 0.333333 "T" 0.666666'), 3, "write rounded decimals as fractions"),
    (COIN.replace('"H" 1/2 "T" 1/2', '"H" -1/2 "T" 3/2'), 3, "negative"),
    (COIN.replace('"H" 1/2', '"H" 1/0'), 3, "non-zero denominator"),
    (COIN.replace('p "" 1 1', 'p "" 3 1'), 4, "player 3 does not exist"),
    (COIN.replace('p "" 1 1', 'q "" 1 1'), 4, "expected a node"),
    (COIN.replace('{ 1, -1 }', '{ 1, -1, 0 }'), 6, "3 payoffs"),
    (COIN.replace('{ 1, -1 }', '{ 1, x }'), 6, "expected a payoff"),
    (COIN.replace('{ 2, -2 }', '{ 2, 3 }'), 9, "only zero-sum"),
    (COIN.replace('p "" 2 1 "guess" { "x" "y" } 0\nt "" 5', 'p "" 2 1 "guess" { "x" "z" } 0\nt "" 5'), 12,
     "other actions here than on line 5"),
    (COIN.replace('"a" "b"', '"a" "a"', 1), 4, "names an action twice"),
    (COIN.replace('t "" 1 "o1" { 1, -1 }', 't "" 2 "o1" { 1, -1 }'), 7, "payoffs ['-1', '1'] here but ['1', '-1']"),
    (COIN.rsplit("\n", 3)[0], 15, "cut short"),
    (COIN + 't "" 1\n', 18, "text after the last node"),
    (COIN.replace('"sees H"', '"sees H'), 4, "needs its actions"),  # the name ran on to the next quote
    (COIN.replace('"sees T" { "a" "b" }', '"sees T" { "a" "b }'), 11, "runs over 2 lines; is its closing '\"' missing?"),
    ('EFG 2 R "x" { "a" "b" }\n"', 2, "never closed"),
    ("EFG 2 R \"x\" { \"a\" \"b\" }\n", 2, "has no nodes"),
]


@pytest.mark.parametrize(("text", "line", "why"), BAD, ids=[b[2] for b in BAD])
def test_a_malformed_file_is_refused_with_file_and_line(tmp_path, text, line, why):
    path = _write(tmp_path, text)
    with pytest.raises(GameDefinitionError) as info:
        load_game(f"efg:{path}")
    message = str(info.value)
    assert message.startswith(f"{path}, line {line}: ") and why in message, message


def test_imperfect_recall_and_hidden_turns_are_refused(tmp_path):
    forgetful = COIN.replace('p "" 2 1 "guess" { "x" "y" } 0\nt "" 1', 'p "" 1 3 "again" { "x" "y" } 0\nt "" 1')
    forgetful = forgetful.replace('p "" 2 1 0\n', "")
    forgetful = forgetful.replace('p "" 2 1 "guess" { "x" "y" } 0\nt "" 5', 'p "" 1 3 "again" { "x" "y" } 0\nt "" 5')
    with pytest.raises(GameDefinitionError, match="does not have perfect recall"):
        load_game(f"efg:{_write(tmp_path, forgetful, 'f.efg')}")
    # player 2 cannot tell whether chance or player 1 moves after player 1's first move
    hidden = """EFG 2 R "hidden" { "P1" "P2" }
""
p "" 1 1 "" { "a" "b" } 0
c "" 1 "" { "H" 1/2 "T" 1/2 } 0
t "" 1 "o1" { 1, -1 }
t "" 2 "o2" { -1, 1 }
p "" 1 2 "" { "x" "y" } 0
t "" 3 "o3" { 2, -2 }
t "" 4 "o4" { 0, 0 }
"""
    with pytest.raises(GameDefinitionError, match=r"h.efg, line 7: nodes on lines 4, 7 .* whose turn it is"):
        load_game(f"efg:{_write(tmp_path, hidden, 'h.efg')}")
    with pytest.raises(GameDefinitionError, match="no such .efg file"):
        load_game(f"efg:{tmp_path / 'missing.efg'}")
    with pytest.raises(GameDefinitionError, match="takes no parameters"):
        load_game(f"efg:{tmp_path / 'f.efg'}", x="1")


# -- values ----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_kuhn_as_efg_is_kuhn(tmp_path):
    path = _write(tmp_path, pyspiel.get_kuhn_poker_efg_data(), "kuhn.efg")
    tree, native = compile_game(load_game(f"efg:{path}")), compile_game(load_game("kuhn"))
    assert len(tree.kind) == len(native.kind)
    # Kuhn's 6 + 6 information sets; player 2's card shows only where she acts (a file holds no more)
    assert [pa.legal.shape[0] for pa in tree.players] == [pa.legal.shape[0] for pa in native.players] == [6, 6]
    assert solve_lp(tree).value == pytest.approx(-1 / 18, abs=1e-9)  # Kuhn's known value
    assert _openspiel_check(path) == pytest.approx(-1 / 18, abs=1e-9)


def test_a_two_information_set_game_has_openspiels_value(tmp_path):
    path = _write(tmp_path, COIN, "coin.efg")
    tree = compile_game(load_game(f"efg:{path}"))
    assert [pa.legal.shape[0] for pa in tree.players] == [2, 1]
    assert _lp_value(f"efg:{path}") == pytest.approx(_openspiel_check(path), abs=1e-9)


def _random_efg(rng: np.random.Generator) -> str:
    """A random perfect-recall poker-like game: private types for both, then alternating public moves."""
    t0, t1 = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    depth = int(rng.integers(1, 4))
    widths = [int(rng.integers(1, 4)) for _ in range(depth)]
    ends = [bool(rng.random() < 0.3) for _ in range(depth)]  # the first action of a level may end the game
    weights0, weights1 = rng.integers(1, 5, size=t0), rng.integers(1, 5, size=t1)
    lines = ['EFG 2 R "random" { "A" "B" }', '""']
    infoset: dict[tuple[int, int, tuple[int, ...]], int] = {}
    outcome = [0]

    def probs(w: np.ndarray) -> list[Fraction]:
        return [Fraction(int(x), int(w.sum())) for x in w]

    def terminal() -> None:
        outcome[0] += 1
        u = int(rng.integers(-5, 6))
        lines.append(f't "" {outcome[0]} "o{outcome[0]}" {{ {u} {-u} }}')

    def moves(a: int, b: int, history: tuple[int, ...]) -> None:
        level = len(history)
        if level == depth:
            terminal()
            return
        player = level % 2
        key = (player, (a, b)[player], history)
        number = infoset.setdefault(key, 1 + sum(1 for k in infoset if k[0] == player))
        acts = " ".join(f'"m{k}"' for k in range(widths[level]))
        lines.append(f'p "" {player + 1} {number} "" {{ {acts} }} 0')
        for k in range(widths[level]):
            if ends[level] and k == 0:
                terminal()
            else:
                moves(a, b, history + (k,))

    lines.append('c "" 1 "" { ' + " ".join(f'"a{i}" {p}' for i, p in enumerate(probs(weights0))) + " } 0")
    for a in range(t0):
        number = 2 + a
        lines.append(f'c "" {number} "" {{ ' + " ".join(f'"b{i}" {p}' for i, p in enumerate(probs(weights1))) + " } 0")
        for b in range(t1):
            moves(a, b, ())
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(6))
def test_random_perfect_recall_games_have_the_same_value_natively_and_through_openspiel(tmp_path, seed):
    text = _random_efg(np.random.default_rng(seed))
    path = _write(tmp_path, text, f"r{seed}.efg")
    native = EFGGame(parse_efg(text), str(path))
    assert parse_efg(write_efg(native.efg)) == native.efg
    value = solve_lp(compile_game(native)).value
    assert value == pytest.approx(_openspiel_check(path), abs=1e-9)


def test_openspiels_general_sum_sample_is_refused_with_its_line(tmp_path):
    path = _write(tmp_path, pyspiel.get_sample_efg_data(), "sample.efg")
    with pytest.raises(GameDefinitionError, match=r"sample.efg, line \d+: .*only zero-sum"):
        load_game(f"efg:{path}")


def test_openspiels_efg_game_loads_through_the_adapter(tmp_path):
    """Regression: the adapter read the non-acting player's string, which in efg_game names the actor's
    information set, and refused every such game as 'not perfect recall'."""
    path = _write(tmp_path, COIN, "coin.efg")
    game = load_game(f"openspiel:efg_game(filename={path})")
    assert game.acting_only
    tree = compile_game(game)
    assert [pa.legal.shape[0] for pa in tree.players] == [2, 1]


@pytest.mark.slow
def test_an_efg_file_solves_and_evaluates_from_the_command_line(tmp_path):
    path = _write(tmp_path, pyspiel.get_kuhn_poker_efg_data(), "kuhn.efg")
    out = tmp_path / "s.npz"
    assert invoke("solve", f"efg:{path}", "--algo", "lp", "--out", out).exit_code == 0
    result = invoke("evaluate", out, "--json")
    assert result.exit_code == 0 and '"exploitability": ' in result.output
    bad = _write(tmp_path, COIN.replace("1/2", "1/3", 1), "bad.efg")
    refused = invoke("solve", f"efg:{bad}", "--out", tmp_path / "x.npz")
    assert refused.exit_code == 2 and f"{bad}, line 3" in refused.output and "Traceback" not in refused.output


def test_the_forms_gambit_files_use_are_read():
    text = """EFG 2 D "a \\"quoted\\" title" { "Alice" "Bob" } "a comment
over two lines"

c "" 1 "" { "H" 0.5 "T" 0.5 } 0
p "" 1 1 "sees H" { "a" "b" } 1 "entry fee" { -1/2 1/2 }
t "" 2 "o2" { 1.5 -1.5 }
t "" 3 "o3" { -0.5e1 5 }
p "" 1 2 "sees T" { "a" "b" } 0
t "" 2
t "" 3
"""
    efg = parse_efg(text)
    assert efg.title == 'a "quoted" title' and efg.comment == "a comment\nover two lines"
    assert efg.outcomes[3].payoffs == (Fraction(-5), Fraction(5))
    assert parse_efg(write_efg(efg)) == efg
    game = EFGGame(efg)
    utilities = sorted(game.utility(i) for i, n in enumerate(efg.nodes) if n.kind == "t")
    assert utilities == [-5.5, -5.0, 1.0, 1.5]  # the entry fee adds along its path only
