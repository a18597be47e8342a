"""Showdowns of the 52-card deck for every hand at once: equity against a range, strengths, strength histograms.

All three rest on one pass per complete board. With ``w`` the opponent's weights over the
hands that meet no board card, hand ``h`` (cards ``a``, ``b``) beats the weight

    beaten(h) = W_below(h) - W_below,a(h) - W_below,b(h),

where ``W_below`` sums the weights of the hands of lower value and ``W_below,c`` those of
them holding card ``c`` (no hand but ``h`` holds both ``a`` and ``b``); ties and the weight
``h`` can meet at all follow the same way, ``h`` itself removed once. Sorting the valid
hands by value makes every ``W_below`` a running sum, so a board costs one evaluation per
hand, a sort and one scan, never an ``H x H`` matrix. An earlier board sums these over every
completion: for any two disjoint hands the number of completions that avoid both is the
same, so the sums give the probability over a uniform deal of the rest of the board.

The compiled pass (``_showdown.c``, built by ``setup.py``) does this; without it a numpy
pass with a dense comparison per board gives the same numbers, far slower.
"""

from __future__ import annotations

import ctypes
from functools import cache
from itertools import combinations
from math import comb

import numpy as np

from ...errors import GameDefinitionError
from ...native import address, load_library
from .evaluator import DECK, checked_hands, hand_values

#: [1326, 2] every pair of hole cards of the 52-card deck, ascending cards, in lexicographic order.
HANDS = np.array(list(combinations(range(DECK), 2)), dtype=np.int64)


def _load_library() -> ctypes.CDLL | None:
    p, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    return load_library(f"{__package__}._showdown", 1, {
        "hand_values": ([p, i64, i32, p], None),
        "equity_sums": ([p, i64, p, i32, p, p, p], i64),
        "river_strengths": ([p, i64, p, i64, p], i64),
        "strength_cdfs": ([p, i64, p, i32, i32, p], i64),
        "hand_scores": ([p, i64, p, i32, p, p], i64),
    })


_LIB = _load_library()


def available() -> bool:
    """Whether the compiled pass was built (``pip install`` or ``python3 setup.py build_ext --inplace``)."""
    return _LIB is not None


def _hands(hands: np.ndarray | None) -> np.ndarray:
    h = HANDS if hands is None else np.asarray(hands)
    if h.ndim != 2 or h.shape[1] != 2 or (h.size and (h.min() < 0 or h.max() >= DECK)) or (h[:, 0] == h[:, 1]).any():
        raise GameDefinitionError(f"showdown: hands must be an [H, 2] array of two distinct cards 0..{DECK - 1}")
    return np.ascontiguousarray(h, dtype=np.int32)


def _board(board: np.ndarray, most: int = 5) -> np.ndarray:
    b = np.asarray(board).reshape(-1)
    if b.size > most or (b.size and (b.min() < 0 or b.max() >= DECK)) or np.unique(b).size != b.size:
        raise GameDefinitionError(f"showdown: a board is at most {most} distinct cards 0..{DECK - 1}, got {b.tolist()}")
    return np.ascontiguousarray(b, dtype=np.int32)


def _meets(hands: np.ndarray, board: np.ndarray) -> np.ndarray:
    """[H] whether each hand holds a board card."""
    return np.asarray(np.isin(hands, board).any(axis=1))


def equity(board: np.ndarray, weights: np.ndarray | None = None, *, hands: np.ndarray | None = None) -> np.ndarray:
    """[H] each hand's probability of winning, ties counted half, against an opponent hand drawn from ``weights``.

    Args:
        board: [b] the board so far, 0 <= b <= 5 cards; the rest is dealt uniformly.
        weights: [H] the opponent's range over ``hands`` (any scale; hands meeting the board
            are ignored); ``None``: uniform.
        hands: [H, 2] the hands (default :data:`HANDS`).
    Returns:
        [H] float64; NaN for hands meeting the board or with no opponent weight left.
    """
    h, b = _hands(hands), _board(board)
    w = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64).reshape(-1)
    if w is not None and (w.shape[0] != h.shape[0] or not np.isfinite(w).all() or (w < 0).any()):
        raise GameDefinitionError(f"showdown: weights must be {h.shape[0]} finite non-negative numbers")
    num, den = _equity_sums(h, b, w)
    out = np.full(h.shape[0], np.nan)
    ok = (den > 0) & ~_meets(h, b)
    out[ok] = num[ok] / den[ok]
    return out


def _equity_sums(hands: np.ndarray, board: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    n = hands.shape[0]
    num, den = np.zeros(n), np.zeros(n)
    if _LIB is not None:
        if _LIB.equity_sums(address(hands), n, address(board), board.size, None if weights is None else address(weights),
                            address(num), address(den)) < 0:
            raise MemoryError("showdown: out of memory")
        return num, den
    for full in _completions(board):
        x, y = _dense_pass(hands, full, weights)
        num += x
        den += y
    return num, den


def strengths(boards: np.ndarray, *, hands: np.ndarray | None = None) -> np.ndarray:
    """[n, H] each hand's strength on each complete board [n, 5]: its equity against a uniform opponent hand (0.5
    where none remains), NaN where it meets the board."""
    h = _hands(hands)
    b = np.ascontiguousarray(np.asarray(boards).reshape(-1, 5), dtype=np.int32)
    if b.size and (b.min() < 0 or b.max() >= DECK or (np.diff(np.sort(b, axis=1), axis=1) == 0).any()):
        raise GameDefinitionError(f"showdown: complete boards are five distinct cards 0..{DECK - 1} each")
    out = np.empty((b.shape[0], h.shape[0]))
    if _LIB is not None:
        if _LIB.river_strengths(address(h), h.shape[0], address(b), b.shape[0], address(out)) < 0:
            raise MemoryError("showdown: out of memory")
        return out
    for i, row in enumerate(b):  # one dense pass per board
        num, den = _dense_pass(h, row, None)
        out[i] = np.divide(num, den, out=np.full(h.shape[0], 0.5), where=den > 0)
        out[i, _meets(h, row)] = np.nan
    return out


def strength_cdfs(board: np.ndarray, bins: int, *, hands: np.ndarray | None = None) -> np.ndarray:
    """[H, bins] each hand's cumulative histogram of its :func:`strengths` over every completion of ``board`` (fewer
    than five cards) that it does not meet, ``bins`` equal-width bins, normalised; NaN rows where none is left.

    This is the exact distribution-aware feature (Johanson et al. 2013) that sampled futures approximate.
    """
    h, b = _hands(hands), _board(board, most=4)
    if bins < 2:
        raise GameDefinitionError(f"showdown: bins must be >= 2, got {bins}")
    if _LIB is not None:
        out = np.empty((h.shape[0], bins))
        if _LIB.strength_cdfs(address(h), h.shape[0], address(b), b.size, bins, address(out)) < 0:
            raise MemoryError("showdown: out of memory")
        return out
    return cumulative_histograms(strengths(_completions(b), hands=h), bins)


def hand_scores(board: np.ndarray, hand: np.ndarray, *, hands: np.ndarray | None = None) -> np.ndarray:
    """[H] for one hand [2]: each opponent hand's wins against it, ties half, over the uniform completions of
    ``board`` that meet neither (a share of them: zero for hands meeting the board or the hand).

    The equity of ``hand`` against weights ``w`` is ``w @ scores / w[free].sum()`` for any
    number of ranges at once (one matrix product), ``free`` the hands meeting neither.
    """
    h, b = _hands(hands), _board(board)
    mine = np.ascontiguousarray(np.asarray(hand).reshape(-1), dtype=np.int32)
    if mine.size != 2 or mine[0] == mine[1] or np.isin(mine, b).any() or mine.min() < 0 or mine.max() >= DECK:
        raise GameDefinitionError(f"showdown: a hand is two distinct cards off the board, got {mine.tolist()}")
    per_pair = comb(DECK - b.size - 4, 5 - b.size)
    if _LIB is not None:
        out = np.empty(h.shape[0])
        _LIB.hand_scores(address(h), h.shape[0], address(b), b.size, address(mine), address(out))
        return out / per_pair
    full = _completions(b)
    full = full[~np.isin(full, mine).any(axis=1)]
    out = np.zeros(h.shape[0])
    for row in full:  # one dense comparison per completion
        ok = ~np.isin(h, np.concatenate([row, mine])).any(axis=1)
        theirs = hand_values(np.hstack([h[ok], np.broadcast_to(row, (int(ok.sum()), 5))]))
        own = hand_values(np.concatenate([mine, row])[None, :].astype(np.int64))[0]
        out[ok] += (own > theirs) + 0.5 * (own == theirs)
    return out / per_pair


def values(cards: np.ndarray) -> np.ndarray:
    """[M] :func:`~subgame.games.poker.evaluator.hand_values` of hands [M, n] (5 <= n <= 7), compiled where built."""
    c = checked_hands(cards)
    if _LIB is None:
        return hand_values(c)
    c32 = np.ascontiguousarray(c, dtype=np.int32)
    out = np.empty(c32.shape[0], dtype=np.int64)
    _LIB.hand_values(address(c32), c32.shape[0], c32.shape[1], address(out))
    return out


def cumulative_histograms(values: np.ndarray, bins: int) -> np.ndarray:
    """[..., H, bins] each hand's cumulative histogram of its strengths [..., S, H] (``bins`` equal-width bins of
    [0, 1]) over the non-NaN ones, normalised; NaN where there are none."""
    ok = ~np.isnan(values)
    idx = np.minimum((np.where(ok, values, 0.0) * bins).astype(np.int64), bins - 1)
    hist = np.stack([((idx == j) & ok).sum(axis=-2) for j in range(bins)], axis=-1).astype(np.float64)  # one per bin
    count = hist.sum(axis=-1, keepdims=True)
    out = np.full(hist.shape, np.nan)
    np.divide(np.cumsum(hist, axis=-1), count, out=out, where=count > 0)
    return out


def _completions(board: np.ndarray) -> np.ndarray:
    """[m, 5] every completion of ``board`` to five cards (the board first, the new cards ascending)."""
    if board.size == 5:
        return board.astype(np.int64)[None, :]
    rest = np.setdiff1d(np.arange(DECK), board)
    new = np.array(list(combinations(rest.tolist(), 5 - board.size)), dtype=np.int64).reshape(-1, 5 - board.size)
    return np.hstack([np.broadcast_to(board.astype(np.int64), (new.shape[0], board.size)), new])


@cache
def _disjoint(key: bytes, n: int) -> np.ndarray:
    hands = np.frombuffer(key, dtype=np.int32).reshape(n, 2)
    return ~(hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))


def _dense_pass(hands: np.ndarray, board: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The numpy stand-in for one complete board: ([H] weight beaten + tied / 2, [H] weight met), by an H x H
    comparison of the valid hands."""
    n = hands.shape[0]
    w = np.ones(n) if weights is None else weights
    valid = ~_meets(hands, board)
    idx = np.flatnonzero(valid)
    v = hand_values(np.hstack([hands[idx], np.broadcast_to(board, (idx.size, board.size))]))
    meet = _disjoint(hands.tobytes(), n)[np.ix_(idx, idx)] * w[idx][None, :]
    num, den = np.zeros(n), np.zeros(n)
    num[idx] = (meet * ((v[:, None] > v[None, :]) + 0.5 * (v[:, None] == v[None, :]))).sum(axis=1)
    den[idx] = meet.sum(axis=1)
    return num, den
