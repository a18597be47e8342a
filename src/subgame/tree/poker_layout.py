"""A poker tree as betting nodes × rows of hands, for depth-first CFR passes that keep no per-state arrays.

The sweeps of :mod:`.sweep` hold reaches and values of every private state at once: eight
bytes a private state each, several of them, which on a hold'em turn of a quarter of a
billion private states is many times the solver's own regrets and strategy sums. A
dedicated poker solver walks the betting tree depth first instead and keeps, per public
node on the path being walked, one row over the hands of its board (postflop-solver's
shape); memory is then the regrets and strategy sums and a few rows.

:class:`PokerLayout` is that description of a tree compiled by
:func:`~subgame.tree.poker_compile.compile_poker`: per public node its kind, acting player,
children, hands and first information set; per board its hands' cards and order (the
tree's private-state order of each player) and the hands in ascending strength; per
chance child the row of its parent of each of its rows; per terminal its payoffs. Its
size is per public node and per board, none of it per private state.

The passes (:func:`cfr_pass`, :func:`root_values`) run in the compiled library
(``poker_pass`` in ``_passes.c``) with the sweeps' arithmetic node by node, so a CFR
iteration made of them gives bitwise the regrets and strategy sums of
:class:`~subgame.solve.cfr.CFRSolver`'s compiled sweeps. The sweeps value terminals by the
card-removal loops on boards of more than ``sparse_threshold`` hands and by one explicit sparse
payoff matrix on smaller ones; the passes do the same per board (the ``board`` table's last
column), summing a small board's payoffs in the matrix's order, so the two agree bit for bit
on every tree, not only to rounding (which CFR+'s clipping at zero would amplify).

A pass reads and writes a player's regrets and strategy sums either as [I, A] arrays or in
:class:`CompactRows` storage (a node's own actions × its rows, only the kept rows of
:func:`live_layout`), postflop-solver's layout, which :attr:`PokerLayout.compact` lays out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..errors import GameDefinitionError
from . import kernels

#: Columns of :attr:`PokerLayout.node` (``NK_*`` in ``_passes.c``).
KIND, ACTOR, CHILD_LO, CHILD_HI, SIZE, INFOSET, MAP, TERMINAL, BOARD, SHOWDOWN, PARENT, ROWS, MIRROR_LO, MIRROR_HI = range(14)
COLUMNS = 14
_TERMINAL = 2  #: the kind of a terminal node (``K_TERMINAL``)
#: Where a pass's strategy of a player comes from.
REGRETS, PROBS, SUMS = 0, 1, 2
#: What a pass computes.
CFR_UPDATE, BEST_RESPONSE, VALUES = 0, 1, 2
def row_dtype(hands: int) -> type[np.signedinteger[Any]]:
    """The dtype of a layout's rows where no board has more than ``hands`` hands: the passes'
    (:data:`~.kernels.ROW`), or int64 past it (hands of more cards than the passes take)."""
    return kernels.ROW if hands <= np.iinfo(kernels.ROW).max else np.int64


@dataclass(frozen=True, eq=False)
class PokerLayout:
    """A compiled poker tree as betting nodes × hand rows (see the module docstring).

    Rows: a node's rows are its board's hands in the tree's order of one player's private
    states there (``row j`` is private state ``start + j``, information set ``inf + j``).
    """

    #: [N, COLUMNS] int64: kind, actor, first and one-past-last child, hands, first infoset, map offset (chance
    #: children), terminal, board (terminals), showdown (1) or fold (0), parent node, rows in its subtree, its
    #: entries of ``mirror`` (a chance node of a suit-isomorphic tree)
    node: np.ndarray
    #: [B, 5] int64: hands n, first of its rows in the per-hand arrays, first tie, tie groups, and 1 where the sweeps
    #: value its terminals by a sparse payoff matrix (:class:`~.operators.SparseTerminal`; the passes then follow its order)
    board: np.ndarray
    hand_cards: np.ndarray  #: [R, k] uint8, each board's hands' cards in canonical order
    ladder_cards: np.ndarray  #: [R, k] uint8, each board's hands' cards in ascending strength
    local: np.ndarray  #: [2, R] int16 (:func:`row_dtype`), each player's row of each canonical hand
    ladder_local: np.ndarray  #: [2, R] int16 (:func:`row_dtype`), the same in ascending strength
    hand_of_row: np.ndarray  #: [2, R] int16 (:func:`row_dtype`), each player's canonical hand of each of her rows (``local`` inverted)
    rank: np.ndarray  #: [R] int16 (:func:`row_dtype`), each canonical hand's dense strength rank on its board (zero without a showdown)
    ties: np.ndarray  #: int64, per board where each group of tied hands starts, then n
    maps: np.ndarray  #: [2, M] int16 (:func:`row_dtype`), per chance child the parent's row of each of its rows
    #: [E, 2] int64 per deal a suit-isomorphic tree leaves out (in the order of :class:`~.isomorphism.MirrorEdges`):
    #: the canonical child standing for it and the offset in ``maps`` of the chance node's row of each of its rows
    mirror: np.ndarray
    term: np.ndarray  #: [T, 2] float64, fold: (chance × player 0's payoff, 0); showdown: (chance × win, chance × lose)
    cards: int  #: cards in the deck
    roots: int  #: root nodes (the first ones)
    #: [2, N, 3] int64 where only the rows of hands with nonzero reach at the root are kept (:func:`live_layout`), per
    #: player and node: its rows, the first of them in ``live_row`` and its offset in ``maps``; ``None``: every row
    live_node: np.ndarray | None = None
    live_row: np.ndarray | None = None  #: [2, L] int16, each kept row's row among all the hands of its node
    mirror_map: np.ndarray | None = None  #: [2, E] int64, per left-out deal the offset of its kept rows' map in ``maps``
    #: [2, B, 2] int64, per board the first of its kept hands in the ``live_hand_*`` and ``live_ladder_*`` rows
    #: (each board's kept hands, in canonical order and in ascending strength) and their count
    live_board: np.ndarray | None = None
    live_hand_row: np.ndarray | None = None  #: [2, H] int16, each kept hand's row at the board's nodes, canonical order
    live_hand_cards: np.ndarray | None = None  #: [2, H·k] uint8, its cards
    live_hand_twin: np.ndarray | None = None  #: [2, H] int16, the other player's row of the same hand (-1: not kept)
    live_ladder_row: np.ndarray | None = None  #: [2, H] int16, each kept hand's row, ascending strength
    live_ladder_cards: np.ndarray | None = None  #: [2, H·k] uint8, its cards
    #: [2, len(ties)] int64, per board and tie group (as ``ties``) the kept hands in ascending strength before it
    live_ties: np.ndarray | None = None

    @cached_property
    def starts(self) -> np.ndarray:
        """[N] each node's first private state (of either player: both have a row per hand of its board)."""
        out: np.ndarray = np.concatenate(([0], np.cumsum(self.node[:, SIZE])[:-1]))
        return out

    @cached_property
    def sparse_payoffs(self) -> bool:
        """Whether the sweeps value every board by its sparse payoff matrix (Kuhn, Leduc)."""
        return bool(self.board[:, 4].all())

    @cached_property
    def _kept(self) -> dict[tuple[str, int], np.ndarray]:
        return {}

    def kept(self, name: str, n: int) -> np.ndarray:
        """A float64 array of ``n`` kept for the passes (they find its data pointer from the last call): ``"ones"``
        read-only ones (a root reach not given); any other name a writable one."""
        a = self._kept.get((name, n))
        if a is None:
            a = self._kept[name, n] = np.ones(n) if name == "ones" else np.empty(n)
            a.flags.writeable = name != "ones"
        return a

    @cached_property
    def compact(self) -> tuple[CompactRows, CompactRows]:
        """Per player the compact storage of her regrets and strategy sums over this layout's rows (:class:`CompactRows`)."""
        return compact_rows(self, 0), compact_rows(self, 1)

    @cached_property
    def max_hands(self) -> int:
        return int(self.node[:, SIZE].max(initial=1))

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in (self.node, self.board, self.hand_cards, self.ladder_cards, self.local,
                                           self.ladder_local, self.hand_of_row, self.rank, self.ties, self.maps, self.mirror,
                                           self.term, self.live_node, self.live_row, self.mirror_map, self.live_board,
                                           self.live_hand_row, self.live_hand_cards, self.live_hand_twin,
                                           self.live_ladder_row, self.live_ladder_cards, self.live_ties) if a is not None)


def live_layout(layout: PokerLayout, root_reach: tuple[np.ndarray, np.ndarray]) -> PokerLayout:
    """The layout whose rows are only the hands with nonzero reach at the root, per player (zero-weight hands dropped).

    A hand of zero root reach keeps zero reach at every node below, so it adds exactly zero
    to every sum its opponent's values are made of, and its strategy sums stay zero: a CFR
    pass over this layout gives bitwise the other hands' regrets and every strategy sum of a
    pass over all rows (postflop-solver's rows hold only the hands of each range). What it does
    not give is the regrets of the dropped hands, which stay where they were; a pass writes
    zero as their root values. Chance maps and the left-out deals' maps are those of the kept
    rows; each board's kept hands are listed in canonical and in strength order (``live_hand_*``,
    ``live_ladder_*``), which is all its terminals read, so ``local`` and ``ladder_local`` stay the
    whole layout's (shared, not copied).

    Raises:
        GameDefinitionError: a board valued by its payoff matrix (Kuhn, Leduc), which needs every row.
    """
    if not droppable(layout):
        raise GameDefinitionError("dropping zero-weight hands needs card-removal terminals, not a small board's payoff matrix")
    node, size = layout.node, layout.node[:, SIZE]
    n = node.shape[0]
    head = (node[:, PARENT] < 0) | (node[:, MAP] >= 0)  # a root or a deal: a new set of hands
    group = np.where(head, np.arange(n), node[:, PARENT])
    while not np.array_equal(group, group[group]):
        group = group[group]
    heads = np.flatnonzero(head).tolist()
    live_node = np.empty((2, n, 3), dtype=np.int64)
    live_row, maps, mirror_map = [], [], np.empty((2, layout.mirror.shape[0]), dtype=np.int64)
    local, ladder = np.full_like(layout.local, -1), np.full_like(layout.ladder_local, -1)
    terminals = np.flatnonzero(node[:, KIND] == _TERMINAL)
    boards, first = np.unique(node[terminals, BOARD], return_index=True)
    for p in (0, 1):
        rows: dict[int, np.ndarray] = {}
        inverse: dict[int, np.ndarray] = {}
        row_of: dict[int, int] = {}  # each head's entry of the table
        kept, kept_at, mapped, mapped_at = [], 0, [], 0
        root_at = np.concatenate(([0], np.cumsum(size[: layout.roots])))
        table = np.empty((len(heads), 3), dtype=np.int64)
        # A deal's kept rows follow from its parent's kept rows and the deal's map: one entry of kept rows and map for
        # every (parent's kept rows, map), shared by the chance nodes of every betting line that deal it.
        ident: dict[int, int] = {}  # each head's kept rows, numbered
        met: dict[tuple[int, ...], int] = {}  # (parent's kept rows, map offset) -> the first head of that deal
        for i, h in enumerate(heads):
            if h < layout.roots:
                live = np.asarray(root_reach[p][root_at[h] : root_at[h + 1]]) != 0
            else:
                parent = int(group[node[h, PARENT]])
                same = met.setdefault((ident[parent], int(node[h, MAP])), h)
                if same != h:
                    rows[h], inverse[h], ident[h] = rows[same], inverse[same], ident[same]
                    table[i] = table[row_of[same]]
                    continue
                up = inverse[parent]
                full = layout.maps[p, node[h, MAP] : node[h, MAP] + size[h]]
                live = up[full] >= 0
            rows[h] = r = np.flatnonzero(live)
            inverse[h] = inv = np.full(size[h], -1, dtype=np.int64)
            inv[r] = np.arange(r.size)
            ident[h] = len(met) + layout.roots if h >= layout.roots else h
            at = -1
            if h >= layout.roots:
                at, mapped_at = mapped_at, mapped_at + r.size
                mapped.append(up[full[r]])
            table[i] = (r.size, kept_at, at)
            row_of[h] = i
            kept.append(r)
            kept_at += r.size
        live_node[p] = table[np.searchsorted(heads, group)]
        mirrored: dict[tuple[int, ...], int] = {}  # (parent's kept rows, map offset, child's kept rows) -> its map
        for e, (c, off) in enumerate(layout.mirror.tolist()):
            parent = int(group[node[c, PARENT]])
            deal = (ident[parent], off, ident[c])
            if deal in mirrored:
                mirror_map[p, e] = mirrored[deal]
                continue
            up = inverse[parent]
            mirror_map[p, e] = mirrored[deal] = mapped_at
            mapped_at += rows[c].size
            mapped.append(up[layout.maps[p, off : off + size[c]][rows[c]]])
        for b, t in zip(boards.tolist(), terminals[first].tolist()):
            lo, hi = layout.board[b, 1], layout.board[b, 1] + layout.board[b, 0]
            inv = inverse[int(group[t])]
            local[p, lo:hi], ladder[p, lo:hi] = inv[layout.local[p, lo:hi]], inv[layout.ladder_local[p, lo:hi]]
        live_row.append(np.concatenate(kept))
        maps.append(np.concatenate(mapped) if mapped else np.zeros(0, dtype=np.int64))
    board, ties = layout.board, layout.ties
    live_board = np.empty((2, board.shape[0], 2), dtype=np.int64)
    live_ties = np.zeros((2, ties.shape[0]), dtype=np.int64)
    parts: dict[str, list[list[np.ndarray]]] = {name: [[], []] for name in ("row", "cards", "twin", "ladder", "ladder_cards")}
    for b, (n_hands, lo, tie, groups, _) in enumerate(board.tolist()):
        for p in (0, 1):
            hands = np.flatnonzero(local[p, lo : lo + n_hands] >= 0)
            steps = np.flatnonzero(ladder[p, lo : lo + n_hands] >= 0)
            parts["row"][p].append(local[p, lo + hands])
            parts["cards"][p].append(layout.hand_cards[lo + hands].ravel())
            parts["twin"][p].append(local[1 - p, lo + hands])
            parts["ladder"][p].append(ladder[p, lo + steps])
            parts["ladder_cards"][p].append(layout.ladder_cards[lo + steps].ravel())
            kept_before = np.concatenate(([0], np.cumsum(ladder[p, lo : lo + n_hands] >= 0)))
            live_ties[p, tie : tie + groups + 1] = kept_before[ties[tie : tie + groups + 1]]
            live_board[p, b, 1] = hands.size
    live_board[:, :, 0] = np.cumsum(live_board[:, :, 1], axis=1) - live_board[:, :, 1]
    rows_dtype = layout.maps.dtype.type  # the kept rows in the layout's own (row_dtype)
    row, cards, twin, steps, step_cards = (_padded([np.concatenate(x) for x in parts[name]], np.uint8 if "cards" in name else rows_dtype)
                                           for name in ("row", "cards", "twin", "ladder", "ladder_cards"))
    del local, ladder  # the kept rows' positions served only to list each board's kept hands above
    return replace(layout, maps=_padded(maps, rows_dtype), live_node=live_node,
                   live_row=_padded(live_row, rows_dtype), mirror_map=mirror_map, live_board=live_board, live_hand_row=row,
                   live_hand_cards=cards, live_hand_twin=twin, live_ladder_row=steps, live_ladder_cards=step_cards,
                   live_ties=live_ties)


def droppable(layout: PokerLayout | None) -> bool:
    """Whether :func:`live_layout` can drop zero-weight rows of ``layout``: no board is valued by its payoff matrix."""
    return layout is not None and not layout.board[:, 4].any()


def _padded(rows: list[np.ndarray], dtype: type[np.integer[Any]] = np.int64) -> np.ndarray:
    """Two rows of unequal length as one [2, L] array of ``dtype`` (zero after the shorter's end)."""
    out = np.zeros((2, max(max(r.size for r in rows), 1)), dtype=dtype)
    for i, r in enumerate(rows):
        out[i, : r.size] = r
    return out


def state_arrays(layout: PokerLayout, player: int, max_actions: int, dtype: type[np.signedinteger[Any]], infosets: int,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The player's index arrays: [G] public node, parent private state and own action slot (``I·A + k``, -1) of
    each private state, [I] private state of each information set (intp, as the CFR update gathers with it).

    The arrays the sweeps index with (:class:`~subgame.tree.public_tree.PlayerArrays`),
    filled node by node from the layout: a node's rows follow its parent's rows one to one
    after an action, and through the chance child's map after a deal; an acting node's
    rows are its information sets.
    """
    table, start = layout.node, layout.starts
    size = table[:, SIZE]
    node_of = np.repeat(np.arange(table.shape[0], dtype=dtype), size)
    parent = np.full(node_of.size, -1, dtype=dtype)
    seq = np.full(node_of.size, -1, dtype=dtype)
    priv = np.empty(infosets, dtype=np.intp)
    for n in np.flatnonzero((table[:, INFOSET] >= 0) & (table[:, ACTOR] == player)).tolist():  # her decision nodes
        priv[table[n, INFOSET] : table[n, INFOSET] + size[n]] = np.arange(start[n], start[n] + size[n])
    for n in np.flatnonzero(table[:, PARENT] >= 0).tolist():
        lo, h, u = int(start[n]), int(size[n]), int(table[n, PARENT])
        if table[n, MAP] >= 0:  # after a deal
            parent[lo : lo + h] = start[u] + layout.maps[player, table[n, MAP] : table[n, MAP] + h]
            continue
        parent[lo : lo + h] = np.arange(start[u], start[u] + h)
        if table[u, ACTOR] == player:
            seq[lo : lo + h] = (table[u, INFOSET] + np.arange(h)) * max_actions + (n - table[u, CHILD_LO])
    return node_of, parent, seq, priv


def mirror_edges(layout: PokerLayout, player: int) -> tuple[np.ndarray, np.ndarray]:
    """[E] twice: the private state of each row of a canonical chance child standing for a left-out deal, and the
    chance node's private state it adds to (:class:`~subgame.tree.isomorphism.MirrorEdges`, in the layout's order of
    left-out deals; within one deal each chance-node state is met once, so the order there does not matter)."""
    table, start = layout.node, layout.starts
    size = table[:, SIZE]
    child, parent = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for c, off in layout.mirror.tolist():
        h = int(size[c])
        child.append(np.arange(start[c], start[c] + h))
        parent.append(start[table[c, PARENT]] + layout.maps[player, off : off + h])
    return np.concatenate(child), np.concatenate(parent)


@dataclass(frozen=True, eq=False)
class CompactRows:
    """A player's regrets or strategy sums stored per decision node as its own actions × its rows.

    postflop-solver's layout: a node of ``nc`` actions and ``h`` rows takes ``h · nc`` slots, action
    by action (slot ``k · h + j`` is row j's action k, so that a pass's loops run over a row of hands),
    where the [I, A] arrays take ``h · A`` with A the tree's largest action count, and over a layout of
    kept rows (:func:`live_layout`) only the kept hands have slots. Over the same rows the depth-first passes
    give bitwise the [I, A] arrays' own slots wherever A < 8 (from 8 on, a padded row is summed in numpy's order
    over all A slots and a compact one left to right over ``nc``: equal to rounding).
    """

    offset: np.ndarray  #: [N] int64, each of the player's decision nodes' first slot (0 at the other nodes)
    size: int  #: slots in all
    actions: int  #: the largest own-action count of her nodes (what a pass's buffers are sized for)

    def slots(self, layout: PokerLayout, player: int, a: int) -> np.ndarray:
        """[size] each compact slot's index in the flattened [I, a] array over ``layout``'s rows (its node's first
        information set plus its row among all of the node's hands, times a, plus the action)."""
        node = layout.node
        ns, rows, nc = _decision_blocks(layout, player)
        dtype = np.int32 if int(node[:, INFOSET].max(initial=0) + node[:, SIZE].max(initial=0)) * a < 2**31 else np.int64
        row = _counting(rows, dtype)  # each stored row's place among its node's stored rows
        if layout.live_node is not None and layout.live_row is not None:
            row = layout.live_row[player][np.repeat(layout.live_node[player][ns, 1], rows) + row].astype(dtype)
        row += np.repeat(node[ns, INFOSET].astype(dtype), rows)  # its information set
        row *= a
        # slot k * h + j of a node of h rows (its j-th stored row's row index above) holds action k
        width = rows * nc
        local = _counting(width, np.int64)  # each slot's place in its node
        h, first = np.maximum(np.repeat(rows, width), 1), np.repeat(np.cumsum(rows) - rows, width)
        out = row[first + local % h]
        out += (local // h).astype(dtype)
        return out

    def nodes(self, layout: PokerLayout, player: int) -> np.ndarray:
        """[size] each compact slot's public node (what a per-node scale of 16-bit storage is indexed by)."""
        ns, rows, nc = _decision_blocks(layout, player)
        return np.repeat(ns, rows * nc)


def _counting(counts: np.ndarray, dtype: type[np.signedinteger[Any]]) -> np.ndarray:
    """0, 1, ..., c - 1 for each count c, one after another."""
    out = np.arange(int(counts.sum()), dtype=dtype)
    out -= np.repeat((np.cumsum(counts) - counts).astype(dtype), counts)
    return out


def _decisions(layout: PokerLayout, player: int) -> np.ndarray:
    """The player's decision nodes in the order of their first information sets."""
    node = layout.node
    ns = np.flatnonzero((node[:, KIND] == 0) & (node[:, ACTOR] == player) & (node[:, INFOSET] >= 0))
    return ns[np.argsort(node[ns, INFOSET], kind="stable")]


def _decision_blocks(layout: PokerLayout, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The player's decision nodes (:func:`_decisions`), her rows at each and each one's own actions: a node's block of
    compact storage is its rows times its actions."""
    ns = _decisions(layout, player)
    return ns, _rows_at(layout, ns, player), layout.node[ns, CHILD_HI] - layout.node[ns, CHILD_LO]


def _rows_at(layout: PokerLayout, nodes: np.ndarray, player: int) -> np.ndarray:
    """The player's rows at ``nodes`` in the layout (its kept rows, or every hand of the node's board)."""
    return layout.node[nodes, SIZE] if layout.live_node is None else layout.live_node[player][nodes, 0]


def compact_rows(layout: PokerLayout, player: int) -> CompactRows:
    """The :class:`CompactRows` of ``player`` over ``layout``'s rows: her nodes in the order of their information sets."""
    node = layout.node
    ns, rows, nc = _decision_blocks(layout, player)
    width = rows * nc
    offset = np.zeros(node.shape[0], dtype=np.int64)
    offset[ns] = np.cumsum(width) - width
    actions = int(nc.max(initial=1))
    return CompactRows(offset, int(width.sum()), actions)


@dataclass(frozen=True)
class Source:
    """Where a pass reads a player's strategy: her regrets (regret matching), a strategy, or strategy sums (the average)."""

    kind: int  #: REGRETS, PROBS or SUMS
    data: np.ndarray  #: [I, A] float64 (or float32 regrets and sums), or [S] in ``compact`` storage
    legal: np.ndarray | None  #: bool, laid out as ``data`` (``None``: compact storage with every slot legal)
    compact: CompactRows | None = None  #: the layout's ``compact[player]`` where ``data`` is compact
    single: bool = False  #: the pass computes in float32 (float32 ``data``; CFRSolver's ``compute="float32"``)


def usable(layout: PokerLayout | None, num_states: int, *arrays: np.ndarray) -> bool:
    """Whether the compiled passes run: a layout, contiguous arrays, and the compiled loops on for ``num_states``
    private states (:func:`~subgame.tree.kernels.active`, as the sweeps decide) or, on a tree whose every board the
    sweeps value by their sparse payoff matrix (Kuhn, Leduc), at any size: there the numpy sweeps, the compiled
    sweeps and the passes are bitwise one another, and a pass costs a few calls where a sweep costs several per depth."""
    if layout is None or not kernels.takes(*arrays):
        return False
    return kernels.active(num_states) or (kernels.enabled() and layout.sparse_payoffs)


def cfr_pass(layout: PokerLayout, player: int, matched: tuple[np.ndarray, np.ndarray], regrets: np.ndarray,
             strategy_sum: np.ndarray, predicted: np.ndarray | None, legal: tuple[np.ndarray | None, np.ndarray | None],
             root_reach: tuple[np.ndarray, np.ndarray], rule: kernels.Rule, dropped: np.ndarray, compact: bool = False,
             single: bool = False, scales: np.ndarray | None = None) -> None:
    """One CFR update of ``player``'s regrets and strategy sums (in place), both players playing regret matching.

    Each player's strategy is matched from ``matched`` (her regrets, or her predicted regrets
    under a predictive rule, which are then ``predicted``), the opponent's as they are now, so
    calling it for player 0 and then player 1 is one alternating iteration
    (:meth:`~subgame.solve.cfr.CFRSolver.step`); ``rule`` is iteration t's
    :class:`~subgame.solve.rules.UpdateRule` (:func:`~subgame.tree.kernels.update_regrets`).
    ``dropped`` [R] takes her values at the root rows, which the pass computes and the root's regret update reads
    back: the caller's own array, as two passes at once (two solvers of one tree on Python threads) must not share it.
    ``compact``: every array is in the layout's :attr:`~PokerLayout.compact` storage; ``single``: the pass computes in
    float32 (``poker_pass_single``; float32 arrays, or 16-bit storage: int16 ``regrets``, uint16 ``strategy_sum``
    and their ``scales``, [2, N] float32 per node, as :func:`~subgame.tree.kernels.poker_pass` takes them).
    """
    sources = regret_sources(layout, matched, legal, compact, single)
    update = (regrets, strategy_sum, predicted, rule) + (() if scales is None else (scales,))
    kernels.poker_pass(layout, player, CFR_UPDATE, sources, update, root_reach, dropped)


def regret_sources(layout: PokerLayout, matched: tuple[np.ndarray, np.ndarray], legal: tuple[np.ndarray | None, np.ndarray | None],
                   compact: bool, single: bool = False) -> tuple[Source, Source]:
    """Both players' strategies as regret matching of ``matched`` (in the layout's compact storage where ``compact``;
    the pass computing in float32 where ``single``)."""
    return (Source(REGRETS, matched[0], legal[0], layout.compact[0] if compact else None, single),
            Source(REGRETS, matched[1], legal[1], layout.compact[1] if compact else None, single))


def root_values(layout: PokerLayout, player: int, mode: int, sources: tuple[Source, Source],
                root_reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """[R] ``player``'s counterfactual values at her root rows: best-response (``BEST_RESPONSE``) or under her strategy (``VALUES``)."""
    return kernels.poker_pass(layout, player, mode, sources, None, root_reach)
