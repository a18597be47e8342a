"""Table 1 of the safe-and-nested paper on No-Limit Flop Hold'em: every flop re-solved as a job.

Brown & Sandholm 2017 §7, Table 1 and Appendix E: blueprints with a lossless preflop and
200, 2,000 or 30,000 flop buckets, each flop subgame re-solved right after the flop cards
by each technique, the combined strategy's exact exploitability in the real game. Here:

* **Action abstractions** (the paper's Appendix G is not in our extract): both keep a
  pot-sized bet or all-in preflop and at most two bets or raises a round; *small* NLFH bets
  one pot or all-in on the flop, *large* NLFH half a pot, one pot or all-in
  (:data:`ACTION_SETS`). Stacks 200 big blinds, as the paper.
* **Blueprints**: :class:`~subgame.blueprint.card_abstraction.CardBuckets` with 169
  preflop buckets (lossless: the suit-isomorphism classes) and ``B`` OCHS flop buckets,
  solved by board sampling (:class:`~subgame.blueprint.board_sampling.BoardSamplingPCS`,
  linear weighting, one flop per pass) for a fixed number of passes: the sampled solver
  converges where whole-abstraction CFR+ does not fit.
* **Re-solving**: every flop (or a seeded sample of K flops) as one task of
  :func:`~.flop_job.run_flop_job`, with every method of the paper's Table 1 (the reach
  methods' gifts from the blueprint's values at every flop, :func:`~.flop_job.trunk_gifts`); the
  blueprint's own values at one flop per suit class (the buckets are suit-invariant).

Everything (buckets, blueprint, finished flops) is kept in the checkpoint folder, so a run
with the same folder resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from ..blueprint.board_sampling import BoardSamplingPCS
from ..blueprint.card_abstraction import BucketStrategy, CardBuckets
from ..errors import GameDefinitionError
from ..games import load_game
from ..games.poker import PokerGame
from ..solve import driver
from ..tree.public_tree import PublicTree
from .flop_job import Eta, FlopJobResult, eta_text, run_flop_job
from .report import ExperimentResult, Series

#: Our small and large NLFH (the paper's Appendix G is not in the extract): ``nlfh`` parameters.
ACTION_SETS: dict[str, dict[str, Any]] = {
    "small": {"preflop_fractions": (1.0,), "flop_fractions": (1.0,), "all_in": True, "raise_cap": 2},
    "large": {"preflop_fractions": (1.0,), "flop_fractions": (0.5, 1.0), "all_in": True, "raise_cap": 2},
}
#: Flop buckets of the paper's blueprints (Appendix E); the quick form takes the first.
PAPER_BUCKETS = (200, 2000, 30000)
#: Safe-and-nested paper, Table 1, NLFH small and large (mbb/hand), for the methods a flop job runs.
PAPER_NLFH: dict[str, tuple[float, float]] = {
    "blueprint": (91.28, 41.41), "unsafe": (5.514, 396.8), "resolve": (54.07, 23.11), "maxmargin": (43.43, 19.50),
    "reach-maxmargin": (41.47, 18.80), "reach-maxmargin-nosplit": (25.88, 16.41),
    "estimate": (24.23, 30.09), "distributional": (34.30, 10.54),
    "reach-estimate-distributional": (22.58, 9.840), "reach-estimate-distributional-nosplit": (17.33, 8.777),
}
#: The methods of the paper's Table 1, in its order (``distributional`` is its Estimate + Distributional).
TABLE_1_METHODS = tuple(m for m in PAPER_NLFH if m != "blueprint")


class BucketRows:
    """A card-abstracted blueprint as a picklable row source (its bucket's row at every information set).

    Given the file the blueprint was saved in, it pickles as that path and each process reads the file once: a flop
    job sends one with every task, and a 30,000-bucket blueprint pickles to 100 MiB in two seconds.
    """

    def __init__(self, game: PokerGame, blueprint: BucketStrategy, path: Path | None = None) -> None:
        self.game, self._blueprint, self.path = game, blueprint, path

    @property
    def blueprint(self) -> BucketStrategy:
        if self._blueprint is None:
            assert self.path is not None
            self._blueprint = _read_blueprint(str(self.path), self.path.stat().st_mtime_ns)
        return self._blueprint

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_blueprint": None} if self.path is not None else self.__dict__

    def __call__(self, tree: PublicTree, player: int) -> np.ndarray:
        return self.blueprint.rows(self.game, tree, player)


@cache
def _read_blueprint(path: str, modified_ns: int) -> BucketStrategy:
    """The blueprint saved at ``path``, read once per process and version of the file."""
    return BucketStrategy.load(path)[0]


def nlfh_buckets(game: PokerGame, flop_buckets: int, seed: int) -> CardBuckets:
    """Lossless preflop buckets (the 169 classes, or every pair on a smaller deck) and ``flop_buckets`` OCHS flop buckets
    (at most one per flop class)."""
    n, h = game.spec.deck_size, game.spec.hole_cards
    return CardBuckets.build(game, (min(169, comb(n, h)), min(flop_buckets, comb(n, 3) * comb(n - 3, h))), seed=seed)


def nlfh_blueprint(game: PokerGame, flop_buckets: int, passes: int, seed: int, folder: Path | None,
                   progress: Callable[[str], None] | None = None) -> BucketStrategy:
    """A lossless-preflop, ``flop_buckets``-bucket blueprint by ``passes`` of board sampling; read from ``folder`` if there
    (one made with other settings is refused: a checkpoint folder belongs to one blueprint).

    With a folder the passes are a job of their own: their solver is written there (``blueprint-passes.npz``) every
    five minutes and on a stop signal, a run with the folder goes on from it bitwise, and ``progress`` hears how far it
    is with the time left.

    Raises:
        KeyboardInterrupt: a stop signal (SIGINT, SIGTERM, SIGHUP) ended the passes, their solver written first.
    """
    path = None if folder is None else folder / "blueprint.npz"
    if path is not None and path.exists():
        blueprint, meta = BucketStrategy.load(path)
        want = {"passes": passes, "seed": seed, "flop_buckets": flop_buckets}
        if {k: meta.get(k) for k in want} != want:
            raise GameDefinitionError(f"{path} is a blueprint of {', '.join(f'{k} {meta.get(k)}' for k in want)}, not of "
                                      f"{', '.join(f'{k} {v}' for k, v in want.items())}: give this job another "
                                      "checkpoint folder, or remove that file to make the blueprint again")
        return blueprint
    buckets = nlfh_buckets(game, flop_buckets, seed)
    partial = None if folder is None else folder / "blueprint-passes.npz"
    if partial is not None and partial.exists():
        solver = BoardSamplingPCS.load_checkpoint(partial, game, buckets)
        if solver.iteration > passes:
            raise GameDefinitionError(f"{partial} holds {solver.iteration:,} passes, more than the {passes:,} asked: give "
                                      "this job another checkpoint folder, or remove that file to start the blueprint again")
    else:
        solver = BoardSamplingPCS(game, buckets, seed=seed, boards_per_pass=1)
    first, started, every = solver.iteration, time.perf_counter(), max(passes // 100, 1)

    def tick(done: int) -> None:
        if progress is not None and (done % every == 0 or done == passes):
            rate = (time.perf_counter() - started) / (done - first)
            progress(f"blueprint, {flop_buckets:,} flop buckets: {done:,} of {passes:,} passes, "
                     f"{eta_text(Eta(rate * (passes - done)))}")

    run = driver.run(solver, driver.Budget(iterations=passes), checkpoint=partial,
                     checkpoint_every=driver.Cadence(seconds=300), progress=tick)
    if run.interrupted:
        raise KeyboardInterrupt(f"stopped after {solver.iteration:,} of {passes:,} passes of the blueprint"
                                + ("" if partial is None else f", written to {partial}: run again with that folder"))
    blueprint = solver.blueprint()
    if path is not None:
        blueprint.save(path, passes=passes, seed=seed, flop_buckets=flop_buckets)
    if partial is not None:
        partial.unlink(missing_ok=True)  # the blueprint file stands for it now
    return blueprint


def nlfh_technique_table(
    *,
    full: bool = False,
    seed: int = 0,
    flops: int | None = None,
    workers: int = 1,
    checkpoint: str | Path | None = None,
    num_ranks: int = 13,
    num_suits: int = 4,
    action_sets: Sequence[str] = tuple(ACTION_SETS),
    buckets: Sequence[int] | None = None,
    blueprint_passes: int | None = None,
    subgame_iterations: int | None = None,
    methods: Sequence[str] = TABLE_1_METHODS,
    progress: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """Table 1 on NLFH: each action set × flop bucket count, every flop (or ``flops`` sampled) re-solved by each method.

    Quick form (default): 200 flop buckets, 1,000 passes of board sampling, 100 CFR+
    iterations per re-solve and ``flops`` = 6 sampled flops; ``full``: 200, 2,000 and 30,000
    buckets, 20,000 passes, 200 iterations, and every flop unless ``flops`` is given.
    """
    if any(a not in ACTION_SETS for a in action_sets):
        raise GameDefinitionError(f"action sets are: {', '.join(ACTION_SETS)}; got {list(action_sets)}")
    counts = tuple(buckets or (PAPER_BUCKETS if full else PAPER_BUCKETS[:1]))
    passes = blueprint_passes or (20_000 if full else 1_000)
    its = subgame_iterations or (200 if full else 100)
    k = flops if flops is not None or full else 6
    root = None if checkpoint is None else Path(checkpoint)
    rows: list[tuple[object, ...]] = []
    notes: list[str] = []
    started = time.perf_counter()
    for name in action_sets:
        game = load_game("nlfh", num_ranks=num_ranks, num_suits=num_suits, **ACTION_SETS[name])
        if not isinstance(game, PokerGame):
            raise GameDefinitionError(f"nlfh is not a poker game here ({type(game).__name__})")
        bb = float(max(game.spec.blinds))
        for count in counts:
            folder = None if root is None else root / f"{name}-{count}"
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            blueprint = nlfh_blueprint(game, count, passes, seed, folder, progress)
            setup_s = time.perf_counter() - t0

            def tick(done: int, total: int, eta: Eta, label: str = f"{name}, {count} buckets") -> None:
                if progress is not None:
                    progress(f"{label}: {done:,} of {total:,} flops evaluated, {eta_text(eta)}")

            source = BucketRows(game, blueprint, None if folder is None else folder / "blueprint.npz")
            job = run_flop_job(game, source, blueprint_id=f"{name}-{count}-{passes}-{seed}",
                               methods=methods, iterations=its, flops=k, isomorphic=True, seed=seed, workers=workers,
                               checkpoint=None if folder is None else folder / "flops", progress=tick)
            col = 0 if name == "small" else 1
            for e in job.estimates:
                paper = PAPER_NLFH.get(e.method, ("", ""))[col]
                rows.append((name, count, e.method, 1000 * e.exploitability / bb, 1000 * e.low / bb, 1000 * e.high / bb, paper))
            notes.append(_job_note(name, count, job, setup_s, workers))
    series = [Series(f"{a}, {c} buckets", list(range(1 + len(methods))), [float(r[3]) for r in rows if (r[0], r[1]) == (a, c)])  # type: ignore[arg-type]
              for a, c in dict.fromkeys((r[0], r[1]) for r in rows)]
    return ExperimentResult(
        "technique-table",
        "Exploitability of subgame-solving techniques on No-Limit Flop Hold'em (safe-and-nested paper, Table 1)",
        ("action set", "flop buckets", "method", "ours (mbb/hand)", "95% low", "95% high", "paper (mbb/hand)"),
        rows, series=series, xlabel="method", ylabel="exploitability (mbb/hand)", logx=False, logy=True,
        xticklabels=("blueprint", *methods),
        setup=(f"Game: NLFH, {num_ranks} ranks × {num_suits} suits, 200 big blinds; small: pot or all-in on the flop, "
               "large: half pot, pot or all-in; both pot or all-in preflop, two bets or raises a round (ours: the "
               "paper's Appendix G is not in the extract).",
               f"Blueprints: 169 preflop buckets (lossless), OCHS flop buckets, {passes:,} passes of board sampling "
               f"(linear CFR, one flop a pass), seed {seed}; each flop re-solved for both players right after the flop "
               f"cards with {its} CFR+ iterations. Exploitability exact in the real game (NashConv / 2) where every flop "
               "was re-solved; else the sampled estimate and its 95% interval (blueprint values at every flop as "
               "control variate).",
               "Differs from the paper: our action sets; fewer blueprint iterations; distributional is our reading "
               "of Appendix C (not in our extract); no split gives every subgame the whole gift, where the paper "
               "scales the split share by 1,755."),
        notes=(*notes, f"Wall time {time.perf_counter() - started:.0f} s."),
    )


def nlfh_sample_study(
    *,
    checkpoint: str | Path,
    seeds: Sequence[int] = tuple(range(20)),
    flops: int = 60,
    action_set: str = "small",
    buckets: int = PAPER_BUCKETS[0],
    blueprint_passes: int = 1_000,
    subgame_iterations: int = 100,
    seed: int = 0,
    num_ranks: int = 13,
    num_suits: int = 4,
    methods: Sequence[str] = TABLE_1_METHODS,
    workers: int = 1,
) -> ExperimentResult:
    """How the quick form's sampled estimate of Table 1 sits around the exact value.

    ``checkpoint`` is a folder of :func:`nlfh_technique_table` with the same settings, run with every flop: the exact
    column is read back from it (classes it lacks are re-solved), and each of ``seeds`` draws ``flops`` flops valued
    by their classes' re-solves (``run_flop_job(..., sample_by_class=True)``), so no sample re-solves anything. Per
    method: the exact value, the samples' mean and spread, and how many of their 95 % intervals hold the exact value.
    """
    if action_set not in ACTION_SETS or not seeds or flops < 1:
        raise GameDefinitionError(f"a sample study needs an action set of {', '.join(ACTION_SETS)}, seeds and flops >= 1; "
                                  f"got {action_set!r}, {list(seeds)} and {flops}")
    game = load_game("nlfh", num_ranks=num_ranks, num_suits=num_suits, **ACTION_SETS[action_set])
    if not isinstance(game, PokerGame):
        raise GameDefinitionError(f"nlfh is not a poker game here ({type(game).__name__})")
    folder = Path(checkpoint) / f"{action_set}-{buckets}"
    started = time.perf_counter()
    rows = BucketRows(game, nlfh_blueprint(game, buckets, blueprint_passes, seed, folder), folder / "blueprint.npz")
    kw: dict[str, Any] = {"blueprint_id": f"{action_set}-{buckets}-{blueprint_passes}-{seed}", "methods": methods,
          "iterations": subgame_iterations, "isomorphic": True, "workers": workers, "checkpoint": folder / "flops"}
    exact = {e.method: e.exploitability for e in run_flop_job(game, rows, **kw).estimates}
    runs = [run_flop_job(game, rows, flops=flops, seed=s, sample_by_class=True, **kw) for s in seeds]
    samples = [r.estimates for r in runs]
    mbb = 1000 / float(max(game.spec.blinds))
    table: list[tuple[object, ...]] = []
    for i, method in enumerate(methods, start=1):
        got = np.array([sample[i].exploitability for sample in samples])
        held = sum(sample[i].low <= exact[method] <= sample[i].high for sample in samples)
        table.append((method, mbb * exact[method], mbb * float(got.mean()), mbb * float(got.mean() - exact[method]),
                      mbb * float(got.std(ddof=1)) if len(got) > 1 else 0.0, f"{held} of {len(samples)}"))
    return ExperimentResult(
        "technique-table-samples",
        f"The sampled estimate of Table 1 against the exact value ({action_set} NLFH, {buckets} buckets)",
        ("method", "exact (mbb/hand)", "mean of the samples", "bias", "standard deviation", "95% intervals holding the exact"),
        table, logx=False, logy=False,
        setup=(f"{len(samples)} samples (seeds {seeds[0]}..{seeds[-1]}) of {runs[0].flops} of {runs[0].total_flops:,} "
               f"flops, each flop valued by its suit class's re-solve ({subgame_iterations} CFR+ iterations); the "
               f"blueprint {blueprint_passes:,} passes of board sampling, seed {seed}.",),
        notes=(f"Wall time {time.perf_counter() - started:.0f} s.",),
    )


def _job_note(name: str, count: int, job: FlopJobResult, setup_s: float, workers: int) -> str:
    """Where one line of the table comes from, and what re-solving every flop would take at the measured rate."""
    what = (f"every flop (exact; one per suit class re-solved, {job.classes:,})" if job.exact
            else f"{job.flops} of {job.total_flops:,} flops (sampled)")
    left = job.seconds_per_flop * job.classes / max(workers, 1)
    rate = (f"{job.seconds_per_flop:.1f} s a re-solved flop, so every flop (one per suit class) would take about {left / 3600:.1f} h at this rate"
            if job.seconds_per_flop else "no flop re-solved in this run")
    return (f"{name}, {count} buckets: {what}, {job.resumed} read back from the checkpoint; blueprint {setup_s:.0f} s; "
            f"job {job.seconds:.0f} s with {workers} worker(s), {rate}.")
