"""What a compiled tree holds in memory, counted from its arrays.

A tree's arrays (its per-player index arrays, sweep plan and terminal operators) are
nearly all it holds; solver state adds a few arrays of the same sizes. Counting them for
a part of a game compiled alone (a trunk, one subgame) lets a caller estimate the whole
game's tree before deciding to build it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import GameDefinitionError
from .lazy import MadeOnFirstUse
from .public_tree import BlockSequence, PublicTree, Repeat, Taken


def array_bytes(obj: Any) -> int:
    """Bytes of the arrays, sparse matrices and strings reachable from ``obj``, each counted once.

    Walks dataclasses (their fields and computed properties already cached on them),
    tuples, lists and dict values (with their containers' own size); numbers count nothing.
    """
    sparse = sys.modules.get("scipy.sparse")  # no object is a sparse matrix where scipy.sparse was never imported
    seen: set[int] = set()
    total = 0
    stack = [obj]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            total += x.nbytes
        elif sparse is not None and sparse.issparse(x):
            stack.extend(getattr(x, name) for name in ("data", "indices", "indptr", "row", "col") if hasattr(x, name))
        elif isinstance(x, MadeOnFirstUse):
            stack.extend(x.stored)
        elif (dataclasses.is_dataclass(x) and not isinstance(x, type)) or isinstance(x, (BlockSequence, Repeat, Taken)):
            stack.extend(vars(x).values())
        elif isinstance(x, str):
            total += sys.getsizeof(x)
        elif isinstance(x, (tuple, list)):
            total += sys.getsizeof(x)
            stack.extend(x)
        elif isinstance(x, dict):
            total += sys.getsizeof(x)
            stack.extend(x.values())
    return total


def tree_bytes(tree: PublicTree) -> int:
    """Bytes of ``tree``'s arrays, its sweep plan included (built here if not yet)."""
    _ = tree.plan
    return array_bytes(tree)


def available_bytes() -> int | None:
    """Memory this machine can still give (Linux ``MemAvailable``), or ``None`` where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def gib_to_bytes(n: float | None) -> int | None:
    """``n`` GiB in bytes (a command line's ``--max-memory``); ``None`` stays ``None``."""
    return None if n is None else int(n * 2**30)


def gib(n: float) -> str:
    """``n`` bytes in GiB, for messages."""
    return f"{n / 2**30:.2f} GiB"


def human_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps the number at least 1 (``12.3 MiB``)."""
    if abs(n) < 1024:
        return f"{n:.0f} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if abs(n) < 1024:
            return f"{n:.1f} {unit}"
    return f"{n / 1024:.1f} PiB"


#: Bytes a compiled poker tree holds per private state (its int32 index arrays, a sweep plan
#: of views into them and card-removal operators; labels are computed on demand): 22.3 and
#: 23.3 measured with :func:`tree_bytes` on a 32-card two-round game and a hold'em river.
#: On trees of at most 2^20 private states the first best response keeps about 15 more
#: (:attr:`~subgame.tree.public_tree.PublicTree.best_plan`); larger trees keep nothing.
BYTES_PER_PRIVATE_STATE = 23
#: Bytes per private state of a poker tree in the size estimate (:mod:`.estimate`), beside
#: :data:`POKER_BYTES_PER_PUBLIC_NODE` per public node: 1.0 to 1.17 times :func:`tree_bytes`
#: from Leduc to a 52-card river (beyond the fixed parts, 18.0 bytes a state measured on the Leduc
#: variants of the tests and 14.3 on the river; a board's hand names are the deck's, taken by index).
POKER_BYTES_PER_PRIVATE_STATE = 18
#: Of those, the per-state index arrays (public node, parent, own action: int32 each) that a solve by depth-first
#: passes over the tree's layout never makes (:mod:`.poker_layout`).
POKER_INDEX_BYTES_PER_PRIVATE_STATE = 12
#: Bytes per entry of an explicit sparse payoff matrix (stored with its transpose), used
#: for terminals with few hands.
BYTES_PER_SPARSE_ENTRY = 24
#: Bytes per hole-card combination of a poker deck's tables, beyond one per card of the deck.
BYTES_PER_HAND = 64
#: Bytes per public node of a poker tree (kind, actor, parent, depth, public key, sweep plan, its row of the layout).
POKER_BYTES_PER_PUBLIC_NODE = 358
#: Bytes a tree from the generic compiler (:func:`~subgame.tree.enumeration.enumerate_game`)
#: holds per private state (stored labels, int32 index arrays where they fit, its share of
#: the sparse payoffs): 115 to 136 measured with :func:`tree_bytes` on Liar's dice and
#: Goofspiel (up to 192 on the small test games, whose labels are long);
#: the size budget of that compiler counts states at this rate, the estimate adds
#: :data:`ENUMERATED_BYTES_PER_PUBLIC_NODE` per public node and
#: :data:`ENUMERATED_BYTES_PER_TERMINAL_HISTORY` per terminal history.
ENUMERATED_BYTES_PER_PRIVATE_STATE = 125
#: Characters of a private state's stored label that :data:`ENUMERATED_BYTES_PER_PRIVATE_STATE`
#: already counts; the estimate adds a byte per character beyond them (an OpenSpiel game's
#: observation strings can run to hundreds of characters).
ENUMERATED_LABEL_CHARS = 16
#: Bytes per terminal history of a tree from the generic compiler (its share of the sparse payoffs).
ENUMERATED_BYTES_PER_TERMINAL_HISTORY = 8
#: Bytes per public node of a tree from the generic compiler.
ENUMERATED_BYTES_PER_PUBLIC_NODE = 60


@dataclass(frozen=True)
class MemoryLimit:
    """The one memory-fit policy: the bytes a run may take (the caller's limit, or what the machine has
    available now) and one refusal, raised before anything is built, when an estimate exceeds them."""

    max_bytes: int | None  #: ``None``: unknown (everything fits)
    given: bool  #: whether the caller set the limit (else: the memory available now)

    @staticmethod
    def of(max_bytes: int | None = None) -> MemoryLimit:
        """``max_bytes``, or the memory available now."""
        if max_bytes is not None and max_bytes <= 0:
            raise GameDefinitionError(f"max_bytes must be positive, got {max_bytes}")
        return MemoryLimit(max_bytes, True) if max_bytes is not None else MemoryLimit(available_bytes(), False)

    def fits(self, need: float) -> bool:
        return self.max_bytes is None or need <= self.max_bytes

    def describe(self) -> str:
        """``2.00 GiB allowed`` or ``2.00 GiB available now``."""
        return f"{gib(self.max_bytes or 0)} {'allowed' if self.given else 'available now'}"

    def require(self, need: float, what: str, instead: str) -> None:
        """Refuse ``what`` (one line: what it needs, what there is, ``instead``: what to do) when ``need`` bytes do not fit."""
        if not self.fits(need):
            raise GameDefinitionError(f"{what} needs about {gib(need)} (estimated before building it), more than the "
                                      f"{self.describe()}; {instead}")


@dataclass(frozen=True)
class SizeBudget:
    """The memory a compiler may plan for; it refuses, with one line, a tree that would exceed it."""

    game_name: str
    max_bytes: int
    per_state: int = BYTES_PER_PRIVATE_STATE  #: bytes the compiler's trees hold per private state

    @staticmethod
    def of(game_name: str, max_bytes: int | None, per_state: int = BYTES_PER_PRIVATE_STATE) -> SizeBudget:
        """``max_bytes``, or the memory available now (unlimited where unknown)."""
        return SizeBudget(game_name, MemoryLimit.of(max_bytes).max_bytes or 2**62, per_state)

    def check_hands(self, hands: int, cards: int) -> None:
        need = hands * (BYTES_PER_HAND + cards)
        if need > self.max_bytes:
            raise GameDefinitionError(
                f"{self.game_name}: {hands:,} hole-card combinations need about {gib(need)} before any tree is built, "
                f"more than the {gib(self.max_bytes)} allowed; use a smaller deck or fewer hole cards"
            )

    def check_states(self, private_states: int, public_nodes: int, sparse_entries: int = 0) -> None:
        """Refuse when ``private_states`` (and ``sparse_entries`` of explicit payoff matrices) exceed the budget."""
        need = private_states * self.per_state + sparse_entries * BYTES_PER_SPARSE_ENTRY
        if need > self.max_bytes:
            raise GameDefinitionError(
                f"{self.game_name}: the tree has more than {private_states:,} private states in its first "
                f"{public_nodes:,} public states, about {gib(need)} compiled, more than the {gib(self.max_bytes)} "
                "allowed; use a smaller game, a subgame (public_state=) or a depth limit, or raise the limit (max_bytes)"
            )

    def check_estimate(self, public_nodes: int, private_states: int, need: int) -> None:
        """Refuse a whole game whose size, estimated without building it (:mod:`.estimate`), exceeds the budget."""
        if need > self.max_bytes:
            raise GameDefinitionError(
                f"{self.game_name}: the tree would have {public_nodes:,} public nodes and {private_states:,} private "
                f"states, about {human_bytes(need)} compiled (estimated before building it), more than the "
                f"{human_bytes(self.max_bytes)} allowed; use a smaller game, a subgame (public_state=) or a depth limit, "
                "or raise the limit (max_bytes)"
            )
