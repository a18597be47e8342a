"""Whole CFR iterations and exact best responses in one call of the compiled library (:meth:`CFRSolver.run
<subgame.solve.cfr.CFRSolver.run>`): on a small tree most of an iteration was the Python around the compiled loops.

``poker_iterations`` and ``poker_best_responses`` (``_passes.c``) loop over the depth-first passes, and
``sweep_iterations`` and ``sweep_best_responses`` (``_iterations.c``) over the sweeps' loops, in the order one
step makes those calls, so every result is bitwise a step's. A library built before them lacks them: then the
solver runs a step at a time (:func:`iterations_built`).
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..native import address
from . import kernels
from .kernels import (
    _D,
    _I,
    _P,
    Rule,
    _enabled,
    _kept_address,
    _lib,
    _pass_args,
    _shared_nodes,
    takes,
    takes_values,
)
from .poker_layout import BEST_RESPONSE, CFR_UPDATE, regret_sources
from .threads import thread_count

try:  # the extension as a module: its one function of the interpreter's calling convention
    from . import _kernels  # type: ignore[attr-defined]
except ImportError:
    _kernels = None


def _optional(name: str, argtypes: list[Any], restype: Any) -> Any:
    """A function of the library that one built before it existed lacks (``None`` there: one step at a time)."""
    fn = getattr(_lib, name, None) if _lib is not None else None
    if fn is not None:
        fn.argtypes, fn.restype = argtypes, restype
    return fn


def rule_table(rows: list[float]) -> ctypes.Array[ctypes.c_double]:
    """The update rules of several iterations, the six numbers of :func:`update_params` each, as the whole-iteration
    loops read them (``rows``: those numbers, iteration after iteration)."""
    return (_D * len(rows))(*rows)


class PassIterations:
    """Alternating CFR iterations of depth-first passes (``poker_iterations`` of ``_passes.c``), prepared once.

    Bitwise :func:`~subgame.tree.poker_layout.cfr_pass` for player 0 then player 1 per
    iteration; the call reads and writes the arrays given here, so it stays valid while
    they are the solver's (:meth:`fits`). ``compact``: the arrays are in the layout's
    :attr:`~subgame.tree.poker_layout.PokerLayout.compact` storage; ``single``: the passes compute in float32;
    ``scales``: per player the [2, N] units of 16-bit storage (:func:`~subgame.tree.poker_layout.cfr_pass`).
    """

    def __init__(self, layout: Any, matched: tuple[np.ndarray, np.ndarray], legal: tuple[np.ndarray | None, np.ndarray | None],
                 state: tuple[tuple[np.ndarray, np.ndarray, np.ndarray | None], ...], root_reach: tuple[np.ndarray, np.ndarray],
                 rule: Rule, compact: bool = False, single: bool = False,
                 scales: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        sources = regret_sources(layout, matched, legal, compact, single)
        outs = [np.empty(root_reach[1 - p].shape[0]) for p in (0, 1)]  # its own: two solvers may run at once
        made = [_pass_args(layout, p, CFR_UPDATE, sources, (*state[p], rule, *(() if scales is None else (scales[p],))),
                           root_reach, outs[p]) for p in (0, 1)]
        (a0, up0), (a1, up1) = made
        self.arrays = (layout, *matched, *legal, *(a for s in state for a in s), *root_reach, *(scales or ()))
        self._args = (a0[0], a0[3], a0[4], ctypes.byref(up0), ctypes.byref(up1))
        self._rest = (layout.roots, a0[7], a1[7], address(outs[0]), address(outs[1]), layout.max_hands)
        self._keep = (made, outs)

    def fits(self, *arrays: Any) -> bool:
        """Whether the call was prepared for these very objects (those of ``__init__``, in its order)."""
        return len(arrays) == len(self.arrays) and all(a is b for a, b in zip(arrays, self.arrays))

    def run(self, table: ctypes.Array[ctypes.c_double], n: int) -> None:
        """``n`` iterations, iteration i's update rule at ``table[6 i : 6 i + 6]``."""
        shared = _iterations_of_passes(*self._args, table, n, *self._rest, thread_count(), kernels.MIN_FAN_ROWS)
        if shared < 0:
            raise MemoryError("poker_iterations: out of memory for the rows of a public node")
        _shared_nodes[0] += shared


class _SweepPlayer(ctypes.Structure):
    _fields_ = [("parent", _P), ("seq", _P), ("bounds", _P), ("levels", _I), ("legal", _P), ("infoset_priv", _P),
                ("states", _I), ("rows", _I), ("a", _I), ("root_lo", _I), ("root_hi", _I), ("root", _P), ("regrets", _P),
                ("sums", _P), ("predicted", _P), ("matched", _P), ("sigma", _P), ("seqv", _P), ("reach", _P), ("v", _P),
                ("scratch", _P)]


class _Csr(ctypes.Structure):
    _fields_ = [("ptr", _P), ("idx", _P), ("val", _P), ("rows", _I)]


class _Sweep(ctypes.Structure):
    _fields_ = [("pl", _SweepPlayer * 2), ("u", _Csr), ("ut", _Csr), ("alternating", _I)]


class SweepIterations:
    """CFR iterations of the compiled sweeps on a tree whose terminals are one sparse payoff matrix, in one call
    (``sweep_iterations`` of ``_iterations.c``), prepared once: bitwise the solver's step() by the compiled sweeps.

    ``players`` are the :class:`~subgame.tree.public_tree.PlayerArrays`, ``state`` per player
    (regrets, strategy sums, predicted regrets or ``None``), ``root`` per player her root reach
    (``None``: ones) and ``root_slice`` her root private states; ``u``, ``ut`` the CSR payoffs
    of player 0 and their transpose. The work arrays are kept here.
    """

    def __init__(self, players: Any, state: tuple[tuple[np.ndarray, np.ndarray, np.ndarray | None], ...],
                 root: tuple[np.ndarray | None, np.ndarray | None], root_slice: tuple[slice, slice], u: Any, ut: Any,
                 alternating: bool) -> None:
        self.arrays = (*(a for s in state for a in s), *root)
        self._work: list[np.ndarray] = []
        self._sweep = _Sweep()
        for p, (pa, (regrets, sums, predicted)) in enumerate(zip(players, state)):
            bounds = np.ascontiguousarray(pa.level_bounds, dtype=np.int64)
            rows, a = regrets.shape
            work = [np.zeros(rows * a), np.zeros(rows * a), np.zeros(pa.num_states), np.zeros(pa.num_states),
                    np.zeros(max(int(np.diff(bounds[:-1]).max(initial=0)), 1)), bounds]
            own_root = root[p]
            if own_root is not None:
                work.append(np.ascontiguousarray(own_root, dtype=np.float64))
            self._work += work
            rs = root_slice[p]
            self._sweep.pl[p] = _SweepPlayer(
                address(pa.parent), address(pa.child_seq), address(bounds), bounds.shape[0] - 1, address(pa.legal), address(pa.infoset_priv),
                pa.num_states, rows, a, rs.start, rs.stop, None if own_root is None else address(work[-1]), address(regrets),
                address(sums), None if predicted is None else address(predicted), address(regrets if predicted is None else predicted),
                *(address(x) for x in work[:5]))
        self._keep = (players, u, ut)
        self._sweep.u, self._sweep.ut = (_Csr(address(m.indptr), address(m.indices), address(m.data), m.shape[0]) for m in (u, ut))
        self._sweep.alternating = int(alternating)
        self._ref = ctypes.byref(self._sweep)

    def fits(self, *arrays: Any) -> bool:
        """Whether the call was prepared for these very objects (the regrets, sums, predicted regrets and roots of ``__init__``)."""
        return len(arrays) == len(self.arrays) and all(a is b for a, b in zip(arrays, self.arrays))

    def run(self, table: ctypes.Array[ctypes.c_double], n: int) -> None:
        """``n`` iterations, iteration i's update rule at ``table[6 i : 6 i + 6]``."""
        _sweep_iterations(self._ref, table, n)

    @staticmethod
    def takes(players: Any, state: tuple[tuple[np.ndarray, np.ndarray, np.ndarray | None], ...], u: Any, ut: Any) -> bool:
        """Whether the call runs these arrays: int32 state indices, int64 information sets, contiguous float64 state,
        int32 CSR payoffs (float64) of the players' sizes, fewer than 16 actions."""
        for pa, arrays in zip(players, state):
            if not (pa.parent.dtype == np.int32 and pa.child_seq.dtype == np.int32 and pa.infoset_priv.dtype == np.int64
                    and pa.legal.dtype == np.bool_ and takes(pa.parent, pa.child_seq, pa.infoset_priv, pa.legal)
                    and pa.legal.shape[1] < 16 and takes_values(*arrays)):
                return False
        return all(m.indptr.dtype == np.int32 and m.indices.dtype == np.int32 and m.data.dtype == np.float64
                   and takes(m.indptr, m.indices, m.data) and m.shape == (players[k].num_states, players[1 - k].num_states)
                   for k, m in enumerate((u, ut)))


class _BestPlayer(ctypes.Structure):
    _fields_ = [("parent", _P), ("seq", _P), ("legal", _P), ("infoset_priv", _P), ("states", _I), ("a", _I), ("root_lo", _I),
                ("root_hi", _I), ("levels", _I), ("level", _P), ("root", _P), ("probs", _P), ("reach", _P), ("terminal", _P),
                ("best", _P), ("scratch", _P)]


class SweepBestResponses:
    """Both players' reaches, terminal values and counterfactual best-response values on a tree whose terminals are one
    sparse payoff matrix, in one call (``sweep_best_responses`` of ``_iterations.c``): bitwise what
    :func:`~subgame.eval.best_response.exploitability` computes by the sweeps. Prepared once per tree; the arrays it
    fills are kept here and overwritten by the next call."""

    def __init__(self, tree: Any) -> None:
        self._pl = (_BestPlayer * 2)()
        self._keep: list[Any] = []  # the arrays it points into, never the tree (the key of its cache)
        self.reach, self.terminal, self.best = [], [], []
        for p, pa in enumerate(tree.players):
            levels = tree.plan.levels[p]
            table = np.array([(lv.plo, lv.lo, lv.hi, lv.ilo, lv.ihi) for lv in levels], dtype=np.int64).reshape(-1, 5)
            a = pa.legal.shape[1]
            scratch = np.empty(max([(lv.lo - lv.plo) + (lv.ihi - lv.ilo) * a for lv in levels] + [1]))
            reach, terminal, best = np.empty(pa.num_states), np.empty(pa.num_states), np.empty(pa.num_states)
            self._keep += [table, scratch, pa.parent, pa.child_seq, pa.legal, pa.infoset_priv]
            self.reach.append(reach)
            self.terminal.append(terminal)
            self.best.append(best)
            rs = tree.root_slice[p]
            self._pl[p] = _BestPlayer(address(pa.parent), address(pa.child_seq), address(pa.legal), address(pa.infoset_priv), pa.num_states,
                                      a, rs.start, rs.stop, table.shape[0], address(table), None, None, address(reach), address(terminal),
                                      address(best), address(scratch))
        op = tree.terminals[0]
        self._keep += [op.u, op.ut]
        self._u, self._ut = (_Csr(address(m.indptr), address(m.indices), address(m.data), m.shape[0]) for m in (op.u, op.ut))

    def run(self, probs: tuple[np.ndarray, np.ndarray], root: tuple[np.ndarray | None, np.ndarray | None]) -> None:
        """Fill :attr:`reach`, :attr:`terminal` and :attr:`best` per player for the strategies ``probs`` (contiguous
        float64 [I, A]) and root reaches ``root`` (contiguous float64, ``None``: ones), which must live through the call."""
        for p in (0, 1):
            self._pl[p].probs = _kept_address(probs[p])
            r = root[p]
            self._pl[p].root = None if r is None else address(r)
        _sweep_best_responses(self._pl, ctypes.byref(self._u), ctypes.byref(self._ut))

    @staticmethod
    def takes(tree: Any) -> bool:
        """Whether the call runs ``tree``: one sparse payoff matrix (int32 CSR of float64), no suit isomorphism, the
        index arrays as the sweeps' compiled loops read them."""
        from .operators import SparseTerminal

        if not (tree.mirrors is None and len(tree.terminals) == 1 and isinstance(tree.terminals[0], SparseTerminal)):
            return False
        op = tree.terminals[0]
        return (all(pa.parent.dtype == np.int32 and pa.child_seq.dtype == np.int32 and pa.infoset_priv.dtype == np.int64
                    and pa.legal.dtype == np.bool_ and takes(pa.parent, pa.child_seq, pa.infoset_priv, pa.legal)
                    for pa in tree.players)
                and all(m.indptr.dtype == np.int32 and m.indices.dtype == np.int32 and m.data.dtype == np.float64
                        and takes(m.indptr, m.indices, m.data) for m in (op.u, op.ut)))


class _BestCall(ctypes.Structure):
    """``BestCall`` of ``_passes.c``: a prepared ``poker_best_responses`` call but its threads."""

    _fields_ = [("L", _P), ("src0", _P), ("src1", _P), ("roots", _I), ("reach0", _P), ("reach1", _P), ("best0", _P),
                ("best1", _P), ("values", _P), ("max_hands", _I), ("rows0", _I), ("rows1", _I), ("release", _I)]


class LayoutBestResponses:
    """The three depth-first passes of an exploitability (both best responses, player 0's values) in one call
    (``poker_best_responses`` of ``_passes.c``), prepared for one layout, the strategies' arrays and root reaches:
    bitwise three :func:`poker_pass` calls. The values it writes are kept here (:attr:`best`, :attr:`values`), and
    :meth:`run` returns their totals. Without ``value`` the values pass is left out (:attr:`values` ``None``): a check
    against a target needs the best responses only."""

    def __init__(self, layout: Any, sources: tuple[Any, Any], root_reach: tuple[np.ndarray, np.ndarray],
                 value: bool = True) -> None:
        self.best = (np.empty(root_reach[1].shape[0]), np.empty(root_reach[0].shape[0]))
        self.values = np.empty(root_reach[1].shape[0]) if value else None
        args, _ = _pass_args(layout, 0, BEST_RESPONSE, sources, None, root_reach, self.best[0])
        self._call = _BestCall(ctypes.addressof(args[0]._obj), ctypes.addressof(args[3]._obj), ctypes.addressof(args[4]._obj),
                               layout.roots, args[7], args[8], address(self.best[0]), address(self.best[1]),
                               None if self.values is None else address(self.values),
                               layout.max_hands, self.best[1].shape[0], self.best[0].shape[0],
                               layout.node.shape[0] * layout.max_hands >= kernels.MIN_STATES)
        self._address = ctypes.addressof(self._call)
        self._keep = args  # its structs; never the objects the cache watches (they would then never die)

    def run(self) -> tuple[float, float, float | None]:
        """Fill :attr:`best` and :attr:`values`; returns their totals over the root rows as numpy sums them (each
        player's best-response value and player 0's value, ``None`` without it, where the root reaches are ones)."""
        assert _best_totals is not None  # layout_best_responses makes none without it
        best0, best1, value, shared = _best_totals(self._address, thread_count(), kernels.MIN_FAN_ROWS)
        if shared:
            _shared_nodes[0] += shared
        return best0, best1, None if self.values is None else value


#: :class:`LayoutBestResponses` kept while the objects they read live (as :data:`_calls`).
_best_passes: dict[tuple[Any, ...], tuple[tuple[Callable[[], Any], ...], LayoutBestResponses]] = {}


def layout_best_responses(layout: Any, sources: tuple[Any, Any], root_reach: tuple[np.ndarray, np.ndarray],
                          value: bool = True) -> LayoutBestResponses | None:
    """The prepared one-call exploitability passes for these objects (``value``: with the values pass), or ``None``
    where the library lacks the call or a root reach is not contiguous float64 (then :func:`poker_pass` thrice)."""
    if _best_totals is None or not takes_values(*root_reach):
        return None
    arrays = (layout, sources[0].data, sources[0].legal, sources[1].data, sources[1].legal, *root_reach)
    key = (sources[0].kind, sources[1].kind, value, *map(id, arrays))
    hit = _best_passes.get(key)
    if hit is not None and all(ref() is a for ref, a in zip(hit[0], arrays)):
        return hit[1]
    call = LayoutBestResponses(layout, sources, root_reach, value)

    def forget(_: weakref.ref[Any], cache: dict[tuple[Any, ...], Any] = _best_passes) -> None:
        cache.pop(key, None)

    _best_passes[key] = (kernels.watched(arrays, forget), call)
    return call


#: Each tree's prepared :class:`SweepBestResponses` (``None``: the call does not run it).
_best_calls: weakref.WeakKeyDictionary[Any, SweepBestResponses | None] = weakref.WeakKeyDictionary()


def sweep_best_responses(tree: Any) -> SweepBestResponses | None:
    """The prepared one-call best responses of ``tree`` where the library has them and the compiled loops are on."""
    if _sweep_best_responses is None or not _enabled[0]:
        return None
    if tree not in _best_calls:
        _best_calls[tree] = SweepBestResponses(tree) if SweepBestResponses.takes(tree) else None
    return _best_calls[tree]


_iterations_of_passes = _optional("poker_iterations", [_P, _P, _P, _P, _P, _P, _I, _I, _P, _P, _P, _P, _I, _I, _I], ctypes.c_int64)
_sweep_iterations = _optional("sweep_iterations", [_P, _P, _I], None)
_sweep_best_responses = _optional("sweep_best_responses", [_P, _P, _P], None)
_best_totals: Callable[[int, int, int], tuple[float, float, float, int]] | None = (
    getattr(_kernels, "best_response_totals", None) if _lib is not None else None)


def iterations_built() -> bool:
    """Whether the library has the whole-iteration loops (one built before them runs the solver a step at a time)."""
    return _iterations_of_passes is not None and _sweep_iterations is not None
