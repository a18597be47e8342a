"""Part of a player's play fixed to a model inside one tree: the restricted copy of the restricted Nash response.

The engine of :mod:`.cfr` plays a :class:`Restriction` without copying the tree (the best
responses, CDBR and CDRNR of :mod:`subgame.exploit` are solves with one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import GameDefinitionError
from ..tree.public_tree import PublicTree

__all__ = ["Restriction", "checked_restrictions", "checked_root_reach"]


@dataclass(frozen=True, eq=False)
class Restriction:
    """Part of one player's play fixed to a model, without copying the tree.

    With probability ``weight`` the player is a *restricted copy* of herself that plays
    ``probs`` at the information sets in ``mask`` and her own strategy elsewhere; the other
    player cannot tell the copies apart, so the reach he plays against is
    ``(1 - weight) · own + weight · restricted`` (the restricted Nash response of Johanson
    et al. 2008, whose chance node picks the fixed copy with probability p; Milec et al.
    §4, "the reaches of the fixed strategy injected to the terminal nodes"). With
    ``weight == 1`` the player simply plays ``probs`` at ``mask`` (frozen information sets:
    the fixed opponent of a best response or CDBR, the fixed earlier play of the re-solver).
    A masked copy and the free copy share her strategy at unmasked information sets.

    Attributes:
        player: whose play is restricted.
        mask: [I] bool, the restricted information sets.
        probs: [I, A] the fixed strategy there (rows outside ``mask`` are ignored).
        weight: the probability of the restricted copy, in [0, 1].
        root: [R] the restricted copy's reach at the root private states (``None``: the
            same as the player's own, e.g. from a gadget).
    """

    player: int
    mask: np.ndarray
    probs: np.ndarray
    weight: float = 1.0
    root: np.ndarray | None = None


def checked_root_reach(tree: PublicTree, player: int, reach: np.ndarray | None) -> np.ndarray | None:
    """``reach`` [R] as float64 if it fits the player's root private states, finite and non-negative; else one clear
    error."""
    if reach is None:
        return None
    rs = tree.root_slice[player]
    out = np.array(reach, dtype=np.float64)
    if out.shape != (rs.stop - rs.start,):
        raise GameDefinitionError(
            f"root reach of player {player} has shape {out.shape}; the tree has {rs.stop - rs.start} root private states"
        )
    if not np.all(np.isfinite(out)) or out.min(initial=0.0) < 0:
        raise GameDefinitionError(f"root reach of player {player} must be finite and non-negative")
    return out


def checked_restrictions(
    tree: PublicTree, restrictions: Sequence[Restriction]
) -> tuple[Restriction | None, Restriction | None]:
    """Per player her restriction (``None``: none), each checked against the tree; one clear error otherwise."""
    out: list[Restriction | None] = [None, None]
    for r in restrictions:
        if not isinstance(r, Restriction) or r.player not in (0, 1):
            raise GameDefinitionError(f"a restriction must be a Restriction of player 0 or 1, got {r!r}")
        if out[r.player] is not None:
            raise GameDefinitionError(f"player {r.player} has more than one restriction; merge their masks")
        pa = tree.players[r.player]
        if np.shape(r.mask) != (pa.num_infosets,) or np.shape(r.probs) != pa.legal.shape:
            raise GameDefinitionError(
                f"restriction of player {r.player}: mask {np.shape(r.mask)} and probs {np.shape(r.probs)} do not fit "
                f"her {pa.num_infosets} information sets and {pa.legal.shape} strategy"
            )
        if not 0.0 <= r.weight <= 1.0:
            raise GameDefinitionError(f"restriction of player {r.player}: weight must be in [0, 1], got {r.weight!r}")
        if r.root is not None:
            checked_root_reach(tree, r.player, r.root)
        out[r.player] = Restriction(r.player, np.asarray(r.mask, dtype=bool), np.asarray(r.probs, dtype=np.float64),
                                    float(r.weight), r.root)
    return out[0], out[1]
