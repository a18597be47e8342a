"""Behaviour strategies over a compiled tree, and their files.

A :class:`Strategy` holds, for each player, an array [I, A] of action probabilities at
her information sets in the order of the tree's :class:`~subgame.tree.public_tree.PlayerArrays`,
and a :class:`StrategyMeta` saying where it came from. Files are ``.npz`` archives with a
format tag, a version, the game's fingerprint and the infoset labels, so a file for another
game or a file that is not a strategy is refused with one clear message.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping
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
class StrategyMeta(Mapping[str, Any]):
    """Where a strategy came from; ``None`` is "not recorded".

    In a file it is the header's ``meta`` JSON object with these names as keys (absent
    when ``None``) and the entries of ``extra`` beside them, the shape files had before
    this record existed. It also reads as that mapping (``meta["game"]``, ``dict(meta)``,
    ``{**meta, ...}``) for code written against the old dict; new code uses the fields
    and :func:`dataclasses.replace`.

    Attributes:
        game: the registered game name, as ``load_game`` takes it.
        params: the game parameters as ``-p key=value`` writes them (values as text).
        algo: the solver (``"cfr+"``, ``"lp"``, ``"cfr-d"``, ...).
        seed: the seed the run recorded.
        iterations: iterations of the solver that produced it.
        config: the solver's configuration (``CFRConfig`` as a dict).
        resolved: the subgame-solving method its subgames were re-solved with.
        subgame_iterations: iterations of each subgame solve.
        cfr_d_explicit_average: CFR-D's explicit average strategy, subgames included.
        extra: any other entry (a solver's diagnostics, entries of newer files).
    """

    game: str | None = None
    params: dict[str, str] | None = None
    algo: str | None = None
    seed: int | None = None
    iterations: int | None = None
    config: dict[str, Any] | None = None
    resolved: str | None = None
    subgame_iterations: int | None = None
    cfr_d_explicit_average: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, kind in _FIELD_KINDS.items():
            value = getattr(self, name)
            if value is not None and not _is_kind(value, kind):
                raise StrategyFileError(f"strategy meta {name!r} must be {_KIND_NAMES[kind]}, got {value!r}")
        if self.params is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in self.params.items()):
            raise StrategyFileError(f"strategy meta 'params' must map parameter names to text, got {self.params!r}")
        clash = sorted(set(self.extra) & set(_FIELD_KINDS))
        if clash:
            raise StrategyFileError(f"strategy meta extra entries {clash} are fields of the record; set the fields")

    @staticmethod
    def of(value: Mapping[str, Any] | None) -> StrategyMeta:
        """The record of a ``meta`` mapping (a file's header entry, an old-style dict) or of a record.

        Known keys become fields (``None`` values count as absent, integer-valued numbers
        become ``int``, game parameters become text as ``-p`` writes them); other keys go
        to ``extra``.

        Raises:
            StrategyFileError: not a mapping, or a known key with a value of the wrong kind.
        """
        if isinstance(value, StrategyMeta):
            return value
        if value is None:
            return StrategyMeta()
        if not isinstance(value, Mapping):
            raise StrategyFileError(f"strategy meta must be a key/value mapping, got {value!r}")
        known: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, item in value.items():
            if key not in _FIELD_KINDS:
                extra[str(key)] = item
            elif item is not None:
                known[key] = _coerce(key, item)
        return StrategyMeta(**known, extra=extra)

    def to_json(self) -> dict[str, Any]:
        """The header's ``meta`` object: the recorded fields, then the extra entries."""
        out = {name: getattr(self, name) for name in _FIELD_KINDS if getattr(self, name) is not None}
        out.update(self.extra)
        return out

    # Mapping: the record read as its JSON object
    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())

    def __repr__(self) -> str:
        return f"StrategyMeta({self.to_json()!r})"


def _param_text(value: Any) -> str:
    """A game parameter as ``-p key=value`` writes it: sequences comma-separated."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return str(value)


def _coerce(key: str, value: Any) -> Any:
    """A known entry of an old-style dict in the field's type, where that loses nothing."""
    kind = _FIELD_KINDS[key]
    if kind is int and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if kind is dict and isinstance(value, Mapping):
        if key == "params":
            return {str(k): _param_text(v) for k, v in value.items()}
        return dict(value)
    return value


def _is_kind(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


_FIELD_KINDS: dict[str, type] = {
    "game": str, "params": dict, "algo": str, "seed": int, "iterations": int, "config": dict,
    "resolved": str, "subgame_iterations": int, "cfr_d_explicit_average": bool,
}
_KIND_NAMES = {str: "text", dict: "a key/value mapping", int: "an integer", bool: "true or false"}


@dataclass(frozen=True, eq=False, init=False)
class Strategy:
    """A behaviour strategy profile: ``probs[p]`` is [I_p, A_p], rows sum to one over legal actions.

    ``meta`` may be given as a :class:`StrategyMeta` or as a mapping of the same entries
    (:meth:`StrategyMeta.of`); it is kept as the record.
    """

    game_id: str
    probs: tuple[np.ndarray, np.ndarray]
    meta: StrategyMeta

    def __init__(
        self, game_id: str, probs: tuple[np.ndarray, np.ndarray], meta: StrategyMeta | Mapping[str, Any] | None = None
    ) -> None:
        object.__setattr__(self, "game_id", game_id)
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "meta", StrategyMeta.of(meta))

    @staticmethod
    def uniform(tree: PublicTree) -> Strategy:
        probs = tuple(pa.legal / pa.legal.sum(axis=1, keepdims=True) for pa in tree.players)
        return Strategy(tree.game_id, probs)

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
        return Strategy(self.game_id, (both[0], both[1]), self.meta)

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
        header = {"format": FORMAT, "version": VERSION, "game_id": self.game_id, "meta": self.meta.to_json()}
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
        try:
            meta = StrategyMeta.of(header.get("meta"))
        except StrategyFileError as exc:
            raise StrategyFileError(f"{path}: {exc}") from None
        s = Strategy(str(header["game_id"]), probs, meta)
        if tree is not None:
            s.check(tree)
        return s
