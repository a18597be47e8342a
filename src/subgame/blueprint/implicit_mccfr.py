"""External-sampling MCCFR over the histories of an abstract no-limit game that is never compiled.

The abstract game is an :class:`~subgame.blueprint.actions.ActionAbstraction`'s betting tree
(:class:`~subgame.blueprint.actions.BettingTree`, betting sequences only) times a card
abstraction (:class:`~subgame.blueprint.deal_abstraction.DealAbstraction`, a bucket per
player and round). An information set is a (decision node, bucket) pair, so regrets and
average strategies are two float32 tables indexed by ``offset[node] + bucket * actions + a``,
a perfect index laid out from the betting tree (:class:`TableLayout`); their size is known
before they are allocated.

One iteration is two walks of external sampling (Lanctot et al. 2009, "Monte Carlo
Sampling for Regret Minimization in Extensive Games"): a deal drawn uniformly (hole cards
and the whole board: chance sampled), walked for player 0 and another for player 1; at the
walker's decisions every action is taken and her regrets updated with the sampled values
(no importance weight: chance and the opponent are sampled on-policy), at the opponent's one
action is drawn from his regret-matching strategy, which is added to his average. A *batch*
of iterations is one call into C (``_mccfr.c``): numpy draws the batch's deals and buckets
them and their showdowns for all deals at once, so no Python runs per history.

Weighting is linear at batch granularity: after batch ``k`` both tables are multiplied by
``k / (k + 1)``, so batch ``k`` weighs ``k`` in the end (linear CFR, Brown & Sandholm 2019,
"Solving Imperfect-Information Games via Discounted Regret Minimization"; Pluribus
discounts the same way at intervals). Negative-regret pruning (Brown & Sandholm 2019,
Pluribus supplementary): after ``prune_after`` iterations, a walk is pruned with
probability ``prune_probability``: it skips the walker's actions whose regret is below
``prune_threshold`` (all of them explored if all are below).

This sampling order differs from :class:`~subgame.solve.mccfr.MCCFRSolver` (the vector form
over a compiled public tree: it enumerates private chance), so the two agree by convergence,
not bitwise; what is exact is the exploitability of this solver's average strategy in the
real game where it compiles (:func:`~subgame.blueprint.blueprint_file.strategy_on`).
"""

from __future__ import annotations

import ctypes
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError, SubgameError
from ..files import read_npz, write_npz
from ..games.poker.spec import PokerSpec
from ..native import address, load_library
from ..solve.mccfr import seeded_generator
from ..strategy import Strategy
from .actions import DECISION, ActionAbstraction, BettingTree
from .deal_abstraction import DealAbstraction, check_counts, sample_deals

CHECKPOINT_FORMAT = "subgame-implicit-mccfr"
CHECKPOINT_VERSION = 1
#: Refuse tables above this many bytes (regrets and averages together) unless told otherwise.
DEFAULT_MAX_BYTES = 16 * 2**30


@dataclass(frozen=True)
class ImplicitConfig:
    """How the implicit solver runs.

    Attributes:
        batch: iterations per call into C (and per linear-weighting step).
        linear: linear weighting of regrets and averages (by batch); else plain sums.
        prune_after: iterations before negative-regret pruning starts (0: never).
        prune_probability: share of walks pruned once it has started.
        prune_threshold: regrets below this (chips) are skipped in a pruned walk.
        workers: processes walking each batch. With more than one, a batch is split into
            ``workers`` parts, each dealt from its own generator (seeded by the batch and the
            part), walked against the regrets as they were at the batch's start, its
            increments added to the tables in part order afterwards: the same tables for the
            same seed and worker count, bitwise, but not the one-process run's (whose walks
            see each other's updates at once).
    """

    batch: int = 1000
    linear: bool = True
    prune_after: int = 0
    prune_probability: float = 0.95
    prune_threshold: float = -300.0
    workers: int = 1

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise GameDefinitionError(f"implicit MCCFR: batch must be >= 1 iterations, got {self.batch}")
        if not 1 <= self.workers <= self.batch:
            raise GameDefinitionError(f"implicit MCCFR: workers must be 1..batch ({self.batch}), got {self.workers}")
        if self.prune_after < 0 or not 0.0 <= self.prune_probability <= 1.0 or not self.prune_threshold < 0:
            raise GameDefinitionError("implicit MCCFR: prune_after >= 0, prune_probability in [0, 1] and a negative "
                                      f"prune_threshold, got {self.prune_after}, {self.prune_probability}, "
                                      f"{self.prune_threshold}")


@dataclass(frozen=True, eq=False)
class TableLayout:
    """Where each (decision node, bucket)'s actions sit in the regret and average tables.

    Attributes:
        offset: [N] int64 first slot of bucket 0 at a decision node (0 at terminals).
        num_slots: slots in all (float32 each, per table).
        num_buckets: [R] buckets of each round.
    """

    offset: np.ndarray
    num_slots: int
    num_buckets: tuple[int, ...]

    @staticmethod
    def of(tree: BettingTree, num_buckets: tuple[int, ...]) -> TableLayout:
        sizes = np.where(tree.kind == DECISION, np.asarray(num_buckets, np.int64)[tree.round] * tree.num_actions, 0)
        offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        return TableLayout(offset, int(sizes.sum()), num_buckets)

    @property
    def num_bytes(self) -> int:
        """Bytes of both float32 tables."""
        return 8 * self.num_slots


def size_report(spec: PokerSpec, actions: ActionAbstraction, num_buckets: tuple[int, ...]) -> str:
    """The abstract game's size, from the betting tree's counts alone (nothing allocated)."""
    per_round = BettingTree.count(spec, actions)
    tree = BettingTree.build(spec, actions)
    layout = TableLayout.of(tree, num_buckets)
    rounds = ", ".join(f"{n:,}" for n in per_round)
    return (f"betting tree: {tree.num_nodes:,} nodes, decision nodes per round {rounds}; buckets per round "
            f"{', '.join(f'{b:,}' for b in num_buckets)}; information sets x actions: {layout.num_slots:,} "
            f"({layout.num_bytes / 2**20:,.1f} MiB of float32 regrets and averages)")


def spec_json(spec: PokerSpec) -> dict[str, Any]:
    """The rules as a JSON object (tuples as lists), as files record them."""
    return {k: [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v
            for k, v in asdict(spec).items()}


def spec_of_json(fields: dict[str, Any]) -> PokerSpec:
    """The rules :func:`spec_json` wrote."""
    def value(v: Any) -> Any:
        return tuple(value(x) for x in v) if isinstance(v, list) else v
    args: dict[str, Any] = {k: value(v) for k, v in fields.items()}
    return PokerSpec(**args)


def _load_library() -> ctypes.CDLL | None:
    p = ctypes.c_void_p
    batch = [p] * 8 + [ctypes.c_int32, p, p, p, p, p, p, p, ctypes.c_float, ctypes.c_int64, ctypes.c_uint64]
    return load_library(f"{__package__}._mccfr", 2, {"mccfr_batch": (batch, ctypes.c_double)})


_LIB = _load_library()


def available() -> bool:
    """Whether the compiled inner loop was built (``python3 setup.py build_ext --inplace`` or ``pip install``)."""
    return _LIB is not None


class ImplicitMCCFR:
    """External-sampling MCCFR on an abstract game given by its rules, actions and card abstraction.

    A solver of the run driver (:func:`~subgame.solve.driver.run`): ``step()`` runs one batch
    of ``config.batch`` iterations and ``iteration`` counts iterations; the checkpoint holds
    the tables and the generator, so :meth:`load_checkpoint` continues bitwise.

    Args:
        spec: the game's rules (stack, blinds, rounds, deck); its own bet sizes are ignored.
        actions: the action abstraction.
        abstraction: the card abstraction.
        config: batch, weighting and pruning.
        seed: an int seed or a numpy Generator.
        max_bytes: refuse tables larger than this (the run would not fit).

    Raises:
        GameDefinitionError: a limit game, bucket counts that do not fit the rounds, or
            tables over ``max_bytes``.
        SubgameError: the compiled inner loop is not built.
    """

    def __init__(self, spec: PokerSpec, actions: ActionAbstraction, abstraction: DealAbstraction,
                 config: ImplicitConfig = ImplicitConfig(), *, seed: int | np.random.Generator = 0,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if _LIB is None:  # pragma: no cover - a build without a C compiler
            raise SubgameError("implicit MCCFR needs its compiled loop; build it with `python3 setup.py build_ext "
                               "--inplace` (or reinstall the package with a C compiler present)")
        self.spec, self.actions, self.abstraction, self.config = spec, actions.for_rounds(spec.num_rounds), abstraction, config
        self.tree = BettingTree.build(spec, self.actions)
        self.layout = TableLayout.of(self.tree, check_counts(spec, abstraction))
        if self.layout.num_bytes > max_bytes:
            raise GameDefinitionError(f"the abstract game needs {self.layout.num_bytes / 2**30:.2f} GiB of tables, over the "
                                      f"limit of {max_bytes / 2**30:.2f} GiB: fewer buckets or bet sizes")
        if int(self.tree.num_actions.max()) > 64:
            raise GameDefinitionError("actions: at most 64 actions per decision")
        self.regrets = np.zeros(self.layout.num_slots, dtype=np.float32)
        self.average = np.zeros(self.layout.num_slots, dtype=np.float32)
        self.rng = seeded_generator(seed)
        self._lib = _LIB
        self._iteration = 0
        self.value_sum = 0.0  #: player 0's sampled values summed over the walks
        self._parallel: Any = None  #: the worker processes of ``config.workers > 1``, started at the first step

    @property
    def iteration(self) -> int:
        return self._iteration

    def step(self) -> None:
        """One batch of iterations: deals drawn and bucketed in numpy, walked in C, then linear weighting."""
        c = self.config
        pruning = c.prune_after > 0 and self._iteration >= c.prune_after
        if c.workers > 1:
            from .parallel_walks import ParallelWalks

            if self._parallel is None:
                self._parallel = ParallelWalks(self)
            self.value_sum += self._parallel.batch(int(self.rng.integers(2**63)), pruning)
        else:
            self.value_sum += self.walk(c.batch, self.rng, self.regrets, self.average, pruning=pruning)
        self._iteration += c.batch
        if c.linear:
            k = self._iteration // c.batch
            scale = np.float32(k / (k + 1))
            self.regrets *= scale
            self.average *= scale

    def walk(self, iterations: int, rng: np.random.Generator, regret_out: np.ndarray, average_out: np.ndarray, *,
             pruning: bool) -> float:
        """Walk ``iterations`` iterations of deals drawn from ``rng``, strategies from :attr:`regrets`, increments
        added to ``regret_out`` and ``average_out`` (the tables themselves, or a worker's deltas), a share
        ``prune_probability`` of the walks pruned if ``pruning``; returns player 0's sampled values summed."""
        c, t = self.config, self.tree
        n = 2 * iterations
        deals = sample_deals(self.spec, self.abstraction, n, rng)
        traverser = np.tile(np.array([0, 1], np.int8), iterations)
        prune = (rng.random(n) < c.prune_probability).astype(np.int8) if pruning else np.zeros(n, np.int8)
        seed = int(rng.integers(2**63))
        buckets = np.ascontiguousarray(deals.buckets, dtype=np.int32)
        value: float = self._lib.mccfr_batch(
            address(t.kind), address(t.player), address(t.round), address(t.first_child), address(t.num_actions), address(t.children),
            address(self.layout.offset), address(t.payoff), self.spec.num_rounds, address(self.regrets), address(regret_out),
            address(average_out), address(buckets), address(deals.outcome), address(traverser), address(prune), c.prune_threshold, n,
            seed)
        return value

    def close(self) -> None:
        """Stop the worker processes, if any (a later step starts them again)."""
        if self._parallel is not None:
            self._parallel.close()
            self._parallel = None

    def average_probs(self) -> np.ndarray:
        """[slots] float32 the average strategy at every (decision node, bucket) (uniform where never reached)."""
        out = self.average.copy()
        for node in np.flatnonzero(self.tree.kind == DECISION):  # one numpy call per betting node
            lo, a = int(self.layout.offset[node]), int(self.tree.num_actions[node])
            rows = out[lo : lo + self.layout.num_buckets[self.tree.round[node]] * a].reshape(-1, a)
            total = rows.sum(axis=1, keepdims=True)
            np.divide(rows, total, out=rows, where=total > 0)
            rows[total[:, 0] <= 0] = 1.0 / a
        return out

    def average_strategy(self) -> Strategy:
        """Not available: an implicit game has no compiled tree (see :func:`~subgame.blueprint.blueprint_file.strategy_on`)."""
        raise SubgameError("an implicit blueprint has no compiled tree; use blueprint_file.strategy_on(...) on a game that "
                           "compiles, or Blueprint.of(solver)")

    # -- checkpoints --------------------------------------------------------------------
    def _header(self) -> dict[str, Any]:
        return {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "spec": spec_json(self.spec),
                "actions": self.actions.text(), "abstraction": self.abstraction.name,
                "num_buckets": list(self.layout.num_buckets), "config": asdict(self.config),
                "iteration": self._iteration, "value_sum": self.value_sum, "rng": self.rng.bit_generator.state}

    def save_checkpoint(self, path: str | Path, /) -> Path:
        """Both tables and the generator's state, atomically (:meth:`load_checkpoint` resumes bitwise)."""
        return write_npz(path, self._header(), {"regrets": self.regrets, "average": self.average})

    def restore(self, path: str | Path) -> None:
        """Continue from a checkpoint of this same abstract game (rules, actions, card abstraction, batch)."""
        header, arrays = read_npz(path, format=CHECKPOINT_FORMAT, version=CHECKPOINT_VERSION, kind="implicit-mccfr",
                                  expected="an implicit MCCFR checkpoint (subgame blueprint --checkpoint-file)")
        mine = self._header()
        if isinstance(header.get("config"), dict):  # a checkpoint from before a field existed has its default
            header["config"] = {**asdict(ImplicitConfig()), **header["config"]}
        for key in ("spec", "actions", "abstraction", "num_buckets", "config"):
            if header.get(key) != mine[key]:
                raise StrategyFileError(f"{path}: a checkpoint of another abstract game ({key} {header.get(key)!r}, "
                                        f"this run has {mine[key]!r})")
        regrets, average = arrays.get("regrets"), arrays.get("average")
        if regrets is None or average is None or regrets.shape != self.regrets.shape or average.shape != self.average.shape:
            raise StrategyFileError(f"{path}: checkpoint tables do not match this abstract game")
        np.copyto(self.regrets, regrets.astype(np.float32))  # in place: worker processes may share these tables
        np.copyto(self.average, average.astype(np.float32))
        self._iteration = int(header["iteration"])
        self.value_sum = float(header["value_sum"])
        self.rng.bit_generator.state = header["rng"]
