"""Clustering of card-abstraction features: EMD k-medians on cumulative histograms and weighted k-means under L2.

See :mod:`subgame.blueprint.card_abstraction` for where each is used and the papers.
"""

from __future__ import annotations

import numpy as np

#: Points on which the last round's k-means fits its centres (every point is then assigned).
KMEANS_SAMPLE = 100_000


def _distinct(points: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows [U, d] of ``points`` (lexicographic order), their summed weights [U], and [M] each point's row."""
    m = points.shape[0]
    order = np.lexsort(points.T[::-1]) if points.shape[1] else np.arange(m)
    srt = points[order]
    new = np.ones(m, dtype=bool)
    new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    inverse = np.empty(m, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    return srt[new], np.bincount(inverse, weights=w, minlength=int(new.sum())), inverse


def _fill_empty(labels: np.ndarray, dist: np.ndarray, k: int) -> np.ndarray:
    """Give every empty cluster of ``labels`` [U] (distinct points) the point farthest from its centre
    whose cluster keeps another point; ``k`` <= U clusters are then all used."""
    count = np.bincount(labels, minlength=k)
    empty = np.flatnonzero(count == 0)
    if not empty.size:
        return labels
    labels = labels.copy()
    order = iter(np.argsort(-dist, kind="stable").tolist())
    for j in empty.tolist():  # one per empty cluster; the points are visited once in all
        for i in order:
            if count[labels[i]] > 1:
                count[labels[i]] -= 1
                labels[i], count[j] = j, 1
                break
    return labels


def _seed(points: np.ndarray, weights: np.ndarray, k: int, rng: np.random.Generator, power: int) -> np.ndarray:
    """[k, d] k-means++ seeds: each next one drawn with probability ∝ weight × distance**power (L1 for 1, L2² for 2)."""
    m = points.shape[0]
    centres = np.empty((k, points.shape[1]))
    centres[0] = points[int(rng.choice(m, p=weights / weights.sum()))]

    def dist(c: np.ndarray) -> np.ndarray:
        diff = np.abs(points - c)
        out: np.ndarray = diff.sum(axis=1) if power == 1 else (diff * diff).sum(axis=1)
        return out

    d = dist(centres[0])
    for j in range(1, k):
        score = np.cumsum(d * weights)
        pick = rng.integers(m) if score[-1] <= 0 else int(np.searchsorted(score, rng.random() * score[-1], side="right"))
        centres[j] = points[min(pick, m - 1)]
        d = np.minimum(d, dist(centres[j]))
    return centres


def emd_kmedians(cdfs: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 100,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """[M] cluster of each cumulative distribution [M, bins] minimizing the weighted summed L1 (1-D EMD) distance.

    The distinct points are clustered with their summed weights: k-means++ seeding under
    L1, then Lloyd's alternation with coordinate-wise weighted (lower) medians as centres
    until the assignment stops changing (or ``iterations``); ties go to the lowest centre,
    and an empty cluster takes the point farthest from its centre. ``min(k, distinct
    points)`` clusters are used.
    """
    x, w, inverse = _distinct(np.asarray(cdfs, dtype=np.float64), weights)
    m = x.shape[0]
    k = min(k, m)
    centres = _seed(x, w, k, rng, power=1)
    assign = np.full(m, -1, dtype=np.int64)
    dist = np.zeros(m)
    for _ in range(iterations):
        new, dist = _nearest_l1(x, centres)
        if np.array_equal(new, assign):
            break
        assign = new
        centres = _weighted_medians(x, w, assign, k, centres)
    labels = _fill_empty(assign, dist, k)
    out: np.ndarray = labels[inverse]
    return out


def _nearest_l1(x: np.ndarray, centres: np.ndarray, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """[M] the nearest centre under L1 (ties to the lowest) and [M] the distance to it."""
    step = max(1, chunk // max(1, centres.size))
    label = np.empty(x.shape[0], dtype=np.int64)
    dist = np.empty(x.shape[0])
    for lo in range(0, x.shape[0], step):
        d = np.abs(x[lo : lo + step, None, :] - centres[None, :, :]).sum(axis=2)
        label[lo : lo + step] = d.argmin(axis=1)
        dist[lo : lo + step] = d.min(axis=1)
    return label, dist


def _weighted_medians(x: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int, old: np.ndarray) -> np.ndarray:
    """[k, d] per cluster and coordinate the lower weighted median (an empty cluster keeps ``old``)."""
    out = old.copy()
    groups = np.arange(k)
    for j in range(x.shape[1]):  # one per coordinate
        order = np.lexsort((x[:, j], labels))
        lab, cw = labels[order], np.cumsum(w[order])
        lo, hi = np.searchsorted(lab, groups, side="left"), np.searchsorted(lab, groups, side="right")
        used = hi > lo
        base = np.where(lo > 0, cw[np.maximum(lo - 1, 0)], 0.0)
        half = base + (cw[np.maximum(hi - 1, 0)] - base) / 2
        at = np.minimum(np.searchsorted(cw, half, side="left"), hi - 1)
        out[used, j] = x[order[at[used]], j]
    return out


def kmeans_l2(points: np.ndarray, k: int, rng: np.random.Generator, weights: np.ndarray | None = None, *,
              sample: int = KMEANS_SAMPLE, iterations: int = 50) -> np.ndarray:
    """[M] cluster of each point [M, d] under L2 (weighted k-means), fit on a subsample, every point assigned.

    The distinct points with their summed weights: up to ``max(sample, 4k)`` of them (drawn
    uniformly) fit the centres, seeded by weighted k-means++ (or, where that would cost more
    than 4·10⁸ distance terms, by a weighted draw of distinct points) and refined by Lloyd's
    iterations until the assignment stops changing; then every point goes to its nearest
    centre and an empty cluster takes the point farthest from its centre, so ``min(k,
    distinct points)`` clusters are used.
    """
    from scipy.spatial import cKDTree  # imported where used: scipy.spatial costs ~25 MB to commands that never cluster

    x, w, inverse = _distinct(np.asarray(points, dtype=np.float64), weights)
    m = x.shape[0]
    k = min(k, m)
    size = min(m, max(sample, 4 * k))
    fit = np.sort(rng.choice(m, size=size, replace=False)) if size < m else np.arange(m)
    xs, ws = x[fit], w[fit]
    if k * size * x.shape[1] <= 400_000_000:
        centres = _seed(xs, ws, k, rng, power=2)
    else:
        centres = xs[np.sort(rng.choice(size, size=k, replace=False, p=ws / ws.sum()))]
    assign = np.full(size, -1, dtype=np.int64)
    for _ in range(iterations):
        new = cKDTree(centres).query(xs)[1]
        if np.array_equal(new, assign):
            break
        assign = new
        mass = np.bincount(assign, weights=ws, minlength=k)
        used = mass > 0
        for j in range(x.shape[1]):  # one per coordinate
            centres[used, j] = np.bincount(assign, weights=ws * xs[:, j], minlength=k)[used] / mass[used]
    dist, labels = cKDTree(centres).query(x)
    out: np.ndarray = _fill_empty(np.asarray(labels, dtype=np.int64), dist, k)[inverse]
    return out


def _by_strength(labels: np.ndarray, ehs: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``labels`` renumbered by their clusters' weighted mean EHS, so that bucket 0 is the weakest (ties by label).

    The means are summed over the distinct (label, EHS) values in sorted order with whole
    weights, so points that stand for the same pairs give the same means to the last bit.
    """
    k = int(labels.max()) + 1
    values, mass, _ = _distinct(np.column_stack([labels, ehs]), weight)
    label = values[:, 0].astype(np.int64)
    mean = np.bincount(label, weights=mass * values[:, 1], minlength=k) / np.maximum(np.bincount(label, mass, k), 1e-300)
    rank = np.empty(k, dtype=np.int64)
    rank[np.lexsort((np.arange(k), mean))] = np.arange(k)
    out: np.ndarray = rank[labels]
    return out
