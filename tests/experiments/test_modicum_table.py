"""The modicum-table experiment on a reduced deck: exact where it can be, the same table twice, resumable."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from subgame.blueprint.implicit_mccfr import available
from subgame.experiments import EXPERIMENTS
from subgame.experiments.modicum_table import AGENTS, OPPONENTS, SETUPS, modicum_table

pytestmark = pytest.mark.skipif(not available(), reason="the compiled loop of implicit MCCFR is not built")

#: seconds, not minutes: weak blueprints, 10 CFR+ iterations a solve, 12 deals a match
TINY = replace(SETUPS["reduced"], iterations=2000, lookup_iterations=2000, solve_iterations=10, deals=12)


def _column(result, header):
    return [row[list(result.headers).index(header)] for row in result.rows]


@pytest.mark.slow
def test_aivat_exact_and_a_second_run_retraining_replaying_and_resuming_gives_the_same_table(tmp_path):
    setup = replace(TINY, deals=4)
    done: list[str] = []
    first = modicum_table(setup=setup, seed=3, checkpoint=tmp_path, progress=done.append)
    assert EXPERIMENTS["modicum-table"] is modicum_table
    # AIVAT with both players' exact behaviour strategies as its references removes all luck: every deal scores the
    # exact expected value, so its interval has no width and its mean is the exact head-to-head value
    for opponent in OPPONENTS:  # LBR's too: its model is the agent it plays (the blueprint's rows, a search twin)
        for cell in _column(first, f"vs {opponent} (AIVAT; exact)")[: len(AGENTS)]:
            if cell != "0 (itself)":
                aivat, exact = cell.split("; ")
                mean, width = aivat.split(" ± ")
                assert width == "0" and abs(float(mean) - float(exact)) <= 0.5 + 1e-9
    exploit = [float(x) for x in _column(first, "exploitability, exact")]
    assert all(x > 0 for x in exploit)
    assert exploit[-1] > max(exploit[:-1])  # the coarse lookup-table bot is the most exploitable
    assert "vs LBR (AIVAT; exact)" in first.headers and len(first.rows) == len(AGENTS) + 1
    assert any("Baby Tartanian8" in n for n in first.notes) and "-57 ± 13" in first.rows[0]

    folder = next(tmp_path.iterdir())
    files = sorted(p.name for p in folder.glob("match-*.json"))
    assert len(files) == len(AGENTS) * len(OPPONENTS) - 1 and (folder / "blueprint.npz").is_file()
    # The same table again: the agents' blueprint trained anew (the exact columns computed again from it), the lookup
    # bot's read back, and one match played again, as if the run had stopped before that match ended
    for name in ("blueprint.npz", "blueprint-buckets.npz"):
        (folder / name).unlink(missing_ok=True)
    (folder / files[0]).unlink()
    cell = json.loads((folder / files[1]).read_text())
    # the agents' exact strategies, kept with the blueprints' digest: read back, since the retrained blueprint is the
    # same to the bit (one asked again would be written again)
    asked = {f: f.stat().st_mtime_ns for f in folder.glob("behaviour-*.npz")}
    assert len(asked) == len(AGENTS) + 1 + len(AGENTS)  # the agents, the lookup bot, LBR against each agent
    again: list[str] = []
    second = modicum_table(setup=setup, seed=3, checkpoint=tmp_path, progress=again.append)
    assert [list(r) for r in second.rows] == [list(r) for r in first.rows]
    assert {f: f.stat().st_mtime_ns for f in folder.glob("behaviour-*.npz")} == asked
    assert sum("read from" in line for line in again) == len(files) - 1
    assert json.loads((folder / files[1]).read_text()) == cell
    assert "training the blueprints" in second.notes[-1] and (folder / "blueprint.npz").is_file()
