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
from subgame.solve.cfr import CFRSolver, read_checkpoint
from subgame.strategy import Strategy
from tests.conftest import compiled

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
def test_mutated_library_files_load_or_are_refused(files, kind, edits, cut):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.npz"
        path.write_bytes(_mutate(files[kind], edits, cut))
        _load_each(path)


@FUZZ
@given(name=st.sampled_from(sorted(p.name for p in ACPC.glob("*.game"))), data=st.data())
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
