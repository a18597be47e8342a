"""The cdbr-hunl experiment on a reduced deck: exact where it can be, the same table twice, resumable, its README figures."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from subgame.blueprint.implicit_mccfr import available
from subgame.experiments import EXPERIMENTS
from subgame.experiments.cdbr_hunl import SETUPS, cdbr_hunl

pytestmark = pytest.mark.skipif(not available(), reason="the compiled loop of implicit MCCFR is not built")

#: seconds: a weak bot, 12 deals a match
TINY = replace(SETUPS["reduced"], lookup_iterations=2000, deals=12)
README = Path(__file__).resolve().parents[2] / "README.md"


def _exact(cell: str) -> float:
    """The exact value of an ``AIVAT; exact`` cell, checking that AIVAT with exact references has no spread."""
    aivat, exact = cell.split("; ")
    mean, width = aivat.split(" ± ")
    assert width == "0" and abs(float(mean) - float(exact)) <= 0.5 + 1e-9
    return float(exact)


@pytest.mark.slow
def test_exact_no_responder_beats_the_best_response_and_a_second_run_retraining_replaying_and_resuming_gives_the_same_table(tmp_path):
    setup = replace(TINY, deals=4)
    first = cdbr_hunl(setup=setup, seed=2, checkpoint=tmp_path)
    assert EXPERIMENTS["cdbr-hunl"] is cdbr_hunl
    rows = {r[0]: r for r in first.rows}
    best = float(rows["best response (exact)"][1])
    values = [_exact(rows[name][1]) for name in ("LBR = CDBR1 (FCPA)", "CDBR2 (FCPA)", "CDBR3 (FCPA)")]
    assert best > 0 and all(v <= best + 0.05 for v in values)
    for name, v in zip(("LBR = CDBR1 (FCPA)", "CDBR2 (FCPA)", "CDBR3 (FCPA)"), values):
        assert rows[name][2] == f"{100.0 * v / best:.1f} %" or abs(float(rows[name][2][:-2]) - 100 * v / best) < 0.1
    assert "+1,774 ± 137" in rows["CDBR3 (FCPA)"] and any("SlumBot" in n for n in first.notes)

    folder = next(tmp_path.iterdir())
    files = sorted(folder.glob("match-*.json"))
    assert len(files) == 3 and (folder / "lookup.npz").is_file()
    # The same table again: the bot's blueprint trained anew, one match played again as if the run had stopped before
    # it ended, one file of an earlier version played again, not read back, and one read back
    for name in ("lookup.npz", "lookup-buckets.npz"):
        (folder / name).unlink(missing_ok=True)
    files[0].unlink()
    kept = json.loads(files[1].read_text())
    older = {k: v for k, v in json.loads(files[2].read_text()).items() if k != "format"}
    files[2].write_text(json.dumps(older))
    asked = {f: f.stat().st_mtime_ns for f in folder.glob("behaviour-*.npz")}  # the bot's and each responder's
    assert len(asked) == 4
    again: list[str] = []
    second = cdbr_hunl(setup=setup, seed=2, checkpoint=tmp_path, progress=again.append)
    assert [list(r) for r in second.rows] == [list(r) for r in first.rows]
    assert {f: f.stat().st_mtime_ns for f in folder.glob("behaviour-*.npz")} == asked  # read back: the same blueprint
    assert sum("read from" in line for line in again) == 1 and json.loads(files[1].read_text()) == kept
    assert "format" in json.loads(files[2].read_text())
    assert "blueprint read back" not in second.notes[-1] and (folder / "lookup.npz").is_file()


@pytest.mark.slow
def test_default_form_prints_the_readme_figures():
    """Every exact winrate and share the README quotes for the default form is what the code prints.

    Exact values do not depend on the number of deals, and AIVAT with exact references has no spread, so two deals a
    match (an interval needs two) stand in for the default form's 300 (a quarter of the time)."""
    text = " ".join(README.read_text().split())
    paragraph = re.search(r"- `cdbr-hunl` \(default form.*?(?= - `|$)", text)
    assert paragraph, "the README has no paragraph for cdbr-hunl (default form)"
    rows = {r[0]: r for r in cdbr_hunl(seed=0, deals=2).rows}
    for name, label in (("LBR = CDBR1 (FCPA)", "LBR"), ("CDBR2 (FCPA)", "CDBR2"), ("CDBR3 (FCPA)", "CDBR3")):
        quoted = re.search(rf"{label} \+(\d+\.\d) \((\d+\.\d) %\)", paragraph.group(0))
        assert quoted, f"no figure for {label} in the README"
        aivat, exact = rows[name][1].split("; ")
        assert aivat.endswith(" ± 0") and abs(float(aivat.split()[0]) - float(exact)) <= 0.5 + 1e-9  # no spread
        assert (f"+{quoted.group(1)}", f"{quoted.group(2)} %") == (exact, rows[name][2])
    best = re.search(r"best response \+(\d+\.\d)", paragraph.group(0))
    assert best and f"+{best.group(1)}" == rows["best response (exact)"][1]


@pytest.mark.slow
def test_a_kept_behaviour_is_read_back_for_the_same_blueprints_and_asked_again_for_others(tmp_path, monkeypatch):
    from subgame.agents.blueprint import BlueprintAgent
    from subgame.blueprint.actions import ActionAbstraction
    from subgame.experiments import hunl_matches
    from subgame.games import load_game
    from subgame.tree.compile import compile_game

    game = load_game("poker", num_ranks=3, num_suits=2, hole_cards=1, board_cards=(0, 1, 1, 1), betting="nolimit", ante=0,
                     blinds=(2, 1), stack=6, bet_fractions=(1.0,), all_in=True, first_player=(1, 0, 0, 0), raise_cap=1)
    tree = compile_game(game)
    actions = ActionAbstraction.of_spec(game.spec)
    (bp, ab, _), (other, _, _) = (hunl_matches.trained_blueprint(None, "x", game, actions, None, 200, s) for s in (0, 1))
    asked: list[int] = []
    real = hunl_matches.agent_strategy
    monkeypatch.setattr(hunl_matches, "agent_strategy", lambda *a, **k: asked.append(1) or real(*a, **k))
    agent = BlueprintAgent(game, bp, ab, name="bot")
    first = hunl_matches.behaviour(agent, game, tree, 0, tmp_path, "bot", (bp,))
    assert len(asked) == 2 and len(list(tmp_path.glob("behaviour-*.npz"))) == 1
    again = hunl_matches.behaviour(agent, game, tree, 0, tmp_path, "bot", (bp,))
    assert len(asked) == 2 and all(np.array_equal(a, b) for a, b in zip(again.probs, first.probs))  # read back
    hunl_matches.behaviour(agent, game, tree, 0, tmp_path, "bot", (other,))  # another blueprint: asked again
    hunl_matches.behaviour(agent, game, tree, 0, tmp_path, "lookup", (bp,))  # another place in the table: its own file
    assert len(asked) == 6 and len(list(tmp_path.glob("behaviour-*.npz"))) == 2
    for kept in tmp_path.glob("behaviour-*.npz"):
        kept.write_bytes(b"not a strategy")  # damaged files of the run: asked again and written anew
    hunl_matches.behaviour(agent, game, tree, 0, tmp_path, "lookup", (bp,))
    assert len(asked) == 8 and hunl_matches.behaviour(agent, game, tree, 0, tmp_path, "lookup", (bp,)) and len(asked) == 8
