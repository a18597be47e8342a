"""Card abstraction: information sets grouped into buckets that share one strategy.

An abstraction maps each player's information sets to buckets; CFR then accumulates
regrets and average strategies per bucket, and every information set of a bucket plays
the bucket's strategy. Buckets may merge information sets a player could tell apart
earlier (imperfect recall), as real abstractions do. The blueprint it produces is a
full-game strategy, so its exploitability is computed exactly on the unabstracted tree.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..errors import GameDefinitionError
from ..games.poker.game import PokerGame
from ..games.poker.hands import card_name
from ..tree.public_tree import PublicTree


def pool_rows(ids: np.ndarray, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum the rows [I, a] of ``x`` into rows ``ids`` of a zero [K, A] table of ``shape`` (a <= A), in row order."""
    k, width = shape
    flat = (np.asarray(ids)[:, None] * width + np.arange(x.shape[1])).ravel()
    out: np.ndarray = np.bincount(flat, weights=np.asarray(x, dtype=np.float64).ravel(), minlength=k * width).reshape(k, width)
    return out


def pool_touched(parts: Sequence[tuple[np.ndarray, np.ndarray]], width: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows that ``parts`` (``ids`` [I], ``x`` [I, a <= width] each) name, ascending, and their sums [n, width]:
    each part pooled as :func:`pool_rows` pools it and the parts added in order, so that row for row these are the
    bits of adding every part's :func:`pool_rows` to a zero table, over the rows named only."""
    pooled = []
    for ids, x in parts:
        named, at = np.unique(np.asarray(ids), return_inverse=True)
        pooled.append((named, pool_rows(at.ravel(), x, (named.size, width))))
    rows = np.unique(np.concatenate([named for named, _ in pooled])) if pooled else np.zeros(0, dtype=np.int64)
    out = np.zeros((rows.size, width))
    for named, sums in pooled:
        out[np.searchsorted(rows, named)] += sums
    return rows, out


@dataclass(frozen=True, eq=False)
class Abstraction:
    """Per player, the bucket [I_p] of each information set; buckets are 0..num_buckets-1."""

    buckets: tuple[np.ndarray, np.ndarray]
    name: str = "abstraction"

    def num_buckets(self, player: int) -> int:
        return int(self.buckets[player].max(initial=-1)) + 1

    def pool(self, player: int, x: np.ndarray) -> np.ndarray:
        """Sum the rows [I, A] of ``x`` over each bucket: [B, A]."""
        return pool_rows(self.buckets[player], x, (self.num_buckets(player), x.shape[1]))

    def lift(self, player: int, x: np.ndarray) -> np.ndarray:
        """Give each information set its bucket's row: [B, A] -> [I, A]."""
        return x[self.buckets[player]]

    @staticmethod
    def from_keys(tree: PublicTree, key: Callable[[int, tuple[str, ...], str], Hashable], name: str = "abstraction") -> Abstraction:
        """Bucket information sets by ``key(player, public_key, private_label)``.

        Raises:
            GameDefinitionError: two information sets with different legal actions share a bucket.
        """
        out = []
        for p, pa in enumerate(tree.players):
            ids: dict[Hashable, int] = {}
            b = np.empty(pa.num_infosets, dtype=np.int64)
            first: dict[int, int] = {}
            for i, g in enumerate(pa.infoset_priv):
                k = key(p, tree.public_key[pa.node[g]], pa.label[g])
                b[i] = ids.setdefault(k, len(ids))
                j = first.setdefault(int(b[i]), i)
                if not np.array_equal(pa.action_ids[i], pa.action_ids[j]):
                    raise GameDefinitionError(
                        f"abstraction {name!r} puts information sets with different legal actions in one bucket "
                        f"({pa.label[pa.infoset_priv[j]]!r} and {pa.label[g]!r} of player {p})"
                    )
            out.append(b)
        return Abstraction((out[0], out[1]), name)


def _card_index(game: PokerGame) -> dict[str, int]:
    s = game.spec
    return {card_name(c, s.num_ranks, s.num_suits): c for c in range(s.deck_size)}


def _split_public(
    game: PokerGame, public_key: tuple[str, ...], cards: dict[str, int] | None = None
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The betting actions and the board cards of a public observation sequence (``cards``: :func:`_card_index`, if kept)."""
    cards = _card_index(game) if cards is None else cards
    betting, board = [], []
    for obs in public_key:
        if not obs:
            continue
        if obs in cards:
            board.append(cards[obs])
        elif all(obs[i : i + 2] in cards for i in range(0, len(obs), 2)) and len(obs) % 2 == 0 and game.spec.num_suits > 1:
            board.extend(cards[obs[i : i + 2]] for i in range(0, len(obs), 2))
        else:
            betting.append(obs if not board else f"{len(board)}:{obs}")
    return tuple(betting), tuple(board)


def _hole(game: PokerGame, label: str) -> tuple[int, ...]:
    cards = _card_index(game)
    w = 2 if game.spec.num_suits > 1 else 1
    return tuple(cards[label[i : i + w]] for i in range(0, len(label), w))


def leduc_decomposition_abstraction(game: PokerGame, tree: PublicTree) -> Abstraction:
    """The card abstraction of Burch, Johanson & Bowling 2014 (§ "Experimental Results", Fig. 5).

    On the second round a Jack cannot tell a Queen from a King on the board, and a King
    cannot tell a Jack from a Queen; everything else (a pair, the Queen's view, the whole
    betting) is seen. Suits are ignored, which loses nothing in Leduc.
    """
    s = game.spec
    if s.num_ranks != 3 or s.hole_cards != 1 or s.board_cards != (0, 1):
        raise GameDefinitionError("the decomposition paper's abstraction is defined for Leduc hold'em (3 ranks, 1 hole card, 1 board card)")
    J, K = 0, 2

    def key(player: int, public_key: tuple[str, ...], label: str) -> Hashable:
        betting, board = _split_public(game, public_key)
        rank = _hole(game, label)[0] // s.num_suits
        if not board:
            return (betting, rank)
        b: int | str = board[0] // s.num_suits
        if b != rank and rank == J:
            b = "Q or K"
        elif b != rank and rank == K:
            b = "J or Q"
        return (betting, rank, b)

    return Abstraction.from_keys(tree, key, "leduc-decomposition")


def hand_strength_abstraction(game: PokerGame, tree: PublicTree, num_buckets: int) -> Abstraction:
    """Buckets by expected hand strength, per betting sequence (imperfect recall of cards).

    A hand's strength is its probability of winning (ties count one half) against a
    uniformly random opponent hand, averaged over the board cards still to come. On each
    betting round and board the hands are split into ``num_buckets`` equal-size groups
    by strength; the bucket forgets earlier rounds' buckets.
    """
    if num_buckets < 1:
        raise GameDefinitionError(f"num_buckets must be at least 1, got {num_buckets}")
    s = game.spec
    total_board = sum(s.board_cards)
    cache: dict[tuple[int, ...], dict[tuple[int, ...], float]] = {}

    def strengths(board: tuple[int, ...]) -> dict[tuple[int, ...], float]:
        if board in cache:
            return cache[board]
        rest = [c for c in range(s.deck_size) if c not in board]
        hands = list(combinations(rest, s.hole_cards))
        score = dict.fromkeys(hands, 0.0)
        count = dict.fromkeys(hands, 0)
        for future in combinations(rest, total_board - len(board)):
            full = board + future
            strength = {h: game.strength(h + full) for h in hands if not set(h) & set(future)}
            for h, sh in strength.items():
                for o, so in strength.items():
                    if set(h) & set(o):
                        continue
                    score[h] += 1.0 if sh > so else 0.5 if sh == so else 0.0
                    count[h] += 1
        cache[board] = {h: score[h] / count[h] for h in hands if count[h]}
        return cache[board]

    def bucket(board: tuple[int, ...], hole: tuple[int, ...]) -> int:
        table = strengths(board)
        values = np.sort(np.fromiter(table.values(), float))
        rank = np.searchsorted(values, table[tuple(sorted(hole))], side="right") / len(values)
        return min(num_buckets - 1, int(rank * num_buckets - 1e-9))

    def key(player: int, public_key: tuple[str, ...], label: str) -> Hashable:
        betting, board = _split_public(game, public_key)
        return (betting, len(board), bucket(tuple(sorted(board)), _hole(game, label)))

    return Abstraction.from_keys(tree, key, f"hand-strength-{num_buckets}")
