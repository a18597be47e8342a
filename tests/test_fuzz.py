"""Fuzzing the readers: every mutated file or random parameter either loads or raises one SubgameError.

Derandomized hypothesis runs: the same cases every time, hundreds per reader.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subgame.decompose import CFRDConfig, CFRDSolver, TrunkSplit, load_cfr_d, save_cfr_d
from subgame.errors import SubgameError
from subgame.games import load_game
from subgame.games.poker.acpc import parse_acpc
from subgame.solve.cfr import CFRSolver
from subgame.solve.checkpoint import read_checkpoint
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from tests.conftest import compiled
from tests.toy_games import COIN_EFG as COIN

ACPC = Path(__file__).parent / "data" / "acpc"
FUZZ = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _mutate(data: bytes, edits: list[tuple[int, int]], cut: int | None) -> bytes:
    out = bytearray(data)
    for pos, value in edits:
        if out:
            out[pos % len(out)] = value
    return bytes(out[:cut] if cut is not None else out)


EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6)
CUTS = st.one_of(st.none(), st.integers(0, 4000))


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, bytes]:
    """One valid file of each kind the library reads."""
    d = tmp_path_factory.mktemp("valid")
    tree = compiled("kuhn")
    solver = CFRSolver(tree).run(3)
    solver.average_strategy().save(d / "s.npz", tree)
    solver.save_checkpoint(d / "c.npz")
    leduc = load_game("leduc")
    save_cfr_d(d / "d.npz", CFRDSolver(leduc, TrunkSplit(rounds=1), CFRDConfig(2, batch=30)).run(1).solution())
    return {name: (d / f"{name}.npz").read_bytes() for name in ("s", "c", "d")}


def _load_each(path: Path) -> None:
    tree = compiled("kuhn")
    for load in (lambda: Strategy.load(path, tree), lambda: read_checkpoint(path), lambda: load_cfr_d(path)):
        try:
            load()
        except SubgameError as exc:
            assert str(exc)  # one message, never empty


@FUZZ
@given(kind=st.sampled_from(["s", "c", "d"]), edits=EDITS, cut=CUTS)
@pytest.mark.slow
def test_mutated_library_files_load_or_are_refused(files, kind, edits, cut):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.npz"
        path.write_bytes(_mutate(files[kind], edits, cut))
        _load_each(path)


@FUZZ
@given(name=st.sampled_from(sorted(p.name for p in ACPC.glob("*.game"))), data=st.data())
@pytest.mark.slow
def test_mutated_acpc_game_files_load_or_are_refused(name, data):
    lines = (ACPC / name).read_text().splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    choice = data.draw(st.sampled_from(["drop", "duplicate", "garble", "number"]))
    if choice == "drop":
        del lines[i]
    elif choice == "duplicate":
        lines.insert(i, lines[i])
    elif choice == "garble":
        lines[i] = data.draw(st.text(max_size=40))
    else:
        words = lines[i].split()
        if words:
            j = data.draw(st.integers(0, len(words) - 1))
            words[j] = str(data.draw(st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True))))
            lines[i] = " ".join(words)
    try:
        parse_acpc("\n".join(lines), source=name)
    except SubgameError as exc:
        assert str(exc)


PARAM_VALUES = st.one_of(
    st.integers(-5, 60).map(str), st.sampled_from(["nan", "inf", "-inf", "", "x", "1e400", "0,1", "2,4,4", "true"]),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(game=st.sampled_from(["kuhn", "leduc", "leduc_nolimit", "coin_toss", "liars_dice", "goofspiel"]),
       data=st.data())
@pytest.mark.slow
def test_random_game_parameters_build_or_are_refused(game, data):
    from subgame.games import GAMES

    keys = sorted(GAMES[game].defaults)
    chosen = data.draw(st.lists(st.sampled_from(keys), max_size=3, unique=True)) if keys else []
    params = {k: data.draw(PARAM_VALUES) for k in chosen}
    try:
        g = load_game(game, **params)
    except SubgameError as exc:
        assert str(exc)
        return
    assert np.isfinite(g.utility_bound())


# -- .efg files ---------------------------------------------------------------------------------
EFG_SEEDS = {
    "kuhn": None,  # filled from OpenSpiel's copy when it is installed
    "coin": COIN,
}
EFG_WORDS = ["c", "p", "t", "{", "}", '""', '"x"', "0", "1", "2", "3", "-1", "1/2", "1/0", "0.5", "nan", "inf", ",", "EFG"]


@FUZZ
@given(seed=st.sampled_from(sorted(EFG_SEEDS)), data=st.data())
@pytest.mark.slow
def test_mutated_efg_files_load_or_are_refused(seed, data):
    from subgame.games.efg import EFGGame, parse_efg, write_efg

    text = EFG_SEEDS[seed]
    if text is None:
        pyspiel = pytest.importorskip("pyspiel")
        text = pyspiel.get_kuhn_poker_efg_data()
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        choice = data.draw(st.sampled_from(["drop", "duplicate", "garble", "word", "cut"]))
        if choice == "drop":
            del lines[i]
        elif choice == "duplicate":
            lines.insert(i, lines[i])
        elif choice == "garble":
            lines[i] = data.draw(st.text(max_size=30))
        elif choice == "cut":
            lines[i] = lines[i][: data.draw(st.integers(0, max(len(lines[i]) - 1, 0)))]
        else:
            words = lines[i].split(" ")
            j = data.draw(st.integers(0, len(words) - 1))
            words[j] = data.draw(st.sampled_from(EFG_WORDS))
            lines[i] = " ".join(words)
        if not lines:
            break
    try:
        efg = parse_efg("\n".join(lines), "fuzz.efg")
        game = EFGGame(efg, "fuzz.efg")
    except SubgameError as exc:
        assert str(exc).startswith("fuzz.efg")
        return
    assert parse_efg(write_efg(efg)) == efg
    compile_game(game)  # what the reader accepts, the compiler builds


# -- the command line ---------------------------------------------------------------------------
def _one_error_line(result) -> None:
    """A command either succeeds or fails with exit code 2 and one line ``error: ...``, never a traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 0:
        return
    assert result.exit_code == 2, (result.exit_code, result.output)
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("error: "), result.stderr


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory, files) -> dict[str, Path]:
    """Paths a command line may name: a strategy file, damaged ones, a folder, a FIFO, a missing file."""
    import os

    d = tmp_path_factory.mktemp("cli")
    (d / "strategy.npz").write_bytes(files["s"])
    (d / "checkpoint.npz").write_bytes(files["c"])
    (d / "cfrd.npz").write_bytes(files["d"])
    (d / "garbage.npz").write_bytes(b"PK\x03\x04 not really")
    (d / "empty.npz").write_bytes(b"")
    (d / "text.txt").write_text("AA,KK:0.5\n")
    os.mkfifo(d / "fifo")
    (d / "folder").mkdir()
    return {p.name: p for p in d.iterdir()} | {"missing.npz": d / "missing.npz", "nested": d / "text.txt" / "x.npz"}


BAD_NUMBERS = ["0", "-1", "x", "", "nan", "inf", "1e3", "2.5", "-0"]
SMALL_GAMES = ["kuhn", "coin_toss", "rps", "matching_pennies", "nope", "efg:missing.efg", "openspiel:nope", "x.game"]


def _argv(data, files: dict[str, Path], out_dir: Path) -> list[str]:
    """A random command line of a cheap command: valid and invalid options and values mixed."""
    command = data.draw(st.sampled_from(["solve", "evaluate", "games", "resolve", "exploit"]))
    number = st.one_of(st.integers(1, 4).map(str), st.sampled_from(BAD_NUMBERS))
    path = st.sampled_from(sorted(files)).map(lambda k: str(files[k]))
    out = st.one_of(st.just(str(out_dir / "out.npz")), path)
    param = st.sampled_from(["num_ranks=4", "num_ranks=x", "sell_heads=nan", "sell_heads=0.3", "bogus=1", "=3",
                             "noequals", "scissors_payoff=inf", "num_suits=0", "ante=-1"])
    if command == "solve":
        argv = ["solve", data.draw(st.sampled_from(SMALL_GAMES))]
        options = {
            "--out": out, "-n": number, "--algo": st.sampled_from(["cfr", "cfr+", "lp", "dcfr", "cfr-d", "bogus"]),
            "--checkpoints": number, "--checkpoint-file": out, "--checkpoint-every": number, "-p": param,
            "--trunk-depth": number, "--subgame-iterations": number, "--max-memory": st.sampled_from(["0", "1", "x", "1e-9"]),
            "--seed": st.sampled_from(["0", "7", "x", "-3"]), "--backend": st.sampled_from(["serial", "gpu"]),
            "--workers": number,
        }
        flags = ["--resume", "--force", "--json", "--exact"]
    elif command == "evaluate":
        argv = ["evaluate", data.draw(path)]
        options = {"--game": st.sampled_from(SMALL_GAMES), "-p": param}
        flags = ["--json"]
    elif command == "games":
        argv = ["games"]
        options = {"--size": st.sampled_from(SMALL_GAMES), "-p": param}
        flags = ["--json"]
    elif command == "resolve":
        argv = ["resolve", data.draw(path)]
        options = {"--method": st.sampled_from(["resolve", "unsafe", "maxmargin", "bogus"]), "--depth": number,
                   "-n": number, "--out": out, "--game": st.sampled_from(SMALL_GAMES)}
        flags = ["--json"]
    else:
        argv = ["exploit", data.draw(path)]
        options = {"--method": st.sampled_from(["br", "cdbr", "rnr", "bogus"]), "--depth": number,
                   "--player": st.sampled_from(["0", "1", "2", "x"]), "--solver": st.sampled_from(["exact", "cfr:3", "cfr:x"]),
                   "--game": st.sampled_from(SMALL_GAMES)}
        flags = ["--json"]
    for name in data.draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True)):
        argv += [name, data.draw(options[name])]
    argv += data.draw(st.lists(st.sampled_from(flags), max_size=2, unique=True))
    if data.draw(st.booleans()):
        argv.append(data.draw(st.sampled_from(["--bogus", "extra", "-z"])))
    return argv


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.slow
def test_random_command_lines_succeed_or_give_one_error_line(cli_files, tmp_path_factory, data):
    from tests.cli.test_cli import invoke

    out_dir = tmp_path_factory.mktemp("out")
    argv = _argv(data, cli_files, out_dir)
    _one_error_line(invoke(*argv))


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(edits=EDITS, cut=CUTS)
@pytest.mark.slow
def test_mutated_strategy_files_on_the_command_line_give_one_error_line(files, edits, cut):
    from tests.cli.test_cli import invoke

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.npz"
        path.write_bytes(_mutate(files["s"], edits, cut))
        _one_error_line(invoke("evaluate", path, "--json"))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(game=st.sampled_from(["kuhn", "leduc", "leduc_nolimit", "coin_toss", "rps", "red_green_coin"]),
       data=st.data())
@pytest.mark.slow
def test_random_game_parameters_on_the_command_line_give_a_size_or_one_error_line(game, data):
    from subgame.games import GAMES
    from tests.cli.test_cli import invoke

    keys = sorted(GAMES[game].defaults) + ["bogus"]
    chosen = data.draw(st.lists(st.sampled_from(keys), max_size=3, unique=True))
    small = st.one_of(st.integers(-2, 5).map(str), st.sampled_from(["nan", "inf", "", "x", "1e400", "0,1", "2,4,4", "true"]))
    argv = ["games", "--size", game] + [a for k in chosen for a in ("-p", f"{k}={data.draw(small)}")]
    _one_error_line(invoke(*argv, "--json"))


# -- stored leaf values -------------------------------------------------------------------------
def _leaf_table_arrays(rng: np.random.Generator, data) -> tuple[list, dict[str, np.ndarray]]:
    """A leaf value table's header entries and arrays, some of them damaged."""
    entries, k = int(rng.integers(1, 6)), int(rng.integers(1, 4))
    keys = [["d", "c"], ["d", "r"]]
    arrays = {
        "node0": rng.integers(0, len(keys), size=entries),
        "labels0_0": np.array([f"J{i}" for i in range(entries)]),
        "labels1_0": np.array([f"Q{i}" for i in range(entries)]),
        "values0": rng.normal(size=(k, entries)),
    }
    tables = [{"player": 0, "names": [f"c{j}" for j in range(k)], "keys": keys}]
    damage = data.draw(st.sampled_from(["none", "nan", "inf", "shape", "node", "labels", "player", "dtype", "missing"]))
    if damage in ("nan", "inf"):
        arrays["values0"][0, 0] = np.nan if damage == "nan" else np.inf
    elif damage == "shape":
        arrays["values0"] = arrays["values0"][:, :-1]
    elif damage == "node":
        arrays["node0"][0] = data.draw(st.sampled_from([-1, 2, 10**9]))
    elif damage == "labels":
        arrays["labels1_0"] = arrays["labels1_0"][:-1]
    elif damage == "player":
        tables[0]["player"] = data.draw(st.sampled_from([2, -1, "x", None]))
    elif damage == "dtype":
        arrays["values0"] = arrays["values0"].astype(str)
    elif damage == "missing":
        del arrays[data.draw(st.sampled_from(sorted(arrays)))]
    return tables, arrays


@settings(max_examples=100, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16), data=st.data())
@pytest.mark.slow
def test_damaged_leaf_value_tables_load_or_are_refused(tmp_path_factory, seed, data):
    from subgame.depthlimited.values import TABLE_FORMAT, load_leaf_tables
    from subgame.files import write_npz

    tables, arrays = _leaf_table_arrays(np.random.default_rng(seed), data)
    path = tmp_path_factory.mktemp("table") / "t.npz"
    write_npz(path, {"format": TABLE_FORMAT, "version": 1, "game_id": "g", "tables": tables}, arrays)
    try:
        (table,) = load_leaf_tables(path)
    except SubgameError as exc:
        assert str(exc).startswith(str(path))
        return
    assert np.isfinite(table.values).all() and table.values.shape == (len(table.names), table.node.size)


LIBRATUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "fixtures" / "libratus-endgames" / "subgame4.txt"
RANGE_TEXT = b"AA,KK:0.5,AQs-ATs,KQo:0.25,T9s+,As5s\n# comment\nQQ-88,AKo\n"


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(edits=EDITS, cut=CUTS, board=st.sampled_from([(), (0, 13, 26), (48, 49, 50, 51)]))
@pytest.mark.slow
def test_mutated_range_files_load_or_are_refused(tmp_path_factory, edits, cut, board):
    from subgame.games.poker.ranges import read_ranges

    path = tmp_path_factory.mktemp("ranges") / "r.txt"
    path.write_bytes(_mutate(RANGE_TEXT, edits, cut))
    try:
        r0, r1 = read_ranges(path, board)
    except SubgameError as exc:
        assert str(exc).startswith(str(path))
    else:
        for r in (r0, r1):
            assert np.all(np.isfinite(r.weights)) and r.weights.min() >= 0


@pytest.mark.skipif(not LIBRATUS.exists(), reason="the Libratus endgame fixtures are not beside the repository")
@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(edits=EDITS, cut=st.one_of(st.none(), st.integers(0, 200)))
def test_mutated_endgame_files_load_or_are_refused(tmp_path_factory, edits, cut):
    from subgame.games.poker.libratus import read_endgame

    path = tmp_path_factory.mktemp("endgames") / "e.txt"
    path.write_bytes(_mutate(LIBRATUS.read_bytes(), edits, cut))
    try:
        read_endgame(path)
    except SubgameError as exc:
        assert str(exc).startswith(str(path))


def test_range_and_endgame_readers_refuse_a_fifo(tmp_path):
    import os

    from subgame.games.poker.libratus import read_endgame
    from subgame.games.poker.ranges import read_ranges

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for read in (read_ranges, read_endgame):
        with pytest.raises(SubgameError, match="not a regular file"):
            read(fifo)


def test_a_bad_card_in_a_range_file_names_the_file_and_line(tmp_path):
    from subgame.errors import InvalidRangeError
    from subgame.games.poker.ranges import read_ranges

    path = tmp_path / "r.txt"
    path.write_text("AA,KK\nQQ,Xs5s\n")  # a specific combination with a card that does not exist
    with pytest.raises(InvalidRangeError, match=r"r\.txt, line 2: "):
        read_ranges(path)
