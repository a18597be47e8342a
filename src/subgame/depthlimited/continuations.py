"""Opponent continuation sets for multi-valued leaves (depth-limited paper §4, Appendix A).

* :func:`bias_continuations` — the bias approach: the opponent's blueprint, then the
  blueprint with the probability of one action class multiplied by ``factor`` (10 in the
  paper) and renormalized, for each class. In poker the classes are the paper's: fold,
  check/call, bet/raise. The paper defines no classes for other games; we choose one class
  per distinct action name (Rock, Paper, Scissors in RPS), in order of first appearance.
* :func:`local_pure_continuations` — continuations covering every pure strategy the
  opponent has below each of her leaf private states (Proposition 1's "every pure P_2
  strategy"). Since she picks a continuation per leaf state, continuation k plays the k-th
  local pure strategy below every leaf state at once (the last one where a leaf state has
  fewer), so K is the largest local count, not the product.
* The self-generative approach needs the solver and lives in :mod:`.solving`.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..errors import SubgameError
from ..strategy import Strategy
from ..tree.part import Part, placed
from ..tree.public_tree import LEAF, PublicTree
from .values import Continuations

POKER_CLASSES: dict[str, str] = {"f": "fold", "c": "check/call", "r": "bet/raise"}


def action_classes(tree: PublicTree, player: int) -> tuple[str, ...]:
    """The action classes of ``player`` the bias approach biases toward, in order.

    Poker action names (``f``, ``c``, ``r…``) give the paper's fold, check/call and
    bet/raise; any other game has one class per distinct action name.
    """
    names = [n for row in tree.players[player].action_names for n in row]
    if names and all(n in ("f", "c") or n.startswith("r") for n in names):
        return tuple(c for key, c in POKER_CLASSES.items() if any(n[:1] == key for n in names))
    return tuple(dict.fromkeys(names))


def _class_mask(tree: PublicTree, player: int, cls: str) -> np.ndarray:
    """[I, A] bool: the action slots of class ``cls``."""
    pa = tree.players[player]
    mask = np.zeros(pa.legal.shape, dtype=bool)
    poker = {v: k for k, v in POKER_CLASSES.items()}
    for i, row in enumerate(pa.action_names):  # once per infoset, when the set is built
        for k, n in enumerate(row):
            mask[i, k] = n[:1] == poker[cls] if cls in poker and n[:1] in POKER_CLASSES else n == cls
    return mask


def biased(probs: np.ndarray, mask: np.ndarray, factor: float) -> np.ndarray:
    """``probs`` with the probability of the ``mask`` actions multiplied by ``factor``, rows renormalized."""
    out = np.where(mask, probs * factor, probs)
    tot = out.sum(axis=1, keepdims=True)
    return np.where(tot > 0, out / np.where(tot > 0, tot, 1.0), probs)


def bias_continuations(
    tree: PublicTree, blueprint: Strategy, player: int, num_values: int, *, factor: float = 10.0
) -> Continuations:
    """The first ``num_values`` of: ``player``'s blueprint, then biased toward each action class.

    Args:
        tree: the full game's tree.
        blueprint: σ̂ on ``tree``.
        player: the opponent whose continuations these are.
        num_values: K (1 is the blueprint alone).
        factor: the bias multiplier (10 in the paper).
    """
    classes = action_classes(tree, player)
    _check_k(num_values, 1 + len(classes), "the bias approach (blueprint + one per action class: "
             + ", ".join(classes) + ")")
    if not factor > 0:
        raise SubgameError(f"the bias factor must be positive, got {factor!r}")
    out = Continuations(player, (blueprint.probs[player],), ("blueprint",))
    for cls in classes[: num_values - 1]:
        out = out.add(biased(blueprint.probs[player], _class_mask(tree, player, cls), factor), f"{cls} x{factor:g}")
    return out


def local_pure_continuations(
    full_tree: PublicTree, dl_tree: PublicTree | Part, base: np.ndarray, player: int, *, limit: int = 64
) -> Continuations:
    """Continuations covering every pure strategy of ``player`` below each of her leaf states of ``dl_tree``.

    Args:
        full_tree: the full game's tree.
        dl_tree: the depth-limited tree (or it as a part of ``full_tree``).
        base: [I, A] her strategy over ``full_tree`` outside the parts below the leaves.
        player: the opponent.
        limit: the most continuations to build (an error beyond).
    """
    pa = full_tree.players[player]
    below = _infosets_below(full_tree, dl_tree, player)  # [I] leaf state index or -1
    groups = [np.flatnonzero(below == leaf) for leaf in np.unique(below[below >= 0])]
    local = [list(itertools.product(*(np.flatnonzero(pa.legal[i]) for i in grp))) for grp in groups]
    K = max((len(x) for x in local), default=1)
    _check_k(K, limit, "local pure continuations (raise limit)")
    out: list[np.ndarray] = []
    for k in range(K):
        probs = np.array(base, dtype=np.float64, copy=True)
        for grp, pures in zip(groups, local):
            choice = pures[min(k, len(pures) - 1)]
            probs[grp] = 0.0
            probs[grp, list(choice)] = 1.0
        out.append(probs)
    return Continuations(player, tuple(out), tuple(f"pure {k}" for k in range(K)))


def _infosets_below(full_tree: PublicTree, dl_tree: PublicTree | Part, player: int) -> np.ndarray:
    """[I] for each of ``player``'s infosets of the full tree, the index of her leaf state of ``dl_tree`` above it, or -1."""
    part = placed(full_tree, dl_tree)
    pa = full_tree.players[player]
    dpa = part.tree.players[player]
    leaf_g = np.flatnonzero(part.tree.kind[dpa.node] == LEAF)
    start = np.full(pa.num_states, -1, dtype=np.int64)
    start[part.states[player][leaf_g]] = np.arange(leaf_g.size)
    for lv in full_tree.plan.levels[player]:
        par = start[pa.parent[lv.lo : lv.hi]]
        start[lv.lo : lv.hi] = np.where(start[lv.lo : lv.hi] >= 0, start[lv.lo : lv.hi], par)
    return start[pa.infoset_priv]


def _check_k(k: int, most: int, what: str) -> None:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise SubgameError(f"the number of values K must be a whole number >= 1, got {k!r}")
    if k > most:
        raise SubgameError(f"K = {k} is more than {what} gives: at most {most}")
