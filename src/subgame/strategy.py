"""Behaviour strategies over a compiled tree, and their files.

A :class:`Strategy` holds, for each player, an array [I, A] of action probabilities at
her information sets in the order of the tree's :class:`~subgame.tree.public_tree.PlayerArrays`.
Files are ``.npz`` archives with a format tag, a version, the game's fingerprint and the
infoset labels, so a file for another game or a file that is not a strategy is refused
with one clear message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InvalidRangeError, StrategyFileError
from .files import read_npz, write_npz
from .tree.public_tree import PublicTree

FORMAT = "subgame-strategy"
VERSION = 1


@dataclass(frozen=True, eq=False)
class Strategy:
    """A behaviour strategy profile: ``probs[p]`` is [I_p, A_p], rows sum to one over legal actions."""

    game_id: str
    probs: tuple[np.ndarray, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def uniform(tree: PublicTree) -> Strategy:
        probs = tuple(pa.legal / pa.legal.sum(axis=1, keepdims=True) for pa in tree.players)
        return Strategy(tree.game_id, probs)  # type: ignore[arg-type]

    @staticmethod
    def random(tree: PublicTree, rng: np.random.Generator) -> Strategy:
        """Each infoset's action probabilities drawn uniformly from the simplex."""
        out = []
        for pa in tree.players:
            x = rng.exponential(size=pa.legal.shape) * pa.legal
            out.append(x / x.sum(axis=1, keepdims=True))
        return Strategy(tree.game_id, (out[0], out[1]))

    @staticmethod
    def first_action(tree: PublicTree) -> Strategy:
        out = []
        for pa in tree.players:
            x = np.zeros(pa.legal.shape)
            x[:, 0] = 1.0
            out.append(x)
        return Strategy(tree.game_id, (out[0], out[1]))

    def with_player(self, player: int, probs: np.ndarray) -> Strategy:
        both = list(self.probs)
        both[player] = probs
        return Strategy(self.game_id, (both[0], both[1]), dict(self.meta))

    def check(self, tree: PublicTree, atol: float = 1e-9) -> Strategy:
        """Validate against ``tree``: same game, shapes, non-negative, rows summing to one, no illegal mass."""
        if self.game_id != tree.game_id:
            raise StrategyFileError(
                f"strategy is for game {self.game_id!r} but the tree is {tree.game_id!r}; "
                "load the game the strategy was computed for"
            )
        for p, (x, pa) in enumerate(zip(self.probs, tree.players)):
            if x.shape != pa.legal.shape:
                raise InvalidRangeError(f"player {p}: strategy has shape {x.shape}, the game needs {pa.legal.shape}")
            if not np.all(np.isfinite(x)) or x.min(initial=0.0) < 0:
                raise InvalidRangeError(f"player {p}: strategy has negative or non-finite probabilities")
            if np.any(x[~pa.legal] > atol):
                i = int(np.argwhere(x * ~pa.legal > atol)[0, 0])
                raise InvalidRangeError(f"player {p}: infoset {pa.label[pa.infoset_priv[i]]!r} puts mass on an illegal action")
            sums = x.sum(axis=1)
            badrow = np.flatnonzero(np.abs(sums - 1.0) > 1e-6)
            if badrow.size:
                i = int(badrow[0])
                raise InvalidRangeError(
                    f"player {p}: probabilities at infoset {pa.label[pa.infoset_priv[i]]!r} sum to {sums[i]:.6g}, not 1"
                )
        return self

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path, tree: PublicTree | None = None) -> Path:
        """Write the strategy (with infoset labels when ``tree`` is given) to an ``.npz`` file."""
        header = {"format": FORMAT, "version": VERSION, "game_id": self.game_id, "meta": self.meta}
        arrays: dict[str, np.ndarray] = {}
        for p in range(2):
            arrays[f"probs{p}"] = self.probs[p]
            if tree is not None:
                pa = tree.players[p]
                arrays[f"labels{p}"] = np.array([pa.label[g] for g in pa.infoset_priv], dtype=str)
        return write_npz(path, header, arrays)

    @staticmethod
    def load(path: str | Path, tree: PublicTree | None = None) -> Strategy:
        """Read a strategy file; with ``tree``, also check it belongs to that game."""
        header, arrays = read_npz(path, format=FORMAT, version=VERSION, kind="strategy", expected="a subgame strategy file")
        try:
            probs = (np.asarray(arrays["probs0"], dtype=np.float64), np.asarray(arrays["probs1"], dtype=np.float64))
        except (KeyError, ValueError):
            raise StrategyFileError(f"{path}: not a subgame strategy file (strategy arrays missing)") from None
        s = Strategy(str(header["game_id"]), probs, dict(header.get("meta") or {}))
        if tree is not None:
            s.check(tree)
        return s
