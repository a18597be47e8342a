"""Table 2 of the safe-and-nested paper on No-Limit Flop Hold'em: nested solving at every flop, as a job.

Brown & Sandholm 2017 §7, Table 2: NLFH with bets of 0.5, 0.75 and 1 pot, one bet preflop and
three on the flop, no card abstraction. A blueprint is solved in the smaller abstraction
without 0.75; the small-abstraction player meets each 0.75 bet of her opponent by randomized
pseudo-harmonic translation or by nested subgame solving (:mod:`subgame.resolving.nested`),
and the table gives the exact exploitability of her real-game strategy (both seats,
NashConv / 2). Here:

* **Off-tree bets preflop and on the flop**, as the paper: the real game bets 0.5, 0.75 or 1
  pot in both rounds. A preflop 0.75 bet opens a nested subgame holding every flop (22,100
  boards), re-solved by decomposition (:mod:`.nested_preflop`): its preflop by board sampling
  in the blueprint's buckets with the method's root gadget, each flop below it over every
  hand from that solution, and nested solving again at the flop's own 0.75 bets; translation
  translates it in the trunk and plays the translated lines' flops (tested: the whole
  game's translation, exactly, on a small deck).
* **The blueprint without card abstraction, by decomposition.** The preflop strategy is a
  board-sampling blueprint with lossless preflop buckets (169 classes) and OCHS flop
  buckets (:func:`~.nlfh_tables.nlfh_blueprint`), solved in the small abstraction; its flop
  buckets are only a means to the preflop. Each flop's blueprint is then CFR+ in the small
  abstraction over every hand, both players from the preflop's reaches: the flop subgame's
  equilibrium given the trunk (:class:`NestedResponses`), with no card abstraction.
* **Nested solving at a flop** sees that flop alone, as in play: the reach methods count the
  gifts of the opponent's flop actions before the off-tree bet (split over that flop's
  subgames); the gifts of her preflop actions, shared by every flop's subgames, are left out
  (smaller alternative payoffs, so still safe). Translation and the other methods are exactly
  the whole game's nested solving flop by flop (tested on a small deck).
* **Suit classes.** With every flop asked, one flop per suit class is solved and stands for
  its class suit-permuted: the exploitability is exact for that strategy. It is not bit for
  bit the one that solves every flop apart: CFR+ sums a permuted flop's hands in another
  order, and regret matching's cut at zero can turn that rounding into other iterates (on the
  4 × 2 test deck, 10 iterations a flop: 21.8504 against 21.8516 chips, 5e-5 of the value).
* **Which re-solves cost**: each nested method is also measured at the flop's 0.75 bets alone,
  translation answering the preflop's (:attr:`NestedResponses.splices`, from the two methods'
  values: no re-solve of its own).
* **Every flop a task** of :func:`~.flop_job.run_flop_job` (processes, checkpoints, resume,
  progress, one flop per suit class for the exact table, a seeded sample with the
  blueprint's and translation's values at every flop, translation's the control variate of
  the nested methods' sampled estimates, for ``--flops K``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..blueprint.card_abstraction import BucketStrategy
from ..errors import GameDefinitionError, SubgameError
from ..eval.board_pass import RowSource
from ..games import load_game
from ..games.poker import PokerGame
from ..resolving import BetAbstraction, NestedResult, restrict, translation_branches, translation_strategy
from ..resolving.nested import Root, WaveSolution, WaveSolutions, reachable
from ..resolving.problem import problem_key, resolve_subgame
from ..resolving.solving import blueprint_problem, blueprint_values
from ..solve import driver
from ..solve.cfr import CFR_PLUS, CFRSolver
from ..strategy import Strategy
from ..tree.board_cut import BoardCut, BoardForest
from ..tree.part import Part
from ..tree.public_tree import PublicTree
from .flop_job import Eta, Splice, Trunk, TrunkGifts, br_values, eta_text, run_flop_job
from .nested_preflop import (
    PreflopAnswer,
    PreflopResolves,
    PreflopSolve,
    Solved,
    place_solution,
    preflop_answers,
    put_rows,
)
from .nested_table import PAPER_TABLE_2, ROWS, nested_table, responses
from .nlfh_tables import nlfh_blueprint, nlfh_buckets
from .report import ExperimentResult, Series

#: The real game of Table 2 (``nlfh`` parameters): 200 big blinds, one bet preflop, three on the flop, no all-in.
REAL_GAME: dict[str, Any] = {"preflop_fractions": (0.5, 0.75, 1.0), "flop_fractions": (0.5, 0.75, 1.0), "all_in": False,
                             "round_raise_caps": (1, 3)}
#: The blueprint's abstraction: the real game without 0.75.
ABSTRACT_FRACTIONS = (0.5, 1.0)
#: Each row of the table (:data:`~.nested_table.ROWS`) by a short name, its key in the checkpoints.
NESTED_ROWS: dict[str, str] = {
    "translation": "randomized pseudo-harmonic translation", "resolve": "resolve",
    "reach-maxmargin-expensive": "reach-maxmargin (expensive)", "unsafe-expensive": "unsafe (expensive)",
    "maxmargin": "maxmargin", "reach-maxmargin": "reach-maxmargin",
}


@dataclass(frozen=True, eq=False)
class Prepared:
    """What the preflop's off-tree bets ask of every flop (:meth:`NestedResponses.prepare`): translation's before any
    flop, the nested methods' after the blueprint's values at every flop.

    Attributes:
        rows: per method, per player [I_p, A] the responder's trunk strategy in the real game.
        trunks: per method, and ``"blueprint"``, the trunk its best responders face and its reaches there.
        entering: per nested method, per player [G_p] her reach at the trunk's deals below her own off-tree preflop
            bets, as the re-solves there let her enter (the flops below are solved from it).
        translated: per player, per public node of the trunk, the nodes the responder takes it for (translation).
        off_tree: [N] the trunk's public nodes below an off-tree bet.
        off_tree_flops: [C] the same of the trunk's chance nodes (:attr:`~subgame.tree.board_cut.BoardCut.chance`).
        seconds: the time it took.
    """

    rows: dict[str, tuple[np.ndarray, np.ndarray]]
    trunks: dict[str, Trunk]
    entering: dict[str, tuple[np.ndarray, np.ndarray]]
    solves: dict[str, tuple[PreflopSolve, ...]]
    translated: tuple[list[list[tuple[int, float]]], list[list[tuple[int, float]]]]
    off_tree: np.ndarray
    off_tree_flops: np.ndarray
    seconds: float


@dataclass(frozen=True)
class NestedResponses:
    """At one flop: the blueprint, and the small-abstraction player's strategy under translation and each nested method.

    The values (:class:`~.flop_job.FlopMethods`) are the best responders' root values
    against the responder's strategy in both seats, in the real game; the blueprint's are in
    its own abstraction (the real game's 0.75 bets left out), the only game it is a strategy
    of. The blueprint at the flop is the job's row source where ``blueprint_iterations`` is
    None (a whole-game blueprint, in tests), else CFR+ with that many iterations in the
    abstraction from the preflop's reaches (module docstring).

    With ``preflop``, the real game's preflop has bets the abstraction lacks: the job first
    values the blueprint at every flop, then :meth:`prepare` meets each off-tree preflop bet
    by translation (:func:`~subgame.resolving.translation.translation_branches` on the trunk)
    or re-solves it (:func:`~.nested_preflop.preflop_answers`); at each flop the lines below
    such a bet are solved from the re-solve's reaches (CFR+, ``blueprint_iterations``, or
    ``iterations`` with a whole-game blueprint) or translated from the lines of the
    translated bets, and nested solving meets the flop's own off-tree bets below them too.

    Translation, where asked, is valued at every flop with the blueprint: exact, and the control
    variate of the nested methods' sampled estimates (:attr:`control`).
    """

    abstraction: BetAbstraction
    methods: tuple[str, ...]  #: keys of :data:`NESTED_ROWS`
    iterations: int  #: CFR+ iterations of each nested re-solve
    blueprint_iterations: int | None = None
    preflop: PreflopResolves | None = None  #: how off-tree preflop bets are re-solved; None: the preflop has none
    prepared: Prepared | None = field(default=None, compare=False)
    progress: Callable[[str], None] | None = field(default=None, compare=False, repr=False)  #: hears of the preflop's re-solves

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "progress": None}  # the flops' processes report through the job

    def __post_init__(self) -> None:
        unknown = [m for m in self.methods if m not in NESTED_ROWS]
        if unknown:
            raise GameDefinitionError(f"unknown nested-table rows {unknown}; rows are: {', '.join(NESTED_ROWS)}")

    @property
    def names(self) -> tuple[str, ...]:
        return self.methods

    @property
    def identity(self) -> list[Any]:
        out = ["nested", list(self.abstraction.fractions), self.abstraction.all_in, list(self.methods), self.iterations,
               self.blueprint_iterations]
        if self.preflop is not None:
            out.append(["preflop", list(self.preflop.buckets.num_buckets), self.preflop.passes, self.preflop.seed])
        return out

    def method_identity(self, method: str) -> list[Any]:
        if method == "blueprint":
            return ["nested", list(self.abstraction.fractions), self.abstraction.all_in, self.blueprint_iterations]
        if method == "translation":
            return []
        preflop = self.preflop
        return [self.iterations] + ([] if preflop is None else
                                    [list(preflop.buckets.num_buckets), preflop.passes, preflop.seed,
                                     preflop.boards_per_pass, preflop.flop_method])

    @property
    def rows_blueprint(self) -> bool:
        return False  # the blueprint's values are its abstraction's: the board pass over the real game's forest is not

    @property
    def gift_modes(self) -> tuple[str, ...]:
        return ()  # a flop's nested solving counts the flop's gifts alone (module docstring)

    @property
    def blueprint_first(self) -> bool:
        return True  # the off-tree preflop bets are answered from its values at every flop, which the job needs anyway

    @property
    def control(self) -> str:
        # translation plays the real game at every flop, below the preflop's off-tree bets too, where the blueprint has
        # no values: the nested methods' sampled differences from it are the smaller
        return "translation" if "translation" in self.methods else "blueprint"

    @property
    def splices(self) -> tuple[Splice, ...]:
        """With translation and off-tree preflop bets, each nested method at the flop's own 0.75 bets alone
        (``"METHOD@flop"``): translation in the trunk and at the flops below the preflop's 0.75 bets, the method at
        every other flop. Which part of nested solving costs or gains against translation, the preflop's re-solves or
        the flops', without a re-solve more: at the flops of on-tree preflop lines both answer nothing preflop, so their
        players reach them alike."""
        prepared = self.prepared
        if prepared is None or self.preflop is None or "translation" not in self.methods:
            return ()
        return tuple(Splice(f"{m}@flop", m, "translation", ~prepared.off_tree_flops)
                     for m in self.methods if m != "translation")

    def prepare(self, cut: BoardCut, rows: RowSource, reach: tuple[np.ndarray, np.ndarray],
                totals: tuple[np.ndarray, np.ndarray] | None) -> NestedResponses:
        """Before any flop (``totals`` None) translation in the trunk; with the blueprint's values at every flop the
        re-solves of the preflop's off-tree bets (:func:`~.nested_preflop.preflop_answers`)."""
        started = time.perf_counter()
        game, trunk = cut.game, cut.trunk
        if self.preflop is None:
            if totals is None and (~reachable(restrict(game, trunk, self.abstraction))).any():  # checked once, first
                raise SubgameError("the real game's preflop has bets the abstraction lacks: give NestedResponses a "
                                   "PreflopResolves (preflop=) to answer them")
            return self
        blueprint = (rows(trunk, 0), rows(trunk, 1))
        if totals is None:
            current = restrict(game, trunk, self.abstraction)
            strategy = Strategy(trunk.game_id, blueprint)
            probs = [translation_strategy(game, trunk, self.abstraction, strategy, p) for p in (0, 1)]
            zero = (np.zeros(trunk.players[0].num_states), np.zeros(trunk.players[1].num_states))
            translation = PreflopAnswer((probs[0], probs[1]), zero)
            translated = tuple(translation_branches(game, trunk, self.abstraction, strategy, p) for p in (0, 1))
            off_tree = ~reachable(current)
            return replace(self, prepared=Prepared(
                {"translation": translation.rows},
                {"blueprint": Trunk(current, reach), "translation": Trunk(trunk, translation.reach(trunk))},
                {"translation": zero}, {"translation": ()}, (translated[0], translated[1]), off_tree,
                off_tree[cut.chance], time.perf_counter() - started))
        prepared = self.prepared
        if prepared is None:
            raise SubgameError("prepare() before any flop first (totals=None), then with the blueprint's values")
        rows_of, trunks, entering, solves = dict(prepared.rows), dict(prepared.trunks), dict(prepared.entering), \
            dict(prepared.solves)
        answers: dict[tuple[str, Root], PreflopAnswer] = {}
        memo: dict[tuple[object, ...], Solved] = {}  # reach-maxmargin without gifts: maxmargin's re-solves
        for name in self.methods:
            how = ROWS[NESTED_ROWS[name]]
            if how is None:
                continue
            if how not in answers:
                answers[how] = preflop_answers(game, self.abstraction, cut, blueprint, totals, how[0], how[1], self.preflop,
                                               self.progress, memo)
            trunks[name] = Trunk(trunk, answers[how].reach(trunk))
            entering[name] = answers[how].entering
            solves[name] = answers[how].solves
            rows_of[name] = answers[how].rows
        return replace(self, prepared=replace(prepared, rows=rows_of, trunks=trunks, entering=entering, solves=solves,
                                              seconds=prepared.seconds + time.perf_counter() - started))

    def trunk(self, method: str) -> Trunk | None:
        return None if self.prepared is None else self.prepared.trunks.get(method)

    def __call__(self, cut: BoardCut, part: BoardForest, root: Sequence[np.ndarray], rows: RowSource,
                 methods: tuple[str, ...], gifts: TrunkGifts | None = None) -> dict[str, np.ndarray]:
        game, forest = cut.game, part.tree
        abstract = restrict(game, forest, self.abstraction)
        reach = (root[0], root[1])
        if self.blueprint_iterations is None:
            probs = (rows(forest, 0), rows(forest, 1))
        else:
            probs = self._cfr_plus(abstract, reach, self.blueprint_iterations)
        blueprint = Strategy(forest.game_id, probs)
        bp = br_values(cut, replace(part, tree=abstract), probs, root)
        values = {"blueprint/0": bp[0], "blueprint/1": bp[1]}
        if self.preflop is not None and any(self.trunk(name) is None for name in methods):
            raise SubgameError("the preflop's off-tree bets are answered before the flops: prepare() first")
        solved: WaveSolutions = {}  # a problem met again at this flop is not solved again
        for name in methods:
            res = self.responses_at(cut, part, blueprint, reach, name, abstract, solved)
            if any(r.cut_short for r in res):
                raise KeyboardInterrupt("a stop signal ended a nested re-solve early")
            own = self.trunk(name)
            at = root if own is None else [own.reach[q][part.gather[q]] for q in (0, 1)]
            v = br_values(cut, part, [r.probs for r in res], at)
            values[f"{name}/0"], values[f"{name}/1"] = v[0], v[1]
        return values

    def _cfr_plus(self, abstract: PublicTree, reach: tuple[np.ndarray, np.ndarray], iterations: int) -> tuple[np.ndarray, np.ndarray]:
        """Both players' average strategies after ``iterations`` of CFR+ from root reaches ``reach``."""
        solver = CFRSolver(abstract, CFR_PLUS, root_reach=reach)
        if driver.run(solver, driver.Budget(iterations=iterations)).iteration < iterations:
            raise KeyboardInterrupt("a stop signal ended the flop's blueprint early")
        avg = solver.average_strategy().probs
        return avg[0], avg[1]

    def responses_at(self, cut: BoardCut, part: BoardForest, blueprint: Strategy, reach: tuple[np.ndarray, np.ndarray],
                     name: str, abstract: PublicTree | None = None,
                     solved: WaveSolutions | None = None) -> list[NestedResult]:
        """Both seats' strategies of method ``name`` on the flop's forest ``part`` (the blueprint there, the job's
        reaches of its roots), the lines below off-tree preflop bets included; ``abstract``: the forest restricted to
        the abstraction, where the caller has it; ``solved``: the other methods' re-solves on it
        (:func:`~subgame.resolving.nested.nested_strategy`)."""
        game, forest = cut.game, part.tree
        how = ROWS[NESTED_ROWS[name]]
        prepared = self.prepared
        if prepared is None:
            return responses(game, forest, self.abstraction, blueprint, how, self.iterations, reach, solved)
        roots = np.flatnonzero(forest.parent < 0)
        deal = {int(r): int(cut.chance[part.root_chance[i]]) for i, r in enumerate(roots)}
        if how is None:  # translated from the lines of the translated preflop bets, the responder's reach weighing them
            out = []
            for p in (0, 1):
                targets = {r: [(forest.node_of_key[cut.trunk.public_key[m] + forest.public_key[r][-1:]], w)
                               for m, w in prepared.translated[p][d]] for r, d in deal.items() if prepared.off_tree[d]}
                out.append(NestedResult(translation_strategy(game, forest, self.abstraction, blueprint, p,
                                                             root_reach=reach[p],
                                                             root_targets=targets), 0, 0))
            return out
        own = prepared.trunks[name].reach
        entering = prepared.entering[name]
        solving = tuple(own[q][part.gather[q]] + entering[q][part.gather[q]] for q in (0, 1))
        probs = [blueprint.probs[0].copy(), blueprint.probs[1].copy()]
        lines = np.zeros(forest.num_nodes, dtype=bool)
        for solve in prepared.solves[name]:  # below an off-tree preflop bet: its re-solve's strategy
            place_solution(solve, forest, part.boards[0], probs, lines)
        if lines.any() and self.preflop is not None:  # that strategy is in buckets: re-solved over every hand
            abstract = restrict(game, forest, self.abstraction) if abstract is None else abstract
            bv = blueprint_values(abstract, Strategy(forest.game_id, (probs[0], probs[1])), (solving[0], solving[1]))
            iterations = self.blueprint_iterations or self.iterations
            for p in (0, 1):
                problem = blueprint_problem(bv, Part.whole(abstract), p, self.preflop.flop_method)
                key = ("below a preflop re-solve", iterations, problem_key(problem))
                solution = None if solved is None else solved.get(key)
                if solution is None:  # not met at this flop before (reach-maxmargin without gifts meets maxmargin's)
                    run = resolve_subgame(problem, iterations=iterations, config=CFR_PLUS)
                    if run.iterations < iterations:
                        raise KeyboardInterrupt("a stop signal ended a re-solve of a flop below a preflop re-solve early")
                    solution = WaveSolution(run.probs, 0.0, run.iterations)
                    if solved is not None:
                        solved[key] = solution
                pa = forest.players[p]
                mine = lines[pa.node[pa.infoset_priv]]
                probs[p][mine] = 0.0
                probs[p][mine, : solution.probs.shape[1]] = solution.probs[mine]
        return responses(game, forest, self.abstraction, Strategy(forest.game_id, (probs[0], probs[1])), how,
                         self.iterations, (solving[0], solving[1]), solved)


class TrunkRows:
    """The preflop of a blueprint of the abstract game as rows of the real game's trunk, picklable.

    Where the real preflop has bets the abstraction lacks, its public states after them are not the blueprint's:
    there every legal action gets the same share (the rows are never read there: translation and nested solving
    replace them).
    """

    def __init__(self, abstraction: BetAbstraction, blueprint: BucketStrategy) -> None:
        self.abstraction, self.blueprint = abstraction, blueprint
        self._trunk: PublicTree | None = None

    def __call__(self, tree: PublicTree, player: int) -> np.ndarray:
        game = self.abstraction.abstract_game
        if self._trunk is None:
            self._trunk = BoardCut.of(game).trunk
        trunk = self._trunk
        rows = self.blueprint.rows(game, trunk, player)
        if trunk.public_key == tree.public_key:
            return rows
        pa = tree.players[player]
        out = pa.legal / np.maximum(pa.legal.sum(axis=1, keepdims=True), 1)
        for n in map(int, np.unique(pa.node[pa.infoset_priv])):
            m = trunk.node_of_key.get(tree.public_key[n], -1)
            if m >= 0:  # not after a bet the abstraction lacks
                put_rows(out, tree, player, n, rows, trunk, m)
        return out

    def __getstate__(self) -> dict[str, Any]:
        return {"abstraction": self.abstraction, "blueprint": self.blueprint, "_trunk": None}


def nlfh_nested_game(num_ranks: int = 13, num_suits: int = 4, **changes: Any) -> PokerGame:
    """The real game of the 52-card Table 2 (:data:`REAL_GAME`), on a smaller deck or with other ``nlfh`` ``changes``
    where asked."""
    game = load_game("nlfh", num_ranks=num_ranks, num_suits=num_suits, **{**REAL_GAME, **changes})
    if not isinstance(game, PokerGame):
        raise GameDefinitionError(f"nlfh is not a poker game here ({type(game).__name__})")
    return game


def nlfh_nested_table(
    *,
    full: bool = False,
    seed: int = 0,
    flops: int | None = None,
    workers: int = 1,
    checkpoint: str | Path | None = None,
    num_ranks: int = 13,
    num_suits: int = 4,
    round_raise_caps: tuple[int, int] = (1, 3),
    rows: Sequence[str] = tuple(NESTED_ROWS),
    flop_buckets: int = 200,
    blueprint_passes: int | None = None,
    blueprint_iterations: int | None = None,
    subgame_iterations: int | None = None,
    preflop_off_tree: bool = True,
    preflop_buckets: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """Table 2 on NLFH: translation against nested solving, every flop (or ``flops`` sampled), exact exploitability.

    Quick form (default): the preflop blueprint from 1,000 passes of board sampling, each
    flop's blueprint 50 CFR+ iterations, each nested re-solve 100, ``flops`` = 4 sampled;
    ``full``: 20,000 passes, 300 and 200 iterations, every flop (one per suit class) unless
    ``flops`` is given. The preflop's 0.75 bets are re-solved in the blueprint's buckets, or with lossless preflop and
    ``preflop_buckets`` OCHS flop buckets.
    """
    passes = blueprint_passes or (20_000 if full else 1_000)
    bp_its = blueprint_iterations or (300 if full else 50)
    its = subgame_iterations or (200 if full else 100)
    k = flops if flops is not None or full else 4
    game = nlfh_nested_game(num_ranks, num_suits, round_raise_caps=round_raise_caps,
                            preflop_fractions=REAL_GAME["preflop_fractions"] if preflop_off_tree else ABSTRACT_FRACTIONS)
    abstraction = BetAbstraction(game, ABSTRACT_FRACTIONS, all_in=False)
    folder = None if checkpoint is None else Path(checkpoint)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    kept = folder is not None and (folder / "blueprint.npz").exists()
    trunk = nlfh_blueprint(abstraction.abstract_game, flop_buckets, passes, seed, folder, progress)
    setup = "read back from the checkpoint" if kept else f"{time.perf_counter() - started:.0f} s"

    def tick(done: int, total: int, eta: Eta) -> None:
        if progress is not None:
            progress(f"nested-table: {done:,} of {total:,} flops done, {eta_text(eta)}")

    buckets = trunk.buckets if preflop_buckets is None else nlfh_buckets(abstraction.abstract_game, preflop_buckets, seed)
    kept_in = "preflop" if preflop_buckets is None else f"preflop-{preflop_buckets}"  # a re-solve's file fits its buckets
    preflop = PreflopResolves(buckets, passes, seed, folder=None if folder is None else folder / kept_in,
                              workers=workers) if preflop_off_tree else None
    if preflop is not None and preflop.folder is not None:
        preflop.folder.mkdir(exist_ok=True)
    plugin = NestedResponses(abstraction, tuple(rows), its, bp_its, preflop,
                             progress=None if progress is None else lambda line: progress(f"nested-table: {line}"))
    job = run_flop_job(game, TrunkRows(abstraction, trunk), blueprint_id=f"{flop_buckets}-{passes}-{seed}",
                       methods=plugin, flops=k, isomorphic=True, seed=seed, workers=workers,
                       checkpoint=None if folder is None else folder / "flops", progress=tick)
    bb = float(max(game.spec.blinds))
    spliced = {s.name: s.inner for s in (job.plugin.splices if job.plugin is not None else ())}
    table = []
    for e in job.estimates:
        label = ("blueprint (in its abstraction)" if e.method == "blueprint" else
                 f"{NESTED_ROWS[spliced[e.method]]} at the flop's 0.75 bets, translation preflop" if e.method in spliced
                 else NESTED_ROWS[e.method])
        table.append((label, 1000 * e.exploitability / bb, 1000 * e.low / bb, 1000 * e.high / bb, PAPER_TABLE_2.get(label, "")))
    shown = table[1 : len(rows) + 1]  # the paper's rows; the splices after them
    what = (f"every flop (exact; one per suit class, {job.classes:,})" if job.exact
            else f"{job.flops} of {job.total_flops:,} flops sampled (seed {seed}), "
                 + ("the blueprint and translation valued at every flop (exact), translation's values the control "
                    "variate of the others'" if plugin.control == "translation"
                    else "the blueprint's values at every flop as control variate")
                 + ", basic bootstrap 95% interval")
    xs = list(range(1, len(rows) + 1))
    return ExperimentResult(
        "nested-table",
        "Nested subgame solving vs action translation on No-Limit Flop Hold'em (safe-and-nested paper, Table 2)",
        ("responder to off-tree 0.75-pot bets", "ours (mbb/hand)", "95% low", "95% high", "paper (mbb/hand)"),
        table,
        (Series("ours", xs, [float(r[1]) for r in shown]), Series("paper (NLFH)", xs, [PAPER_TABLE_2[r[0]] for r in shown])),
        "row of the table (1 = translation)", "exploitability (mbb/hand)", logx=False, logy=True,
        setup=(f"Game: NLFH, {num_ranks} ranks × {num_suits} suits, 200 big blinds, no all-in; at most "
               f"{round_raise_caps[0]} bet(s) preflop, {round_raise_caps[1]} on the flop, of 0.5, 0.75 or 1 pot"
               + (", as the paper." if preflop_off_tree else " (0.5 or 1 pot preflop: the paper also bets 0.75 there)."),
               f"Blueprint in the abstraction without 0.75, no card abstraction on the flop, by decomposition: preflop "
               f"from {passes:,} passes of board sampling (169 lossless preflop and {flop_buckets} OCHS flop buckets, "
               f"seed {seed}); each flop CFR+ {bp_its} iterations over every hand from the preflop's reaches. Each "
               f"nested re-solve at a flop CFR+ {its} iterations"
               + (f"; at a preflop 0.75 bet by decomposition too (the paper solves it whole): its preflop {passes:,} "
                  "passes of board sampling in "
                  + ("the blueprint's buckets" if preflop_buckets is None else
                     f"169 lossless preflop and {preflop_buckets:,} OCHS flop buckets")
                  + " with the method's root gadget, each flop below it "
                  f"CFR+ {bp_its} iterations over every hand from that solution's reaches, then nested solving at the "
                  "flop's 0.75 bets." if preflop_off_tree else "."),
               f"Exploitability of the small-abstraction player's real-game strategy in both seats (NashConv / 2) "
               f"over {what}."
               + (" Each row 'at the flop's 0.75 bets' plays its method at the flops of on-tree preflop lines and "
                  "translation elsewhere (measured from the two methods' values): the part of a method's gain or loss "
                  "against translation that its flop re-solves make, the rest being its preflop re-solves'."
                  if spliced else "")),
        notes=(f"Blueprint preflop {setup}; job {job.seconds:.0f} s with {workers} worker(s)"
               + (f" (the preflop 0.75 bets' re-solves, or reading them back from the folder, {prepared.seconds:.0f} s)"
                  if isinstance(job.plugin, NestedResponses) and (prepared := job.plugin.prepared) is not None else "")
               + ", "
               f"{job.resumed} flop(s) read back from the checkpoint, {job.seconds_per_flop:.1f} s a measured flop.",),
    )


def table_2(
    *, full: bool = False, seed: int = 0, game: str = "leduc", flops: int | None = None, workers: int = 1,
    checkpoint: str | Path | None = None, progress: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """``subgame reproduce nested-table``: the Leduc-sized form (:func:`~.nested_table.nested_table`), or with
    ``game="nlfh"`` the 52-card one as a job over flops (:func:`nlfh_nested_table`: ``flops`` sampled, ``workers``
    processes, resumable from ``checkpoint``, ``progress`` lines with an ETA)."""
    if game == "nlfh":
        return nlfh_nested_table(full=full, seed=seed, flops=flops, workers=workers, checkpoint=checkpoint, progress=progress)
    if game != "leduc":
        raise GameDefinitionError(f"nested-table runs on leduc (the default) or nlfh, got {game!r}")
    if flops is not None or checkpoint is not None or workers != 1:
        raise GameDefinitionError("--flops, --checkpoint-dir and --workers are for nlfh (--game nlfh); the leduc form "
                                  "runs in one process in seconds")
    return nested_table(full=full, seed=seed)
