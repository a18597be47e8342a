"""CFR-D: counterfactual regret minimization with decomposition (Burch, Johanson & Bowling 2014).

"Generating a Trunk Strategy using CFR-D": the game is cut into a trunk and subgames.
Each iteration, for the current trunk strategy, every subgame is solved with its root
ranges fixed to the trunk's reaches; the counterfactual values at the subgame root update
the trunk's regrets, are added to a running average, and the subgame solution is
discarded. Only the trunk (regrets, average strategy) and the average root values stay in
memory; a subgame's strategy is recovered later by re-solving (:mod:`.resolve`).

In this engine CFR-D is depth-limited CFR whose leaf solves the subgames below:
:class:`SubgameSolveOperator` is a :class:`~subgame.solve.plugins.Leaf` given to the
unchanged :class:`~subgame.solve.cfr.CFRSolver` of the trunk.

Choices the paper leaves open, made here:

* **Which values.** Player p's value at a root private state is her counterfactual
  best-response value against the opponent's subgame strategy (the average of K inner
  CFR iterations). The paper requires the subgame strategies to be mutual counterfactual
  best responses, post-processed where a reach is zero; a counterfactual best response
  computed for p at every information set, reached or not, is exactly that for p's values,
  and the opponent's strategy where her own reach is zero is weighted by zero in them.
* **Alternating updates.** The trunk solver asks for player 0's values, updates her
  regrets, then asks for player 1's values with player 0's *updated* trunk strategy: the
  subgames are solved again for that call (two inner solves per subgame and iteration),
  so player 1's regrets see the subgame equilibrium of the trunk strategy they respond to.
  With simultaneous updates the second call has the same reaches and reuses the first solve.
* **Stored values.** At the call for player p, the inner solve also gives the opponent's
  counterfactual best-response values against p's subgame strategy; these are the values
  averaged and stored, as the alternative payoffs for re-solving p later. They are
  averaged with the trunk's averaging weights (t^γ), so the average is taken over the same
  realization plans as p's trunk average strategy, and it is an upper bound on the
  opponent's counterfactual best-response value against CFR-D's (implicit) average
  subgame strategy (a maximum of averages is at most the average of maxima).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..eval.best_response import best_response_to_reach
from ..files import read_npz, write_npz
from ..games.base import Game, game_fingerprint
from ..parallel import Executor, SerialExecutor
from ..solve.cfr import CFR_PLUS, CFRConfig, CFRSolver
from ..solve.checkpoint import read_checkpoint
from ..strategy import Strategy, StrategyMeta
from ..tree.part import place
from ..tree.public_tree import PublicKey, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .split import Decomposition, StructureCache, TrunkSplit, compile_chunk

FORMAT = "subgame-cfr-d"
VERSION = 1


@dataclass(frozen=True)
class CFRDConfig:
    """How CFR-D solves.

    Attributes:
        subgame_iterations: K, inner CFR iterations per subgame solve.
        trunk: update rule of the trunk (outer) CFR.
        subgame: update rule of the inner solves.
        batch: subgames per inner solve (one forest, one vectorized CFR run). Memory
            holds the trunk plus one batch of subgames; 1 is the paper's bound.
        cached_chunks: compiled chunk structures kept between iterations (never solver
            state); ``None`` keeps all (the whole game's structure), 0 none. On Leduc
            compiling one subgame takes about 1 ms, a quarter of CFR-D's time at K = 50
            with ``batch=1`` and about half at K = 10; caching removes that cost for the
            chunks it holds, at the memory of their structure.
    """

    subgame_iterations: int = 200
    trunk: CFRConfig = CFR_PLUS
    subgame: CFRConfig = CFR_PLUS
    batch: int = 1
    cached_chunks: int | None = 0

    def __post_init__(self) -> None:
        if self.subgame_iterations < 1:
            raise GameDefinitionError(f"subgame_iterations must be >= 1, got {self.subgame_iterations}")
        if self.batch < 1:
            raise GameDefinitionError(f"batch must be >= 1, got {self.batch}")
        if self.cached_chunks is not None and self.cached_chunks < 0:
            raise GameDefinitionError(f"cached_chunks must be >= 0 or None, got {self.cached_chunks}")
        # The stored root values are averaged with the trunk's weights t^γ (SubgameSolveOperator._accumulate);
        # a trunk whose average strategy is weighted otherwise would store values of another average.
        unfollowed = [why for bad, why in ((self.trunk.schedule != "dcfr", f"restarts its average (schedule {self.trunk.schedule!r})"),
                                           (self.trunk.average_skip > 0, "skips the start of the run (average_skip)")) if bad]
        if unfollowed:
            raise GameDefinitionError(f"CFR-D averages its stored root values with weights t^gamma, and this trunk's update rule "
                                      f"{' and '.join(unfollowed)}; use cfr, cfr+, lcfr, dcfr or pcfr+ for the trunk")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any]) -> CFRDConfig:
        return CFRDConfig(
            int(d["subgame_iterations"]), CFRConfig(**d["trunk"]), CFRConfig(**d["subgame"]),
            int(d["batch"]), None if d["cached_chunks"] is None else int(d["cached_chunks"]),
        )


# -- one inner solve ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ChunkValues:
    """What one inner solve of a chunk returns; arrays are over the forest's root states.

    Attributes:
        values: per player [R_p] her counterfactual best-response value against the
            other player's subgame average strategy.
        realization: per player [I_p, A] her subgame average strategy weighted by her
            own reach (trunk reach included); only when asked for (verification).
    """

    values: tuple[np.ndarray, np.ndarray]
    realization: tuple[np.ndarray, np.ndarray] | None = None


def solve_chunk(
    tree: PublicTree,
    root_reach: tuple[np.ndarray, np.ndarray],
    iterations: int,
    config: CFRConfig = CFR_PLUS,
    *,
    record: bool = False,
) -> ChunkValues:
    """Solve a forest of subgames with fixed root ranges; return both players' root CBVs.

    Args:
        tree: the compiled forest (:func:`~subgame.decompose.split.compile_chunk`).
        root_reach: per player [R_p] her trunk reach at the root private states.
        iterations: inner CFR iterations K.
        record: also return each player's reach-weighted average strategy.
    """
    if not (root_reach[0].any() or root_reach[1].any()):
        zeros = tuple(np.zeros(tree.root_slice[p].stop - tree.root_slice[p].start) for p in (0, 1))
        real = tuple(np.zeros(pa.legal.shape) for pa in tree.players) if record else None
        return ChunkValues(zeros, real)  # type: ignore[arg-type]
    solver = CFRSolver(tree, config, root_reach=root_reach).run(iterations)
    avg = solver.average_strategy().probs
    reach = [forward_reach(tree, q, transition_weights(tree, q, avg[q]), solver.root_reach[q]) for q in (0, 1)]
    values = [best_response_to_reach(tree, p, reach[1 - p], want_policy=False).cbv[tree.root_slice[p]].copy()
              for p in (0, 1)]
    real = None
    if record:
        real = tuple(reach[q][tree.players[q].infoset_priv][:, None] * avg[q] for q in (0, 1))
    return ChunkValues((values[0], values[1]), real)  # type: ignore[arg-type]


@dataclass(frozen=True, eq=False)
class ChunkTask:
    """One inner solve, as sent to a worker: the chunk is compiled (or cached) there."""

    game: Game
    keys: tuple[PublicKey, ...]
    root_reach: tuple[np.ndarray, np.ndarray]
    iterations: int
    config: CFRConfig
    cache_capacity: int | None
    record: bool


_WORKER_CACHE: StructureCache | None = None


def worker_cache(capacity: int | None) -> StructureCache:
    """This process's cache of compiled chunks (one per worker process)."""
    global _WORKER_CACHE
    if _WORKER_CACHE is None or _WORKER_CACHE.capacity != capacity:
        _WORKER_CACHE = StructureCache(capacity)
    return _WORKER_CACHE


def run_chunk_task(task: ChunkTask) -> ChunkValues:
    """Compile (or fetch) the chunk and solve it: the function parallel executors map."""
    key = (game_fingerprint(task.game), task.keys)  # a worker may serve several games
    tree = worker_cache(task.cache_capacity).get(key, lambda: compile_chunk(task.game, task.keys))
    return solve_chunk(tree, task.root_reach, task.iterations, task.config, record=task.record)


# -- the leaf operator --------------------------------------------------------------------


class SubgameSolveOperator:
    """The trunk's leaf of CFR-D (a :class:`~subgame.solve.plugins.Leaf`): every subgame below the trunk, solved.

    ``values(player, reach, t)`` takes both players' trunk reaches [G_0], [G_1], solves
    every chunk with those root ranges and returns [G_player]: the player's root
    counterfactual best-response values at the trunk's leaf private states, zero
    elsewhere. In a solver iteration (``t`` given) the opponent's values from the same
    solves are added to the running averages with the trunk's weight t^γ; an evaluation
    (``t`` is ``None``) leaves them untouched. With simultaneous trunk updates both
    players' calls of one iteration see the same reaches, so the second reuses the solve
    of the first; nothing else is kept between calls.
    """

    def __init__(
        self,
        decomposition: Decomposition,
        config: CFRDConfig,
        executor: Executor | None = None,
        *,
        record_subgame_average: bool = False,
    ) -> None:
        self.decomposition = decomposition
        self.config = config
        self.executor = executor if executor is not None else SerialExecutor()
        self.record = record_subgame_average
        trunk = decomposition.trunk
        self.value_sum = [np.zeros(pa.num_states) for pa in trunk.players]  #: per player [G_p]
        self.weight_sum = [0.0, 0.0]
        self.realization_sum: dict[tuple[int, int], np.ndarray] = {}  #: (chunk, player) -> [I_sub, A]
        self.chunk_solves = 0
        self.solve_seconds = 0.0
        self._shared: tuple[int, list[ChunkValues]] | None = None  #: (t, solves) of a simultaneous iteration

    # Leaf
    def values(self, player: int, reach: tuple[np.ndarray, np.ndarray], iteration: int | None) -> np.ndarray:
        shared = self._shared
        if iteration is not None and shared is not None and shared[0] == iteration:
            results = shared[1]
        else:
            results = self._solve_all(reach)
            if iteration is not None and not self.config.trunk.alternating:
                self._shared = (iteration, results)
        trunk = self.decomposition.trunk
        out = np.zeros(trunk.players[player].num_states)
        for chunk, res in zip(self.decomposition.chunks, results):
            out[chunk.trunk_states[player]] = res.values[player]
        if iteration is not None:
            self._accumulate(player, iteration, results)
        return out

    def end_iteration(self, t: int) -> None:
        self._shared = None

    def _solve_all(self, reach: tuple[np.ndarray, np.ndarray]) -> list[ChunkValues]:
        started = time.perf_counter()
        chunks, cfg = self.decomposition.chunks, self.config
        roots = [(reach[0][c.trunk_states[0]], reach[1][c.trunk_states[1]]) for c in chunks]
        if isinstance(self.executor, SerialExecutor):
            results = [
                solve_chunk(self.decomposition.chunk_tree(c), r, cfg.subgame_iterations, cfg.subgame, record=self.record)
                for c, r in zip(chunks, roots)
            ]
        else:
            tasks = [
                ChunkTask(self.decomposition.game, c.keys, r, cfg.subgame_iterations, cfg.subgame,
                          cfg.cached_chunks, self.record)
                for c, r in zip(chunks, roots)
            ]
            results = self.executor.map(run_chunk_task, tasks)
        self.chunk_solves += len(chunks)
        self.solve_seconds += time.perf_counter() - started
        return results

    def _accumulate(self, player: int, t: int, results: list[ChunkValues]) -> None:
        """Add the opponent's values of the solve for ``player``'s update to the running averages."""
        weight = float(t) ** self.config.trunk.gamma
        q = 1 - player
        for chunk, res in zip(self.decomposition.chunks, results):
            self.value_sum[q][chunk.trunk_states[q]] += weight * res.values[q]
        self.weight_sum[q] += weight
        if self.record:
            for i, res in enumerate(results):
                if res.realization is None:
                    continue
                key = (i, player)
                add = weight * res.realization[player]
                self.realization_sum[key] = self.realization_sum[key] + add if key in self.realization_sum else add

    def average_root_values(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player [G_p] the weighted average of her stored root values (zero before any iteration)."""
        return tuple(s / w if w > 0 else np.zeros_like(s) for s, w in zip(self.value_sum, self.weight_sum))  # type: ignore[return-value]


# -- the solver and its result ------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CFRDSolution:
    """What CFR-D keeps: the trunk's average strategy and the average root values.

    Attributes:
        game: the game solved.
        split: where the trunk ends.
        trunk: the compiled trunk (its leaves carry no operator).
        average: the trunk average strategy, [I_p, A] per player over the trunk's infosets.
        root_values: per player [G_p] over the trunk's private states: at a leaf state,
            the average counterfactual best-response value of that player against the
            other's subgame strategies (the alternative payoff for re-solving the other
            player); zero elsewhere.
        iterations: trunk iterations run.
        config: the CFR-D configuration.
        meta: free-form record (game name and parameters for files, timings).
    """

    game: Game
    split: TrunkSplit
    trunk: PublicTree
    average: Strategy
    root_values: tuple[np.ndarray, np.ndarray]
    iterations: int
    config: CFRDConfig
    meta: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def average_reach(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player [G_p] her own reach of every trunk private state under the average strategy."""
        return tuple(  # type: ignore[return-value]
            forward_reach(self.trunk, p, transition_weights(self.trunk, p, self.average.probs[p])) for p in (0, 1)
        )

    def stored_bytes(self) -> int:
        """Bytes of the arrays CFR-D keeps (trunk average strategy and root values)."""
        return int(sum(a.nbytes for a in (*self.average.probs, *self.root_values)))


class CFRDSolver:
    """CFR-D as the trunk's :class:`~subgame.solve.cfr.CFRSolver` with a :class:`SubgameSolveOperator`.

    Args:
        game: the game.
        split: where the trunk ends (``TrunkSplit(rounds=1)``: Leduc's first round).
        config: iterations and update rules.
        executor: runs the inner solves of one call (serial when ``None``).
        record_subgame_average: also accumulate each subgame's average strategy, which
            CFR-D itself never keeps (memory grows to the whole game); for checking the
            re-solving bounds against the strategy CFR-D implicitly computed.
    """

    def __init__(
        self,
        game: Game,
        split: TrunkSplit = TrunkSplit(rounds=1),
        config: CFRDConfig = CFRDConfig(),
        *,
        executor: Executor | None = None,
        record_subgame_average: bool = False,
    ) -> None:
        self.game = game
        self.split = split
        self.config = config
        self.decomposition = Decomposition.build(game, split, batch=config.batch, cache=StructureCache(config.cached_chunks))
        self.operator = SubgameSolveOperator(self.decomposition, config, executor, record_subgame_average=record_subgame_average)
        self.trunk_solver = CFRSolver(self.decomposition.trunk, config.trunk, leaves=(self.operator,))

    @property
    def iteration(self) -> int:
        return self.trunk_solver.iteration

    def step(self) -> None:
        """One CFR-D iteration: both players' trunk updates, each after solving every subgame."""
        self.trunk_solver.step()

    def run(self, iterations: int) -> CFRDSolver:
        """Run ``iterations`` more trunk iterations (budgets in seconds, checkpoints: :func:`subgame.solve.driver.run`)."""
        self.trunk_solver.run(iterations)
        return self

    def average_strategy(self) -> Strategy:
        """The trunk's average strategy so far (CFR-D keeps no strategy below the trunk)."""
        return self.trunk_solver.average_strategy()

    def solution(self, **meta: Any) -> CFRDSolution:
        """The trunk average strategy and average root values so far."""
        d = self.decomposition
        avg = self.trunk_solver.average_strategy()
        return CFRDSolution(
            self.game, self.split, d.trunk, Strategy(d.trunk.game_id, avg.probs, avg.meta),
            self.operator.average_root_values(), self.iteration, self.config,
            {"chunk_solves": self.operator.chunk_solves, "solve_seconds": self.operator.solve_seconds,
             "compiles": d.cache.compiles, "compile_seconds": d.cache.compile_seconds, **meta},
        )

    def save_checkpoint(self, path: str | Path) -> Path:
        """Write what CFR-D keeps (trunk regrets and strategy sums, root value sums) to resume later."""
        op = self.operator
        return self.trunk_solver.save_checkpoint(
            path,
            extra={"value_sum0": op.value_sum[0], "value_sum1": op.value_sum[1], "weight_sum": np.array(op.weight_sum)},
            extra_header={"cfr_d": {"config": self.config.to_json(),
                                    "split": {"rounds": self.split.rounds, "depth": self.split.depth}}},
        )

    @staticmethod
    def load_checkpoint(path: str | Path, game: Game, *, executor: Executor | None = None) -> CFRDSolver:
        """A solver continuing a run saved by :meth:`save_checkpoint` (same game, split and configuration)."""
        header, arrays = read_checkpoint(path)
        info = header.get("cfr_d")
        if not isinstance(info, dict):
            raise StrategyFileError(f"{path}: a checkpoint of plain CFR, not of CFR-D")
        split = TrunkSplit(**{k: v for k, v in info["split"].items() if v is not None})
        solver = CFRDSolver(game, split, CFRDConfig.from_json(info["config"]), executor=executor)
        solver.trunk_solver.restore(header, arrays, str(path))
        solver.operator.value_sum = [arrays["value_sum0"], arrays["value_sum1"]]
        solver.operator.weight_sum = [float(w) for w in arrays["weight_sum"]]
        return solver

    def state_bytes(self) -> int:
        """Bytes of the solver state CFR-D keeps between iterations (trunk regrets and
        strategy sums, root value sums); the compiled trunk and cached chunks not counted."""
        s = self.trunk_solver
        return int(sum(a.nbytes for a in (*s.regrets, *s.strategy_sum, *self.operator.value_sum)))

    def explicit_average(self, full_tree: PublicTree) -> Strategy:
        """CFR-D's average strategy on the full tree, subgames included (needs ``record_subgame_average``).

        In each subgame, player p's strategy is the average of her inner-solve strategies
        weighted by her reach and the trunk's averaging weights: the strategy whose
        opponent values CFR-D stored. Information sets she never reaches get the uniform
        strategy.
        """
        if not self.operator.record:
            raise GameDefinitionError("explicit_average needs a CFRDSolver made with record_subgame_average=True")
        trunk = place(full_tree, self.decomposition.trunk)
        probs = []
        for p in (0, 1):
            pa = full_tree.players[p]
            out = trunk.embed(pa.legal / pa.legal.sum(axis=1, keepdims=True), self.trunk_solver.average_strategy().probs[p], p)
            for i, chunk in enumerate(self.decomposition.chunks):
                s = self.operator.realization_sum.get((i, p))
                if s is None:
                    continue
                forest = self.decomposition.chunk_tree(chunk)
                legal = forest.players[p].legal
                tot = s.sum(axis=1, keepdims=True)
                sub = np.where(tot > 0, s / np.where(tot > 0, tot, 1.0), legal / legal.sum(axis=1, keepdims=True))
                out = place(full_tree, forest).embed(out, sub, p)
            probs.append(out)
        return Strategy(full_tree.game_id, (probs[0], probs[1]), StrategyMeta(cfr_d_explicit_average=True))


def solve_cfr_d(
    game: Game,
    iterations: int,
    *,
    split: TrunkSplit = TrunkSplit(rounds=1),
    config: CFRDConfig = CFRDConfig(),
    executor: Executor | None = None,
) -> CFRDSolution:
    """Run CFR-D for ``iterations`` trunk iterations and return what it keeps."""
    if iterations < 1:
        raise GameDefinitionError(f"iterations must be >= 1, got {iterations}")
    started = time.perf_counter()
    solver = CFRDSolver(game, split, config, executor=executor).run(iterations)
    return solver.solution(seconds=time.perf_counter() - started)


# -- files --------------------------------------------------------------------------------


def _param_text(v: Any) -> str:
    """A game parameter as ``load_game`` reads it from the command line."""
    if isinstance(v, (tuple, list)):
        return ",".join(map(str, v))
    return str(v)


def save_cfr_d(path: str | Path, solution: CFRDSolution, **meta: Any) -> Path:
    """Write a CFR-D solution (trunk average strategy, average root values) to an ``.npz`` file.

    ``meta`` may name the game as ``load_game`` takes it (``game=NAME, params={...}``);
    by default the game's own name and parameters are recorded.
    """
    path = Path(path)
    game = solution.game
    record: dict[str, Any] = {"game": game.name, "params": {k: _param_text(v) for k, v in game.params.items()}}
    record.update({k: v for k, v in solution.meta.items() if isinstance(v, (int, float, str, bool))})
    record.update(meta)
    trunk = solution.trunk
    header = {
        "format": FORMAT, "version": VERSION, "game_id": trunk.game_id, "split": solution.split.to_json(),
        "iterations": solution.iterations, "config": solution.config.to_json(), "meta": record,
    }
    arrays: dict[str, np.ndarray] = {}
    for p in (0, 1):
        arrays[f"average{p}"] = solution.average.probs[p]
        arrays[f"values{p}"] = solution.root_values[p]
        arrays[f"labels{p}"] = np.array(_infoset_names(trunk, p), dtype=str)
    return write_npz(path, header, arrays)


def _infoset_names(trunk: PublicTree, player: int) -> tuple[str, ...]:
    """[I] ``public observations#private label`` of each of ``player``'s trunk information sets, as the file stores them
    to check that it fits the trunk it is loaded with."""
    pa = trunk.players[player]
    return tuple("|".join(trunk.public_key[pa.node[g]]) + "#" + pa.label[g] for g in pa.infoset_priv)


def _read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    return read_npz(path, format=FORMAT, version=VERSION, kind="CFR-D", expected="a CFR-D file")


def is_cfr_d_file(path: str | Path) -> bool:
    """Whether ``path`` is a file written by :func:`save_cfr_d` (any other file: ``False``)."""
    try:
        _read(Path(path))
    except StrategyFileError:
        return False
    return True


def load_cfr_d(path: str | Path, game: Game | None = None) -> CFRDSolution:
    """Read a file written by :func:`save_cfr_d`.

    Args:
        game: the game; by default it is rebuilt from the name and parameters recorded
            in the file (``load_game``).

    Raises:
        StrategyFileError: not a CFR-D file, another version, or another game.
    """
    from ..games import load_game

    path = Path(path)
    header, arrays = _read(path)
    meta = header.get("meta", {})
    if game is None:
        game = load_game(str(meta.get("game")), **{str(k): str(v) for k, v in (meta.get("params") or {}).items()})
    split = TrunkSplit(**header["split"])
    trunk = split.compile(game)
    if trunk.game_id != header["game_id"]:
        raise StrategyFileError(f"{path}: CFR-D file is for game {header['game_id']!r}, not {trunk.game_id!r}")
    probs, values = [], []
    for p in (0, 1):
        labels = _infoset_names(trunk, p)
        got = tuple(str(x) for x in arrays[f"labels{p}"])
        a, v = arrays[f"average{p}"], arrays[f"values{p}"]
        if got != labels or a.shape != trunk.players[p].legal.shape or v.shape != (trunk.players[p].num_states,):
            raise StrategyFileError(f"{path}: the arrays of player {p} do not fit the trunk of {game.name} split {split}")
        probs.append(a.astype(np.float64))
        values.append(v.astype(np.float64))
    average = Strategy(trunk.game_id, (probs[0], probs[1])).check(trunk)
    return CFRDSolution(game, split, trunk, average, (values[0], values[1]), int(header["iterations"]),
                        CFRDConfig.from_json(header["config"]), dict(meta))
