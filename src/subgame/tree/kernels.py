"""Compiled loops for the sweeps, the regret update and the poker operators, where they are built.

``pip install`` compiles ``_kernels.c`` when a C compiler is present; without one the
extension is skipped and the numpy code runs alone. Each function here has a numpy twin
(:mod:`.sweep`, :class:`~subgame.solve.cfr.CFRSolver`, :mod:`.poker_operators`) and is used
in its place on trees of at least :data:`MIN_STATES` private states, where one loop without
temporaries beats several whole-array calls; below that the numpy calls cost less than the
calls through ctypes. The sweeps and the regret update give bitwise the numpy results; the
poker operators sum card removal in one pass over the hands sorted by strength and agree with
the numpy operators to rounding (tests check both). :func:`use_compiled` turns them off.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

from ..errors import GameDefinitionError
from ..native import Signature, address, load_library
from .threads import thread_count

#: Private states (one player's) from which a sweep uses the compiled loops.
MIN_STATES = 1 << 10
#: Rows (hands × public nodes) below a node from which a depth-first pass shares its children among threads (any
#: node's, up to four shared nodes deep on a thread): handing work to a thread costs about as much as passing over this
#: many rows.
MIN_FAN_ROWS = 1 << 16

_P = ctypes.c_void_p
_I = ctypes.c_int64
_D = ctypes.c_double
_SIGNATURES: dict[str, list[Any]] = {
    "transition_weights": [_P, _P, _P, _I],
    "forward_reach": [_P, _P, _P, _P, _P, _I, _I],
    "backward_expected": [_P, _P, _P, _P, _P, _P, _I, _P],
    "sequence_values": [_P, _P, _P, _I],
    "best_level": [_P, _P, _P, _I, _I, _I, _P, _P, _I, _I, _I, _P, _P],
    "regret_matching": [_P, _P, _P, _I, _I],
    "regret_matching_f32": [_P, _P, _P, _I, _I],
    "regret_matching_average": [_P, _P, _P, _I, _I],
    "regret_matching_f32_average": [_P, _P, _P, _I, _I],
    "update_regrets": [_P, _P, _P, _P, _P, _P, _P, _P, _P, _I, _I, ctypes.c_int, _D, _D, _D, _D, _D],
    "update_regrets_f32": [_P, _P, _P, _P, _P, _P, _P, _P, _P, _I, _I, ctypes.c_int, _D, _D, _D, _D, _D],
    "fold_values": [_P, _P, _P, _P, _P, _P, _P, _P, _I, _I, _I, _I, _P, _I],
    "showdown_values": [_P, _P, _P, _P, _P, _P, _P, _P, _P, _P, _I, _I, ctypes.c_int, _I, _I, _P, _I],
}


class _Layout(ctypes.Structure):
    """``Layout`` of ``_passes.c``: pointers into a :class:`~subgame.tree.poker_layout.PokerLayout`'s arrays."""

    _fields_ = [("node", _P), ("board", _P), ("hand_cards", _P), ("ladder_cards", _P), ("local", _P * 2),
                ("ladder_local", _P * 2), ("hand_of_row", _P * 2), ("rank", _P), ("ties", _P), ("maps", _P * 2), ("mirror", _P),
                ("term", _P), ("k", _I), ("cards", _I), ("live_node", _P * 2), ("live_row", _P * 2), ("mirror_map", _P * 2),
                ("live_board", _P * 2), ("live_hand_row", _P * 2), ("live_hand_cards", _P * 2),
                ("live_hand_twin", _P * 2), ("live_ladder_row", _P * 2), ("live_ladder_cards", _P * 2), ("live_ties", _P * 2)]


class _Source(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("f32", ctypes.c_int), ("data", _P), ("legal", _P), ("a", _I), ("offset", _P),
                ("bits16", ctypes.c_int), ("block_legal", ctypes.c_int)]


class _Update(ctypes.Structure):
    _fields_ = [("regrets", _P), ("sums", _P), ("predicted", _P), ("flags", ctypes.c_int), ("positive", _D),
                ("negative", _D), ("scale", _D), ("weight", _D), ("sum_discount", _D), ("regret_scale", _P),
                ("sum_scale", _P)]


#: The dtype of 16-bit storage per Source kind (``SRC_REGRETS``, ``SRC_SUMS`` of ``_passes.c``).
BITS16 = {0: np.dtype(np.int16), 2: np.dtype(np.uint16)}

#: Blocks of ones by size: the legal masks of a node in compact storage where every slot is legal (a Source's
#: ``legal`` ``None``), so that no mask of a byte a slot is stored. Kept for good (prepared calls point into them).
_ONES: dict[int, np.ndarray] = {}


def _ones(n: int) -> np.ndarray:
    block = _ONES.get(n)
    if block is None:
        block = _ONES[n] = np.ones(max(n, 1), dtype=np.bool_)
    return block


class Rule(Protocol):
    """What the compiled update reads of an update rule (:class:`~subgame.solve.rules.UpdateRule`)."""

    @property
    def rm_plus(self) -> bool: ...
    @property
    def before(self) -> tuple[float, float] | None: ...
    @property
    def after(self) -> tuple[float, float] | None: ...
    @property
    def scale(self) -> float | None: ...
    @property
    def sum_discount(self) -> float | None: ...
    @property
    def weight(self) -> float: ...
    @property
    def reach_average(self) -> bool: ...
    @property
    def predict(self) -> bool: ...


#: The signatures' version ``_kernels.c`` must report (``kernels_abi``); bumped with every change to them.
ABI = 27


def _load() -> ctypes.CDLL | None:
    signatures: dict[str, Signature] = {name: (argtypes, None) for name, argtypes in _SIGNATURES.items()}
    signatures["poker_pass"] = ([ctypes.POINTER(_Layout), ctypes.c_int, ctypes.c_int, ctypes.POINTER(_Source),
                                 ctypes.POINTER(_Source), ctypes.POINTER(_Update), _I, _P, _P, _P, _I, _I, _I], ctypes.c_int64)
    signatures["poker_pass_loops"] = ([_I], _I)
    return load_library(f"{__package__}._kernels", ABI, signatures)


_lib = _load()
_enabled = [_lib is not None]
_leaf_values_call: Callable[[int, np.ndarray, np.ndarray], None] | None = None
if _lib is not None:  # the same library as an extension module: its calls of the interpreter's own convention
    from . import _kernels  # type: ignore[attr-defined]

    _leaf_values_call = _kernels.leaf_values_call


def available() -> bool:
    """Whether the compiled extension was built and loaded."""
    return _lib is not None


def use_compiled(flag: bool) -> bool:
    """Use the compiled loops from now on (where built) or the numpy code only; returns the old setting."""
    if not isinstance(flag, bool):
        raise GameDefinitionError(f"use_compiled takes True or False, got {flag!r}")
    old = _enabled[0]
    _enabled[0] = flag and _lib is not None
    return old


@contextmanager
def compiled(flag: bool) -> Iterator[None]:
    """:func:`use_compiled` for the duration of a ``with`` block."""
    old = use_compiled(flag)
    try:
        yield
    finally:
        _enabled[0] = old


def active(num_states: int) -> bool:
    """Whether a sweep over ``num_states`` private states takes the compiled loops."""
    return _enabled[0] and num_states >= _from_states[0]


_from_states = [MIN_STATES]


def switches() -> tuple[bool, int]:
    """What :func:`active` decides by: whether the loops are on, and from how many private states (a ``with`` block of
    :func:`compiled` or :func:`forced` changes it)."""
    return _enabled[0], _from_states[0]


def enabled() -> bool:
    """Whether the compiled loops are on (built and not turned off), at any size."""
    return _enabled[0]


@contextmanager
def forced(flag: bool) -> Iterator[None]:
    """In a ``with`` block, every sweep takes the compiled loops (``True``, at any size; they must be built) or none does."""
    if flag and _lib is None:
        raise GameDefinitionError("the compiled loops are not built here (no C compiler at install); use the numpy engine")
    old = _enabled[0], _from_states[0]
    _enabled[0], _from_states[0] = flag, 0 if flag else MIN_STATES
    try:
        yield
    finally:
        _enabled[0], _from_states[0] = old


PASS_LOOPS = ("best", "baseline", "avx2")


def pass_loops() -> str:
    """Which compilation of the depth-first passes runs: ``"avx2"`` (``_passes_avx2.c``, where this build and the
    processor have it) or ``"baseline"``; both give the same bits."""
    if _lib is None:
        raise GameDefinitionError("the compiled loops are not built here (no C compiler at install); no passes run")
    return "avx2" if _lib.poker_pass_loops(-2) else "baseline"


@contextmanager
def passes_compiled_for(loops: str) -> Iterator[str]:
    """In a ``with`` block, the passes run the ``loops`` compilation (one of :data:`PASS_LOOPS`: ``"best"`` the
    processor's, ``"baseline"``, ``"avx2"``, which falls back to the baseline where it is missing); yields the one that
    runs."""
    if loops not in PASS_LOOPS:
        raise GameDefinitionError(f"unknown passes' compilation {loops!r}; choose one of {', '.join(PASS_LOOPS)}")
    pass_loops()  # refuses where nothing is built
    old_choice, _pass_choice[0] = _pass_choice[0], PASS_LOOPS.index(loops) - 1
    _lib.poker_pass_loops(_pass_choice[0])  # type: ignore[union-attr]
    try:
        yield pass_loops()
    finally:
        _pass_choice[0] = old_choice
        _lib.poker_pass_loops(old_choice)  # type: ignore[union-attr]


_pass_choice = [-1]


def takes(*arrays: np.ndarray) -> bool:
    """Whether the arrays are C-contiguous, as the loops read them (views of other layouts go to numpy)."""
    return all(a.flags.c_contiguous for a in arrays)


def takes_values(*arrays: np.ndarray | None) -> bool:
    """Whether the value arrays given (``None``: not given) are contiguous float64, as the loops read and write them."""
    return all(a is None or (a.dtype == np.float64 and a.flags.c_contiguous) for a in arrays)


#: Each array's data pointer, kept while it lives (reading ``ctypes.data`` costs microseconds a call, which on a
#: small tree is most of a pass): the solver state a pass reads and writes is the same arrays every iteration.
_kept: dict[int, tuple[weakref.ref[np.ndarray], int]] = {}


def _kept_address(a: np.ndarray) -> int:
    """``address(a)``, remembered for the array object (an array never moves its data but by ``resize``, which
    needs it to own its data and be referenced nowhere else, so not while a pass or this table holds it)."""
    hit = _kept.get(id(a))
    if hit is not None and hit[0]() is a:
        return hit[1]
    ptr, key = address(a), id(a)

    def forget(_: weakref.ref[np.ndarray]) -> None:
        _kept.pop(key, None)

    _kept[key] = (weakref.ref(a, forget), ptr)
    return ptr


def _i64(*arrays: np.ndarray) -> list[np.ndarray]:
    """The index arrays as the contiguous int64 the operator loops read (no copy where they are already)."""
    return [np.ascontiguousarray(a, dtype=np.int64) for a in arrays]


def _cards(hand_cards: np.ndarray) -> np.ndarray:
    """Hands' cards as the card-removal loops read them: contiguous uint8 (no copy where they are already)."""
    return np.ascontiguousarray(hand_cards, dtype=np.uint8)


def _f64(*arrays: np.ndarray) -> list[np.ndarray]:
    return [np.ascontiguousarray(a, dtype=np.float64) for a in arrays]


# -- sweeps (subgame.tree.sweep) -----------------------------------------------------------------
def _out(out: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    """``out`` if it is a contiguous float64 array of ``shape``, else a new one."""
    if out is not None and out.shape == shape and out.dtype == np.float64 and out.flags.c_contiguous:
        return out
    return np.empty(shape)


def transition_weights(seq: np.ndarray, probs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """[G] ``probs.flat[seq]``, 1 where ``seq`` is -1; ``seq`` int32, ``probs`` float64, both contiguous."""
    out = _out(out, seq.shape)
    _lib.transition_weights(address(seq), address(probs), address(out), seq.shape[0])  # type: ignore[union-attr]
    return out


def _weights(sw: np.ndarray | None, seq: np.ndarray, probs: np.ndarray | None) -> tuple[int, int, int]:
    """Pointers to the transition weights: the array ``sw``, or the own-action index ``seq`` and the strategy."""
    if sw is not None:
        return address(sw), 0, 0
    if probs is None:
        raise TypeError("the compiled sweeps need the transition weights sw or the strategy probs")
    return 0, address(seq), address(probs)


def forward_reach(parent: np.ndarray, sw: np.ndarray | None, reach: np.ndarray, lo: int, seq: np.ndarray,
                  probs: np.ndarray | None = None) -> None:
    """``reach[i] = reach[parent[i]] * w(i)`` for ``i >= lo``, in place; ``w`` is ``sw``, or read from ``probs`` [I·A] at ``seq``."""
    _lib.forward_reach(address(parent), *_weights(sw, seq, probs), address(reach), lo, reach.shape[0])  # type: ignore[union-attr]


def backward_expected(parent: np.ndarray, sw: np.ndarray | None, v: np.ndarray, level_bounds: np.ndarray, seq: np.ndarray,
                      probs: np.ndarray | None = None) -> None:
    """Children's weighted values added into their parents, deepest level first, in place (weights as :func:`forward_reach`)."""
    bounds = np.ascontiguousarray(level_bounds, dtype=np.int64)
    sums = np.empty(max(int(np.diff(bounds[:-1]).max(initial=0)), 1))
    _lib.backward_expected(address(parent), *_weights(sw, seq, probs), address(v), address(bounds), bounds.shape[0] - 1,  # type: ignore[union-attr]
                           address(sums))


def best_level(parent: np.ndarray, seq: np.ndarray, v: np.ndarray, level: tuple[int, int, int, int, int], legal: np.ndarray,
               infoset_priv: np.ndarray, best: np.ndarray | None) -> None:
    """One level of a best-response sweep in place (``level`` = parents plo, children lo, hi, information sets ilo, ihi)."""
    plo, lo, hi, ilo, ihi = level
    a = legal.shape[1]
    sums = np.empty(max((lo - plo) + (ihi - ilo) * a, 1))
    _lib.best_level(address(parent), address(seq), address(v), plo, lo, hi, address(legal), address(infoset_priv), ilo, ihi, a,  # type: ignore[union-attr]
                    address(sums), 0 if best is None else address(best))


def sequence_values(seq: np.ndarray, v: np.ndarray, shape: tuple[int, ...], out: np.ndarray | None = None) -> np.ndarray:
    """[I, A] the sum of ``v`` over the states of each own-action slot."""
    out = _out(out, shape)
    out.fill(0.0)
    _lib.sequence_values(address(seq), address(v), address(out), seq.shape[0])  # type: ignore[union-attr]
    return out


def regret_matching(regrets: np.ndarray, legal: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """[I, A] float64 regret matching of float64 or float32 ``regrets`` with bool ``legal``, both contiguous, A < 16."""
    out = _out(out, regrets.shape)
    rows, a = regrets.shape
    match = _lib.regret_matching_f32 if regrets.dtype == np.float32 else _lib.regret_matching  # type: ignore[union-attr]
    match(address(regrets), address(legal), address(out), rows, a)
    return out


def average_strategy(sums: np.ndarray, legal: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """[I, A] float64 average strategy of float64 or float32 strategy ``sums`` with bool ``legal``, both contiguous,
    A < 16: bitwise :func:`~subgame.solve.plan.average_rows`."""
    out = _out(out, sums.shape)
    rows, a = sums.shape
    average = _lib.regret_matching_f32_average if sums.dtype == np.float32 else _lib.regret_matching_average  # type: ignore[union-attr]
    average(_kept_address(sums), _kept_address(legal), _kept_address(out), rows, a)  # a solver's, evaluated again and again
    return out


# -- the regret update (subgame.solve.rules) ---------------------------------------------------
def update_regrets(
    regrets: np.ndarray, strategy_sum: np.ndarray, predicted: np.ndarray | None, seqv: np.ndarray, v: np.ndarray,
    reach: np.ndarray, strategy: np.ndarray, legal: np.ndarray, infoset_priv: np.ndarray, rule: Rule,
) -> None:
    """One player's regrets and strategy sums [I, A] updated in place per ``rule`` (an
    :class:`~subgame.solve.rules.UpdateRule`), bitwise as ``accumulate_regrets`` and ``add_average`` do.

    ``predicted`` [I, A] (the regrets the next strategy is matched from) is written where the
    rule predicts. ``regrets``, ``strategy_sum`` and ``predicted`` are all float64 or all
    float32, the other arrays float64.
    """
    rows, a = regrets.shape
    update = _lib.update_regrets_f32 if regrets.dtype == np.float32 else _lib.update_regrets  # type: ignore[union-attr]
    update(
        address(regrets), address(strategy_sum), _predicted(regrets, predicted, rule), address(seqv), address(v), address(reach),
        address(strategy), address(legal), address(infoset_priv), rows, a, *update_params(rule),
    )


def _predicted(regrets: np.ndarray, predicted: np.ndarray | None, rule: Rule) -> int | None:
    """The pointer to the predicted regrets where ``rule`` predicts (checked to match ``regrets``), else NULL."""
    if not rule.predict:
        return None
    if predicted is None or predicted.shape != regrets.shape or predicted.dtype != regrets.dtype or not takes(predicted):
        raise GameDefinitionError("a predictive update needs contiguous predicted regrets of the regrets' shape and precision")
    return address(predicted)


def update_params(rule: Rule) -> tuple[int, float, float, float, float, float]:
    """An :class:`~subgame.solve.rules.UpdateRule` as ``update_regrets`` in ``_kernels.c`` takes it: flags, the
    discounts of positive and negative regrets, the scale, the weight, the strategy sum's discount."""
    return params_of(rule.rm_plus, rule.before, rule.after, rule.scale, rule.sum_discount, rule.weight, rule.reach_average)


def params_of(rm_plus: bool, before: tuple[float, float] | None, after: tuple[float, float] | None, scale: float | None,
              sum_discount: float | None, weight: float, reach_average: bool, *_: object) -> tuple[int, float, float, float, float, float]:
    """:func:`update_params` of an update rule given by its fields, in :class:`~subgame.solve.rules.UpdateRule`'s order."""
    if before is not None and after is not None:
        raise GameDefinitionError("the compiled update takes regret discounts before or after the increment, not both")
    signs = before if before is not None else after
    flags = ((1 if rm_plus else 0) | (2 if after is not None else 0) | (4 if scale is not None else 0)
             | (8 if before is not None else 0) | (0 if reach_average else 16) | (32 if sum_discount is not None else 0))
    pos, neg = signs if signs is not None else (1.0, 1.0)
    return (flags, float(pos), float(neg), 1.0 if scale is None else float(scale), float(weight),
            1.0 if sum_discount is None else float(sum_discount))


# -- poker terminals (subgame.tree.poker_operators) --------------------------------------------
#: Cards per hand the operator loops handle (inclusion-exclusion written out for one and two cards).
MAX_HAND_CARDS = 2
#: The dtype of rows of a node and hands of a board in a layout the passes read (``row_t`` of ``_rows.h``: ``local``,
#: ``ladder_local``, ``hand_of_row``, ``rank``, ``maps`` and the kept rows' ``live_row``, ``live_hand_row``,
#: ``live_hand_twin``, ``live_ladder_row``): each is below its board's hand count, at most 1,326 for two cards of 52
#: (32,640 for two of the 256 cards uint8 holds), and a flop holds tens of millions of them.
ROW = np.int16


def fold_values(
    opp: np.ndarray, out: np.ndarray, me: tuple[np.ndarray, np.ndarray], them: tuple[np.ndarray, np.ndarray],
    value: np.ndarray, hand_cards: np.ndarray, cols: range,
) -> None:
    """Fold values of one board's terminals ``cols`` written into ``out`` (float64, contiguous); ``me``/``them`` are (local [n], start [T])."""
    n, k = hand_cards.shape
    cards = int(hand_cards.max(initial=0)) + 1
    mass = np.empty(cards)
    idx, (v,), held = _i64(*me, *them), _f64(value), _cards(hand_cards)
    _lib.fold_values(  # type: ignore[union-attr]
        address(opp), address(out), *(address(x) for x in idx), address(v), address(held), n, k, cols.start, cols.stop, address(mass), cards,
    )


def showdown_values(
    opp: np.ndarray, out: np.ndarray, me: tuple[np.ndarray, np.ndarray], them: tuple[np.ndarray, np.ndarray],
    win: np.ndarray, lose: np.ndarray, hand_cards: np.ndarray, ties: np.ndarray, player: int, cols: range,
) -> None:
    """Showdown values of one board's terminals ``cols`` written into ``out``.

    The hands are taken in ascending strength: ``hand_cards`` [n, k] and the ``local`` positions
    of ``me``/``them`` in that order, ``ties`` [L+1] where each group of tied hands starts.
    """
    n, k = hand_cards.shape
    cards = int(hand_cards.max(initial=0)) + 1
    scratch = np.empty(cards + n)
    idx, vals, held = _i64(*me, *them, ties), _f64(win, lose), _cards(hand_cards)
    _lib.showdown_values(  # type: ignore[union-attr]
        address(opp), address(out), *(address(x) for x in idx[:4]), *(address(x) for x in vals), address(held), address(idx[4]),
        ties.shape[0] - 1, k, player, cols.start, cols.stop, address(scratch), cards,
    )


class _LeafCall(ctypes.Structure):
    """``LeafCall`` of ``_kernels.c``: a prepared ``leaf_values_segments`` call but its reach and output."""

    _fields_ = [("coef", _P), ("seq", _P), ("weight", _P), ("order", _P), ("ties", _P), ("rows", _P), ("tie0", _P),
                ("segments", _I), ("hand_cards", _P), ("k", _I), ("gb", _P), ("rb", _P), ("T", _I), ("K", _I), ("ur", _I),
                ("U", _I), ("cards", _I), ("most", _I), ("rows_total", _I)]


class LeafValues:
    """[M, T, K] a depth-limited poker leaf's values of one or several full boards, given the giver's reach [M, T, kx]
    (:meth:`PokerRoundValues._products <subgame.depthlimited.poker_leaf.PokerRoundValues>`; kx = 1 or K).

    ``coef`` [S, K, 4, ur, U] the tables, ``sequence`` [T] each column's row of them and ``weight`` [T] its weight;
    full board s is rows ``rows[s]:rows[s + 1]``, its hands in ascending strength ``order`` there (local) with their
    groups of ties ``ties[tie0[s]:tie0[s + 1]]`` (local); the columns are shared. ``cards`` (above the highest card)
    and ``most`` (rows of the largest board): computed where not given. Everything but the reach is bound once into
    a prepared call, since a leaf's tables, boards and weights are the same every iteration: on a small tree the
    packing of a ctypes call's 21 arguments was most of its time. Calls from several threads at once are safe.
    """

    __slots__ = ("_keep", "_call", "_address", "_shape")

    def __init__(self, coef: np.ndarray, sequence: np.ndarray, weight: np.ndarray, order: np.ndarray, ties: np.ndarray,
                 rows: np.ndarray, tie0: np.ndarray, hand_cards: np.ndarray, giver_bucket: np.ndarray,
                 receiver_bucket: np.ndarray, cards: int | None = None, most: int | None = None) -> None:
        S, K, _, ur, U = coef.shape
        M, k = hand_cards.shape
        cards = int(hand_cards.max(initial=0)) + 1 if cards is None else cards
        most = int(np.diff(rows).max(initial=0)) if most is None else most
        (c, wt), idx = _f64(coef, weight), _i64(sequence, order, ties, rows, tie0, hand_cards, giver_bucket, receiver_bucket)
        self._keep = (c, idx[0], wt, *idx[1:], cards, most)  # alive while their addresses are used; pickled instead of them
        p = [address(a) for a in idx]  # sequence, order, ties, rows, tie0, hand_cards, giver_bucket, receiver_bucket
        T = sequence.shape[0]
        self._shape = (M, T, K)
        self._call = _LeafCall(address(c), p[0], address(wt), p[1], p[2], p[3], p[4], idx[3].shape[0] - 1, p[5], k, p[6], p[7],
                               T, K, ur, U, cards, most, M)
        self._address = ctypes.addressof(self._call)

    def __reduce__(self) -> tuple[type[LeafValues], tuple[Any, ...]]:
        return LeafValues, self._keep

    def __call__(self, reach: np.ndarray) -> np.ndarray:
        """[M, T, K] the receiver's values given the giver's reach [M, T, kx]."""
        r = np.ascontiguousarray(reach, dtype=np.float64)
        out = np.empty(self._shape)
        if r.ndim != 3 or r.shape[:2] != self._shape[:2]:
            raise ValueError(f"the giver's reach is {r.shape}, the bound leaf takes [{self._shape[0]}, {self._shape[1]}, kx]")
        if out.size:
            _leaf_values_call(self._address, r, out)  # type: ignore[misc]  # LeafValues is made where the loops are built
        return out


# -- depth-first poker passes (subgame.tree.poker_layout) -----------------------------------------
#: Each layout's ``Layout`` struct, made once (its pointers stay valid while the layout, which holds the arrays, lives).
_layouts: weakref.WeakKeyDictionary[Any, _Layout] = weakref.WeakKeyDictionary()


def _layout(L: Any) -> _Layout:
    """The ``Layout`` struct of a :class:`~subgame.tree.poker_layout.PokerLayout`."""
    lay = _layouts.get(L)
    if lay is None:
        cards = [L.hand_cards, L.ladder_cards, *((L.live_hand_cards, L.live_ladder_cards) if L.live_node is not None else ())]
        if any(c.dtype != np.uint8 or not c.flags.c_contiguous for c in cards):
            raise GameDefinitionError("a poker layout's hands' cards must be contiguous uint8 (compile_poker makes them so)")
        rows = [L.local, L.ladder_local, L.hand_of_row, L.rank, L.maps,
                *((L.live_row, L.live_hand_row, L.live_hand_twin, L.live_ladder_row) if L.live_node is not None else ())]
        if any(r.dtype != ROW or not r.flags.c_contiguous for r in rows):
            raise GameDefinitionError(f"a poker layout's rows must be contiguous {np.dtype(ROW).name} (compile_poker makes them "
                                      "so for hands of at most two cards)")
        pair = [(_P * 2)(address(x[0]), address(x[1])) for x in (L.local, L.ladder_local, L.hand_of_row)]
        lay = _layouts[L] = _Layout(address(L.node), address(L.board), address(L.hand_cards), address(L.ladder_cards), *pair, address(L.rank),
                                    address(L.ties), (_P * 2)(address(L.maps[0]), address(L.maps[1])), address(L.mirror), address(L.term),
                                    L.hand_cards.shape[1], L.cards)
        if L.live_node is not None:  # rows of live hands only (poker_layout.live_layout)
            for name in ("live_node", "live_row", "mirror_map", "live_board", "live_hand_row", "live_hand_cards",
                         "live_hand_twin", "live_ladder_row", "live_ladder_cards", "live_ties"):
                x = getattr(L, name)
                setattr(lay, name, (_P * 2)(address(x[0]), address(x[1])))
    return lay


#: Nodes whose children the passes have shared among threads so far (for the tests: nothing else tells, as the results
#: are the same on any thread count).
_shared_nodes = [0]

#: The arguments of each CFR pass's ``poker_pass`` call but its root reaches and output, kept while the arrays it
#: reads and writes live: a solver's passes read and write the same arrays every iteration, and building the call
#: costs more than a pass over Kuhn (the root reaches are new arrays each iteration where a gadget sets them).
_calls: dict[tuple[int, ...], tuple[tuple[Callable[[], Any], ...], tuple[Any, ...], Any]] = {}


def poker_pass(layout: Any, player: int, mode: int, sources: tuple[Any, Any], update: tuple[Any, ...] | None,
               root_reach: tuple[np.ndarray, np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
    """One ``poker_pass`` of ``_passes.c`` over ``layout``; returns the player's values at her root rows.

    ``sources`` are :class:`~subgame.tree.poker_layout.Source` per player; ``update`` is
    ``(regrets, sums, predicted, rule)`` for a CFR pass (``predicted``: ``None`` unless the
    :class:`~subgame.solve.rules.UpdateRule` predicts), and over 16-bit storage
    ``(regrets, sums, None, rule, scales)`` ([2, N] float32: per node the unit of its regrets,
    then of its sums), else ``None``; ``out``: where the values
    are written (contiguous float64 of the opponent's root rows; a new array where ``None``).
    """
    fresh = out is None
    if out is None:
        out = np.empty(root_reach[1 - player].shape[0])
    # alive here for the call: the addresses passed are these arrays'
    root_reach = (np.ascontiguousarray(root_reach[0], dtype=np.float64), np.ascontiguousarray(root_reach[1], dtype=np.float64))
    if update is None or fresh:
        args, up = _pass_args(layout, player, mode, sources, update, root_reach, out)
    else:
        arrays = (layout, sources[0].data, sources[0].legal, sources[1].data, sources[1].legal, *update[:3],
                  update[4] if len(update) > 4 else None)
        key = (player, mode, sources[0].kind, sources[1].kind, bool(update[3].predict), *map(id, arrays))
        hit = _calls.get(key)
        if hit is not None and all(ref() is a for ref, a in zip(hit[0], arrays)):
            up = hit[2]
            _set_rule(up, update[3])
            args = (*hit[1], *_pass_tail(layout, player, root_reach, out))
        else:
            args, up = _pass_args(layout, player, mode, sources, update, root_reach, out)
            _keep_call(key, arrays, args[:7], up)
    shared = _lib.poker_pass(*args, thread_count(), MIN_FAN_ROWS)  # type: ignore[union-attr]
    if shared < 0:
        raise MemoryError("poker_pass: out of memory for the rows of a public node")
    _shared_nodes[0] += shared
    return out


def watched(objects: tuple[Any, ...], forget: Callable[[Any], None]) -> tuple[Callable[[], Any], ...]:
    """Weak references to ``objects`` calling ``forget`` when one dies; a ``None`` (an array not given) is not watched
    and reads back as ``None``."""
    return tuple(weakref.ref(a, forget) if a is not None else (lambda: None) for a in objects)


def _keep_call(key: tuple[int, ...], arrays: tuple[Any, ...], args: tuple[Any, ...], up: Any) -> None:
    """Remember a pass's call for the objects it reads (``None``, no predicted regrets, is not watched)."""
    def forget(_: weakref.ref[np.ndarray]) -> None:
        _calls.pop(key, None)

    _calls[key] = (watched(arrays, forget), args, up)


def _set_rule(up: _Update, rule: Rule) -> None:
    """Write ``rule`` (:func:`update_params`) into an ``Update`` struct."""
    up.flags, up.positive, up.negative, up.scale, up.weight, up.sum_discount = update_params(rule)


def _pass_args(layout: Any, player: int, mode: int, sources: tuple[Any, Any], update: tuple[Any, ...] | None,
               root_reach: tuple[np.ndarray, np.ndarray], out: np.ndarray) -> tuple[tuple[Any, ...], Any]:
    """The arguments of :func:`poker_pass`'s call but its threads, its arrays checked, and its ``Update`` struct (``None``
    where none); ``ctypes.byref`` keeps the structs alive."""
    lay = _layout(layout)
    src = []
    for q, s in enumerate(sources):
        bits16 = s.data.dtype in (np.int16, np.uint16)
        if s.compact is None and s.data.ndim != 2:
            raise GameDefinitionError("poker_pass: a strategy of one dimension is compact storage; give its CompactRows")
        if s.legal is None and s.compact is None:
            raise GameDefinitionError("poker_pass: only compact storage may leave its legal masks out (every slot legal)")
        legal = _ones(layout.max_hands * s.compact.actions) if s.legal is None else s.legal
        if not (s.data.flags.c_contiguous and legal.flags.c_contiguous and legal.dtype == np.bool_
                and (bits16 or s.data.dtype in (np.float64, np.float32)) and (s.legal is None or s.data.shape == legal.shape)):
            raise GameDefinitionError("poker_pass: strategies must be contiguous [I, A] float64 or float32 arrays with their legal masks")
        if s.compact is not None and not (s.compact is layout.compact[q] and s.data.shape == (s.compact.size,)):
            raise GameDefinitionError("poker_pass: compact storage of another layout (all rows or kept rows) or size")
        if bits16 and (s.compact is None or BITS16.get(s.kind) != s.data.dtype):
            raise GameDefinitionError("poker_pass: 16-bit storage is compact: int16 regrets or uint16 strategy sums")
        a = s.data.shape[1] if s.compact is None else s.compact.actions
        if s.single and not (bits16 or s.data.dtype == np.float32):
            raise GameDefinitionError("poker_pass: a pass computes in float32 over float32 (or 16-bit) regrets and sums only")
        precision = 2 if s.single else int(s.data.dtype == np.float32)  # 2: computed in float32 (poker_pass_single)
        src.append(_Source(s.kind, precision, _kept_address(s.data), _kept_address(legal), a,
                           None if s.compact is None else _kept_address(s.compact.offset), int(bits16), int(s.legal is None)))
    up = None
    if update is not None:
        regrets, sums = update[0], update[1]
        scales = update[4] if len(update) > 4 else None
        if regrets.dtype == np.int16 or scales is not None:
            if not (regrets.dtype == sources[player].data.dtype == np.int16 and sums.dtype == np.uint16 and sources[player].single
                    and scales is not None and scales.dtype == np.float32 and scales.shape == (2, layout.node.shape[0])
                    and takes(regrets, sums, scales) and not update[3].predict):
                raise GameDefinitionError("poker_pass: 16-bit storage updates int16 regrets and uint16 sums with their [2, N] "
                                          "float32 scales, computed in float32, without prediction")
            up = _Update(_kept_address(regrets), _kept_address(sums), None, *update_params(update[3]), address(scales[0]),
                         address(scales[1]))
        else:
            if not (regrets.dtype == sums.dtype == np.dtype(sources[player].data.dtype) and takes(regrets, sums)):
                raise GameDefinitionError("poker_pass: the regrets and sums updated must be contiguous and of one precision")
            predicted = None if _predicted(regrets, update[2], update[3]) is None else _kept_address(update[2])
            up = _Update(_kept_address(regrets), _kept_address(sums), predicted, *update_params(update[3]))
    args = (ctypes.byref(lay), player, mode, ctypes.byref(src[0]), ctypes.byref(src[1]), None if up is None else ctypes.byref(up),
            layout.roots, *_pass_tail(layout, player, root_reach, out))
    return args, up


def _pass_tail(layout: Any, player: int, root_reach: tuple[np.ndarray, np.ndarray], out: np.ndarray) -> tuple[int, ...]:
    """A pass's last arguments, those a remembered call takes anew: the player's and the opponent's root reach and
    where the values go (contiguous float64 of the opponent's root rows, checked), and the rows of the largest node.
    The root reaches must be contiguous float64 that the caller keeps alive while the call is used (checked: a copy
    made here would die with this frame and leave its address behind)."""
    own, opp = root_reach[player], root_reach[1 - player]
    if not takes_values(own, opp):
        raise GameDefinitionError("poker_pass: the root reaches are contiguous float64 arrays that the caller keeps")
    if not (out.shape == opp.shape and takes_values(out)):
        raise GameDefinitionError("poker_pass: the values are written to contiguous float64 of the opponent's root rows")
    return _kept_address(own), _kept_address(opp), address(out), layout.max_hands
