"""Gambit .efg files: read, written back, refused with file and line, and valued as OpenSpiel's efg_game values them."""

from __future__ import annotations

import warnings
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
    (COIN.replace('"H" 1/2 "T" 1/2', '"H" 0.333333 "T" 0.666666'), 3, "sum to 1 - 1e-06, not 1; write rounded decimals with all"),
    (COIN.replace('"H" 1/2 "T" 1/2', '"H" 0.5 "T" 0.6'), 3, "sum to 11/10, not 1"),
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


# -- regressions: files a new user brought -------------------------------------------------------
@pytest.mark.parametrize(("payoffs", "why"), [
    ("{ 1e400, -1e400 }", "the number 1e400 is beyond the float64 numbers"),
    ("{ 1e99999999 0 }", "the number 1e99999999 is beyond the float64 numbers"),
    ("{ 17976931348623159" + "0" * 292 + "/1 0 }", "is beyond the float64 numbers"),  # just above the largest float64
])
def test_a_payoff_beyond_float64_is_refused_with_its_line(tmp_path, payoffs, why):
    """Regression: a payoff of 1e400 raised OverflowError from the reader."""
    path = _write(tmp_path, COIN.replace("{ 1, -1 }", payoffs))
    with pytest.raises(GameDefinitionError, match=rf"g.efg, line 6: .*{why}"):
        load_game(f"efg:{path}")


def test_payoffs_adding_up_beyond_float64_on_a_path_are_refused(tmp_path):
    big = "1" + "0" * 308
    text = COIN.replace('p "" 1 1 "sees H" { "a" "b" } 0', f'p "" 1 1 "sees H" {{ "a" "b" }} 9 "fee" {{ {big} -{big} }}')
    text = text.replace('{ 1, -1 }', f'{{ {big}, -{big} }}')
    with pytest.raises(GameDefinitionError, match=r"g.efg, line 6: the payoffs on the path to this terminal add up to more"):
        load_game(f"efg:{_write(tmp_path, text)}")


def _chain_efg(depth: int) -> str:
    """Player 1 sees a coin; then ``depth`` alternating moves, each 'stop' (a terminal) or 'go'."""
    lines = ['EFG 2 R "chain" { "A" "B" }', '""', 'c "" 1 "" { "H" 1/2 "T" 1/2 } 0']
    outcome = 0
    for coin in (1, -1):
        for level in range(depth):
            player = level % 2 + 1
            number = 2 * level + (coin > 0) + 1 if player == 1 else level + 1
            outcome += 1
            lines.append(f'p "" {player} {number} "" {{ "stop" "go" }} 0')
            lines.append(f't "" {outcome} "" {{ {coin} {-coin} }}')
        outcome += 1
        lines.append(f't "" {outcome} "" {{ {2 * coin} {-2 * coin} }}')
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_a_file_deeper_than_the_recursion_limit_reads_writes_and_compiles(tmp_path):
    """Regression: a valid file 3,000 decisions deep raised RecursionError in the reader."""
    import sys

    depth = sys.getrecursionlimit() + 2000
    path = _write(tmp_path, _chain_efg(depth), "chain.efg")
    game = load_game(f"efg:{path}")
    assert isinstance(game, EFGGame) and len(game.efg.nodes) == 1 + 2 * (2 * depth + 1)
    assert parse_efg(write_efg(game.efg)) == game.efg
    tree = compile_game(game)
    assert int(tree.depth.max()) == depth  # the coin is private (no public node): decisions at depths 0 .. depth - 1
    # player 1 stops at once with heads (+1); with tails, player 2 stops at her first move (+1 for her)
    assert solve_lp(tree).value == pytest.approx(0.5 * 1 + 0.5 * -1, abs=1e-9)


def test_the_one_line_reader_reads_what_the_token_reader_reads(monkeypatch):
    """Nodes on one line are read by one pattern match; the token-by-token reader gives the same
    nodes, lines, information sets and outcomes."""
    from subgame.games import efg_reader

    rng = np.random.default_rng(7)
    texts = [COIN, pyspiel.get_kuhn_poker_efg_data(), _chain_efg(30)] + [_random_efg(rng) for _ in range(4)]
    texts.append(COIN.replace('{ "x" "y" }', '{ "x", "y" }').replace("\n", "\n  "))
    fast = [parse_efg(t) for t in texts]
    written = [write_efg(f, repeat_infosets=False) for f in fast]
    monkeypatch.setattr(efg_reader._Parser, "fast_node", lambda self: None)
    for text, efg, again in zip(texts, fast, written):
        slow = parse_efg(text)
        assert slow == efg and [n.line for n in slow.nodes] == [n.line for n in efg.nodes]
        assert parse_efg(again) == efg


def _die_efg(prob: str, last: str) -> str:
    """A die (five faces of ``prob``, the sixth of ``last``): player 1 sees low (1-3) or high (4-6), then COIN's moves."""
    body = COIN.split("\n")[3:]
    low, high = "\n".join(body[:7]), "\n".join(body[7:14])
    faces = " ".join(f'"{k}" {prob if k < 6 else last}' for k in range(1, 7))
    subtrees = [low if k <= 3 else high for k in range(1, 7)]
    return "\n".join(COIN.split("\n")[:2] + [f'c "" 1 "" {{ {faces} }} 0'] + subtrees) + "\n"


def test_decimal_chance_probabilities_that_sum_to_one_up_to_rounding_are_read_with_one_warning(tmp_path):
    """Regression: 1/6 written 0.16666666666666666 (as OpenSpiel and Python write it) was refused."""
    sixth = repr(1 / 6)
    path = _write(tmp_path, _die_efg(sixth, sixth), "die.efg")
    with pytest.warns(UserWarning, match=r"die.efg: the chance probabilities of 1 information set\(s\) sum to 1 only up "
                      r"to rounding \(line 3: 1 - 4e-17\); they are divided by their sum") as caught:
        game = load_game(f"efg:{path}")
    assert len(caught) == 1
    assert isinstance(game, EFGGame)
    probs = game.efg.infosets[(0, 1)].probs
    assert probs[0] == Fraction(sixth) and sum(probs) != 1  # the file's numbers, exactly
    chance = [p for _, p in game.chance_outcomes(0)]
    assert sum(chance) == pytest.approx(1.0, abs=1e-15) and chance[0] == pytest.approx(1 / 6, rel=1e-15)
    # the same game with exact sixths: the same value, and no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exact = _lp_value(f"efg:{_write(tmp_path, _die_efg('1/6', '1/6'), 'exact.efg')}")
    assert solve_lp(compile_game(game)).value == pytest.approx(exact, abs=1e-12)
    assert _openspiel_check(path) == pytest.approx(exact, abs=1e-9)
    with pytest.raises(GameDefinitionError, match=r"x.efg, line 3: chance probabilities sum to 1 - 4e-06, not 1; write "
                       r"rounded decimals with all their digits"):
        parse_efg(_die_efg("0.166666", "0.166666"), "x.efg")
    with pytest.raises(GameDefinitionError, match=r"line 3: chance probabilities sum to 1.16667, not 1$"):
        parse_efg(_die_efg(sixth, "0.3333333333333333"), "x.efg")


def test_a_written_file_reads_in_openspiel_with_the_same_value(tmp_path):
    """Regression: the writer left out an information set's repeated actions, which OpenSpiel's
    efg_game cannot read; every node is written in full, numbers as OpenSpiel reads them."""
    short = COIN.replace('p "" 2 1 "guess" { "x" "y" } 0\nt "" 3', 'p "" 2 1 0\nt "" 3')
    decimal = COIN.replace('"H" 1/2 "T" 1/2', f'"H" {1 / 3!r} "T" {2 / 3!r}').replace("{ 2, -2 }", "{ 0.1, -0.1 }")
    rng = np.random.default_rng(3)
    for k, text in enumerate([short, decimal, pyspiel.get_kuhn_poker_efg_data(), _random_efg(rng)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the decimals' rounding
            efg = parse_efg(text)
        path = _write(tmp_path, write_efg(efg), f"w{k}.efg")
        assert 'p "" 2 1 0' not in path.read_text()
        native = solve_lp(compile_game(EFGGame(efg, str(path)))).value
        assert _openspiel_check(path) == pytest.approx(native, abs=1e-9)
    compact = _write(tmp_path, write_efg(parse_efg(short), repeat_infosets=False), "compact.efg")
    assert 'p "" 2 1 0' in compact.read_text()  # Gambit's short form, which OpenSpiel does not read
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game(f"efg_game(filename={compact})")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_written_random_games_have_openspiels_sequence_form_lp_value(tmp_path, seed):
    """OpenSpiel's own LP (cvxpy with ECOS, installed with the tests) on the file we write, against ours (HiGHS)."""
    pytest.importorskip("cvxpy", reason="OpenSpiel's sequence_form_lp needs cvxpy and ecos (pip install -e '.[test]')")
    from open_spiel.python.algorithms import sequence_form_lp

    efg = parse_efg(_random_efg(np.random.default_rng(100 + seed)))
    path = _write(tmp_path, write_efg(efg), f"lp{seed}.efg")
    theirs = sequence_form_lp.solve_zero_sum_game(pyspiel.load_game(f"efg_game(filename={path})"))[0]
    assert solve_lp(compile_game(EFGGame(efg, str(path)))).value == pytest.approx(float(theirs), abs=1e-6)  # ECOS's tolerance
