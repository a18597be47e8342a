"""A small value network for leaf values (depth-limited paper §6, Appendix A: "a DNN ... 2 hidden layers").

:class:`NetworkValues` is a :class:`~.values.LeafValueSource` that learns the K values of a
leaf history from examples and predicts them: a multilayer perceptron in numpy (no extra
dependency) with the paper's shape — two hidden layers of 64 units, K outputs, Huber loss,
Adam. The examples are the tree's own leaf histories with exact values
(:class:`~.values.ExactValues`); a seeded ``holdout`` fraction is kept out of training and
its error is reported in :attr:`NetworkValues.report`, so the network's values are tested
on histories it never saw.

Where the paper is silent or we differ, chosen here: the input is generic, built from the
game's observations — one-hot of each public observation by position and of each player's
private label at the leaf — not the paper's 34 hand-made poker features; the target is the
history's value in chips (the paper predicted fractions of the pot); ReLU units; full-batch
Adam with a fixed number of epochs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SubgameError
from ..games.base import Game
from ..strategy import Strategy
from ..tree.public_tree import PublicTree
from .leaf import LeafValues
from .values import Continuations, ExactValues
from .weakening import leaf_chance


@dataclass(frozen=True)
class NetworkReport:
    """How well the network fits, in chips (per-history values, not chance-weighted)."""

    train_examples: int
    holdout_examples: int
    train_rmse: float
    holdout_rmse: float
    holdout_mean_abs: float
    target_std: float  #: spread of the held-out targets, the error of predicting their mean


@dataclass(frozen=True)
class MLP:
    """A trained multilayer perceptron with ReLU hidden units: ``net(x)`` maps [E, F] inputs to [E, K] outputs."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = x
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if i < len(self.weights) - 1:
                h = np.maximum(h, 0.0)
        return h


def _features(tree: PublicTree, g0: np.ndarray, g1: np.ndarray) -> np.ndarray:
    """[E, F] one-hot of the public observations (by position) and of both private labels at each pair."""
    pa0, pa1 = tree.players
    keys = [tree.public_key[n] for n in pa0.node[g0]]
    width = max(len(k) for k in keys)
    columns: list[np.ndarray] = []
    for pos in range(width):
        tokens = [k[pos] if pos < len(k) else "<none>" for k in keys]
        columns.append(one_hot(tokens))
    columns.append(one_hot([pa0.label[g] for g in g0]))
    columns.append(one_hot([pa1.label[g] for g in g1]))
    return np.hstack(columns)


def one_hot(tokens: list[str]) -> np.ndarray:
    vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    out = np.zeros((len(tokens), len(vocab)))
    out[np.arange(len(tokens)), [vocab[t] for t in tokens]] = 1.0
    return out


def train_mlp(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, lr: float, delta: float,
              rng: np.random.Generator) -> MLP:
    """An MLP with two hidden layers of ``hidden`` units fitted to ``y`` [E, K] by full-batch Adam on the Huber loss (threshold ``delta``)."""
    sizes = [x.shape[1], hidden, hidden, y.shape[1]]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params += [rng.normal(0.0, np.sqrt(2.0 / a), (a, b)), np.zeros(b)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, epochs + 1):
        acts = [x]
        for i in range(0, len(params), 2):
            z = acts[-1] @ params[i] + params[i + 1]
            acts.append(np.maximum(z, 0.0) if i < len(params) - 2 else z)
        err = acts[-1] - y
        grad_out = np.clip(err, -delta, delta) / err.size  # Huber loss gradient
        grads: list[np.ndarray] = [np.empty(0)] * len(params)
        g = grad_out
        for i in range(len(params) - 2, -1, -2):
            grads[i] = acts[i // 2].T @ g
            grads[i + 1] = g.sum(axis=0)
            if i > 0:
                g = (g @ params[i].T) * (acts[i // 2] > 0)
        for j, (p, gr) in enumerate(zip(params, grads)):
            m[j] = 0.9 * m[j] + 0.1 * gr
            v[j] = 0.999 * v[j] + 0.001 * gr * gr
            p -= lr * (m[j] / (1 - 0.9**t)) / (np.sqrt(v[j] / (1 - 0.999**t)) + 1e-8)
    return MLP(tuple(params[0::2]), tuple(params[1::2]))


@dataclass(eq=False)
class NetworkValues:
    """Leaf values predicted by a small network trained on exact values of other leaf histories.

    Args:
        game, full_tree, blueprint: as for :class:`~.values.ExactValues`, which produces
            the training targets.
        holdout: fraction of the histories kept out of training (their predictions are
            still used; their error is reported).
        hidden, epochs, learning_rate, huber_delta: the network and its training.
        seed: of the initial weights and the holdout split.
    Needs the depth-limited tree compiled with ``leaf_histories=True`` (for chance weights).
    """

    game: Game
    full_tree: PublicTree
    blueprint: Strategy
    holdout: float = 0.2
    hidden: int = 64
    epochs: int = 2000
    learning_rate: float = 3e-3
    huber_delta: float = 1.0
    seed: int = 0
    report: NetworkReport | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.holdout < 1.0:
            raise SubgameError(f"holdout must be in [0, 1), got {self.holdout!r}")
        if self.hidden < 1 or self.epochs < 1:
            raise SubgameError("the network needs hidden >= 1 units and epochs >= 1")

    def leaf_values(self, tree: PublicTree, continuations: Continuations) -> LeafValues:
        import scipy.sparse as sp
        exact = ExactValues(self.game, self.full_tree, self.blueprint).leaf_values(tree, continuations)
        chance = leaf_chance(tree).tocoo()
        g0, g1, c = chance.row, chance.col, chance.data
        y = np.stack([np.asarray(m[g0, g1]).ravel() / c for m in exact.matrices], axis=1)  # [E, K] chips
        x = _features(tree, g0, g1)
        rng = np.random.default_rng(self.seed)
        order = rng.permutation(len(c))
        n_out = int(round(self.holdout * len(c)))
        test, train = order[:n_out], order[n_out:]
        net = train_mlp(x[train], y[train], self.hidden, self.epochs, self.learning_rate, self.huber_delta, rng)
        pred = net(x)
        err = pred - y
        self.report = NetworkReport(
            len(train), len(test), float(np.sqrt(np.mean(err[train] ** 2))),
            float(np.sqrt(np.mean(err[test] ** 2))) if n_out else float("nan"),
            float(np.mean(np.abs(err[test]))) if n_out else float("nan"),
            float(np.std(y[test])) if n_out else float("nan"),
        )
        shape = exact.matrices[0].shape
        mats = tuple(sp.csr_matrix((c * pred[:, k], (g0, g1)), shape=shape) for k in range(pred.shape[1]))
        return LeafValues(tree.game_id, exact.player, mats, continuations.names)
