"""Table 1 on flop hold'em as a job, on a 9-card deck: the blueprint exact, the re-solved flops sampled, resumable."""

from __future__ import annotations

import os
import pickle
import signal

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.eval.board_pass import board_pass_exploitability
from subgame.experiments import flop_job
from subgame.experiments.nlfh_tables import ACTION_SETS, TABLE_1_METHODS, BucketRows, nlfh_blueprint, nlfh_sample_study, nlfh_technique_table
from subgame.games import load_game
from subgame.tree.poker_compile import compile_poker
from tests.cli.test_cli import invoke

SMALL = {"num_ranks": 3, "num_suits": 3, "action_sets": ("small",), "blueprint_passes": 100, "subgame_iterations": 10,
         "flops": 6}


def test_nlfh_technique_table_on_a_small_deck_resumes_to_the_same_table(tmp_path):
    progress: list[str] = []
    first = nlfh_technique_table(checkpoint=tmp_path, progress=progress.append, **SMALL)
    assert (tmp_path / "small-200" / "blueprint.npz").exists() and len(list((tmp_path / "small-200" / "flops").iterdir())) > 6
    assert progress and "flops evaluated" in progress[-1] and "min left" in progress[-1]
    by = {row[2]: row for row in first.rows}
    assert set(by) == {"blueprint", *TABLE_1_METHODS} and len(TABLE_1_METHODS) == 9
    game = load_game("nlfh", num_ranks=3, num_suits=3, **ACTION_SETS["small"])
    exact = board_pass_exploitability(game, BucketRows(game, nlfh_blueprint(game, 200, 100, 0, None))).exploitability
    assert by["blueprint"][3] == pytest.approx(1000 * exact.exploitability / 100, abs=1e-6)  # mbb/hand, exact
    for method in TABLE_1_METHODS:
        assert by[method][4] < by[method][5]  # sampled: an interval (a basic bootstrap's need not hold its estimate)
    assert by["blueprint"][6] == 91.28 and by["estimate"][6] == 24.23 and by["reach-estimate-distributional-nosplit"][6] == 17.33
    assert "6 of 84 flops (sampled)" in first.notes[0]
    again = nlfh_technique_table(checkpoint=tmp_path, **SMALL)
    assert again.rows == first.rows and "6 read back from the checkpoint" in again.notes[0]
    with pytest.raises(GameDefinitionError, match="blueprint of passes 100, seed 0, flop_buckets 200, not of passes 200"):
        nlfh_technique_table(checkpoint=tmp_path, **{**SMALL, "blueprint_passes": 200})  # the folder's blueprint is another


def test_a_stop_signal_during_the_blueprint_writes_its_passes_and_a_run_with_the_folder_goes_on_bitwise(tmp_path):
    """SIGINT in the blueprint's passes: their solver is written and the job stops; the next run reads it and ends with
    the blueprint of an uninterrupted run, bit for bit, reporting its passes with the time left."""
    game = load_game("nlfh", num_ranks=3, num_suits=3, **ACTION_SETS["small"])
    whole = nlfh_blueprint(game, 200, 60, 0, None)
    heard: list[str] = []

    def stop_at_30(line: str) -> None:
        heard.append(line)
        if " 30 of 60 passes" in line:
            os.kill(os.getpid(), signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt, match="stopped after 30 of 60 passes of the blueprint, written to"):
        nlfh_blueprint(game, 200, 60, 0, tmp_path, stop_at_30)
    assert (tmp_path / "blueprint-passes.npz").is_file() and not (tmp_path / "blueprint.npz").exists()
    assert signal.getsignal(signal.SIGINT) == before
    assert heard[0].startswith("blueprint, 200 flop buckets: 1 of 60 passes, about") and "min left" in heard[0]
    with pytest.raises(GameDefinitionError, match="holds 30 passes, more than the 20 asked"):
        nlfh_blueprint(game, 200, 20, 0, tmp_path)
    went_on: list[str] = []
    resumed = nlfh_blueprint(game, 200, 60, 0, tmp_path, went_on.append)
    assert went_on[0].startswith("blueprint, 200 flop buckets: 31 of 60 passes") and " 60 of 60 passes" in went_on[-1]
    assert (tmp_path / "blueprint.npz").is_file() and not (tmp_path / "blueprint-passes.npz").exists()
    for p in (0, 1):
        np.testing.assert_array_equal(resumed.probs[p], whole.probs[p])
    # a job's row source pickles as the blueprint's file, which each process reads once: the same rows
    source = BucketRows(game, resumed, tmp_path / "blueprint.npz")
    sent = pickle.dumps(source)
    assert len(sent) < len(pickle.dumps(resumed)) // 10
    tree = compile_poker(game, board=(0, 1, 2))
    for p in (0, 1):
        np.testing.assert_array_equal(pickle.loads(sent)(tree, p), source(tree, p))


def test_the_sample_study_sets_seeded_samples_against_the_exact_table(tmp_path):
    """Every class re-solved once, then 5 seeded samples of 6 flops valued from the folder (sample_by_class: no
    re-solve; tests/experiments/test_flop_job.py holds such a sample to the sample re-solved): the exact column is the
    every-flop table's, the samples spread around it, and the study repeats to the bit."""
    settings = {k: v for k, v in SMALL.items() if k not in ("flops", "action_sets")}
    methods = ("unsafe", "maxmargin")
    every = nlfh_technique_table(checkpoint=tmp_path, flops=84, methods=methods, action_sets=("small",), **settings)
    study = nlfh_sample_study(checkpoint=tmp_path, seeds=range(5), flops=6, buckets=200, methods=methods,
                              blueprint_passes=100, subgame_iterations=10, num_ranks=3, num_suits=3)
    exact = {row[2]: row[3] for row in every.rows}
    assert [row[0] for row in study.rows] == list(methods)
    for method, value, mean, bias, spread, held in study.rows:
        assert value == pytest.approx(exact[method], abs=1e-9) and bias == pytest.approx(mean - value)
        assert spread > 0 and held.endswith(" of 5")
    assert study.rows == nlfh_sample_study(checkpoint=tmp_path, seeds=range(5), flops=6, buckets=200, methods=methods,
                                           blueprint_passes=100, subgame_iterations=10, num_ranks=3, num_suits=3).rows
    with pytest.raises(GameDefinitionError, match="action set"):
        nlfh_sample_study(checkpoint=tmp_path, action_set="huge")


def test_reproduce_takes_the_flop_options_only_where_they_mean_something(tmp_path):
    refused = invoke("reproduce", "cfr-d", "--flops", "3", "--out-dir", tmp_path)
    assert refused.exit_code != 0 and "takes no --flops" in refused.output
    leduc = invoke("reproduce", "technique-table", "--flops", "3", "--out-dir", tmp_path)
    assert leduc.exit_code != 0 and "--flops and --checkpoint-dir are for nlfh" in leduc.output


def test_a_reach_method_whose_problems_are_its_counterparts_is_not_solved_again(tmp_path, monkeypatch):
    """Where a flop's gifts are zero, reach-maxmargin's problems are maxmargin's bit for bit: solved once, equal rows."""
    solves = []
    real = flop_job.resolve_subgame

    def counted(*args, **kwargs):
        solves.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(flop_job, "resolve_subgame", counted)
    methods = ("maxmargin", "reach-maxmargin")
    table = nlfh_technique_table(checkpoint=tmp_path, methods=methods, **SMALL)
    by = {row[2]: row[3:-1] for row in table.rows}  # ours, without the paper's
    assert by["reach-maxmargin"] == by["maxmargin"] != by["blueprint"]  # no gift at these flops' roots
    assert len(solves) == 2 * SMALL["flops"]  # one re-solve a player a flop, not two
