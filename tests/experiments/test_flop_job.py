"""Flop re-solving as a job, on a 9-card flop hold'em whose whole tree compiles: exact, resumable, sampled."""

from __future__ import annotations

import os
import signal
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest

from subgame.errors import SubgameError
from subgame.eval import exploitability
from subgame.experiments.exploit import uniform_strategy
from subgame.experiments.flop_job import Eta, GadgetResolves, Splice, TreeRows, eta_text, run_flop_job
from subgame.games import load_game
from subgame.resolving import resolve_all
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.compile import compile_game


@pytest.fixture(scope="module")
def small():
    game = load_game("nlfh", num_ranks=3, num_suits=3, stack=400)
    tree = compile_game(game)
    return game, tree, CFRSolver(tree, CFR_PLUS).run(30).average_strategy()


METHODS, ITERATIONS = ("unsafe", "resolve", "distributional", "reach-maxmargin"), 20  # CBV, blueprint value, preflop gifts


@pytest.fixture(scope="module")
def exact(small, tmp_path_factory):
    game, tree, blueprint = small
    seen = []
    folder = tmp_path_factory.mktemp("flops")
    r = run_flop_job(game, TreeRows(tree, blueprint), blueprint_id="bp", methods=METHODS, iterations=ITERATIONS,
                     checkpoint=folder, progress=lambda done, total, eta: seen.append((done, total, eta)))
    return r, seen, folder


def test_every_flop_re_solved_as_a_task_gives_the_whole_tree_exploitability(small, exact):
    game, tree, blueprint = small
    r, seen, folder = exact
    assert r.exact and r.flops == r.total_flops == 84 and r.resumed == 0
    by = {e.method: e for e in r.estimates}
    assert by["blueprint"].exploitability == pytest.approx(exploitability(tree, blueprint).exploitability, abs=1e-9)
    for method in METHODS:  # the same re-solves as one forest of every flop, exactly
        whole = exploitability(tree, resolve_all(game, tree, blueprint, method, iterations=ITERATIONS)).exploitability
        assert by[method].exploitability == pytest.approx(whole, abs=1e-9)
        assert by[method].low == by[method].high == by[method].exploitability
    assert by["unsafe"].exploitability > by["blueprint"].exploitability > by["resolve"].exploitability
    assert seen[-1][:2] == (84, 84) and seen[-1][2] == (0.0, 0) and len(list(folder.glob("flop-*.npz"))) == 84
    assert any(eta.seconds > 0 and eta.untimed == 84 for *_, eta in seen)  # the blueprint's pass timed, the re-solves not yet


def test_a_sample_of_flops_estimates_the_table_with_an_interval_and_resumes(small, exact, tmp_path):
    game, tree, blueprint = small
    rows = TreeRows(tree, blueprint)
    value = {e.method: e.exploitability for e in exact[0].estimates}
    kw = {"blueprint_id": "bp", "methods": METHODS, "iterations": ITERATIONS, "flops": 20, "seed": 3}
    first = run_flop_job(game, rows, checkpoint=tmp_path, **kw)
    assert not first.exact and first.flops == 20 and first.resumed == 0
    for e in first.estimates[1:]:
        assert e.low <= value[e.method] <= e.high  # the interval holds the exact value
    resolve = first.estimates[2]
    assert resolve.high - resolve.low < 0.25 * value["resolve"]  # the blueprint as control variate keeps it narrow
    assert first.estimates[0].exploitability == pytest.approx(value["blueprint"], abs=1e-9)  # evaluated at every flop
    next(p for p in sorted(tmp_path.glob("flop-*.npz")) if "resolve/0.npy" in zipfile.ZipFile(p).namelist()).unlink()  # a re-solved flop, lost
    again = run_flop_job(game, rows, checkpoint=tmp_path, **kw)
    assert again.resumed == 19 and again.estimates == first.estimates
    everything = run_flop_job(game, rows, checkpoint=tmp_path, **{**kw, "flops": 84})  # the sample's flops are kept
    assert everything.resumed == 20 and everything.estimates == exact[0].estimates
    with pytest.raises(SubgameError, match="another job"):
        run_flop_job(game, rows, checkpoint=tmp_path, **{**kw, "blueprint_id": "another"})


def test_a_folder_keeps_each_methods_values_under_its_own_settings(small, tmp_path):
    """A job with fewer methods, or another setting of a method, over a folder: what it computes as before is read
    back, what it computes otherwise is computed again, and the values of methods it does not compute stay."""
    game, tree, blueprint = small
    rows = TreeRows(tree, blueprint)
    kw = {"blueprint_id": "bp", "flops": 5, "seed": 4, "checkpoint": tmp_path}
    both = run_flop_job(game, rows, methods=("unsafe", "resolve"), iterations=ITERATIONS, **kw)
    fewer = run_flop_job(game, rows, methods=("resolve",), iterations=ITERATIONS, **kw)
    assert both.resumed == 0 and fewer.resumed == 5 and fewer.estimates == (both.estimates[0], both.estimates[2])
    other = run_flop_job(game, rows, methods=("unsafe",), iterations=ITERATIONS + 5, **kw)  # unsafe computed otherwise
    assert other.resumed == 0 and other.estimates[1] != both.estimates[1]
    again = run_flop_job(game, rows, methods=("resolve",), iterations=ITERATIONS, **kw)  # resolve's values kept beside
    assert again.resumed == 5 and again.estimates == fewer.estimates


def test_a_folder_of_the_first_format_is_read_and_upgraded(small, tmp_path):
    """Flop files with one hash of the whole job (sha-256 of the game, the plug-in's identity and the blueprint) are
    read back by the same job and rewritten with a hash per method; another job's are refused."""
    import hashlib
    import json

    from subgame.experiments.flop_job import FLOP_EXPECTED, FLOP_FORMAT, FLOP_VERSION
    from subgame.files import read_npz, write_npz

    game, tree, blueprint = small
    rows = TreeRows(tree, blueprint)
    kw = {"blueprint_id": "bp", "methods": ("resolve",), "iterations": ITERATIONS, "flops": 3, "seed": 1}
    first = run_flop_job(game, rows, checkpoint=tmp_path / "a", **kw)

    def first_format(folder, identity):
        job = hashlib.sha256(json.dumps([game.name, game.params, identity, "bp"], sort_keys=True,
                                        default=list).encode()).hexdigest()[:16]
        for path in folder.glob("flop-*.npz"):
            header, arrays = read_npz(path, format=FLOP_FORMAT, version=FLOP_VERSION, kind="k", expected="e")
            write_npz(path, {**header, "job": job, "methods": ["resolve"], "identity": repr(identity)}, arrays)
        return sorted(folder.glob("flop-*.npz"))

    paths = first_format(tmp_path / "a", [["resolve"], ITERATIONS])
    again = run_flop_job(game, rows, checkpoint=tmp_path / "a", **kw)
    assert again.resumed == 3 and again.estimates == first.estimates
    for path in paths:  # the sampled flops with resolve's values, the others with the blueprint's alone
        header, arrays = read_npz(path, format=FLOP_FORMAT, version=FLOP_VERSION, kind="k", expected=FLOP_EXPECTED)
        assert isinstance(header["methods"], dict) and set(header["methods"]) == ({"resolve"} & {n[:-2] for n in arrays})
    assert sum("resolve/0.npy" in zipfile.ZipFile(path).namelist() for path in paths) == 3
    run_flop_job(game, rows, checkpoint=tmp_path / "b", **kw)
    first_format(tmp_path / "b", [["resolve"], ITERATIONS + 1])
    with pytest.raises(SubgameError, match="another job"):
        run_flop_job(game, rows, checkpoint=tmp_path / "b", **kw)


def test_isomorphic_blueprint_pass_equals_the_pass_over_every_flop(small):
    game, tree, _ = small
    rows = TreeRows(tree, uniform_strategy(tree))
    plain = run_flop_job(game, rows, blueprint_id="u", methods=("resolve",), iterations=5, flops=4)
    iso = run_flop_job(game, rows, blueprint_id="u", methods=("resolve",), iterations=5, flops=4, isomorphic=True, workers=2)
    assert [e.exploitability for e in iso.estimates] == pytest.approx([e.exploitability for e in plain.estimates], abs=1e-9)


def test_every_flop_re_solved_once_per_suit_class_equals_every_flop_re_solved(small, exact, tmp_path):
    """With isomorphism and every flop asked, one flop per suit class is re-solved and stands for its class's flops
    (suit-permuted): the exploitability of every method is that of re-solving all 84 flops. With a checkpoint folder
    the job keeps no flop's values in memory and sums them read back from the folder, to the same bits."""
    game, tree, blueprint = small
    kw = {"blueprint_id": "bp", "methods": METHODS, "iterations": ITERATIONS, "isomorphic": True}
    iso = run_flop_job(game, TreeRows(tree, blueprint), **kw)
    assert iso.exact and iso.flops == 84 and iso.classes < 84 // 2
    assert [e.exploitability for e in iso.estimates] == pytest.approx([e.exploitability for e in exact[0].estimates],
                                                                       rel=1e-9, abs=1e-12)
    assert exact[0].classes == 84
    assert run_flop_job(game, TreeRows(tree, blueprint), checkpoint=tmp_path, **kw).estimates == iso.estimates


def test_a_sample_valued_by_its_suit_classes_re_solves_equals_the_sample_re_solved(small, tmp_path):
    """sample_by_class: after every class was re-solved, a sample of flops costs no re-solve (each sampled flop is its
    class's re-solve, suit-permuted) and gives the estimate and interval of re-solving the sampled flops themselves."""
    game, tree, blueprint = small
    rows = TreeRows(tree, blueprint)
    kw = {"blueprint_id": "bp", "methods": METHODS, "iterations": ITERATIONS, "isomorphic": True}
    every = run_flop_job(game, rows, checkpoint=tmp_path, **kw)
    for seed in (1, 2):
        own = run_flop_job(game, rows, flops=12, seed=seed, **kw)
        by_class = run_flop_job(game, rows, flops=12, seed=seed, checkpoint=tmp_path, sample_by_class=True, **kw)
        assert by_class.flops == own.flops == 12 and by_class.seconds_per_flop == 0.0  # nothing re-solved
        for a, b in zip(by_class.estimates, own.estimates):
            assert a.method == b.method
            assert (a.exploitability, a.low, a.high) == pytest.approx((b.exploitability, b.low, b.high), rel=1e-9, abs=1e-12)
    assert by_class.estimates[0] == every.estimates[0]  # the blueprint: exact either way
    with pytest.raises(SubgameError, match="isomorphic=True"):
        run_flop_job(game, rows, **{**kw, "isomorphic": False}, flops=12, sample_by_class=True)


def test_a_stop_signal_ends_the_job_after_the_flops_under_way_and_it_resumes(small, exact, tmp_path):
    """SIGTERM during a job: the flops finished are written, the job stops (KeyboardInterrupt) instead of going on, and
    a run with the same folder resumes to the uninterrupted table."""
    game, tree, blueprint = small
    kw = {"blueprint_id": "bp", "methods": METHODS, "iterations": ITERATIONS, "checkpoint": tmp_path}

    def stop_once(done, total, eta):
        if done == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt, match="stopped by signal"):
        run_flop_job(game, TreeRows(tree, blueprint), progress=stop_once, **kw)
    resolved = [p for p in tmp_path.glob("flop-*.npz") if "resolve/0.npy" in zipfile.ZipFile(p).namelist()]
    assert len(resolved) == 2 and signal.getsignal(signal.SIGTERM) == before  # (and every flop's blueprint: the gifts')
    again = run_flop_job(game, TreeRows(tree, blueprint), **kw)
    assert again.resumed == 2 and again.estimates == exact[0].estimates  # the flops summed in one order: bit for bit


@dataclass(frozen=True)
class ResolveAsControl(GadgetResolves):
    """Resolve valued at every flop, the control variate of the other methods' samples."""

    @property
    def control(self) -> str:
        return "resolve"


def test_a_plug_ins_control_is_valued_at_every_flop_and_the_others_sampled_about_it(small, exact, tmp_path):
    game, tree, blueprint = small
    rows = TreeRows(tree, blueprint)
    value = {e.method: e.exploitability for e in exact[0].estimates}
    job = run_flop_job(game, rows, blueprint_id="bp", methods=ResolveAsControl(METHODS, ITERATIONS), flops=20, seed=3,
                       checkpoint=tmp_path)
    by = {e.method: e for e in job.estimates}
    assert by["resolve"].low == by["resolve"].high == pytest.approx(value["resolve"], abs=1e-9)  # exact
    assert by["unsafe"].low < by["unsafe"].high and all(by[m].low <= value[m] <= by[m].high for m in METHODS)
    assert job.seconds_per_flop > 0 and len(list(tmp_path.glob("flop-*.npz"))) == 84  # every flop valued and written
    with pytest.raises(SubgameError, match="control variate 'resolve' is none of its methods"):
        run_flop_job(game, rows, blueprint_id="bp", methods=ResolveAsControl(("unsafe",), ITERATIONS), flops=3)


@dataclass(frozen=True)
class Spliced(GadgetResolves):
    """Splices of unsafe into resolve at every chance node of the trunk, at none and at every other one."""

    chance_nodes: int = 0
    clash: bool = False

    @property
    def splices(self) -> tuple[Splice, ...]:
        every = np.ones(self.chance_nodes, dtype=bool)
        if self.clash:
            return (Splice("resolve", "unsafe", "resolve", every),)
        alternate = every.copy()
        alternate[::2] = False
        return (Splice("all", "unsafe", "resolve", every), Splice("none", "unsafe", "resolve", ~every),
                Splice("half", "unsafe", "resolve", alternate))


def test_a_splice_of_two_methods_is_measured_from_their_values(small, exact, tmp_path):
    """In every row it is its inner method, in none its outer one, exactly and sampled alike (interval included); in
    some rows a strategy of its own. A splice without two of the plug-in's methods, or named as one, is refused."""
    from subgame.tree.board_cut import BoardCut

    game, tree, blueprint = small
    rows = TreeRows(tree, blueprint)
    C = len(BoardCut.of(game).chance)
    assert C > 1
    plugin = Spliced(METHODS, ITERATIONS, C)
    for flops in (None, 20):
        job = run_flop_job(game, rows, blueprint_id="bp", methods=plugin, flops=flops, seed=3, checkpoint=exact[2])
        by = {e.method: (e.exploitability, e.low, e.high) for e in job.estimates}
        assert job.resumed == job.flops  # every flop read back: a splice costs no re-solve
        assert by["all"] == by["unsafe"] and by["none"] == by["resolve"]
        assert len({round(by[m][0], 9) for m in ("half", "unsafe", "resolve")}) == 3
    with pytest.raises(SubgameError, match="the splice 'resolve' needs two of the plug-in's methods"):
        run_flop_job(game, rows, blueprint_id="bp", methods=Spliced(METHODS, ITERATIONS, C, clash=True), flops=3)


def test_bad_job_settings_are_refused_with_a_clear_message(small):
    game, tree, blueprint = small
    with pytest.raises(SubgameError, match="unknown flop re-solving method"):
        run_flop_job(game, TreeRows(tree, blueprint), blueprint_id="bp", methods=("bogus",))
    with pytest.raises(SubgameError, match=">= 1"):
        run_flop_job(game, TreeRows(tree, blueprint), blueprint_id="bp", flops=0)


def test_a_progress_line_says_the_time_left_only_once_it_is_measured():
    assert eta_text(Eta(90.0)) == "about 1.5 min left" and eta_text(Eta(0.0, 4)).startswith("time left known after")
    assert eta_text(Eta(90.0, 4)) == "about 1.5 min left and 4 flop(s) of a kind not timed yet"  # the re-solves, say


def test_the_time_left_follows_the_recent_batches_not_a_pause_long_ago():
    """A batch that took 1,000 s a flop (the machine asleep, say) stops counting after RECENT_BATCHES faster ones."""
    from collections import deque

    from subgame.experiments.flop_job import RECENT_BATCHES, FlopTask, _seconds_left

    left = [FlopTask(None, None, None, (d,), None, (), None, {}) for d in range(10)]  # type: ignore[arg-type]
    recent = {True: deque([(1000.0, 1)], maxlen=RECENT_BATCHES), False: deque(maxlen=RECENT_BATCHES)}
    assert _seconds_left(recent, left, lambda t: True) == Eta(10 * 1000.0)
    for _ in range(RECENT_BATCHES - 1):
        recent[True].append((2.0, 1))
    assert _seconds_left(recent, left, lambda t: True).seconds > 10 * 100
    recent[True].append((2.0, 1))
    assert _seconds_left(recent, left, lambda t: True) == Eta(10 * 2.0)
    assert _seconds_left(recent, left, lambda t: False) == Eta(0.0, 10)  # evaluations not timed yet
