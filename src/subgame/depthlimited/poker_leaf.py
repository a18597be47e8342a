"""Multi-valued leaves at the start of a poker game's last round (or the round before it), valued by an
implicit blueprint (Brown, Sandholm & Amos 2018, §4 and Appendix A).

A subgame of the second-to-last round solved to the end of that round (compiled with
``chance_limit=1``: its leaves are the last round's public states, after its cards) has below
each leaf the blueprint's play of the last round: the re-solver ρ plays her blueprint, the
opponent one of K continuations (:data:`CONTINUATIONS`: the blueprint, then the blueprint with
fold, check/call or bet/raise ×10 and renormalised, the paper's bias approach). Each leaf is
mapped to the blueprint node of the same action sequence (translated where the subgame's sizes
differ, App. A) and valued as that node's value scaled by the ratio of the contributions: the
value as a fraction of the pot.

Below a blueprint node every hand plays the row of its bucket, so player 0's value of a pair
of hands ``(h0, h1)`` with last-round buckets ``(b0, b1)`` is

    F[b0, b1] + W[b0, b1]·[h0 beats h1] + L[b0, b1]·[h1 beats h0] + T[b0, b1]·[tie]

with ``F, W, L, T`` the reach-weighted payoffs of the subtree's fold and showdown terminals,
computed once per leaf sequence and continuation (:func:`continuation_tables`). A product with
one player's reach never forms the pair matrix: that reach, split by bucket ([n, B] per leaf
node), goes through the card-removal sums of the showdown operators
(:class:`~subgame.tree.poker_operators.CardRemoval`, O(n · B) per leaf node), and each hand
takes the row of the tables at its own bucket. Where the compiled loops are built, one pass up
and one down the hands in strength order per leaf node keeps those sums per bucket and card as
it goes (:class:`~subgame.tree.kernels.LeafValues`, the same values without the [n, B]
temporaries).

Where the paper sampled rollouts of the continuations, every card and action below the leaf
is summed here (``river_cards=None``), or a seeded sample of the last round's cards is, each
weighted by the inverse of the sampled share (an unbiased estimate).

Leaves one round earlier (a flop subgame's, after the turn card) have the blueprint's turn
below them too. Each of its paths from the leaf's node (a *stem*, ending at a river decision or
a terminal) multiplies both players' reach by their turn buckets' rows along it, so a pair of
hands is valued, for each river card (every one, or ``rollout_cards`` seeded), by the sum over
the stems of both reaches times the end's tables at the hands' river buckets: either summed
once into a table over (turn, river) bucket pairs, which the same compiled pass reads, or a
column per stem (the cheaper for the kernel, :meth:`PokerRoundValues.build`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, partial
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from ..blueprint.actions import TERMINAL
from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import DealAbstraction
from ..errors import SubgameError
from ..games.poker.game import PokerGame, PokerState
from ..tree import kernels
from ..tree.poker_compile import board_hands, deal_hands
from ..tree.poker_operators import CardRemoval, strength_keys
from ..tree.poker_states import public_root
from ..tree.public_tree import CHANCE_NODE, LEAF, PublicTree
from ..tree.threads import run_pieces
from .continuations import biased
from .leaf import BoundValues

if TYPE_CHECKING:
    from scipy import sparse

#: the bias approach's continuations in order: the blueprint, then ×factor toward each action class
CONTINUATIONS = ("blueprint", "fold", "call", "raise")
#: entries of a [n, B] block the products make at once (bounds their temporaries)
CHUNK_ENTRIES = 1 << 23


def _class_of(name: str) -> str:
    return "fold" if name == "f" else "call" if name == "c" else "raise"


def continuation_tables(blueprint: Blueprint, node: int, opponent: int, num_values: int, factor: float = 10.0,
                        buckets: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """[K, 4, B0, B1] player 0's payoffs below blueprint node ``node``, reach-weighted by bucket: fold, win, lose, tie.

    Args:
        blueprint: the implicit blueprint; ``node`` a node of its last betting round.
        opponent: the player whose continuations vary (:data:`CONTINUATIONS`); the other plays her blueprint.
        num_values: K, 1 to 4.
        factor: the bias multiplier (10 in the paper).
        buckets: per player the buckets the tables cover (default every bucket of the round).
    """
    last = len(blueprint.num_buckets) - 1
    cover = buckets or tuple(np.arange(blueprint.num_buckets[last]) for _ in range(2))
    return sequence_tables(blueprint, node, opponent, num_values, factor, (cover[0][:, None], cover[1][:, None]), last)


def sequence_tables(blueprint: Blueprint, node: int, opponent: int, num_values: int, factor: float,
                    cover: tuple[np.ndarray, np.ndarray], first_round: int) -> np.ndarray:
    """[K, 4, U0, U1] player 0's payoffs below blueprint node ``node`` (a decision of round ``first_round`` or a
    terminal), reach-weighted by each player's sequence of buckets over rounds ``first_round`` to the last.

    ``cover[p]`` [U_p, R] lists the sequences (one bucket per round) the tables cover; a hand whose buckets on a full
    board are sequence ``u`` plays the blueprint's row of its round's bucket at every node below, so its pair's value
    with a hand of sequence ``v`` is read from entry ``[u, v]`` of the fold table and of the table of the showdown's
    outcome (:func:`continuation_tables` is the last round's case, one bucket a sequence).
    """
    if not 1 <= num_values <= len(CONTINUATIONS):
        raise SubgameError(f"the bias approach has 1 to {len(CONTINUATIONS)} continuations, got K = {num_values}")
    tree = blueprint.tree
    last = len(blueprint.num_buckets) - 1
    if any(c.ndim != 2 or c.shape[1] != last - first_round + 1 for c in cover):
        raise SubgameError(f"the covered sequences need one bucket per round {first_round} to {last}")
    K = num_values
    out = np.zeros((K, 4, cover[0].shape[0], cover[1].shape[0]))
    pending: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(4)]

    def flush(j: int) -> None:  # Σ_z r0_z ⊗ (payoff_z · r1_z) as one product per continuation
        if pending[j]:
            a, b = (np.stack(x, axis=1) for x in zip(*pending[j]))  # [K, Z, U0], [K, Z, U1]
            out[:, j] += np.matmul(a.transpose(0, 2, 1), b)
            pending[j].clear()

    stack = [(node, np.ones((K, cover[0].shape[0])), np.ones((K, cover[1].shape[0])))]
    while stack:
        n, r0, r1 = stack.pop()
        if tree.kind[n] == TERMINAL:
            for j in ([0] if tree.folded[n] >= 0 else [1, 2, 3]):
                pay = float(tree.payoff[n, 0 if j == 0 else j - 1])
                if pay != 0.0:
                    pending[j].append((r0, r1 * pay))
                    if len(pending[j]) >= 256:
                        flush(j)
            continue
        rnd = int(tree.round[n])
        if not first_round <= rnd <= last:
            raise SubgameError(f"blueprint node {n} below a leaf is in round {rnd}, not round {first_round} or later")
        p = int(tree.player[n])
        stack.extend(_children(blueprint, n, cover[p][:, rnd - first_round], opponent, K, factor, r0, r1))
    for j in range(4):
        flush(j)
    return out


def sampled_cards(game: PokerGame, board: tuple[int, ...], river_cards: int | None, seed: int) -> tuple[int, ...] | None:
    """A seeded sample of ``river_cards`` cards the last round may deal after ``board`` (``None``: every card).

    Compiling the subgame with these as ``leaf_cards`` keeps only their leaves: the solve's
    state shrinks with the sample, and :meth:`PokerRoundValues.build` weighs them by every
    possible deal (an unbiased estimate, as sampled rollouts are in the paper).
    """
    if river_cards is None:
        return None
    if river_cards < 1:
        raise SubgameError(f"river_cards must be >= 1 or None, got {river_cards!r}")
    cards = np.setdiff1d(np.arange(game.spec.deck_size), np.array(board, dtype=np.int64))
    rng = np.random.default_rng(seed)
    return tuple(sorted(int(c) for c in rng.choice(cards, size=min(river_cards, cards.size), replace=False)))


@dataclass(frozen=True, eq=False)
class _Showdown:
    """One full board below a leaf board: its hands' last-round buckets and card removal, and the columns it values.

    At leaves of the last round (the board is the leaf board) there is one column per leaf node
    and every hand of the leaf board. Below leaves one round earlier the board is one last-round
    card longer, without the hands that card blocks, and a leaf's *stems* (the paths of the
    blueprint's earlier round below its node, each ending at a last-round decision or a terminal)
    are either summed into one column whose buckets are (earlier, last) bucket pairs, or each a
    column of its own, weighted by both players' reach along it.
    """

    sequence: np.ndarray  #: [C] the row of the tables of each column
    weight: np.ndarray  #: [C] chance probability × contribution ratio × sampling weight
    bucket: tuple[np.ndarray, np.ndarray]  #: per player [m] index of each hand's last-round bucket among the covered
    removal: CardRemoval
    hands: np.ndarray | None = None  #: [m] each hand's index among the leaf board's hands (``None``: all, in order)
    starts: np.ndarray | None = None  #: [T] each leaf node's first column (a column per stem; ``None``: one a node)
    columns: np.ndarray | None = None  #: [C] the leaf node of each column (a column per stem)
    stem: np.ndarray | None = None  #: [C] the stem (row of :attr:`PokerRoundValues.stem_reach`) of each column
    early: tuple[np.ndarray, np.ndarray] | None = None  #: per player [m] each hand's earlier-round bucket (a column per stem)


@dataclass(frozen=True, eq=False)
class _Segments:
    """A leaf board's full boards laid end to end for one compiled call (:class:`~subgame.tree.kernels.LeafValues`)."""

    hands: np.ndarray  #: [M] each row's hand among the leaf board's
    rows: np.ndarray  #: [S + 1] each full board's first row
    order: np.ndarray  #: [M] each full board's hands in ascending strength (positions within it)
    ties: np.ndarray  #: each full board's groups of ties (positions within it), one after the other
    tie0: np.ndarray  #: [S + 1] where each full board's groups start in ``ties``
    hand_cards: np.ndarray  #: [M, k]
    bucket: tuple[np.ndarray, np.ndarray]  #: per player [M], as :attr:`_Showdown.bucket`
    early: tuple[np.ndarray, np.ndarray] | None  #: per player [M], as :attr:`_Showdown.early`
    back: sparse.csr_matrix  #: [n, M] ones: each row summed into its hand among the leaf board's
    cards: int  #: above the highest card
    most: int  #: rows of the largest full board


@dataclass(frozen=True, eq=False)
class _Board:
    """The leaf nodes of one leaf board, their hands (player 0's order) and the full boards that value them."""

    nodes: np.ndarray  #: [T] leaf public nodes
    offset: tuple[np.ndarray, np.ndarray]  #: per player [n] private-state offset of each hand in a node's block
    showdowns: tuple[_Showdown, ...]

    @cached_property
    def segments(self) -> _Segments | None:
        """Below leaves of the second-to-last round, the full boards for one compiled call; ``None`` where they need
        the numpy products (or at last-round leaves: one full board)."""
        shows = self.showdowns
        if shows[0].hands is None or not all(s.removal.compiled for s in shows):
            return None
        ladders = [s.removal.ladder for s in shows]
        parts = [s.hands for s in shows if s.hands is not None]
        hands = np.concatenate(parts)
        rows = np.concatenate([[0], np.cumsum([h.size for h in parts])]).astype(np.int64)
        early = None
        if all(s.early is not None for s in shows):
            early = (np.concatenate([s.early[0] for s in shows if s.early is not None]),
                     np.concatenate([s.early[1] for s in shows if s.early is not None]))
        from scipy import sparse  # only where flop leaves are valued: a spot's solve never loads it

        back = sparse.csr_matrix((np.ones(hands.size), (hands, np.arange(hands.size))), shape=(self.offset[0].size, hands.size))
        return _Segments(hands, rows, np.concatenate([o for o, _, _ in ladders]), np.concatenate([t for _, _, t in ladders]),
                         np.concatenate([[0], np.cumsum([t.size for _, _, t in ladders])]).astype(np.int64),
                         np.concatenate([s.removal.hand_cards for s in shows]),
                         (np.concatenate([s.bucket[0] for s in shows]), np.concatenate([s.bucket[1] for s in shows])),
                         early, back, int(max(int(s.removal.hand_cards.max(initial=0)) for s in shows)) + 1,
                         int(np.diff(rows).max()))


def _buckets(game: PokerGame, abstraction: DealAbstraction, rnd: int, hands: np.ndarray, board: tuple[int, ...],
             rows: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per player the last-round bucket of each of her hands ``rows`` on ``board``."""
    return tuple(abstraction.buckets(rnd, hands[r], np.broadcast_to(np.array(board, np.int64), (r.size, len(board))))
                 for r in rows)  # type: ignore[return-value]


def _hand_layout(game: PokerGame, hands: np.ndarray, board: tuple[int, ...],
                 rows: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, CardRemoval]:
    """The hands of a node's block on ``board`` (player 0's order, ``rows`` per player as :func:`board_hands`
    gives them): their cards [n, k], player 1's state of each, and their card removal on the board."""
    spec = game.spec
    r0, r1 = rows
    cards = hands[r0]
    strength = strength_keys(np.concatenate([cards, np.broadcast_to(np.array(board), (r0.size, len(board)))], 1),
                             spec.num_ranks, spec.num_suits)
    if not np.array_equal(np.sort(r0), np.sort(r1)):
        raise SubgameError(f"{game.name}: the players' hands differ at the leaves of board {list(board)}")
    return cards, _offset(rows), CardRemoval.build(cards, strength)


def _board(game: PokerGame, hands: np.ndarray, board: tuple[int, ...], rows: tuple[np.ndarray, np.ndarray],
           buckets: tuple[np.ndarray, np.ndarray], cover: tuple[np.ndarray, ...], nodes: np.ndarray, seq: np.ndarray,
           weight: np.ndarray) -> _Board:
    """The valued nodes ``nodes`` of one last-round board: their tables' rows ``seq``, weights, hands and card removal."""
    _, offset1, removal = _hand_layout(game, hands, board, rows)
    bucket = (np.searchsorted(cover[0], buckets[0]), np.searchsorted(cover[1], buckets[1][offset1]))
    return _Board(nodes, (np.arange(offset1.size), offset1), (_Showdown(seq, weight, bucket, removal),))


def _table_bytes(rows: int, num_values: int, widths: tuple[int, int]) -> int:
    """The bytes of ``rows`` leaf tables [K, 4, widths[0], widths[1]] and their transposes."""
    return 2 * 8 * rows * num_values * 4 * widths[0] * widths[1]


def _check_bytes(game: PokerGame, max_bytes: int | None, rows: int, num_values: int, widths: tuple[int, int]) -> None:
    """Refuses tables (and their transposes) of ``rows`` × K × 4 × ``widths`` buckets over ``max_bytes``."""
    need = _table_bytes(rows, num_values, widths)
    if max_bytes is not None and need > max_bytes:
        raise SubgameError(f"{game.name}: the leaf tables of {rows} sequences x {num_values} continuations x "
                           f"{widths[0]} x {widths[1]} buckets would take {need / 2**20:,.0f} MiB, more than "
                           f"{max_bytes / 2**20:,.0f} MiB; use fewer continuations or a coarser last-round abstraction")


def _pot_scale(st: PokerState, prob: float, blueprint_contrib: float) -> float:
    """A leaf's (or root's) chance probability times its contribution over its blueprint node's: the blueprint's
    chips below that node read as a fraction of the pot."""
    return prob * st.contrib[0] / float(blueprint_contrib)


def _offset(rows: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """[n] player 1's private state of each of player 0's hands ``rows[0]`` at a node whose hands are ``rows``."""
    r0, r1 = rows
    o = np.argsort(r1)
    return o[np.searchsorted(r1[o], r0)]


def _stems(blueprint: Blueprint, node: int, opponent: int, num_values: int, factor: float,
           cover: tuple[np.ndarray, np.ndarray]) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """The paths of the blueprint's second-to-last round below ``node``: each one's end (a last-round decision or a
    terminal) and per player [K, U_p] her reach along it by covered bucket, under each continuation (the opponent's
    biased as :func:`continuation_tables` biases it)."""
    tree, last = blueprint.tree, len(blueprint.num_buckets) - 1
    ones = [np.ones((num_values, c.size)) for c in cover]
    out, stack = [], [(node, ones[0], ones[1])]
    while stack:
        n, r0, r1 = stack.pop()
        if tree.kind[n] == TERMINAL or int(tree.round[n]) == last:
            out.append((n, r0, r1))
            continue
        if int(tree.round[n]) != last - 1:
            raise SubgameError(f"blueprint node {n} below a leaf is in round {int(tree.round[n])}, not {last - 1}")
        stack.extend(_children(blueprint, n, cover[int(tree.player[n])], opponent, num_values, factor, r0, r1))
    return out


def _children(blueprint: Blueprint, n: int, buckets: np.ndarray, opponent: int, num_values: int, factor: float,
              r0: np.ndarray, r1: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Each child of blueprint decision ``n`` with both players' reach [K, U_p] through it: the actor's times her
    rows at ``buckets`` (her covered entries' buckets), the opponent's biased per continuation."""
    tree = blueprint.tree
    p = int(tree.player[n])
    rows = blueprint.policy(n, buckets).astype(np.float64)
    names = tree.actions_of(n)
    per_k = np.stack([biased(rows, np.array([_class_of(a) == cls for a in names])[None, :], factor)
                      if p == opponent and k > 0 else rows for k, cls in enumerate(CONTINUATIONS[:num_values])])
    return [(tree.child(n, name), r0 * per_k[:, :, a], r1) if p == 0 else (tree.child(n, name), r0, r1 * per_k[:, :, a])
            for a, name in enumerate(names)]


@dataclass(frozen=True, eq=False)
class PokerRoundValues:
    """:class:`~.leaf.ContinuationValues` at the last-round leaves of a poker subgame; see the module docstring.

    Attributes:
        player: ρ, the re-solver (she plays her blueprint below the leaves).
        names: the K continuations of the opponent.
        tables: [S, K, 4, U0, U1] :func:`continuation_tables` of each leaf sequence, in blueprint chips.
        boards: the leaf nodes grouped by board.
        game_id: the subgame's fingerprint.
        per_iteration: the boards a CFR iteration values: a fresh sample of this many each iteration, drawn from
            ``(seed, iteration)``, each weighted by the share of all the tree's boards it stands for (an unbiased
            estimate, as chance-sampled CFR's); ``None``: all of them. An evaluation values all of them.
        seed: of those samples.
        stem_reach: below leaves one round before the last, per player [E, K, U_p] her reach along each stem of
            the blueprint's earlier round by covered bucket (:func:`_stems`); ``None`` at last-round leaves.
    """

    player: int
    names: tuple[str, ...]
    tables: np.ndarray
    boards: tuple[_Board, ...]
    game_id: str
    per_iteration: int | None = None
    seed: int = 0
    stem_reach: tuple[np.ndarray, np.ndarray] | None = None

    @staticmethod
    def build(game: PokerGame, tree: PublicTree, blueprint: Blueprint, abstraction: DealAbstraction,
              blueprint_node: Mapping[tuple[str, ...], int], player: int, num_values: int, *, factor: float = 10.0,
              river_cards: int | None = None, seed: int = 0, max_bytes: int | None = None,
              per_iteration: int | None = None, rollout_cards: int | None = None,
              combine: bool | None = None) -> PokerRoundValues:
        """The values at every leaf of ``tree`` (``game`` compiled with ``chance_limit=1``).

        The leaves follow the last round's cards, or the second-to-last round's (a flop subgame's
        leaves in hold'em): then below each leaf the blueprint plays that round too, and the last
        round's cards are summed over, every one or ``rollout_cards`` of them (seeded).

        Args:
            blueprint_node: the blueprint's node for each leaf's betting sequence (the leaf's public
                key without its last observation, the dealt cards): a decision of the leaves' round or
                a terminal (an all-in called).
            river_cards: sample this many of the leaves' boards (seeded); ``None``: all of them (every
                possible deal, or the sample the tree was compiled with: :func:`sampled_cards`).
            max_bytes: the memory the tables may take (checked before they are made).
            per_iteration: see the class's attribute (sampled with ``seed``).
            rollout_cards: below leaves of the second-to-last round, the last round's cards summed per
                leaf board: a seeded sample of this many, weighted as every card (``None``: every card).
            combine: below leaves of the second-to-last round, sum each leaf's stems into one table over
                (earlier, last) bucket pairs (one kernel column per leaf, wider rows) instead of a column per
                stem; ``None``: whichever costs the kernel less and fits ``max_bytes``. The same values.

        Raises:
            SubgameError: a leaf sequence without a blueprint node, or one outside the leaves' round; leaves more
                than one round before the last; tables over ``max_bytes``.
        """
        if player not in (0, 1):
            raise SubgameError(f"the re-solving player must be 0 or 1, got {player!r}")
        for what, c in (("river_cards", river_cards), ("rollout_cards", rollout_cards), ("per_iteration", per_iteration)):
            if c is not None and (isinstance(c, bool) or not isinstance(c, int) or c < 1):
                raise SubgameError(f"{what} must be >= 1 or None, got {c!r}")
        leaves = np.flatnonzero(tree.kind == LEAF)
        if not leaves.size:
            raise SubgameError(f"{game.name}: the tree has no leaf to value")
        spec, rnd = game.spec, len(blueprint.num_buckets) - 1
        keys = [tree.public_key[int(n)] for n in leaves]
        seqs = sorted({k[:-1] for k in keys})
        missing = [list(s) for s in seqs if s not in blueprint_node]
        if missing:
            raise SubgameError(f"no blueprint node for the leaf sequences {missing[:3]}")
        roots = [public_root(game, k, None) for k in keys]
        boards = sorted({st.board for st, _, _ in roots})
        dealt = np.cumsum(spec.board_cards)
        lengths = {len(b) for b in boards}
        if len(lengths) != 1 or int(dealt[-1]) - lengths.copy().pop() not in (0, int(spec.board_cards[-1])):
            raise SubgameError(f"{game.name}: the leaves follow boards of {sorted(lengths)} cards; give one round's "
                               "leaves, the last round's or the one before")
        early = lengths.pop() < int(dealt[-1])  # the leaves are one round before the last: stems below them
        picked = set(boards)
        if river_cards is not None:
            rng = np.random.default_rng(seed)
            picked = {boards[i] for i in rng.choice(len(boards), size=min(river_cards, len(boards)), replace=False)}
        # the tree may hold a sample of its leaves' deal already (compiled with leaf_cards): weigh by every possible deal
        count = spec.board_cards[-2 if early else -1]
        share = comb(spec.deck_size - (len(boards[0]) - count), count) / len(picked)
        bt = blueprint.tree
        hands = deal_hands(game)
        opponent = 1 - player
        out = []
        if not early:
            rows = board_hands(game, boards)
            bucket_of = [_buckets(game, abstraction, rnd, hands, board, r) for board, r in zip(boards, rows)]
            cover = tuple(np.unique(np.concatenate([bb[p] for bb in bucket_of])) for p in range(2))
            _check_bytes(game, max_bytes, len(seqs), num_values, (cover[0].size, cover[1].size))
            seq_index = {s: i for i, s in enumerate(seqs)}
            tables = np.stack([continuation_tables(blueprint, blueprint_node[s], opponent, num_values, factor,
                                                   (cover[0], cover[1])) for s in seqs])
            for bi, board in enumerate(boards):
                if board not in picked:
                    continue
                at = [i for i, (st, _, _) in enumerate(roots) if st.board == board]
                weight = np.empty(len(at))
                seq = np.empty(len(at), dtype=np.int64)
                for j, i in enumerate(at):
                    st, _, prob = roots[i]
                    s = keys[i][:-1]
                    seq[j] = seq_index[s]
                    weight[j] = _pot_scale(st, prob, bt.contrib[blueprint_node[s], 0]) * share
                out.append(_board(game, hands, board, rows[bi], bucket_of[bi], cover, leaves[at], seq, weight))
            return PokerRoundValues(player, CONTINUATIONS[:num_values], tables, tuple(out), tree.game_id, per_iteration,
                                    seed)
        # leaves one round before the last: every (or a seeded sample of) last-round card below each leaf board
        rng = np.random.default_rng((seed, 1))
        fulls: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        for board in sorted(picked):
            cards = np.setdiff1d(np.arange(spec.deck_size), np.array(board, np.int64))
            take = cards if rollout_cards is None else np.sort(rng.choice(cards, min(rollout_cards, cards.size), replace=False))
            fulls[board] = [board + (int(c),) for c in take]
        full_share = {b: (spec.deck_size - len(b)) / len(f) / (spec.deck_size - len(b) - 2 * spec.hole_cards)
                      for b, f in fulls.items()}  # each card's chance given both hands, times the sample's inverse share
        early_rows = board_hands(game, list(fulls))
        full_list = [f for fs in fulls.values() for f in fs]
        full_rows = dict(zip(full_list, board_hands(game, full_list)))
        early_of = {b: _buckets(game, abstraction, rnd - 1, hands, b, r) for b, r in zip(fulls, early_rows)}
        last_of = {f: _buckets(game, abstraction, rnd, hands, f, full_rows[f]) for f in full_list}
        cover_early = tuple(np.unique(np.concatenate([bb[p] for bb in early_of.values()])) for p in range(2))
        cover = tuple(np.unique(np.concatenate([bb[p] for bb in last_of.values()])) for p in range(2))
        stems = {s: _stems(blueprint, blueprint_node[s], opponent, num_values, factor, cover_early)  # type: ignore[arg-type]
                 for s in seqs}
        ends = sorted({e for st in stems.values() for e, _, _ in st})
        _check_bytes(game, max_bytes, len(ends), num_values, (cover[0].size, cover[1].size))
        end_index = {e: i for i, e in enumerate(ends)}
        tables = np.stack([continuation_tables(blueprint, e, opponent, num_values, factor, (cover[0], cover[1]))
                           for e in ends])
        width = (cover_early[0].size * cover[0].size, cover_early[1].size * cover[1].size)  # (earlier, last) bucket pairs
        if combine is None:  # the cheaper kernel: a column per leaf over bucket pairs, or a column per stem over buckets
            combine = (cover_early[0].size * len(seqs) <= len(end_index)
                       and (max_bytes is None or _table_bytes(len(seqs), num_values, width) <= max_bytes))
        stem_reach: tuple[np.ndarray, np.ndarray] | None = None
        if combine:  # Σ over each sequence's stems of both reaches times the end's table, by bucket pair
            _check_bytes(game, max_bytes, len(seqs), num_values, width)
            tables = np.stack([np.einsum("ska,skb,skjcd->kjacbd", *(np.stack([x[i] for x in stems[s]]) for i in (1, 2)),
                                         tables[[end_index[e] for e, _, _ in stems[s]]]).reshape(
                num_values, 4, width[0], width[1]) for s in seqs])
            seq_index = {s: i for i, s in enumerate(seqs)}
        else:
            stem_list = [(s, j) for s in seqs for j in range(len(stems[s]))]
            stem_index = {x: i for i, x in enumerate(stem_list)}
            stem_reach = (np.stack([stems[s][j][1] for s, j in stem_list]), np.stack([stems[s][j][2] for s, j in stem_list]))
        for (board, full), r4 in zip(fulls.items(), early_rows):
            at = [i for i, (st, _, _) in enumerate(roots) if st.board == board]
            node_seq = [keys[i][:-1] for i in at]
            base = np.array([_pot_scale(roots[i][0], roots[i][2], bt.contrib[blueprint_node[s], 0]) * share
                             for i, s in zip(at, node_seq)])
            position = np.full(hands.shape[0], -1, dtype=np.int64)
            position[r4[0]] = np.arange(r4[0].size)
            eb = early_of[board]
            early_bucket = (np.searchsorted(cover_early[0], eb[0]), np.searchsorted(cover_early[1], eb[1][_offset(r4)]))
            if combine:
                sequence, columns, starts, stem = np.array([seq_index[s] for s in node_seq], dtype=np.int64), None, None, None
            else:
                per_node = [len(stems[s]) for s in node_seq]
                columns = np.repeat(np.arange(len(at)), per_node)
                starts = np.concatenate([[0], np.cumsum(per_node)[:-1]]).astype(np.int64)
                stem = np.array([stem_index[(s, j)] for s in node_seq for j in range(len(stems[s]))], dtype=np.int64)
                sequence = np.array([end_index[stems[s][j][0]] for s in node_seq for j in range(len(stems[s]))],
                                    dtype=np.int64)
                base = base[columns]
            showdowns = []
            for f in full:
                fr = full_rows[f]
                _, offset1, removal = _hand_layout(game, hands, f, fr)
                lb = last_of[f]
                mine = position[fr[0]]
                bucket = (np.searchsorted(cover[0], lb[0]), np.searchsorted(cover[1], lb[1][offset1]))
                before = (early_bucket[0][mine], early_bucket[1][mine])
                if combine:  # each hand's (earlier, last) bucket pair
                    bucket = (before[0] * cover[0].size + bucket[0], before[1] * cover[1].size + bucket[1])
                showdowns.append(_Showdown(sequence, base * full_share[board], bucket, removal, hands=mine, starts=starts,
                                           columns=columns, stem=stem, early=None if combine else before))
            out.append(_Board(leaves[at], (np.arange(r4[0].size), _offset(r4)), tuple(showdowns)))
        return PokerRoundValues(player, CONTINUATIONS[:num_values], tables, tuple(out), tree.game_id, per_iteration,
                                seed, stem_reach)

    @property
    def num_values(self) -> int:
        return len(self.names)

    @cached_property
    def _oriented(self) -> tuple[np.ndarray, np.ndarray]:
        """Per receiver [S, K, 4, U_receiver, U_giver]: the coefficients of the giver's reach that is disjoint,
        weaker, stronger and tied, as the receiver's value (player 1's: the negated transposes, win and lose swapped)."""
        return self.tables, np.ascontiguousarray(-self.tables[:, :, [0, 2, 1, 3]].swapaxes(-1, -2))  # read as is by C

    def _products(self, g: _Board, receiver: int, giver_reach: np.ndarray) -> np.ndarray:
        """[n, T, K] the receiver's value at each hand and leaf node for each continuation, given the giver's reach
        [n, T, Kx] (Kx = 1: the same for every continuation; Kx = K: continuation k's own)."""
        first = g.showdowns[0]
        if first.hands is None:  # last-round leaves: one showdown, a column per leaf node
            return self._showdown(first, receiver, giver_reach)
        n, T, _ = giver_reach.shape
        K, giver = self.num_values, 1 - receiver
        seg = g.segments if kernels.enabled() else None
        if seg is not None:  # every last-round card below the leaves in one compiled call (their columns are shared)
            x = giver_reach[seg.hands]
            if first.columns is not None:
                x = x[:, first.columns] * self._stem_reach(first, seg.early, giver)
            v = self._compiled(g, receiver)(x)
            if first.columns is not None:
                v = np.add.reduceat(v * self._stem_reach(first, seg.early, receiver), first.starts, axis=1)  # type: ignore[arg-type]
            return np.asarray(seg.back @ v.reshape(v.shape[0], -1)).reshape(n, T, K)
        out = np.zeros((n, T, K))
        for s in g.showdowns:  # every last-round card below the leaves
            x = giver_reach[s.hands]
            if s.columns is None:  # a column per leaf, over bucket pairs
                out[s.hands] += self._showdown(s, receiver, x)
                continue
            assert s.starts is not None  # a column per stem of each leaf
            v = self._showdown(s, receiver, x[:, s.columns] * self._stem_reach(s, s.early, giver))
            out[s.hands] += np.add.reduceat(v * self._stem_reach(s, s.early, receiver), s.starts, axis=1)
        return out

    @cached_property
    def _bound(self) -> dict[tuple[int, int], kernels.LeafValues]:
        """The compiled leaf values bound so far, by (id of the leaf board or full board, receiver)."""
        return {}

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_bound"}  # keyed by ids of this process's objects

    def _compiled(self, of: _Board | _Showdown, receiver: int) -> kernels.LeafValues:
        """The compiled values of a full board (or of a leaf board's full boards, laid end to end) for ``receiver``,
        their tables and layout bound at the first call (:class:`~subgame.tree.kernels.LeafValues`)."""
        key = (id(of), receiver)
        bound = self._bound.get(key)
        if bound is None:
            tab, giver = self._oriented[receiver], 1 - receiver
            if isinstance(of, _Board):
                seg, first = of.segments, of.showdowns[0]
                assert seg is not None
                bound = kernels.LeafValues(tab, first.sequence, first.weight, seg.order, seg.ties, seg.rows, seg.tie0,
                                           seg.hand_cards, seg.bucket[giver], seg.bucket[receiver], seg.cards, seg.most)
            else:
                order, _, ties = of.removal.ladder
                bound = kernels.LeafValues(tab, of.sequence, of.weight, order, ties, np.array([0, order.shape[0]]),
                                           np.array([0, ties.shape[0]]), of.removal.hand_cards, of.bucket[giver],
                                           of.bucket[receiver])
            bound = self._bound.setdefault(key, bound)
        return bound

    def _stem_reach(self, s: _Showdown, early: tuple[np.ndarray, np.ndarray] | None, player: int) -> np.ndarray:
        """[m, C, K] ``player``'s reach along each column's stem (``s.stem``) at each hand, by its earlier-round
        bucket ``early[player]``."""
        assert self.stem_reach is not None and s.stem is not None and early is not None
        return self.stem_reach[player][s.stem][:, :, early[player]].transpose(2, 0, 1)

    def _showdown(self, g: _Showdown, receiver: int, giver_reach: np.ndarray) -> np.ndarray:
        """[m, C, K] the receiver's value at each hand and column of one full board, given the giver's reach [m, C, Kx]."""
        tab = self._oriented[receiver]
        giver = 1 - receiver
        if kernels.enabled() and g.removal.compiled:  # one pass up and one down the strength ladder per leaf column
            return self._compiled(g, receiver)(giver_reach)
        n, T, Kx = giver_reach.shape
        K, U = self.num_values, tab.shape[-1]
        onehot = np.zeros((n, U))
        onehot[np.arange(n), g.bucket[giver]] = 1.0
        out = np.empty((n, T, K))
        step = max(1, CHUNK_ENTRIES // max(1, n * U * (Kx + 4 * K)))
        mine = g.bucket[receiver]
        for lo in range(0, T, step):
            hi = min(T, lo + step)
            y = (giver_reach[:, lo:hi, :, None] * onehot[:, None, None, :]).reshape(n, -1)
            disjoint = g.removal.disjoint_sum(y)
            weaker, stronger = g.removal.weaker_stronger(y)
            parts = [disjoint, weaker, stronger, disjoint - weaker - stronger]
            shape = (n, hi - lo, Kx, U)
            coef = tab[g.sequence[lo:hi]][:, :, :, mine, :]  # [t, K, 4, n, U]
            acc = np.zeros((n, hi - lo, K))
            for j, part in enumerate(parts):
                acc += np.einsum("tknu,ntxu->ntk" if Kx == 1 else "tknu,ntku->ntk", coef[:, :, j], part.reshape(shape))
            out[:, lo:hi] = acc * g.weight[lo:hi][None, :, None]
        return out

    def _sample(self, boards: int, iteration: int | None, receiver: int) -> tuple[list[int] | None, float]:
        """The boards valued for ``receiver`` at ``iteration`` (``None``: every board) and the weight of each
        (:attr:`per_iteration`)."""
        r = self.per_iteration
        if iteration is None or r is None or r >= boards:
            return None, 1.0
        rng = np.random.default_rng((self.seed, iteration, receiver))
        return sorted(int(i) for i in rng.choice(boards, size=r, replace=False)), boards / r

    def _grid(self, tree: PublicTree, g: _Board, player: int) -> np.ndarray:
        """[n, T] the private state of each hand at each of the board's leaf nodes."""
        start = np.searchsorted(tree.players[player].node, g.nodes)
        return start[None, :] + g.offset[player][:, None]

    def bind(self, tree: PublicTree, states: np.ndarray) -> BoundValues:
        if tree.game_id != self.game_id:
            raise SubgameError(f"the leaf values are of game {self.game_id!r}, the tree is {tree.game_id!r}")
        rho, opp = self.player, 1 - self.player
        grids = [(g, self._grid(tree, g, rho), np.searchsorted(states, self._grid(tree, g, opp))) for g in self.boards]
        K, L, G = self.num_values, states.size, tree.players[rho].num_states

        def rows(receiver: int, iteration: int | None, /) -> np.ndarray | None:
            boards, _ = self._sample(len(grids), iteration, receiver)
            return None if boards is None else np.concatenate([grids[i][2].ravel() for i in boards])

        def places(boards: list[int] | None) -> tuple[int, list[tuple[int, np.ndarray | slice]]]:
            """The product's rows and, per board, where its [n, T] leaf states are among them."""
            if boards is None:
                return L, [(i, grids[i][2]) for i in range(len(grids))]
            ends = np.cumsum([grids[i][2].size for i in boards])
            return (int(ends[-1]) if boards else 0), [(i, slice(int(e) - grids[i][2].size, int(e)))
                                                     for i, e in zip(boards, ends)]

        # each board's leaves are their own states: the boards are independent pieces of work (threads.run_pieces)
        def opponent_values(reach_player: np.ndarray, iteration: int | None = None, /) -> np.ndarray:
            boards, share = self._sample(len(grids), iteration, opp)
            n, at = places(boards)
            out = np.zeros((n, K))

            def board(i: int, to: np.ndarray | slice) -> None:
                g, mine, _ = grids[i]
                v = self._products(g, opp, reach_player[mine][:, :, None]) * share
                out[to] = v.reshape(-1, K) if isinstance(to, slice) else v

            run_pieces([partial(board, i, to) for i, to in at], entries=n * K)
            return out

        def player_values(split: np.ndarray, iteration: int | None = None, /) -> np.ndarray:
            out = np.zeros(G)
            boards, share = self._sample(len(grids), iteration, rho)
            n, at = places(boards)

            def board(i: int, to: np.ndarray | slice) -> None:
                g, mine, theirs = grids[i]
                x = split[to].reshape(theirs.shape + (K,)) if isinstance(to, slice) else split[to]
                out[mine] = self._products(g, rho, x).sum(axis=2) * share

            run_pieces([partial(board, i, to) for i, to in at], entries=n * K)
            return out

        return BoundValues(opponent_values, player_values, rows)



def blueprint_root_values(game: PokerGame, tree: PublicTree, blueprint: Blueprint, abstraction: DealAbstraction,
                          node: int, player: int, reach: np.ndarray, *, best_response: bool = True) -> np.ndarray:
    """[R_o] the opponent's counterfactual value at each root private state of ``tree`` against ρ's blueprint from its
    node ``node`` on, given ρ's root reach ``reach`` [R_ρ]: a safe re-solve's alternative payoffs.

    With ``best_response`` the opponent best-responds at each of her information sets (her counterfactual
    best-response values, the alternative payoffs that make Resolve and Maxmargin safe: safe-and-nested §4.2,
    Burch et al. 2014); else she plays her blueprint too (the blueprint's values, an estimate). One walk down the
    blueprint's last-round tree with vectors over the board's hands; each terminal's values by the card-removal sums
    of the showdown operators; scaled by the ratio of the contributions, as the leaves are (:class:`PokerRoundValues`).

    Raises:
        SubgameError: ``node`` is not a decision of the blueprint's last round, the tree deals cards, or ``reach``
            does not fit its root.
    """
    bt, rnd = blueprint.tree, len(blueprint.num_buckets) - 1
    if not 0 <= node < bt.num_nodes or bt.kind[node] == TERMINAL or int(bt.round[node]) != rnd:
        raise SubgameError(f"blueprint node {node} is not a decision of its last round {rnd}")
    if (tree.kind == CHANCE_NODE).any():
        raise SubgameError(f"{game.name}: the subgame deals cards below its root; give a subgame of the last round")
    st, _, prob = public_root(game, tree.public_key[0], None)
    hands = deal_hands(game)
    (rows,) = board_hands(game, [st.board])
    opp, rs = 1 - player, tree.root_slice
    if reach.shape != (rs[player].stop - rs[player].start,) or rs[opp].stop - rs[opp].start != rows[opp].size:
        raise SubgameError(f"{game.name}: a root reach of shape {reach.shape} or the root's hands do not fit the tree")
    cards, offset1, removal = _hand_layout(game, hands, st.board, rows)
    size = offset1.size
    offset = (np.arange(size), offset1)  # each player's root state of each hand (player 0's order)
    buckets = abstraction.buckets(rnd, cards, np.broadcast_to(np.array(st.board, np.int64), (size, len(st.board))))
    sign = 1.0 if opp == 0 else -1.0  # the payoffs are player 0's

    def value(n: int, mine: np.ndarray) -> np.ndarray:
        """[size] the opponent's value below blueprint node ``n`` at each hand, ρ's reach ``mine`` [size] there."""
        if bt.kind[n] == TERMINAL:
            y = mine[:, None]
            if bt.folded[n] >= 0:
                return sign * float(bt.payoff[n, 0]) * removal.disjoint_sum(y)[:, 0]
            weaker, stronger = removal.weaker_stronger(y)
            tied = removal.disjoint_sum(y) - weaker - stronger
            won, lost = (weaker, stronger) if opp == 0 else (stronger, weaker)  # player 0 wins where her hand is stronger
            return sign * (bt.payoff[n, 0] * won + bt.payoff[n, 1] * lost + bt.payoff[n, 2] * tied)[:, 0]
        if int(bt.round[n]) != rnd:
            raise SubgameError(f"blueprint node {n} below node {node} is in round {int(bt.round[n])}, not {rnd}")
        p = int(bt.player[n])
        policy = blueprint.policy(n, buckets).astype(np.float64)
        children = [bt.child(n, a) for a in bt.actions_of(n)]
        if p == player:
            return sum((value(c, mine * policy[:, a]) for a, c in enumerate(children)), np.zeros(size))
        below = np.stack([value(c, mine) for c in children], axis=1)
        return below.max(axis=1) if best_response else (below * policy).sum(axis=1)

    scale = _pot_scale(st, prob, bt.contrib[node, 0])
    out = np.empty(size)
    out[offset[opp]] = value(node, reach[offset[player]]) * scale
    return out
