"""Sampling CFR on the public tree: external sampling, outcome sampling, public chance sampling.

Monte Carlo CFR (Lanctot et al. 2009, "Monte Carlo Sampling for Regret Minimization in
Extensive Games", the MCCFR section) replaces the counterfactual values of one CFR iteration by unbiased
estimates computed on a sampled block ``Q`` of terminal histories: a terminal ``z`` in ``Q``
counts with weight ``1/q(z)``, ``q(z)`` being the probability that ``z`` is in the sample.
The expected instantaneous regret is then CFR's, so the regret bound holds in expectation
(Theorem 1 there). Public chance sampling (Johanson et al. 2012, "Efficient Nash Equilibrium
Approximation through Monte Carlo Counterfactual Regret Minimization") samples only the
public chance outcomes and walks the players' private states as vectors.

Every scheme here is written over the compiled :class:`~subgame.tree.public_tree.PublicTree`,
where private chance (the deal) is folded into the terminal operators. So the schemes are
the *vector forms* of Johanson et al. (2012): private chance is never sampled but
handled exactly by the operators, one numpy call per public depth as in
:class:`~subgame.solve.cfr.CFRSolver`. What is sampled:

* public chance (all schemes): at every public chance node one child, uniformly, weighted by
  the number of children (the importance weight ``1/q``). Uniform sampling is unbiased even
  where the outcomes' probabilities differ (card removal), because the operators already
  hold the exact chance probabilities; each chance node samples independently.
* the opponent's actions (external and outcome sampling): one action per information set
  of the non-updating player, drawn from his current strategy, i.e. a pure strategy
  sampled on-policy. His reach becomes a 0/1 vector and ``π_{-i}/q_{-i} = 1`` on the
  sample (Lanctot et al. 2009, external and outcome sampling).
* the updating player's actions (outcome sampling only): one action per information set,
  drawn from the ε-exploring strategy ``ε·uniform + (1-ε)·σ`` (Lanctot et al. 2009, outcome sampling; ε = 0.6,
  OpenSpiel's default). Every one of her private states follows its own sampled path; a
  regret is updated at the information sets on it, with the importance weight
  ``1/q(z[I])`` of the sampled prefix and ``1/q(a)`` of the sampled action.

Each iteration is a pass of player 0 then one of player 1 (alternating updates); every pass
draws its own samples, public chance sampling included. A pass may average several
independent samples, one per random stream, computed on worker processes (a mini-batch; see
:class:`MCCFRSolver`).

The average strategy is accumulated during the walk, at the information sets of the sampled
public tree only (an information set's iterations are then subsampled with a fixed
probability, which its normalization cancels): in external and outcome sampling the
opponent's current strategy weighted by his sampled 0/1 reach, an unbiased estimate of his
own reach (the "simple averaging" of Lanctot et al. 2009 for external sampling, valid for outcome sampling
too because the opponent is sampled on-policy); with public chance sampling, as in CFR, the
updating player's exact own reach (it involves no chance). Regrets and averages follow the
same :class:`~subgame.solve.cfr.CFRConfig` as CFR: regret matching or RM+, linear or DCFR
discounting (linear MCCFR: Brown & Sandholm 2019, "Solving Imperfect-Information Games via
Discounted Regret Minimization"), t^γ weights on the average, the prediction of predictive CFR+
(of the last sampled regret); averaging without reach weights is refused.

On large trees a pass walks only the public nodes of its sample (:mod:`subgame.tree.sampled`);
on small ones it sweeps the whole tree with zero weights outside the sample, which is faster
there and gives the same estimates (:data:`RESTRICT_MIN_STATES`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError, SubgameError
from ..games.base import Game
from ..tree.kernels import update_params
from ..tree.public_tree import CHANCE_NODE, LEAF, PublicTree, refuse_isomorphic
from ..tree.sampled import (
    PartIndex,
    TreePart,
    part_backward_expected,
    part_forward_reach,
    part_sequence_values,
    part_terminal_values,
    part_transition_weights,
    tree_part,
)
from .abstraction import Abstraction
from .cfr import LINEAR_CFR, CFRConfig, CFRSolver
from .checkpoint import read_checkpoint
from .rules import add_average, refuse

if TYPE_CHECKING:
    from ..parallel import Executor
    from .compiled_sampling import OutcomeLayout, WholeIteration


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

#: How a pass is computed: ``"numpy"`` (every scheme), ``"compiled"`` (the schemes of :data:`SCHEMES` in C,
#: :mod:`.compiled_sampling`: the same random stream and the same bits as numpy on the whole tree) or ``"auto"``
#: (compiled where it is built and gives numpy's bits: no executor, the whole tree walked).
ENGINES = ("auto", "numpy", "compiled")


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
    ancestors: np.ndarray  #: [N, K] the chance children on the path to each node (itself included), -1 padded
    full_weight: np.ndarray  #: [N] product of the numbers of children of the chance nodes above each node

    @staticmethod
    def of(tree: PublicTree) -> PublicChanceSampler:
        n = tree.num_nodes
        chance_nodes = np.flatnonzero(tree.kind == CHANCE_NODE)
        index = np.full(n, -1, dtype=np.int64)
        index[chance_nodes] = np.arange(chance_nodes.size)
        has_parent = tree.parent >= 0
        chance_parent = np.where(has_parent, index[np.maximum(tree.parent, 0)], -1)
        children = np.flatnonzero(chance_parent >= 0)
        order = children[np.argsort(chance_parent[children], kind="stable")]
        groups = chance_parent[order]
        first = np.searchsorted(groups, groups, side="left")
        sibling_rank = np.full(n, -1, dtype=np.int64)
        sibling_rank[order] = np.arange(order.size) - first
        num_children = np.bincount(chance_parent[children], minlength=chance_nodes.size)
        # one pass per depth at construction: each node inherits its parent's chance children
        is_child = chance_parent >= 0
        branching = np.append(num_children, 1).astype(np.float64)  # index -1 (not a chance child): 1
        count = np.zeros(n, dtype=np.int64)
        full_weight = np.ones(n)
        for d in range(1, tree.max_depth + 1):
            nodes = np.flatnonzero(tree.depth == d)
            par = tree.parent[nodes]
            count[nodes] = count[par] + is_child[nodes]
            full_weight[nodes] = full_weight[par] * branching[chance_parent[nodes]]
        width = max(1, int(count.max(initial=0)))
        ancestors = np.full((n, width), -1, dtype=np.int64)
        for d in range(1, tree.max_depth + 1):
            nodes = np.flatnonzero(tree.depth == d)
            ancestors[nodes] = ancestors[tree.parent[nodes]]
            mine = nodes[is_child[nodes]]
            ancestors[mine, count[mine] - 1] = mine
        return PublicChanceSampler(chance_nodes, num_children, chance_parent, sibling_rank, ancestors, full_weight)

    def weights(self, rng: np.random.Generator) -> np.ndarray:
        """[N] importance weight of every public node under one sample (0 outside it)."""
        if self.chance_nodes.size == 0:
            return self.full_weight.copy()
        choice = np.floor(rng.random(self.chance_nodes.size) * self.num_children).astype(np.int64)
        n = self.chance_parent.shape[0]
        keep = np.ones(n + 1, dtype=bool)  # the last slot answers the -1 padding
        cp = self.chance_parent
        is_child = cp >= 0
        keep[:n][is_child] = self.sibling_rank[is_child] == choice[cp[is_child]]
        return np.where(keep[self.ancestors].all(axis=1), self.full_weight, 0.0)


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


#: Trees with at least this many private states (both players) walk only the sampled part; smaller
#: ones sweep the whole tree with zero weights outside the sample, which costs fewer numpy calls.
#: Measured per iteration on a shared 2-core machine: Leduc (4,680 states) about 2x faster whole;
#: Leduc with 13 ranks (98,280 states) 10 to 25% faster restricted; 6 ranks, 4 suits, 2 hole cards
#: (919,080 states, poker fold/showdown operators) 1.3x (outcome) to 2.1x (public chance) faster.
RESTRICT_MIN_STATES = 20_000


@dataclass(frozen=True, eq=False)
class SampledWalk:
    """A tree with what a sampling pass precomputes once: the public chance sampler and the part index.

    ``restrict``: walk only the public nodes of each sample (see :mod:`subgame.tree.sampled`)
    rather than the whole tree with zero weights outside it; the estimates are the same.
    """

    tree: PublicTree
    chance: PublicChanceSampler
    index: PartIndex
    restrict: bool
    uniform: tuple[np.ndarray, np.ndarray]  #: each player's [I_p, A] uniform strategy over legal actions (outcome sampling's exploration)

    @staticmethod
    def of(tree: PublicTree, restrict: bool | None = None) -> SampledWalk:
        """``restrict=None``: restrict on trees of at least :data:`RESTRICT_MIN_STATES` private states."""
        if restrict is None:
            restrict = tree.players[0].num_states + tree.players[1].num_states >= RESTRICT_MIN_STATES
        uniform = tuple(pa.legal / pa.legal.sum(axis=1, keepdims=True) for pa in tree.players)
        return SampledWalk(tree, PublicChanceSampler.of(tree), PartIndex.of(tree), bool(restrict), (uniform[0], uniform[1]))


def sampled_pass(
    walk: SampledWalk, scheme: SamplingScheme, player: int, sigma: tuple[np.ndarray, np.ndarray], rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """One sampled estimate of ``player``'s instantaneous regrets, and an increment of an average strategy.

    Only the public nodes of the sampled public chance outcome are walked
    (:mod:`subgame.tree.sampled`). A pure function of its arguments and the generator's
    state (which it advances), so that the passes of several workers can be computed
    anywhere and summed in a fixed order.

    Args:
        sigma: both players' current strategies [I_p, A] (per information set).
    Returns:
        ``(regrets, average)``: [I_p, A] sampled instantaneous regrets (0 at illegal slots
        and outside the sample); with a sampled opponent, [I_o, A] his 0/1 sampled reach
        times his strategy (the unbiased estimate of his reach-weighted strategy), else
        [I_p, A] the player's own reach times her strategy, both at the walked information
        sets only.
    """
    tree = walk.tree
    o = 1 - player
    pa, po = tree.players[player], tree.players[o]
    w = walk.chance.weights(rng)
    part = tree_part(walk.index, w > 0) if walk.restrict else None
    sw_p: np.ndarray | None = None  # the player's own transition weights, where the scheme needs them
    if scheme.opponent == "sampled":
        sampled_o = one_hot(sample_actions(sigma[o], rng), sigma[o].shape)
        reach_o = part_forward_reach(tree, o, part, part_transition_weights(tree, o, part, sampled_o))  # 0/1
        avg = reach_o[po.infoset_priv][:, None] * sigma[o]
    else:
        sw_p = part_transition_weights(tree, player, part, sigma[player])
        reach_o = part_forward_reach(tree, o, part, part_transition_weights(tree, o, part, sigma[o]))
        avg = part_forward_reach(tree, player, part, sw_p)[pa.infoset_priv][:, None] * sigma[player]
    if part is None:  # the average counts the walked information sets only, as the restricted walk does
        owner = po if scheme.opponent == "sampled" else pa
        avg[w[owner.node[owner.infoset_priv]] == 0] = 0.0
    ones = np.ones(pa.num_states)
    terminal = part_terminal_values(tree, player, part, walk.index, (ones, reach_o) if player == 0 else (reach_o, ones))
    if part is None:
        v = terminal * w[pa.node]
    else:
        idx = part.all_states[player]
        v = np.zeros(pa.num_states)
        v[idx] = terminal[idx] * w[pa.node[idx]]
    if scheme.traverser == "enumerate":
        if sw_p is None:
            sw_p = part_transition_weights(tree, player, part, sigma[player])
        part_backward_expected(tree, player, part, v, sw_p)
        inst = part_sequence_values(tree, player, part, v) - v[pa.infoset_priv][:, None]
    else:
        inst = _outcome_sampling_regrets(walk, part, player, scheme.epsilon, sigma[player], v, rng)
    inst *= pa.legal
    return inst, avg


def _outcome_sampling_regrets(
    walk: SampledWalk, part: TreePart | None, p: int, epsilon: float, sigma_p: np.ndarray, v: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """[I, A] sampled regrets of outcome sampling (Lanctot et al. 2009), one path per private state.

    ``v`` holds the terminal values (already weighted for the opponent and public chance
    samples). With ``q`` the ε-exploring strategy and ``a*`` the sampled slot at each
    information set, the backward sweep with weights ``σ(a*)/q(a*)`` on the sampled path
    gives ``V(h) = Σ_z π_i(h→z)/q_i(h→z) · u(z)``; then ``ṽ(I, a*) = V(Ia*)/(q(a*)·Q(I))``,
    ``ṽ(I, a) = 0`` for the other slots and ``ṽ(I) = V(I)/Q(I)``, ``Q(I)`` being the
    sampling probability of the path to ``I`` (0 off the sampled paths).
    """
    tree = walk.tree
    pa = tree.players[p]
    q = epsilon * walk.uniform[p] + (1.0 - epsilon) * sigma_p
    rows = np.arange(q.shape[0])
    picked = sample_actions(q, rng)
    q_picked = q[rows, picked]  # > 0: ε > 0 explores every legal slot
    on_slot = np.zeros_like(q)  # q(a*) at the sampled slot, 0 elsewhere
    on_slot[rows, picked] = q_picked
    q_path = part_forward_reach(tree, p, part, part_transition_weights(tree, p, part, on_slot))
    on_path = q_path > 0
    on_slot[rows, picked] = sigma_p[rows, picked] / q_picked  # now σ(a*)/q(a*)
    v *= on_path
    part_backward_expected(tree, p, part, v, part_transition_weights(tree, p, part, on_slot))
    v *= on_path
    seq = np.zeros_like(q)
    seq[rows, picked] = part_sequence_values(tree, p, part, v)[rows, picked] / q_picked
    q_infoset = q_path[pa.infoset_priv]
    inst = seq - v[pa.infoset_priv][:, None]
    np.divide(inst, q_infoset[:, None], out=inst, where=q_infoset[:, None] > 0)
    inst[q_infoset == 0] = 0.0
    return inst


# -- several sample streams, on workers -------------------------------------------------------
# A worker process keeps the trees it has compiled (or inherited from its parent when forked),
# so a task carries only strategies and a generator, never the tree.
_WORKER_TREES: dict[str, SampledWalk] = {}


def tree_key(tree: PublicTree) -> str:
    """What names a compiled tree among a worker's cached ones."""
    return f"{tree.game_id}:{tree.num_nodes}:{tree.players[0].num_states}:{tree.players[1].num_states}"


@dataclass(frozen=True, eq=False)
class PassTask:
    """One stream's share of a pass: everything :func:`run_pass_task` needs besides the cached tree."""

    key: str  #: :func:`tree_key` of the tree
    restrict: bool  #: walk only the sampled part (:class:`SampledWalk`)
    game: Game | None  #: compiled in the worker when its cache misses (a spawned or remote worker)
    scheme: SamplingScheme
    player: int
    sigma: tuple[np.ndarray, np.ndarray]
    rng: np.random.Generator  #: this stream's generator, returned advanced


def run_pass_task(task: PassTask) -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    """:func:`sampled_pass` on the worker's copy of the tree; returns the advanced generator too."""
    cached = _WORKER_TREES.get(task.key)
    if cached is not None and cached.restrict != task.restrict:
        cached = _WORKER_TREES[task.key] = replace(cached, restrict=task.restrict)
    if cached is None:
        if task.game is None:
            raise SubgameError(
                "a sampling worker has no copy of the tree and no game to compile it from; give the solver its game "
                "(MCCFRSolver(..., game=game)) or use a process pool that forks"
            )
        from ..tree.compile import compile_game

        tree = compile_game(task.game)
        if tree_key(tree) != task.key:
            raise SubgameError(f"the worker compiled {tree_key(tree)}, not the solver's tree {task.key}")
        cached = _WORKER_TREES[task.key] = SampledWalk.of(tree, task.restrict)
    rng = task.rng
    inst, avg = sampled_pass(cached, task.scheme, task.player, task.sigma, rng)
    return inst, avg, rng


class MCCFRSolver(CFRSolver):
    """Sampling CFR (external, outcome or public chance sampling) over one compiled tree.

    A :class:`~subgame.solve.driver.Solver` for the run driver: ``step()`` is one
    iteration, a pass of player 0 then one of player 1 (alternating updates, whatever
    ``config.alternating`` says), each from a sampled estimate; ``average_strategy()`` and
    the checkpoint are CFR's plus the scheme and the generators' states, so
    :meth:`load_checkpoint` continues bitwise where the run stopped.

    With ``streams`` > 1 every pass averages that many independent samples, one per
    random stream (a mini-batch), and with an ``executor`` the streams run on its workers.
    Each stream's sample is computed by the same pure function wherever it runs and the
    results are summed in stream order, so a run is bitwise the same on any executor for
    a fixed seed and number of streams.

    Args:
        tree: a compiled tree without depth-limit leaves.
        scheme: :data:`EXTERNAL_SAMPLING`, :data:`OUTCOME_SAMPLING`,
            :data:`PUBLIC_CHANCE_SAMPLING` (or ``SCHEMES[name]``).
        config: regret and averaging rule (default linear CFR: linear MCCFR).
        seed: an int seed or a ``numpy.random.Generator`` (advanced in place with one
            stream; several streams are spawned from it).
        abstraction: optional card abstraction (buckets share regrets and strategy).
        streams: independent samples per pass.
        executor: where the streams' samples are computed (:mod:`subgame.parallel`);
            ``None``: in this process.
        game: the game ``tree`` was compiled from, for workers that must compile it
            themselves (spawned processes, Ray); forked workers inherit the tree.
        restrict: walk only each sample's public nodes (``None``: on trees of at least
            :data:`RESTRICT_MIN_STATES` private states); the estimates are the same.
        engine: one of :data:`ENGINES`; ``"compiled"`` (the schemes of :data:`SCHEMES`, in
            this process) sweeps the whole tree in C, a whole iteration in one call where
            the tree's terminals are one sparse payoff matrix and one stream runs, and
            gives the numpy pass's bits with ``restrict=False``; ``"auto"`` (the default)
            runs it where it gives the numpy run's bits.
    """

    def __init__(
        self,
        tree: PublicTree,
        scheme: SamplingScheme = EXTERNAL_SAMPLING,
        config: CFRConfig = LINEAR_CFR,
        *,
        seed: int | np.random.Generator = 0,
        abstraction: Abstraction | None = None,
        streams: int = 1,
        executor: Executor | None = None,
        game: Game | None = None,
        restrict: bool | None = None,
        engine: str = "auto",
    ) -> None:
        if not isinstance(scheme, SamplingScheme):
            raise GameDefinitionError(f"scheme must be a SamplingScheme, one of {', '.join(SCHEMES)} (SCHEMES[name]), got {scheme!r}")
        super().__init__(tree, config, abstraction=abstraction)
        refuse(config, "sampling CFR (MCCFRSolver)", ("reach_average",))
        refuse_isomorphic(tree, "sampling CFR")
        if np.any(tree.kind == LEAF):
            raise GameDefinitionError(
                f"{tree.game_name}: sampling CFR needs a tree without depth-limit leaves; compile it without depth_limit/chance_limit"
            )
        if isinstance(streams, bool) or not isinstance(streams, (int, np.integer)) or streams < 1:
            raise GameDefinitionError(f"streams (samples per pass) must be a whole number >= 1, got {streams!r}")
        self.scheme = scheme
        rng = seeded_generator(seed)
        self.streams = [rng] if streams == 1 else list(rng.spawn(int(streams)))
        self.walk = SampledWalk.of(tree, restrict)
        self.layout = _compiled_layout(tree, scheme, engine, executor, self.walk.restrict)
        self.executor = executor
        self.game = game
        self._whole_os: tuple[tuple[np.ndarray, ...], WholeIteration | None] | None = None
        self._key = tree_key(tree)
        if executor is not None:  # a pool forked from now on inherits the tree
            _WORKER_TREES.setdefault(self._key, self.walk)

    def __getstate__(self) -> dict[str, Any]:
        """CFR's state without the compiled engine's arrays and calls (addresses of this solver's buffers): a copy or
        an unpickled solver makes its own (:meth:`__setstate__`)."""
        state = super().__getstate__()
        state["layout"], state["_whole_os"], state["_compiled"] = None, None, self.layout is not None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        compiled = state.pop("_compiled", False)
        self.__dict__.update(state)
        if compiled:
            from .compiled_sampling import OutcomeLayout

            self.layout = OutcomeLayout.of(self.tree)

    def why_not_passes(self) -> str | None:
        """Always a reason: a sampling pass walks its sample's public nodes, not the depth-first passes."""
        return "sampling CFR walks the public nodes of its samples"

    def _passes_possible(self) -> bool:
        return False

    # -- one iteration ------------------------------------------------------------------
    def step(self) -> None:
        """One iteration: each player's regrets updated once from a sampled estimate."""
        self.iteration += 1
        t = self.iteration
        whole = self._whole_iteration()
        if whole is not None:
            whole.run(self.scheme.epsilon, update_params(self._rule(t)), self.streams[0])
            return
        sigma = [self._current(0), self._current(1)]
        self._pass(0, t, (sigma[0], sigma[1]))
        sigma[0] = self._current(0)  # player 1's regrets did not change in player 0's pass
        self._pass(1, t, (sigma[0], sigma[1]))

    def _whole_iteration(self) -> WholeIteration | None:
        """The one-call iteration of compiled outcome sampling, prepared for the solver's arrays, where it runs them."""
        if (self.layout is None or len(self.streams) != 1 or self.abstraction is not None or self.predicted is not None
                or any(r is not None for r in self.restriction)):
            return None
        arrays = (*self.regrets, *self.strategy_sum)
        if self._whole_os is not None and all(a is b for a, b in zip(self._whole_os[0], arrays)):
            return self._whole_os[1]
        from .compiled_sampling import WHOLE_SCHEMES, WholeIteration

        scheme = WHOLE_SCHEMES.get((self.scheme.opponent, self.scheme.traverser))
        call = (WholeIteration(self.layout, self.walk.chance, list(self.regrets), list(self.strategy_sum), scheme)
                if scheme is not None and WholeIteration.takes(self.tree, self.regrets, self.strategy_sum) else None)
        self._whole_os = (arrays, call)
        return call

    def _pass(self, p: int, t: int, sigma: tuple[np.ndarray, np.ndarray]) -> None:
        """Player p's regrets (and her opponent's strategy sums) updated from one sample at both players' current
        strategies ``sigma``."""
        o = 1 - p
        if self.layout is not None and self.scheme.traverser == "sampled":
            from .compiled_sampling import outcome_pass

            results = []
            for rng in self.streams:
                inst, avg = outcome_pass(self.layout, p, self.scheme.epsilon, sigma, self.walk.chance.weights(rng), rng)
                # the layout's buffers, which the next stream's pass overwrites
                results.append((inst, avg, rng) if len(self.streams) == 1 else (inst.copy(), avg.copy(), rng))
        elif self.executor is None:
            results = [(*sampled_pass(self.walk, self.scheme, p, sigma, rng), rng) for rng in self.streams]
        else:
            tasks = [PassTask(self._key, self.walk.restrict, self.game, self.scheme, p, sigma, rng) for rng in self.streams]
            results = self.executor.map(run_pass_task, tasks)
        self.streams = [r[2] for r in results]
        inst = _mean([r[0] for r in results])
        rule = self._rule(t)
        self._add_regrets(p, rule, inst)
        owner = o if self.scheme.opponent == "sampled" else p
        add_average(rule, self.strategy_sum[owner], self._pool(owner, _mean([r[1] for r in results])))

    # -- checkpoints --------------------------------------------------------------------
    def save_checkpoint(
        self, path: str | Path, *, extra: dict[str, np.ndarray] | None = None, extra_header: dict[str, Any] | None = None
    ) -> Path:
        """CFR's checkpoint plus the scheme and every stream's generator state (:meth:`load_checkpoint` resumes bitwise)."""
        header = {"solver": MCCFR_CHECKPOINT_KIND, "scheme": asdict(self.scheme),
                  "rng": [g.bit_generator.state for g in self.streams], **(extra_header or {})}
        return super().save_checkpoint(path, extra=extra, extra_header=header)

    @staticmethod
    def load_checkpoint(
        path: str | Path, tree: PublicTree, abstraction: Abstraction | None = None, *,
        executor: Executor | None = None, game: Game | None = None,
    ) -> MCCFRSolver:
        """Restore a sampling solver saved by :meth:`save_checkpoint`, its streams' generator states included."""
        header, arrays = read_checkpoint(path)
        if header.get("solver") != MCCFR_CHECKPOINT_KIND:
            raise StrategyFileError(f"{path}: a CFR checkpoint without sampling state; load it with CFRSolver.load_checkpoint")
        states = header["rng"]
        solver = MCCFRSolver(tree, SamplingScheme(**header["scheme"]), CFRConfig(**header["config"]), abstraction=abstraction,
                             streams=len(states), executor=executor, game=game)
        solver.restore(header, arrays, str(path))
        for g, state in zip(solver.streams, states):
            g.bit_generator.state = state
        return solver


def _compiled_layout(tree: PublicTree, scheme: SamplingScheme, engine: str, executor: Executor | None,
                     restrict: bool) -> OutcomeLayout | None:
    """The C pass's arrays for the compiled engine (``None`` for numpy), after checking the choice; ``"auto"`` is
    compiled where that is built and gives the numpy run's bits (``restrict``: the numpy walk's)."""
    if engine not in ENGINES:
        raise GameDefinitionError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "numpy":
        return None
    from .compiled_sampling import WHOLE_SCHEMES, OutcomeLayout, available

    runs = (scheme.opponent, scheme.traverser) in WHOLE_SCHEMES
    if engine == "auto":
        return OutcomeLayout.of(tree) if runs and executor is None and not restrict and available() else None
    if not runs:
        raise GameDefinitionError(f"engine='compiled' runs {', '.join(SCHEMES)}, not {scheme.name} (opponent "
                                  f"{scheme.opponent!r}, traverser {scheme.traverser!r})")
    if executor is not None:
        raise GameDefinitionError("engine='compiled' computes its streams in this process; leave executor=None")
    if not available():
        raise GameDefinitionError(
            "engine='compiled' needs the compiled pass (subgame.solve._sampling): build it with "
            "`python3 setup.py build_ext --inplace` (a C compiler), or use engine='numpy'"
        )
    return OutcomeLayout.of(tree)


def _mean(parts: list[np.ndarray]) -> np.ndarray:
    """The mean of equal-shaped arrays, summed in list order (the same bits on every executor); one array is its own
    mean (each caller consumes it at once)."""
    if len(parts) == 1:
        return parts[0]
    total = parts[0].copy()
    for x in parts[1:]:
        total += x
    if len(parts) > 1:
        total /= len(parts)
    return total


def seeded_generator(seed: int | np.random.Generator) -> np.random.Generator:
    """``seed`` itself if it is a numpy Generator (advanced in place by its user), else a new one seeded by it.

    Raises:
        GameDefinitionError: not a whole number >= 0 nor a Generator.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise GameDefinitionError(f"seed must be a whole number >= 0 or a numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))
