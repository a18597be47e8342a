"""A subgame from a public state: the game below it compiled from the rules and both ranges alone.

Re-solving needs, at a public state, the game below it and each player's range over her
private states there (Burch, Johanson & Bowling 2014, "Subgame Strategy Re-Solving";
Brown & Sandholm 2017, §3); nothing above it. :func:`subgame_at` compiles exactly that part
with the compiler the game declares, rooted at the public observations so far, to the end
of the game or cut at a depth or chance limit (depth-limited solving, Brown, Sandholm &
Amos 2018, Appendix A, cut each subgame at the end of a round). The parent tree is never
built, so this is how a game too big to compile whole is searched.

Chance probabilities count from the game's root (as the compilers root a tree), so with
the ranges as root reach the subgame's counterfactual values at its root are those of
the whole game at that public state under the same reaches.

A range names private states by their labels (the private observations, as every tree of
the game names them), or is a hold'em :class:`~subgame.games.poker.ranges.Range` (``AA,AKs:0.5``,
one weight per two-card hand) in a 52-card game; it is aligned to the compiled root's
private states once, by one sorted lookup, and carried as arrays in the tree's order from
then on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import GameDefinitionError, InvalidRangeError
from ..games.base import Game
from ..games.poker import PokerGame
from ..games.poker.ranges import HANDS, NUM_CARDS, Range
from .compile import compile_game
from .estimate import SizeEstimate, estimate_size
from .part import Part
from .poker_compile import compile_poker
from .public_tree import PublicKey, PublicTree
from .size import available_bytes, human_bytes


@dataclass(frozen=True, eq=False)
class LabeledValues:
    """One number per private state of one player, each named by its label.

    Attributes:
        labels: [n] private-state labels, distinct.
        values: [n] float64, the number of each.
    """

    labels: Sequence[str]
    values: np.ndarray

    @staticmethod
    def of(mapping: Mapping[str, float]) -> LabeledValues:
        """The values of a ``label -> value`` mapping."""
        return LabeledValues(tuple(mapping), np.fromiter(mapping.values(), dtype=np.float64, count=len(mapping)))

    @staticmethod
    def block(tree: PublicTree, player: int, node: int, values: np.ndarray) -> LabeledValues:
        """``values`` [G_player of ``tree``] at the private states of public ``node``, with their labels."""
        lo, hi = np.searchsorted(tree.players[player].node, [node, node + 1])
        return LabeledValues(tree.players[player].label[lo:hi], np.asarray(values[lo:hi], dtype=np.float64))

    def at(self, labels: Sequence[str], what: str) -> np.ndarray:
        """[len(labels)] the value of each of ``labels``; 0 where this has none.

        Raises:
            InvalidRangeError: two values for one label, a nonzero value for a label not
                among ``labels``, or a number that is not finite.
        """
        values = np.asarray(self.values, dtype=np.float64)
        if values.shape != (len(self.labels),):
            raise InvalidRangeError(f"{what}: {len(self.labels)} labels but {values.shape} values")
        if not np.all(np.isfinite(values)):
            raise InvalidRangeError(f"{what}: the values must be finite numbers, got {values}")
        src = np.asarray(list(self.labels), dtype=str)
        dst = np.asarray(list(labels), dtype=str)
        order = np.argsort(src, kind="stable")
        ordered = src[order]
        if ordered.size > 1 and np.any(ordered[1:] == ordered[:-1]):
            dup = ordered[1:][ordered[1:] == ordered[:-1]][0]
            raise InvalidRangeError(f"{what}: private state {dup!r} is given twice")
        out = np.zeros(dst.size)
        if src.size:
            pos = np.minimum(np.searchsorted(ordered, dst), src.size - 1)
            found = ordered[pos] == dst
            out[found] = values[order[pos[found]]]
            used = np.zeros(src.size, dtype=bool)
            used[order[pos[found]]] = True
            stray = ~used & (values != 0)
            if stray.any():
                raise InvalidRangeError(f"{what}: private state {str(src[np.flatnonzero(stray)[0]])!r} is not one of the "
                                        f"public state's ({dst.size} private states); its value must be 0 or absent")
        return out


#: A player's range as a subgame takes it: label -> weight, labelled values, or ``None`` (every private state 1).
RangeLike = Mapping[str, float] | LabeledValues | None


def hand_range(game: Game, weights: Range) -> LabeledValues:
    """A hold'em range as labelled values of ``game``'s private states (each hand named as the game names it).

    Raises:
        InvalidRangeError: ``game`` is not a poker game of 52 cards and two hole cards.
    """
    if not (isinstance(game, PokerGame) and game.spec.deck_size == NUM_CARDS and game.spec.hole_cards == 2):
        raise InvalidRangeError(f"{game.name}: a hold'em range (one weight per two-card hand of 52 cards) needs a "
                                "poker game of 52 cards and two hole cards; give the range by private-state label")
    return LabeledValues([game.cards_str(tuple(int(c) for c in hand)) for hand in HANDS], weights.weights)


@dataclass(frozen=True, eq=False)
class PublicStateSubgame:
    """The game below one public state, compiled from the rules, with both players' ranges there.

    Attributes:
        public_state: the public observations of the root node (the game's first public
            node where the subgame starts at the game's start).
        tree: the compiled subgame; its root is node 0, leaves where a limit cut it.
        root_reach: per player [R_p] her range at her root private states, in the tree's order
            (``tree.root_slice[p]``): the root reach of a solve or an evaluation.
        estimate: the size counted before it was built.
    """

    public_state: PublicKey
    tree: PublicTree
    root_reach: tuple[np.ndarray, np.ndarray]
    estimate: SizeEstimate

    @cached_property
    def part(self) -> Part:
        """The subgame as a part that stands alone (identity maps): what a subgame problem is made of."""
        return Part.whole(self.tree)

    def root_labels(self, player: int) -> Sequence[str]:
        """[R_p] the labels of ``player``'s root private states, in the tree's order."""
        return self.tree.players[player].label[self.tree.root_slice[player]]

    def align(self, player: int, values: RangeLike, what: str = "range") -> np.ndarray:
        """[R_p] ``values`` (by label) at ``player``'s root private states; ``None`` gives ones.

        Raises:
            InvalidRangeError: see :meth:`LabeledValues.at`; a range (``what="range"``)
                with a negative weight too.
        """
        rs = self.tree.root_slice[player]
        if values is None:
            return np.ones(rs.stop - rs.start)
        given = values if isinstance(values, LabeledValues) else LabeledValues.of(values)
        name = f"player {player}'s {what} at {list(self.public_state)!r}"
        if what == "range" and np.min(given.values, initial=0.0) < 0:
            raise InvalidRangeError(f"{name}: weights must be non-negative, got {np.asarray(given.values)}")
        return given.at(self.root_labels(player), name)


def subgame_at(
    game: Game,
    public_state: Sequence[str] | None,
    ranges: tuple[RangeLike | Range, RangeLike | Range] = (None, None),
    *,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_cards: Sequence[int] | None = None,
    leaf_histories: bool = False,
    max_bytes: int | None = None,
    before_deal: bool = False,
) -> PublicStateSubgame:
    """The subgame of ``game`` below ``public_state`` with ``ranges`` there (see the module docstring).

    Args:
        game: the rules.
        public_state: the public observations so far (``None``: the game's start).
        ranges: player 0's and player 1's ranges at the public state, by private-state
            label (:data:`RangeLike`) or as hold'em ranges (:func:`hand_range`); private
            states a range does not name get 0.
        depth_limit, chance_limit: cut the subgame there (leaves), as
            :func:`~subgame.tree.compile.compile_game` does; ``None``: to the end of the game.
        leaf_cards: poker only, with ``chance_limit``: the deal above the leaves keeps only these
            cards (:func:`~subgame.tree.poker_compile.compile_poker`); the size estimate counts every card.
        before_deal: poker only, with ``chance_limit``: the leaves are the chance nodes of the limit, before
            their cards are dealt (:func:`~subgame.tree.poker_compile.compile_poker`).
        leaf_histories: keep the leaves' histories (for leaf values that walk them).
        max_bytes: the memory the subgame and its CFR solve may take (``None``: the memory
            available now).

    Raises:
        GameDefinitionError: no history has these public observations, or the subgame's
            size, estimated before building it (:func:`~subgame.tree.estimate.estimate_size`),
            exceeds the memory allowed.
        InvalidRangeError: a range weighs a private state the public state does not have,
            or a weight is negative or not finite.
    """
    key = None if public_state is None else tuple(public_state)
    est = estimate_size(game, public_state=key, depth_limit=depth_limit, chance_limit=chance_limit,
                        before_deal=before_deal)
    limit = max_bytes if max_bytes is not None else available_bytes()
    if limit is not None and est.solve_bytes > limit:
        where = "the game's start" if key is None else f"public state {list(key)!r}"
        cut = "" if depth_limit is None and chance_limit is None else (
            f" (depth limit {depth_limit}, chance limit {chance_limit})")
        raise GameDefinitionError(
            f"{game.name}: the subgame at {where}{cut} would have {est.public_nodes:,} public nodes and "
            f"{sum(est.private_states):,} private states, about {human_bytes(est.solve_bytes)} compiled and solved "
            f"(estimated before building it), more than the {human_bytes(limit)} "
            f"{'allowed' if max_bytes is not None else 'available'}; cut it at a depth or chance limit, start "
            "later in the game, or raise max_bytes"
        )
    # () roots the compile at the game's start as None does, without the whole game's estimate made again
    if leaf_cards is not None or before_deal:
        if not isinstance(game, PokerGame):
            raise GameDefinitionError(f"{game.name}: leaf_cards and before_deal are for poker games")
        tree = compile_poker(game, public_state=key or (), depth_limit=depth_limit, chance_limit=chance_limit,
                             leaf_cards=leaf_cards, leaf_histories=leaf_histories, max_bytes=max_bytes,
                             before_deal=before_deal)
    else:
        tree = compile_game(game, public_state=key or (), depth_limit=depth_limit, chance_limit=chance_limit,
                            leaf_histories=leaf_histories, max_bytes=max_bytes)
    part = PublicStateSubgame(tree.public_key[0], tree, (np.ones(0), np.ones(0)), est)
    given = [hand_range(game, r) if isinstance(r, Range) else r for r in ranges]
    reach = (part.align(0, given[0]), part.align(1, given[1]))
    return PublicStateSubgame(part.public_state, tree, reach, est)
