"""One vectorized counterfactual-regret-minimization engine with the update rule as a parameter.

CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014: regret matching+, linear averaging),
linear CFR and discounted CFR (Brown & Sandholm 2019, DCFR(α, β, γ)), predictive CFR+
(Farina, Kroer & Sandholm 2021) and postflop-solver's DCFR are presets of one
:class:`~.rules.CFRConfig` (:mod:`.rules`: the config, iteration t's update rule, the
registry of presets). An iteration sweeps the public tree once per player (reaches forward,
counterfactual values backward) with one numpy call per public depth, so its cost does not
involve a Python loop over histories. On a poker tree with its layout the same iteration runs
as two depth-first passes in compiled code (:mod:`~subgame.tree.poker_layout`, bitwise the
compiled sweeps, small boards' sparse payoff matrix included), which keep no array over every
private state; which loops run is the solver's ``engine`` argument, and :attr:`CFRSolver.loops`
says which do. Root gadgets (safe-and-nested §4–5) and depth-limit leaves (CFR-D,
depth-limited solving) plug in through the protocols of :mod:`.plugins`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..allocator import release_freed_memory
from ..errors import GameDefinitionError, StrategyFileError
from ..strategy import Strategy, StrategyMeta
from ..tree import kernels, whole
from ..tree.operators import SparseTerminal
from ..tree.poker_layout import SUMS, PokerLayout, Source, cfr_pass, droppable, live_layout, usable
from ..tree.public_tree import PublicTree
from ..tree.sweep import backward_expected, forward_reach, regret_matching, sequence_values, transition_weights
from .abstraction import Abstraction
from .checkpoint import read_checkpoint, write_checkpoint
from .plan import IterationPlan, average_rows, checked_iterations
from .plugins import Leaf, RootGadget, RootRangeAverage, counterfactual_leaf_values, root_range, sets_range
from .restriction import Restriction, checked_restrictions, checked_root_reach
from .rules import (
    CFR,
    CFR_PLUS,
    DCFR,
    DCFR_PLUS,
    ENGINES,
    LINEAR_CFR,
    MODICUM,
    PCFR_PLUS,
    POSTFLOP_DCFR,
    POSTFLOP_DCFR_PLUS,
    PRESET_HELP,
    PRESETS,
    CFRConfig,
    Engine,
    UpdateRule,
    accumulate_regrets,
    add_average,
    rule_fields,
    update_rule,
)

__all__ = [
    "CFR", "CFR_PLUS", "DCFR", "DCFR_PLUS", "ENGINES", "LINEAR_CFR", "MODICUM", "PCFR_PLUS", "POSTFLOP_DCFR", "POSTFLOP_DCFR_PLUS",
    "PRESETS", "PRESET_HELP", "CFRConfig", "CFRSolver", "Engine", "UpdateRule",
]

#: how compact storage is laid out, recorded in a compact solver's checkpoints: per node its actions × its rows
#: (:class:`~subgame.tree.poker_layout.CompactRows`)
COMPACT_ORDER = "actions-by-rows"


def zeros_together(arrays: Sequence[tuple[tuple[int, ...], Any]]) -> list[np.ndarray]:
    """Zeroed arrays of these (shape, dtype), carved from one allocation (each on a 64-byte boundary).

    One mapping of many MiB, which numpy asks the kernel to back by huge pages (at 4 MiB and above), is first touched
    in a few faults; arrays of a few MiB each take one fault per 4 KiB page, which on a small spot is a tenth of the
    solve.
    """
    sizes = [int(np.prod(shape)) * np.dtype(kind).itemsize for shape, kind in arrays]
    starts = np.cumsum([0] + [-(-n // 64) * 64 for n in sizes])
    block = np.zeros(int(starts[-1]) + 64, dtype=np.uint8)
    base = -block.ctypes.data % 64
    return [block[base + a : base + a + n].view(kind).reshape(shape)
            for a, n, (shape, kind) in zip(starts[:-1], sizes, arrays)]


class CFRSolver(IterationPlan):
    """Mutable solver state over one compiled tree.

    Args:
        tree: the compiled tree (a full game, a trunk or a forest of subgames).
        config: the update rule (:data:`CFR`, :data:`CFR_PLUS`, ... or a :class:`CFRConfig`).
        leaves: plug-ins giving values at the tree's depth-limit leaves.
        gadget: a root gadget setting its player's root range each pass.
        root_reach: per player [R_p] a fixed reach at her root private states (``None``:
            all ones); the gadget player's comes from the gadget instead.
        abstraction: optional card abstraction; information sets of one bucket share
            regrets and strategy (the blueprint of the decomposition paper's Fig. 5).
        restrictions: at most one :class:`Restriction` per player: a model mixed into her
            reach (restricted Nash response) or information sets frozen to fixed play.
        dtype: ``"float64"`` (default) or ``"float32"``: the precision of the stored regrets
            and strategy sums, half the memory in large solves. The sweeps still compute
            reaches and values in float64, so only the stored sums round; the tests show
            the exploitability unchanged to four significant digits against float64.
        engine: which loops run an iteration (:data:`Engine`): ``"auto"``, or ``"numpy"``,
            ``"compiled"`` (the compiled sweeps at any size) or ``"passes"`` (the depth-first
            passes; refused, with the reason, where they cannot run). :attr:`loops` says which run.
        drop_zero_weight: the depth-first passes keep only the hands of nonzero root reach
            (:func:`~subgame.tree.poker_layout.live_layout`): every strategy sum bitwise, the
            dropped hands' regrets left at zero. The other loops keep every row. ``None``: wherever the tree
            allows it (no board valued by its payoff matrix).
        compact: store the regrets and strategy sums per decision node as its own actions × its rows
            (:class:`~subgame.tree.poker_layout.CompactRows`, postflop-solver's layout), only the kept
            rows with ``drop_zero_weight``, instead of [I, A]; needs the depth-first passes. The same
            strategies (bitwise where the tree has fewer than eight actions), in the memory of the
            slots a node uses; :meth:`padded` gives an array as [I, A]. ``None``: wherever the passes can run
            this solver (a poker layout, the compiled loops, no plug-ins), as postflop-solver does.
        compute: ``"float64"`` (default) or ``"float32"``: the precision the depth-first passes compute
            reaches, values, regret matching and the update in (float32: as postflop-solver does, with
            float64 terminal sums; needs ``dtype="float32"`` and compact storage). Another arithmetic, so
            other iterates than float64's; the exploitability is still evaluated in float64.
        compress: store the regrets as int16 and the strategy sums as uint16, each node's with a
            float32 unit of its own (``scales``), as postflop-solver's compression does: a quarter of
            float64's memory. The passes decode a node's rows, update them in float32 and encode them
            again, scaled so that the node's largest magnitude is the type's largest, rounded to nearest.
            Another arithmetic (the iterates round to 16 bits); needs ``compute="float32"``, an average of
            the strategy alone (``reach_average=False``: :data:`POSTFLOP_DCFR`), no prediction and no root
            gadget. On a river and a turn after 100 iterations of that rule the exploitability was 4 % and
            6 % above float32 storage's; with reach-weighted sums it was 44 % and 51 % above (a node's one
            unit rounds its hands of small reach away), so those are refused.

    Attributes:
        regrets: per player [I, A] cumulative regrets ([B, A] over buckets with an abstraction; [S] compact).
        strategy_sum: per player [I, A] (or [B, A]) weighted sum of reach × strategy.
        predicted: per player [I, A] the regrets plus the prediction (R_t + m_{t+1}), which the
            current strategy is matched from, under a predictive rule; ``None`` otherwise.
        scales: with ``compress``, per player [2, N] float32 over the passes' public nodes: what one unit of
            the node's stored regrets (row 0) and strategy sums (row 1) is worth; ``None`` otherwise.
        iteration: iterations run so far.
    """

    def __init__(
        self,
        tree: PublicTree,
        config: CFRConfig = CFR_PLUS,
        *,
        leaves: Sequence[Leaf] = (),
        gadget: RootGadget | None = None,
        root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
        abstraction: Abstraction | None = None,
        restrictions: Sequence[Restriction] = (),
        dtype: str | type[np.floating[Any]] = np.float64,
        engine: Engine = "auto",
        drop_zero_weight: bool | None = False,
        compact: bool | None = False,
        compute: str = "float64",
        compress: bool = False,
    ) -> None:
        if not isinstance(tree, PublicTree):
            raise GameDefinitionError(f"CFRSolver needs a compiled PublicTree (compile_game(game)), got {type(tree).__name__}")
        if not isinstance(config, CFRConfig):
            raise GameDefinitionError(
                f"config must be a CFRConfig, got {config!r}; use a preset such as CFR_PLUS or PRESETS[{config!r}]"
                if isinstance(config, str) and config in PRESETS
                else f"config must be a CFRConfig or one of the presets {', '.join(PRESETS)} (PRESETS[name]), got {config!r}"
            )
        self.dtype = _checked_dtype(dtype)
        self.tree = tree
        self.config = config
        self.leaves = tuple(leaves)
        self.gadget = gadget
        self.abstraction = abstraction
        self.root_reach = tuple(checked_root_reach(tree, p, r) for p, r in enumerate(root_reach))
        if gadget is not None and gadget.player not in (0, 1):
            raise GameDefinitionError(f"the gadget's player must be 0 or 1, got {gadget.player!r}")
        self.restriction = checked_restrictions(tree, restrictions)
        self.iteration = 0
        self.horizon: int | None = None
        self.drop_zero_weight = droppable(tree.layout) if drop_zero_weight is None else drop_zero_weight
        self._live: PokerLayout | None = None
        self.compact = _checked_compact(self, compact)
        self.compute = _checked_compute(self, compute)
        self.compress = _checked_compress(self, compress)
        self._legal: list[np.ndarray | None] = [self._compact_legal(p) if self.compact else pa.legal
                                                for p, pa in enumerate(tree.players)]
        if abstraction is not None:
            self._legal = [abstraction.pool(p, pa.legal.astype(float)) > 0 for p, pa in enumerate(tree.players)]
        stored: tuple[type[np.generic], type[np.generic]] = (np.int16, np.uint16) if self.compress else (self.dtype, self.dtype)
        shapes = [self._stored_shape(p) for p in (0, 1)]
        kinds = [stored[0], stored[0], stored[1], stored[1]] + ([] if config.prediction == "none" else [self.dtype] * 2)
        state = zeros_together([(shape, kind) for shape, kind in zip(shapes * 3, kinds)])
        self.regrets: list[np.ndarray] = state[0:2]
        self.strategy_sum: list[np.ndarray] = state[2:4]
        self.predicted = state[4:6] or None
        nodes = self._pass_layout().node.shape[0] if self.compress else 0
        self.scales = [np.zeros((2, nodes), dtype=np.float32) for _ in (0, 1)] if self.compress else None
        rs = tree.root_slice
        self.root_average = None if gadget is None else RootRangeAverage(np.zeros(rs[gadget.player].stop - rs[gadget.player].start))
        self._buffers: dict[tuple[str, int, tuple[int, ...]], np.ndarray] = {}
        self.engine = _checked_engine(self, engine)
        self._whole: whole.PassIterations | whole.SweepIterations | None = None
        self._whole_for: tuple[Any, ...] = ()  # what self._whole was decided for (_whole_key)

    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle or copy, without the prepared compiled call (pointers into this solver's arrays; a
        copy prepares its own on its first iteration)."""
        state = self.__dict__.copy()
        state["_whole"], state["_whole_for"] = None, ()
        return state

    def _buffer(self, name: str, p: int, shape: tuple[int, ...]) -> np.ndarray | None:
        """A float64 work array kept from one iteration to the next, or ``None`` (a new array each time).

        Kept where the compiled loops run and no leaf plug-in could hold on to what it is
        given: there, fresh multi-megabyte arrays every iteration cost more in page faults
        than the loops that fill them. With alternating updates one player's values are
        dead before the other's are computed, so ``"v"`` and ``"sequence"`` are shared
        between players of equal shapes.
        """
        if self.leaves or not kernels.active(int(np.prod(shape))):
            return None
        key = (name, -1 if self.config.alternating and name in ("v", "sequence") else p, shape)
        b = self._buffers.get(key)
        if b is None:
            b = self._buffers[key] = np.empty(shape)
        return b

    def _sigma_buffer(self, p: int) -> np.ndarray | None:
        """Where step() writes player p's current strategy (``None`` with an abstraction: lifting makes a new array)."""
        return None if self.abstraction is not None else self._buffer("sigma", p, self._stored_shape(p))

    def _lift(self, p: int, x: np.ndarray) -> np.ndarray:
        return x if self.abstraction is None else self.abstraction.lift(p, x)

    def _pool(self, p: int, x: np.ndarray) -> np.ndarray:
        return x if self.abstraction is None else self.abstraction.pool(p, x)

    # -- strategies ---------------------------------------------------------------------
    def _matched(self, p: int) -> np.ndarray:
        """[I, A] what player p's current strategy is regret matching of: her regrets, or her predicted regrets."""
        return self.regrets[p] if self.predicted is None else self.predicted[p]

    def _rows_legal(self, p: int) -> np.ndarray:
        """Player p's legal masks as her [I, A] (or [B, A]) strategies are laid out: the tree's where storage is compact."""
        legal = self.tree.players[p].legal if self.compact else self._legal[p]
        assert legal is not None  # only compact storage leaves its masks out
        return legal

    def _current(self, p: int, out: np.ndarray | None = None) -> np.ndarray:
        legal = self._rows_legal(p)
        sigma = self._lift(p, regret_matching(self.padded(p, self._decoded(p, self._matched(p), 0)), legal, out=out))
        r = self.restriction[p]
        if r is not None and r.weight == 1.0:
            sigma = np.where(r.mask[:, None], r.probs, sigma)
        return sigma

    def current_strategy(self) -> Strategy:
        return Strategy(self.tree.game_id, (self._current(0), self._current(1)))

    def average_strategy(self) -> Strategy:
        """The average strategy (t^γ-weighted, per the config).

        The work buffers of the iterations are let go here: what follows an average is
        usually an evaluation, which needs the memory more (the next iteration allocates them again).
        """
        self._buffers.clear()
        out = [self._lift(p, average_rows(self.padded(p, self._decoded(p, self.strategy_sum[p], 1)), self._rows_legal(p)))
               for p in (0, 1)]
        return Strategy(self.tree.game_id, (out[0], out[1]), StrategyMeta(iterations=self.iteration, config=asdict(self.config)))

    def average_sources(self) -> tuple[Source, Source] | None:
        """The average strategy as the depth-first passes over :attr:`sources_layout` read it, straight from the
        strategy sums (no [I, A] copy).

        ``None`` where those passes do not apply (no poker layout, an abstraction, restrictions).
        """
        if not self.compact and (self.abstraction is not None or not usable(self.tree.layout, self._fewest_states,
                                                                            *self.strategy_sum, *map(self._rows_legal, (0, 1)))):
            return None
        compact = self._pass_layout().compact if self.compact else (None, None)
        return (Source(SUMS, self.strategy_sum[0], self._legal[0], compact[0]),
                Source(SUMS, self.strategy_sum[1], self._legal[1], compact[1]))

    @property
    def sources_layout(self) -> PokerLayout | None:
        """The layout :meth:`average_sources` are laid out on: the passes' (kept rows only with ``drop_zero_weight``) in
        compact storage, else the tree's."""
        return self._pass_layout() if self.compact else self.tree.layout

    def _decoded(self, p: int, x: np.ndarray, kind: int) -> np.ndarray:
        """Player p's stored regrets (``kind`` 0) or strategy sums (1) as numbers: ``x`` itself, or 16-bit storage
        times its nodes' units (float32; matched in float64 as float32 storage is)."""
        if not self.compress:
            return x
        assert self.scales is not None
        layout = self._pass_layout()
        return x * self.scales[p][kind][layout.compact[p].nodes(layout, p)]

    def padded(self, p: int, x: np.ndarray) -> np.ndarray:
        """Player p's array ``x`` (her regrets, strategy sums, ...) as [I, A]: itself, or compact storage laid out in
        [I, A] (zero at the slots it has none for: other actions, dropped hands)."""
        if not self.compact:
            return x
        pa = self.tree.players[p]
        out = np.zeros((pa.num_infosets, pa.max_actions), dtype=x.dtype)
        out.ravel()[self._slots(p)] = x
        return out

    def _compact_legal(self, p: int) -> np.ndarray | None:
        """[S] player p's legal masks in compact storage, or ``None`` where all are legal, as a poker tree's own
        actions are at every row unless the tree says otherwise (an action abstraction's restricted tree): the passes
        then read a block of ones instead of a byte a slot."""
        pa = self.tree.players[p]
        if pa.stored_legal is None:
            return None
        return np.ascontiguousarray(pa.stored_legal.ravel()[self._slots(p)])

    def _stored_shape(self, p: int) -> tuple[int, ...]:
        """The shape of player p's regrets and strategy sums: [S] compact, [I, A] (or [B, A] over buckets)."""
        legal = self._legal[p]
        return (self._pass_layout().compact[p].size,) if legal is None else legal.shape

    def _slots(self, p: int) -> np.ndarray:
        """[S] each of player p's compact slots' index in her flattened [I, A] arrays."""
        layout = self._pass_layout()
        return layout.compact[p].slots(layout, p, self.tree.players[p].max_actions)

    def _pass_layout(self) -> PokerLayout:
        """The layout the depth-first passes run on: the tree's, or its kept rows (a fixed root reach: one layout of its
        live rows; a gadget player's rows are all kept, as her root range changes every iteration)."""
        layout = self.tree.layout
        assert layout is not None  # only where the passes run
        if self.drop_zero_weight:
            if self._live is None:
                rs = self.tree.root_slice
                r0, r1 = (layout.kept("ones", rs[q].stop - rs[q].start) if self._gadget_player(q) else self._root_rows(q)
                          for q in (0, 1))
                roots = (r0, r1)
                none = droppable(layout) and all(r.all() for r in roots)  # nothing to drop: the same rows
                self._live = layout if none else live_layout(layout, roots)
                if not none:
                    release_freed_memory()  # what its making freed, before this solver's storage comes
            layout = self._live
        return layout

    def average_root_range(self) -> np.ndarray:
        """[R] the gadget player's root range averaged like the strategies (t^γ weights).

        With the re-solver's average strategy this is the gadget player's average strategy
        in the re-solving game (her average follow probability for a follow/terminate gadget).
        """
        if self.gadget is None or self.root_average is None:
            raise GameDefinitionError("average_root_range needs a solver with a root gadget")
        return self.root_average.mean(self.gadget)

    # -- iterations ---------------------------------------------------------------------
    def _gadget_player(self, q: int) -> bool:
        """Whether player q's root range comes from the gadget."""
        return sets_range(self.gadget, q)

    def _root(self, q: int) -> np.ndarray | None:
        return root_range(self.gadget, q, self.root_reach[q])

    def _reach(self, q: int, sigma_q: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """Player q's transition weights and reach under her strategy ``sigma_q``.

        Where the compiled loops run the weights are read from ``sigma_q`` itself and no
        [G] array of them is made (``None``).
        """
        g = (self.tree.players[q].num_states,)
        if kernels.active(g[0]):
            return None, forward_reach(self.tree, q, None, self._root(q), probs=sigma_q, out=self._buffer("reach", q, g))
        sw = transition_weights(self.tree, q, sigma_q)
        return sw, forward_reach(self.tree, q, sw, self._root(q))

    def _seen(self, q: int, sigma_q: np.ndarray, reach_q: np.ndarray) -> np.ndarray:
        """[G_q] player q's reach as her opponent plays against it (her restricted copy mixed in)."""
        r = self.restriction[q]
        if r is None or (r.weight == 1.0 and r.root is None) or r.weight == 0.0:
            return reach_q
        sw = transition_weights(self.tree, q, np.where(r.mask[:, None], r.probs, sigma_q))
        fixed = forward_reach(self.tree, q, sw, r.root if r.root is not None else self._root(q))
        return fixed if r.weight == 1.0 else (1.0 - r.weight) * reach_q + r.weight * fixed

    def _values(self, p: int, sw: np.ndarray | None, sigma_p: np.ndarray, reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """[G_p] player p's counterfactual values (her weights ``sw``, or read from ``sigma_p``); her root values go to the gadget."""
        tree = self.tree
        v = counterfactual_leaf_values(tree, p, reach, self.leaves, self.iteration,
                                       out=self._buffer("v", p, (tree.players[p].num_states,)))
        backward_expected(tree, p, v, sw, probs=sigma_p)
        if self.gadget is not None:
            self.gadget.update(p, v[tree.root_slice[p]], self.iteration)
        return v

    def _update(self, p: int, t: int, sigma_p: np.ndarray, v: np.ndarray, reach_p: np.ndarray) -> None:
        pa, rule = self.tree.players[p], self._rule(t)
        if self._compiled_update(p, rule, sigma_p, v, reach_p):
            return
        inst = sequence_values(self.tree, p, v)  # the arrays [I, A] are updated in place: fewer live at once
        inst -= v[pa.infoset_priv][:, None]
        inst *= pa.legal
        self._add_regrets(p, rule, inst)
        del inst
        increment = np.multiply(reach_p[pa.infoset_priv][:, None], sigma_p) if rule.reach_average else sigma_p.copy()
        add_average(rule, self.strategy_sum[p], self._pool(p, increment))
        self._add_root_range(p, rule, reach_p[self.tree.root_slice[p]])

    def _add_root_range(self, p: int, rule: UpdateRule, root_range: np.ndarray) -> None:
        """Add the gadget player's root range of this iteration, weighted like the strategies, to its average."""
        if self.root_average is not None and self._gadget_player(p):
            self.root_average.add(rule, root_range)

    def _compiled_update(self, p: int, rule: UpdateRule, sigma_p: np.ndarray, v: np.ndarray, reach_p: np.ndarray) -> bool:
        """:meth:`_update` in one compiled loop (bitwise the same) where it applies; False where it does not."""
        pa, r, s = self.tree.players[p], self.regrets[p], self.strategy_sum[p]
        if not (kernels.active(r.size) and self.abstraction is None
                and kernels.takes(r, s, pa.legal, pa.infoset_priv) and kernels.takes_values(sigma_p, v, reach_p)
                and pa.infoset_priv.dtype == np.int64 and r.dtype == s.dtype):
            return False
        seqv = sequence_values(self.tree, p, v, out=self._buffer("sequence", p, r.shape))
        predicted = None if self.predicted is None else self.predicted[p]
        kernels.update_regrets(r, s, predicted, seqv, v, reach_p, sigma_p, pa.legal, pa.infoset_priv, rule)
        self._add_root_range(p, rule, reach_p[self.tree.root_slice[p]])
        return True

    def _add_regrets(self, p: int, rule: UpdateRule, inst: np.ndarray) -> None:
        """Add player p's instantaneous regrets [I, A] of this iteration per ``rule`` (floors, discounts, prediction)."""
        accumulate_regrets(rule, self.regrets[p], self._pool(p, inst), None if self.predicted is None else self.predicted[p])

    def _rule(self, t: int) -> UpdateRule:
        """Iteration t's update rule (the average's weight 0 in a skipped prefix of the plan)."""
        return update_rule(self.config, t, self.horizon)

    @property
    def loops(self) -> Literal["numpy", "compiled", "passes"]:
        """Which loops :meth:`step` runs: the engine asked for, or what ``"auto"`` takes now.

        ``"auto"`` takes the depth-first passes over the tree's poker layout
        (:mod:`~subgame.tree.poker_layout`) where they apply (:meth:`why_not_passes`) and the
        compiled loops are on for this tree's size, else the compiled sweeps on trees of at least
        :data:`~subgame.tree.kernels.MIN_STATES` private states, else numpy. The passes are
        bitwise the compiled sweeps' alternating iteration (a small board's terminals summed in
        the order of the sweeps' sparse payoff matrix, card removal elsewhere), without their
        arrays over every private state, so ``"auto"``'s choice never changes a result; the
        compiled sweeps are bitwise the numpy sweeps but for the poker operators (equal to
        rounding). Below :data:`~subgame.tree.kernels.MIN_STATES` ``"auto"`` still takes the
        compiled sweeps where one compiled call runs whole iterations (one sparse payoff matrix,
        float64, no plug-ins: :meth:`run`), which there are the numpy sweeps bit for bit.
        """
        if self.compact:
            return "passes"
        if self.engine != "auto":
            return self.engine
        if self._passes_possible() and usable(self.tree.layout, self._fewest_states, *self._pass_arrays()):
            return "passes"
        return "compiled" if kernels.active(self._fewest_states) or self._sweeps_in_one_call() else "numpy"

    @property
    def passes(self) -> bool:
        """Whether an iteration is two depth-first passes (:attr:`loops` is ``"passes"``)."""
        return self.loops == "passes"

    def why_not_passes(self) -> str | None:
        """Why the depth-first passes cannot run this solver's iterations, or ``None`` where they can."""
        return self._why_not(not kernels.takes(*self._pass_arrays()))

    def _why_not(self, scattered: bool) -> str | None:
        reasons = [(self.tree.layout is None, "the tree has no poker layout (a poker game compiled whole or a spot)"),
                   (not self.config.alternating, "simultaneous updates"), (bool(self.leaves), "depth-limit leaves"),
                   (self.abstraction is not None, "a card abstraction"),
                   (self.restriction != (None, None), "restrictions"),
                   (scattered, "non-contiguous regrets or strategy sums")]
        found = [why for bad, why in reasons if bad]
        return None if not found else ", ".join(found)

    def _passes_possible(self) -> bool:
        """``why_not_passes() is None`` without its messages but for contiguity, which ``usable`` checks (asked every iteration)."""
        return (self.tree.layout is not None and self.config.alternating and not self.leaves
                and self.abstraction is None and self.restriction == (None, None))

    def _pass_arrays(self) -> list[np.ndarray]:
        return [*self.regrets, *self.strategy_sum, *(x for x in self._legal if x is not None), *(self.predicted or [])]

    def _layout_step(self, t: int) -> None:
        """Iteration t as two depth-first passes (:attr:`loops` ``"passes"``).

        With a root gadget, as in :meth:`_step`: each player's pass hands her root values to the gadget, and player 1's
        pass meets the gadget player 0's root range as the gadget left it after player 0's pass.
        """
        layout = self._pass_layout()
        rule = self._rule(t)
        roots = [self._root_rows(0), self._root_rows(1)]
        matched = (self._matched(0), self._matched(1))
        for p in (0, 1):
            if p == 1 and self._gadget_player(0):
                roots[0] = self._root_rows(0)
            values = self._dropped(p, roots[1 - p].shape[0])
            cfr_pass(layout, p, matched, self.regrets[p], self.strategy_sum[p],
                     None if self.predicted is None else self.predicted[p], (self._legal[0], self._legal[1]),
                     (roots[0], roots[1]), rule, values, self.compact, self.compute == "float32",
                     None if self.scales is None else self.scales[p])
            if self.gadget is not None:
                self.gadget.update(p, values, t)
                self._add_root_range(p, rule, roots[p])

    def _dropped(self, p: int, n: int) -> np.ndarray:
        """Where player p's CFR pass writes her values at the n root rows (this solver's own: see ``cfr_pass``)."""
        key = ("dropped", p, (n,))
        b = self._buffers.get(key)
        if b is None:
            b = self._buffers[key] = np.empty(n)
        return b

    @property
    def _fewest_states(self) -> int:
        """The smaller player's private states: the compiled loops run from :data:`~subgame.tree.kernels.MIN_STATES`."""
        p0, p1 = self.tree.players
        return min(p0.num_states, p1.num_states)

    def _root_rows(self, q: int) -> np.ndarray:
        """[R_q] player q's reach at her root private states (ones where none is given)."""
        r = self._root(q)
        rs = self.tree.root_slice[q]
        if r is not None:
            return np.ascontiguousarray(r, dtype=np.float64)  # a gadget's range as the passes read it (no copy where it is)
        assert self.tree.layout is not None  # only the passes ask
        return self.tree.layout.kept("ones", rs.stop - rs.start)

    def step(self) -> None:
        """One iteration (both players) by the loops of :attr:`loops`, then the leaves' ``end_iteration``."""
        if self._run_whole(1):
            return
        if self.engine == "auto":
            self._step()
            return
        with kernels.forced(self.engine != "numpy"):
            self._step()

    def run(self, iterations: int) -> CFRSolver:
        """Run ``iterations`` more iterations (budgets in seconds, evaluations, checkpoints: :func:`.driver.run`).

        Where the compiled library runs whole iterations (the depth-first passes, or the sweeps
        over one sparse payoff matrix without plug-ins) they go to it several at a time, their
        update rules computed beforehand: bitwise the same regrets and sums as ``iterations``
        calls of :meth:`step`, without the cost of calling from Python per iteration (most of
        an iteration on Kuhn poker or Goofspiel). A call takes at most :data:`RUN_CHUNK`
        iterations and about :data:`RUN_CALL_STATES` private states in all, so that an
        interrupt is seen within milliseconds on a large tree too.
        """
        iterations = checked_iterations(iterations)
        if self.horizon is None:
            self.plan(self.iteration + iterations)
        left, chunk = iterations, max(1, min(RUN_CHUNK, RUN_CALL_STATES // max(self.tree.num_private_states, 1)))
        while left > 0 and self._run_whole(min(left, chunk)):
            left -= min(left, chunk)
        for _ in range(left):
            self.step()
        return self

    def _run_whole(self, n: int) -> bool:
        """Run ``n`` iterations in one compiled call where the library can (else nothing, and ``False``)."""
        call = self._whole_call()
        if call is None:
            return False
        config, horizon, first = self.config, self.horizon, self.iteration + 1
        rows: list[float] = []
        for t in range(first, first + n):
            rows += kernels.params_of(*rule_fields(config, t, horizon))
        call.run(whole.rule_table(rows), n)
        self.iteration += n
        return True

    def _whole_key(self) -> tuple[Any, ...]:
        """What the choice of :meth:`_whole_call` depends on: the compiled loops' switches, then the solver's settings
        and arrays (compared by identity: a checkpoint restored, a setting changed, a new decision)."""
        return (kernels.switches(), self.tree, self.engine, self.config, self.leaves, self.gadget, self.abstraction,
                self.restriction, self.root_reach, self.drop_zero_weight, *self.regrets, *self.strategy_sum,
                *(self.predicted or ()), *(self.scales or ()))

    def _whole_call(self) -> whole.PassIterations | whole.SweepIterations | None:
        """The prepared call running whole iterations of :attr:`loops` on this solver's arrays, or ``None`` where none does
        (decided again only when :meth:`_whole_key` changes: a step costs a few microseconds more than its compiled call)."""
        key, last = self._whole_key(), self._whole_for
        if len(key) == len(last) and key[0] == last[0] and all(map(operator.is_, key[1:], last[1:])):
            return self._whole
        self._whole = self._decide_whole()
        self._whole_for = key
        return self._whole

    def _decide_whole(self) -> whole.PassIterations | whole.SweepIterations | None:
        if not (whole.iterations_built() and self.engine != "numpy" and self._steps_are_these() and self.gadget is None):
            return None
        loops, kept = self.loops, self._whole
        if loops == "passes":
            layout = self._pass_layout()
            roots = (self._root_rows(0), self._root_rows(1))
            matched = (self._matched(0), self._matched(1))
            state = self._updated()
            legal = (self._legal[0], self._legal[1])
            scales = None if self.scales is None else (self.scales[0], self.scales[1])
            if isinstance(kept, whole.PassIterations) and kept.fits(layout, *matched, *legal, *(a for s in state for a in s),
                                                                         *roots, *(scales or ())):
                return kept
            if not kernels.takes_values(*roots):
                return None
            self._whole = whole.PassIterations(layout, matched, legal, state, roots, self._rule(self.iteration + 1),
                                               self.compact, self.compute == "float32", scales)
            return self._whole
        if loops != "compiled" or not self._sweeps_in_one_call():
            return None
        state = self._updated()
        if isinstance(kept, whole.SweepIterations) and kept.fits(*(a for s in state for a in s), *self.root_reach):
            return kept
        terminal = self.tree.terminals[0]
        assert isinstance(terminal, SparseTerminal)  # _sweeps_in_one_call
        self._whole = whole.SweepIterations(self.tree.players, state, (self.root_reach[0], self.root_reach[1]),
                                              self.tree.root_slice, terminal.u, terminal.ut, self.config.alternating)
        return self._whole

    def _updated(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray | None], ...]:
        """Per player the arrays an iteration updates: her regrets, strategy sums and predicted regrets (or ``None``)."""
        return tuple((self.regrets[p], self.strategy_sum[p], None if self.predicted is None else self.predicted[p])
                     for p in (0, 1))

    def _steps_are_these(self) -> bool:
        """Whether an iteration is this class's :meth:`step` (a subclass with its own, sampling CFR's, never runs whole ones)."""
        cls = type(self)
        return cls.step is CFRSolver.step and cls._step is CFRSolver._step

    def _sweeps_in_one_call(self) -> bool:
        """Whether one compiled call runs whole iterations of the sweeps: the library has it and the compiled loops are
        on (or asked for), one sparse payoff matrix gives every terminal value, float64, no plug-ins or restrictions."""
        tree = self.tree
        asked = self.engine == "compiled" or (self.engine == "auto" and kernels.enabled())
        if not (whole.iterations_built() and self._steps_are_these() and asked
                and not self.leaves and self.gadget is None and self.abstraction is None
                and self.restriction == (None, None) and self.dtype == np.float64 and tree.mirrors is None
                and len(tree.terminals) == 1 and isinstance(tree.terminals[0], SparseTerminal)):
            return False
        terminal = tree.terminals[0]
        state = self._updated()
        return whole.SweepIterations.takes(tree.players, state, terminal.u, terminal.ut)

    def _step(self) -> None:
        self.iteration += 1
        t = self.iteration
        if self.loops == "passes":
            self._layout_step(t)
            return
        sigma = [self._current(0, self._sigma_buffer(0)), self._current(1, self._sigma_buffer(1))]
        (sw0, reach0), (sw1, reach1) = self._reach(0, sigma[0]), self._reach(1, sigma[1])
        seen1 = self._seen(1, sigma[1], reach1)
        if self.config.alternating:
            s0 = sigma.pop(0)
            self._update(0, t, s0, self._values(0, sw0, s0, (reach0, seen1)), reach0)
            del s0, sw0, reach0, seen1  # released before player 0's new reach is built: a smaller peak
            new0 = self._current(0, self._sigma_buffer(0))  # player 1 responds to player 0's new strategy
            sw0, reach0 = self._reach(0, new0)
            seen0 = self._seen(0, new0, reach0)
            del new0, sw0
            s1 = sigma.pop(0)
            self._update(1, t, s1, self._values(1, sw1, s1, (seen0, reach1)), reach1)
        else:
            seen0 = self._seen(0, sigma[0], reach0)
            v0, v1 = self._values(0, sw0, sigma[0], (reach0, seen1)), self._values(1, sw1, sigma[1], (seen0, reach1))
            self._update(0, t, sigma[0], v0, reach0)
            self._update(1, t, sigma[1], v1, reach1)
        for leaf in self.leaves:
            leaf.end_iteration(t)

    # -- checkpoints --------------------------------------------------------------------
    def save_checkpoint(
        self, path: str | Path, *, extra: dict[str, np.ndarray] | None = None, extra_header: dict[str, Any] | None = None
    ) -> Path:
        """Write the solver state so that :meth:`load_checkpoint` continues exactly where it stopped.

        ``extra`` arrays and ``extra_header`` entries are stored alongside, for solvers built
        on this one (CFR-D keeps its average root values there). The file is replaced
        atomically, so an interruption while writing leaves the previous checkpoint intact.
        """
        if self.compact:
            extra_header = {**(extra_header or {}), "compact": COMPACT_ORDER}
        if self.compute != "float64":
            extra_header = {**(extra_header or {}), "compute": self.compute}
        if self.scales is not None:
            extra = {**(extra or {}), "scale0": self.scales[0], "scale1": self.scales[1]}
            extra_header = {**(extra_header or {}), "compress": True}
        return write_checkpoint(path, self.tree.game_id, self.iteration, asdict(self.config), self.regrets,
                                self.strategy_sum, self.predicted, extra, extra_header)

    def restore(self, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "checkpoint") -> CFRSolver:
        """Load regrets, strategy sums (and predicted regrets) and the iteration count read by :func:`read_checkpoint`."""
        if header["game_id"] != self.tree.game_id:
            raise StrategyFileError(f"{source}: checkpoint is for game {header['game_id']!r}, not {self.tree.game_id!r}")
        names = ("r0", "r1", "s0", "s1") + (() if self.predicted is None else ("q0", "q1"))
        if self.predicted is not None and not {"q0", "q1"} <= set(arrays):
            raise StrategyFileError(f"{source}: checkpoint without predicted regrets (written without prediction); "
                                    f"resume it with its own config {header.get('config')}")
        if bool(header.get("compress", False)) != self.compress:
            raise StrategyFileError(f"{source}: checkpoint {'with' if header.get('compress') else 'without'} 16-bit storage, "
                                    f"this solver {'with' if self.compress else 'without'}; resume it with "
                                    f"compress={bool(header.get('compress', False))}")
        if header.get("compute", "float64") != self.compute:
            raise StrategyFileError(f"{source}: checkpoint computed in {header.get('compute', 'float64')}, this solver in "
                                    f"{self.compute}; resume it with compute={header.get('compute', 'float64')!r}")
        loaded = [arrays[k] for k in names]
        if self.compact and any(a.ndim == 1 for a in loaded) and header.get("compact") != COMPACT_ORDER:
            raise StrategyFileError(f"{source}: checkpoint in an earlier order of compact storage (rows × actions, "
                                    "before the actions × rows of this version); solve again, or resume it with the "
                                    "version that wrote it")
        if self.compact:  # one written in [I, A]: its slots
            loaded = [a.ravel()[self._slots(i % 2)] if a.shape == self.tree.players[i % 2].legal.shape else a
                      for i, a in enumerate(loaded)]
        elif any(a.ndim == 1 for a in loaded):
            raise StrategyFileError(f"{source}: checkpoint in compact storage; resume it with a compact solver "
                                    "(CFRSolver(..., compact=True), the same ranges and zero-weight option)")
        if any(a.shape != r.shape for a, r in zip(loaded, self.regrets + self.strategy_sum + (self.predicted or []))):
            raise StrategyFileError(f"{source}: checkpoint arrays do not fit this tree and abstraction")
        if self.scales is not None:
            scales = [arrays.get(f"scale{p}") for p in (0, 1)]
            if any(x is None or x.shape != s.shape for x, s in zip(scales, self.scales)):
                raise StrategyFileError(f"{source}: checkpoint of 16-bit storage without the scales of this tree's nodes")
            self.scales = [np.ascontiguousarray(x, dtype=np.float32) for x in scales]
        self.iteration = int(header["iteration"])
        stored: tuple[type[np.generic], ...] = ((np.int16, np.int16, np.uint16, np.uint16) if self.compress
                                                else (self.dtype,) * len(loaded))
        loaded = [a.astype(t, copy=False) for a, t in zip(loaded, stored)]
        self.regrets, self.strategy_sum = loaded[:2], loaded[2:4]
        if self.predicted is not None:
            self.predicted = loaded[4:]
        return self

    @staticmethod
    def load_checkpoint(path: str | Path, tree: PublicTree, abstraction: Abstraction | None = None) -> CFRSolver:
        """Restore a solver saved by :meth:`save_checkpoint` (with the abstraction it used), its update rule included.

        Another engine: ``CFRSolver(tree, config, engine=...).restore(*read_checkpoint(path))``.
        """
        header, arrays = read_checkpoint(path)
        dtype = np.float32 if arrays["r0"].dtype == np.float32 else np.float64  # the precision it was saved in
        return CFRSolver(tree, CFRConfig(**header["config"]), abstraction=abstraction, dtype=dtype).restore(
            header, arrays, str(path)
        )


#: The most iterations in one compiled call of :meth:`CFRSolver.run` (their update rules are made beforehand, six
#: numbers each), and about the most private states all of them sweep (iterations × the tree's private states).
RUN_CHUNK = 1024
RUN_CALL_STATES = 1 << 22


def _checked_engine(solver: CFRSolver, engine: Engine) -> Engine:
    """``engine`` if it can run ``solver``'s iterations; else one clear error saying why."""
    if engine not in ENGINES:
        raise GameDefinitionError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine in ("compiled", "passes") and not kernels.available():
        raise GameDefinitionError(f"engine {engine!r} needs the compiled loops, which are not built here; use 'numpy' or 'auto'")
    if solver.compact and engine in ("numpy", "compiled"):
        raise GameDefinitionError(f"engine {engine!r} cannot run compact storage (the depth-first passes do); use 'auto' or 'passes'")
    why = solver.why_not_passes() if engine == "passes" else None
    if why is not None:
        raise GameDefinitionError(f"engine 'passes' cannot run this solver ({why}); use 'auto', 'compiled' or 'numpy'")
    return engine


def _checked_compute(solver: CFRSolver, compute: str) -> str:
    """``compute`` where the solver can: float32 over float32 compact storage (the passes of ``poker_pass_single``)."""
    if compute == "float64":
        return compute
    if compute != "float32":
        raise GameDefinitionError(f"compute must be 'float64' or 'float32', got {compute!r}")
    if solver.dtype != np.float32 or not solver.compact:
        raise GameDefinitionError("compute='float32' runs the depth-first passes in float32 over float32 compact storage; "
                                  "give dtype='float32' and compact=True (or compact=None where the passes can run)")
    return compute


def _checked_compress(solver: CFRSolver, compress: bool) -> bool:
    """``compress`` where the solver can: float32 passes (compact float32 storage), no prediction, no root gadget."""
    if not compress:
        return False
    if solver.compute != "float32":
        raise GameDefinitionError("compress=True stores 16-bit regrets and sums that the float32 passes decode; give "
                                  "dtype='float32', compute='float32' and compact storage")
    if solver.config.prediction != "none" or solver.gadget is not None:
        raise GameDefinitionError("compress=True runs neither a predictive rule (its predicted regrets) nor a root gadget; "
                                  "leave compress off")
    if solver.config.reach_average:
        raise GameDefinitionError("compress=True needs an average of the strategy alone (reach_average=False, as "
                                  "dcfr-postflop and postflop-solver): a node's one unit of 16-bit sums weighted by reach "
                                  "rounds its hands of small reach away")
    return True


def _checked_compact(solver: CFRSolver, compact: bool | None) -> bool:
    """``compact`` where the depth-first passes can run the solver's iterations (``None``: whether they can); else one
    clear error saying why."""
    if compact is False:
        return False
    why = solver._why_not(False)
    if why is None and not kernels.available():
        why = "the compiled loops, which are not built here"
    if compact is None:
        return why is None
    if why is not None:
        raise GameDefinitionError(f"compact storage needs the depth-first passes, which cannot run this solver ({why}); "
                                  "leave compact off")
    return True


def _checked_dtype(dtype: str | type[np.floating[Any]]) -> type[np.floating[Any]]:
    """``float64`` or ``float32``, from either spelling; anything else is refused."""
    try:
        kind = np.dtype(dtype)
    except TypeError:
        kind = None
    if kind == np.float64:
        return np.float64
    if kind == np.float32:
        return np.float32
    raise GameDefinitionError(f"dtype must be float64 or float32, got {dtype!r}")
