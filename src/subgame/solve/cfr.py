"""One vectorized counterfactual-regret-minimization engine with the update rule as a parameter.

CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014: regret matching+, linear averaging),
linear CFR and discounted CFR (Brown & Sandholm 2019, DCFR(α, β, γ)) are presets of one
:class:`CFRConfig`. An iteration sweeps the public tree once per player (reaches forward,
counterfactual values backward) with one numpy call per public depth, so its cost does not
involve a Python loop over histories. The per-player root reaches and iteration hooks are
the seams where subgame gadgets (safe-and-nested §4–5) and depth-limited leaf operators
plug in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from ..errors import StrategyFileError
from ..files import read_npz, write_npz
from ..strategy import Strategy
from ..tree.public_tree import PublicTree
from ..tree.sweep import (
    backward_expected,
    forward_reach,
    leaf_values,
    regret_matching,
    sequence_values,
    transition_weights,
)
from .abstraction import Abstraction


@dataclass(frozen=True)
class CFRConfig:
    """How regrets and the average strategy are updated.

    Attributes:
        regret: ``"rm"`` (regret matching) or ``"rm+"`` (cumulative regrets floored at 0).
        alpha, beta: DCFR discounts: after iteration t, positive cumulative regrets are
            multiplied by t^α/(t^α+1) and negative ones by t^β/(t^β+1); ``None`` disables.
        gamma: the average strategy weights iteration t by t^γ (0: uniform, 1: linear).
        alternating: update player 0 then player 1 (player 1 sees player 0's new strategy),
            or both simultaneously.
    """

    regret: Literal["rm", "rm+"] = "rm"
    alpha: float | None = None
    beta: float | None = None
    gamma: float = 0.0
    alternating: bool = True


CFR = CFRConfig()
CFR_PLUS = CFRConfig(regret="rm+", gamma=1.0)
LINEAR_CFR = CFRConfig(alpha=1.0, beta=1.0, gamma=1.0)
DCFR = CFRConfig(alpha=1.5, beta=0.0, gamma=2.0)
PRESETS: dict[str, CFRConfig] = {"cfr": CFR, "cfr+": CFR_PLUS, "lcfr": LINEAR_CFR, "dcfr": DCFR}


class IterationHook(Protocol):
    """Called after each player's values are computed, before her regrets are updated.

    A root gadget uses it to re-set the opponent's root range from the root
    counterfactual values (safe-and-nested §4–5); ``cfv`` is [G_player].
    """

    def __call__(self, solver: CFRSolver, player: int, cfv: np.ndarray) -> None: ...


@dataclass
class CFRSolver:
    """Mutable solver state over one compiled tree.

    Attributes:
        regrets: per player [I, A] cumulative regrets ([B, A] over buckets with an abstraction).
        strategy_sum: per player [I, A] (or [B, A]) weighted sum of reach × strategy.
        root_reach: per player the reach at her root private states (None: all ones).
        abstraction: optional card abstraction; information sets of one bucket share
            regrets and strategy (the blueprint of the decomposition paper's Fig. 5).
    """

    tree: PublicTree
    config: CFRConfig = CFR_PLUS
    hooks: Sequence[IterationHook] = ()
    abstraction: Abstraction | None = None
    root_reach: list[np.ndarray | None] = field(default_factory=lambda: [None, None])
    iteration: int = 0
    regrets: list[np.ndarray] = field(init=False)
    strategy_sum: list[np.ndarray] = field(init=False)

    def __post_init__(self) -> None:
        self._legal = [pa.legal for pa in self.tree.players]
        if self.abstraction is not None:
            self._legal = [self.abstraction.pool(p, pa.legal.astype(float)) > 0 for p, pa in enumerate(self.tree.players)]
        self._uniform = [legal / legal.sum(axis=1, keepdims=True) for legal in self._legal]
        self.regrets = [np.zeros(legal.shape) for legal in self._legal]
        self.strategy_sum = [np.zeros(legal.shape) for legal in self._legal]

    def _lift(self, p: int, x: np.ndarray) -> np.ndarray:
        return x if self.abstraction is None else self.abstraction.lift(p, x)

    def _pool(self, p: int, x: np.ndarray) -> np.ndarray:
        return x if self.abstraction is None else self.abstraction.pool(p, x)

    # -- strategies ---------------------------------------------------------------------
    def _current(self, p: int) -> np.ndarray:
        return self._lift(p, regret_matching(self.regrets[p], self._legal[p], self._uniform[p]))

    def current_strategy(self) -> Strategy:
        return Strategy(self.tree.game_id, (self._current(0), self._current(1)))

    def average_strategy(self) -> Strategy:
        out = []
        for p, uniform in enumerate(self._uniform):
            s = self.strategy_sum[p]
            tot = s.sum(axis=1, keepdims=True)
            out.append(self._lift(p, np.where(tot > 0, s / np.where(tot > 0, tot, 1.0), uniform)))
        return Strategy(self.tree.game_id, (out[0], out[1]), {"iterations": self.iteration, "config": asdict(self.config)})

    # -- iterations ---------------------------------------------------------------------
    def _values(self, p: int, sigma: list[np.ndarray], sw: list[np.ndarray | None], reach: list[np.ndarray | None]):
        tree = self.tree
        for q in (0, 1):
            if sw[q] is None:
                sw[q] = transition_weights(tree, q, sigma[q])
                reach[q] = forward_reach(tree, q, sw[q], self.root_reach[q])
        v = leaf_values(tree, p, (reach[0], reach[1]))
        backward_expected(tree, p, v, sw[p])
        for hook in self.hooks:
            hook(self, p, v)
        return v

    def _update(self, p: int, t: int, sigma_p: np.ndarray, v: np.ndarray, reach_p: np.ndarray) -> None:
        cfg, pa = self.config, self.tree.players[p]
        inst = sequence_values(self.tree, p, v) - v[pa.infoset_priv][:, None]
        inst *= pa.legal
        inst = self._pool(p, inst)
        r = self.regrets[p]
        r += inst
        if cfg.regret == "rm+":
            np.maximum(r, 0.0, out=r)
        if cfg.alpha is not None or cfg.beta is not None:
            pos = t**cfg.alpha / (t**cfg.alpha + 1.0) if cfg.alpha is not None else 1.0
            neg = t**cfg.beta / (t**cfg.beta + 1.0) if cfg.beta is not None else 1.0
            r *= np.where(r > 0, pos, neg)
        weight = float(t) ** cfg.gamma
        self.strategy_sum[p] += weight * self._pool(p, reach_p[pa.infoset_priv][:, None] * sigma_p)

    def step(self) -> None:
        """One iteration (both players)."""
        self.iteration += 1
        t = self.iteration
        sigma = [self._current(0), self._current(1)]
        sw: list[np.ndarray | None] = [None, None]
        reach: list[np.ndarray | None] = [None, None]
        if self.config.alternating:
            for p in (0, 1):
                v = self._values(p, sigma, sw, reach)
                self._update(p, t, sigma[p], v, reach[p])
                if p == 0:
                    sigma[0] = self._current(0)
                    sw[0] = reach[0] = None
        else:
            vs = [self._values(p, sigma, sw, reach) for p in (0, 1)]
            for p in (0, 1):
                self._update(p, t, sigma[p], vs[p], reach[p])

    def run(self, iterations: int, callback: Callable[[CFRSolver], None] | None = None) -> CFRSolver:
        """Run ``iterations`` more iterations, calling ``callback`` after each."""
        for _ in range(iterations):
            self.step()
            if callback is not None:
                callback(self)
        return self

    # -- checkpoints --------------------------------------------------------------------
    def save_checkpoint(
        self, path: str | Path, *, extra: dict[str, np.ndarray] | None = None, extra_header: dict | None = None
    ) -> Path:
        """Write the solver state so that :meth:`load_checkpoint` continues exactly where it stopped.

        ``extra`` arrays and ``extra_header`` entries are stored alongside, for solvers built
        on this one (CFR-D keeps its average root values there). The file is replaced
        atomically, so an interruption while writing leaves the previous checkpoint intact.
        """
        header = {"format": CHECKPOINT_FORMAT, "version": 1, "game_id": self.tree.game_id,
                  "iteration": self.iteration, "config": asdict(self.config), **(extra_header or {})}
        arrays = {"r0": self.regrets[0], "r1": self.regrets[1], "s0": self.strategy_sum[0], "s1": self.strategy_sum[1]}
        arrays.update({f"extra_{k}": v for k, v in (extra or {}).items()})
        return write_npz(path, header, arrays)

    def restore(self, header: dict, arrays: dict[str, np.ndarray], source: str = "checkpoint") -> CFRSolver:
        """Load regrets, strategy sums and the iteration count read by :func:`read_checkpoint`."""
        if header["game_id"] != self.tree.game_id:
            raise StrategyFileError(f"{source}: checkpoint is for game {header['game_id']!r}, not {self.tree.game_id!r}")
        loaded = [arrays[k] for k in ("r0", "r1", "s0", "s1")]
        if any(a.shape != r.shape for a, r in zip(loaded, self.regrets + self.strategy_sum)):
            raise StrategyFileError(f"{source}: checkpoint arrays do not fit this tree and abstraction")
        self.iteration = int(header["iteration"])
        self.regrets, self.strategy_sum = loaded[:2], loaded[2:]
        return self

    @staticmethod
    def load_checkpoint(path: str | Path, tree: PublicTree, abstraction: Abstraction | None = None) -> CFRSolver:
        """Restore a solver saved by :meth:`save_checkpoint` (with the abstraction it used)."""
        header, arrays = read_checkpoint(path)
        return CFRSolver(tree, CFRConfig(**header["config"]), abstraction=abstraction).restore(header, arrays, str(path))


CHECKPOINT_FORMAT = "subgame-cfr-checkpoint"


def read_checkpoint(path: str | Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and arrays of a checkpoint file; ``extra_*`` arrays lose their prefix."""
    header, arrays = read_npz(path, format=CHECKPOINT_FORMAT, version=1, kind="checkpoint", expected="a CFR checkpoint")
    missing = {"r0", "r1", "s0", "s1"} - set(arrays)
    if missing:
        raise StrategyFileError(f"{path}: not a CFR checkpoint (arrays {sorted(missing)} missing)")
    return header, {k.removeprefix("extra_"): v for k, v in arrays.items()}
