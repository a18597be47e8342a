"""Sampling CFR on the public tree: external sampling, outcome sampling, public chance sampling.

Monte Carlo CFR (Lanctot et al. 2009, "Monte Carlo Sampling for Regret Minimization in
Extensive Games", §3) replaces the counterfactual values of one CFR iteration by unbiased
estimates computed on a sampled block ``Q`` of terminal histories: a terminal ``z`` in ``Q``
counts with weight ``1/q(z)``, ``q(z)`` being the probability that ``z`` is in the sample.
The expected instantaneous regret is then CFR's, so the regret bound holds in expectation
(Theorem 1 there). Public chance sampling (Johanson et al. 2012, "Efficient Nash Equilibrium
Approximation through Monte Carlo Counterfactual Regret Minimization", §3) samples only the
public chance outcomes and walks the players' private states as vectors.

Every scheme here is written over the compiled :class:`~subgame.tree.public_tree.PublicTree`,
where private chance (the deal) is folded into the terminal operators. So the schemes are
the *vector forms* of Johanson et al. (2012, §3.1): private chance is never sampled but
handled exactly by the operators, one numpy call per public depth as in
:class:`~subgame.solve.cfr.CFRSolver`. What is sampled:

* public chance (all schemes): at every public chance node one child, uniformly, weighted by
  the number of children (the importance weight ``1/q``). Uniform sampling is unbiased even
  where the outcomes' probabilities differ (card removal), because the operators already
  hold the exact chance probabilities; each chance node samples independently.
* the opponent's actions (external and outcome sampling): one action per information set
  of the non-updating player, drawn from his current strategy, i.e. a pure strategy
  sampled on-policy. His reach becomes a 0/1 vector and ``π_{-i}/q_{-i} = 1`` on the
  sample (Lanctot et al. 2009, §3.1 and 3.2).
* the updating player's actions (outcome sampling only): one action per information set,
  drawn from the ε-exploring strategy ``ε·uniform + (1-ε)·σ`` (§3.2 there; ε = 0.6 as
  Lanctot's experiments). Every one of her private states follows its own sampled path; a
  regret is updated at the information sets on it, with the importance weight
  ``1/q(z[I])`` of the sampled prefix and ``1/q(a)`` of the sampled action.

The average strategy: in external and outcome sampling the opponent's current strategy is
added at each of his information sets with his sampled 0/1 reach, an unbiased estimate of
his own reach (the "simple averaging" of Lanctot et al. 2009, §3.1, which is valid for
outcome sampling too because the opponent is sampled on-policy); with public chance sampling,
as in CFR, each player's exact own reach (it involves no chance). Regrets and averages follow
the same :class:`~subgame.solve.cfr.CFRConfig` as CFR: regret matching or RM+, linear or DCFR
discounting (linear MCCFR: Brown & Sandholm 2019, §4), t^γ weights on the average.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..tree.public_tree import CHANCE_NODE, LEAF, PublicTree
from ..tree.sweep import backward_expected, forward_reach, leaf_values, sequence_values, transition_weights
from .abstraction import Abstraction
from .cfr import LINEAR_CFR, CFRConfig, CFRSolver, read_checkpoint


@dataclass(frozen=True)
class SamplingScheme:
    """What one sampling-CFR iteration samples (see the module docstring).

    Attributes:
        name: the scheme's name on the command line.
        opponent: ``"sampled"`` (one action per information set of the non-updating
            player, from his strategy) or ``"exact"`` (his whole strategy, as CFR).
        traverser: ``"enumerate"`` (every action of the updating player) or
            ``"sampled"`` (one ε-exploring action per information set: outcome sampling).
        epsilon: the exploration of outcome sampling, in (0, 1].
    """

    name: str
    opponent: Literal["sampled", "exact"]
    traverser: Literal["enumerate", "sampled"]
    epsilon: float = 0.6

    def __post_init__(self) -> None:
        if self.opponent not in ("sampled", "exact") or self.traverser not in ("enumerate", "sampled"):
            raise GameDefinitionError(f"unknown sampling scheme {self!r}: opponent is sampled|exact, traverser enumerate|sampled")
        if not 0.0 < self.epsilon <= 1.0:
            raise GameDefinitionError(f"outcome sampling's exploration epsilon must be in (0, 1], got {self.epsilon!r}")


EXTERNAL_SAMPLING = SamplingScheme("mccfr-es", opponent="sampled", traverser="enumerate")
OUTCOME_SAMPLING = SamplingScheme("mccfr-os", opponent="sampled", traverser="sampled")
PUBLIC_CHANCE_SAMPLING = SamplingScheme("pcs", opponent="exact", traverser="enumerate")
SCHEMES: dict[str, SamplingScheme] = {s.name: s for s in (EXTERNAL_SAMPLING, OUTCOME_SAMPLING, PUBLIC_CHANCE_SAMPLING)}

MCCFR_CHECKPOINT_KIND = "mccfr"


@dataclass(frozen=True, eq=False)
class PublicChanceSampler:
    """Samples one child of every public chance node; gives each node's importance weight.

    ``weights(rng)`` is [N]: ``Π 1/q`` over the sampled chance moves above a node in the
    sampled public tree (the product of the chance nodes' numbers of children), 0 at nodes
    outside it. One uniform draw per chance node, in node order, whatever the sample.
    """

    chance_nodes: np.ndarray  #: [C] the public chance nodes
    num_children: np.ndarray  #: [C] children of each
    chance_parent: np.ndarray  #: [N] index into chance_nodes of a node's parent, -1 if not a chance child
    sibling_rank: np.ndarray  #: [N] rank of a chance child among its siblings (node order), -1 otherwise
    levels: tuple[np.ndarray, ...]  #: per depth >= 1, the nodes of that depth
    parent: np.ndarray  #: [N] parent node

    @staticmethod
    def of(tree: PublicTree) -> PublicChanceSampler:
        n = tree.num_nodes
        chance_nodes = np.flatnonzero(tree.kind == CHANCE_NODE)
        index = np.full(n, -1, dtype=np.int64)
        index[chance_nodes] = np.arange(chance_nodes.size)
        has_parent = tree.parent >= 0
        chance_parent = np.where(has_parent, index[np.maximum(tree.parent, 0)], -1)
        chance_parent[~has_parent] = -1
        children = np.flatnonzero(chance_parent >= 0)
        order = children[np.argsort(chance_parent[children], kind="stable")]
        groups = chance_parent[order]
        first = np.searchsorted(groups, groups, side="left")
        sibling_rank = np.full(n, -1, dtype=np.int64)
        sibling_rank[order] = np.arange(order.size) - first
        num_children = np.bincount(chance_parent[children], minlength=chance_nodes.size)
        levels = tuple(np.flatnonzero(tree.depth == d) for d in range(1, tree.max_depth + 1))
        return PublicChanceSampler(chance_nodes, num_children, chance_parent, sibling_rank, levels, tree.parent)

    def weights(self, rng: np.random.Generator) -> np.ndarray:
        """[N] importance weight of every public node under one sample (0 outside it)."""
        w = np.ones(self.parent.shape[0])
        if self.chance_nodes.size == 0:
            return w
        choice = np.floor(rng.random(self.chance_nodes.size) * self.num_children).astype(np.int64)
        cp = self.chance_parent
        is_child = cp >= 0
        factor = np.ones_like(w)
        kept = self.sibling_rank[is_child] == choice[cp[is_child]]
        factor[is_child] = np.where(kept, self.num_children[cp[is_child]], 0.0)
        for nodes in self.levels:
            w[nodes] = w[self.parent[nodes]] * factor[nodes]
        return w


def sample_actions(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """[I] one action slot per row of ``probs`` [I, A], drawn from the row's distribution.

    Uses one uniform draw per row in (0, 1]; only slots of positive probability are drawn.
    """
    cum = np.cumsum(probs, axis=1)
    x = (1.0 - rng.random(probs.shape[0])) * cum[:, -1]
    return np.minimum((cum < x[:, None]).sum(axis=1), probs.shape[1] - 1)


def one_hot(actions: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """[I, A] 1.0 at each row's action slot, 0 elsewhere."""
    out = np.zeros(shape)
    out[np.arange(shape[0]), actions] = 1.0
    return out


class MCCFRSolver(CFRSolver):
    """Sampling CFR (external, outcome or public chance sampling) over one compiled tree.

    A :class:`~subgame.solve.driver.Solver` for the run driver: ``step()`` is one
    iteration (each player updated once), ``average_strategy()`` and the checkpoint are
    CFR's plus the sampling scheme and the random generator's state, so
    :meth:`load_checkpoint` continues bitwise where the run stopped.

    Args:
        tree: a compiled tree without depth-limit leaves.
        scheme: :data:`EXTERNAL_SAMPLING`, :data:`OUTCOME_SAMPLING`,
            :data:`PUBLIC_CHANCE_SAMPLING` (or ``SCHEMES[name]``).
        config: regret and averaging rule (default linear CFR: linear MCCFR).
        seed: an int seed or a ``numpy.random.Generator`` (advanced in place).
        abstraction: optional card abstraction (buckets share regrets and strategy).
    """

    def __init__(
        self,
        tree: PublicTree,
        scheme: SamplingScheme = EXTERNAL_SAMPLING,
        config: CFRConfig = LINEAR_CFR,
        *,
        seed: int | np.random.Generator = 0,
        abstraction: Abstraction | None = None,
    ) -> None:
        if not isinstance(scheme, SamplingScheme):
            raise GameDefinitionError(f"scheme must be a SamplingScheme, one of {', '.join(SCHEMES)} (SCHEMES[name]), got {scheme!r}")
        super().__init__(tree, config, abstraction=abstraction)
        if np.any(tree.kind == LEAF):
            raise GameDefinitionError(
                f"{tree.game_name}: sampling CFR needs a tree without depth-limit leaves; compile it without depth_limit/chance_limit"
            )
        self.scheme = scheme
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(_checked_seed(seed))
        self.public_chance = PublicChanceSampler.of(tree)

    # -- one iteration ------------------------------------------------------------------
    def step(self) -> None:
        """One iteration: each player's regrets updated once from a sampled estimate."""
        self.iteration += 1
        t = self.iteration
        if self.scheme.opponent == "exact":
            self._public_chance_step(t)
        else:
            for p in (0, 1):
                self._sampled_opponent_pass(p, t)

    def _terminal_values(self, p: int, opponent_reach: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """[G_p] player p's terminal values against ``opponent_reach``, scaled by the public chance weights."""
        tree = self.tree
        ones = np.ones(tree.players[p].num_states)
        reach = (ones, opponent_reach) if p == 0 else (opponent_reach, ones)
        v = leaf_values(tree, p, reach)
        v *= weights[tree.players[p].node]
        return v

    def _public_chance_step(self, t: int) -> None:
        """Public chance sampling: CFR's iteration on one sampled public chance outcome (Johanson et al. 2012, §3)."""
        w = self.public_chance.weights(self.rng)
        sigma = [self._current(0), self._current(1)]
        (sw0, reach0), (sw1, reach1) = self._reach(0, sigma[0]), self._reach(1, sigma[1])
        v0 = backward_expected(self.tree, 0, self._terminal_values(0, reach1, w), sw0)
        self._update(0, t, sigma[0], v0, reach0)
        if self.config.alternating:
            reach0 = self._reach(0, self._current(0))[1]
        v1 = backward_expected(self.tree, 1, self._terminal_values(1, reach0, w), sw1)
        self._update(1, t, sigma[1], v1, reach1)

    def _sampled_opponent_pass(self, p: int, t: int) -> None:
        """Player p's regret update against a sampled pure strategy of the opponent and a public chance sample."""
        tree, o = self.tree, 1 - p
        pa, po = tree.players[p], tree.players[o]
        w = self.public_chance.weights(self.rng)
        sigma_p, sigma_o = self._current(p), self._current(o)
        sampled_o = one_hot(sample_actions(sigma_o, self.rng), sigma_o.shape)
        reach_o = forward_reach(tree, o, transition_weights(tree, o, sampled_o))  # 0/1
        v = self._terminal_values(p, reach_o, w)
        if self.scheme.traverser == "enumerate":
            backward_expected(tree, p, v, transition_weights(tree, p, sigma_p))
            inst = sequence_values(tree, p, v) - v[pa.infoset_priv][:, None]
        else:
            inst = self._outcome_sampling_regrets(p, sigma_p, v)
        inst *= pa.legal
        self._add_regrets(p, t, inst)
        weight = self._average_weight(t)
        self.strategy_sum[o] += weight * self._pool(o, reach_o[po.infoset_priv][:, None] * sigma_o)

    def _outcome_sampling_regrets(self, p: int, sigma_p: np.ndarray, v: np.ndarray) -> np.ndarray:
        """[I, A] sampled regrets of outcome sampling (Lanctot et al. 2009, §3.2), one path per private state.

        ``v`` holds the terminal values (already weighted for the opponent and public chance
        samples). With ``q`` the ε-exploring strategy and ``a*`` the sampled slot at each
        information set, the backward sweep with weights ``σ(a*)/q(a*)`` on the sampled path
        gives ``V(h) = Σ_z π_i(h→z)/q_i(h→z) · u(z)``; then ``ṽ(I, a*) = V(Ia*)/(q(a*)·Q(I))``,
        ``ṽ(I, a) = 0`` for the other slots and ``ṽ(I) = V(I)/Q(I)``, ``Q(I)`` being the
        sampling probability of the path to ``I`` (0 off the sampled paths).
        """
        tree, pa = self.tree, self.tree.players[p]
        eps = self.scheme.epsilon
        q = eps * self._uniform_full(p) + (1.0 - eps) * sigma_p
        picked = one_hot(sample_actions(q, self.rng), q.shape)
        q_path = forward_reach(tree, p, transition_weights(tree, p, picked * q))
        on_path = q_path > 0
        ratio = np.divide(picked * sigma_p, q, out=np.zeros_like(q), where=picked > 0)
        v *= on_path
        backward_expected(tree, p, v, transition_weights(tree, p, ratio))
        v *= on_path
        seq = np.divide(sequence_values(tree, p, v), q, out=np.zeros_like(q), where=picked > 0)
        q_infoset = q_path[pa.infoset_priv]
        inst = seq - v[pa.infoset_priv][:, None]
        np.divide(inst, q_infoset[:, None], out=inst, where=q_infoset[:, None] > 0)
        inst[q_infoset == 0] = 0.0
        return inst

    def _uniform_full(self, p: int) -> np.ndarray:
        """[I, A] the uniform strategy over legal actions at every information set (not per bucket)."""
        legal = self.tree.players[p].legal
        return legal / legal.sum(axis=1, keepdims=True)

    # -- checkpoints --------------------------------------------------------------------
    def save_checkpoint(
        self, path: str | Path, *, extra: dict[str, np.ndarray] | None = None, extra_header: dict[str, Any] | None = None
    ) -> Path:
        """CFR's checkpoint plus the scheme and the generator's state (:meth:`load_checkpoint` resumes bitwise)."""
        header = {"solver": MCCFR_CHECKPOINT_KIND, "scheme": asdict(self.scheme), "rng": self.rng.bit_generator.state,
                  **(extra_header or {})}
        return super().save_checkpoint(path, extra=extra, extra_header=header)

    @staticmethod
    def load_checkpoint(path: str | Path, tree: PublicTree, abstraction: Abstraction | None = None) -> MCCFRSolver:
        """Restore a sampling solver saved by :meth:`save_checkpoint`, generator state included."""
        header, arrays = read_checkpoint(path)
        if header.get("solver") != MCCFR_CHECKPOINT_KIND:
            raise StrategyFileError(f"{path}: a CFR checkpoint without sampling state; load it with CFRSolver.load_checkpoint")
        solver = MCCFRSolver(tree, SamplingScheme(**header["scheme"]), CFRConfig(**header["config"]), abstraction=abstraction)
        solver.restore(header, arrays, str(path))
        solver.rng.bit_generator.state = header["rng"]
        return solver


def _checked_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise GameDefinitionError(f"seed must be a whole number >= 0 or a numpy Generator, got {seed!r}")
    return int(seed)
