"""A poker game cut at its first public deal: the trunk, and the forest of any set of boards.

CFR-D cuts a game into a trunk and subgames (Burch, Johanson & Bowling 2014, "Decomposition
into Subgames"); for the poker family the natural cut is the first public deal. The trunk
holds the first betting round with one leaf per betting sequence (never one per board: the
compiler's ``board=`` restriction keeps a single deal), and the subgames dealt a given set of
boards compile as one forest whose root private states map back to the trunk's states at the
deal's chance nodes. What walks a game board by board without ever holding it whole (the
exact best response of :mod:`subgame.eval.board_pass`, public chance sampling over boards)
is built on this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np

from ..errors import GameDefinitionError
from ..games.poker import PokerGame
from .compile import compile_game
from .poker_compile import board_hands, compile_poker, deal_hands, state_hands
from .public_tree import CHANCE_NODE, TERMINAL_NODE, PublicTree


@dataclass(frozen=True, eq=False)
class BoardForest:
    """The subgames dealt some boards, compiled as one tree, and where their roots sit in the trunk."""

    tree: PublicTree
    boards: tuple[tuple[int, ...], ...]  #: the boards it holds
    root_chance: np.ndarray  #: [R] per forest root node, the index into :attr:`BoardCut.chance` above it
    gather: tuple[np.ndarray, np.ndarray]  #: per player, [root states] the trunk private state of each root state


@dataclass(frozen=True, eq=False)
class BoardCut:
    """The trunk of a poker game down to its first public deal, and what maps forests onto it.

    Attributes:
        game: the game.
        trunk: the first betting round, one board kept at the deal (see the module docstring).
        size: cards the first deal draws.
        chance: [C] the trunk's chance nodes of the first deal.
        state_at: per player, [C, H] the trunk private state holding each hand (deal order) at
            each chance node (-1: none).
        deals: every board the first deal can draw, cards ascending.
    """

    game: PokerGame
    trunk: PublicTree
    size: int
    chance: np.ndarray
    state_at: tuple[np.ndarray, np.ndarray]
    deals: tuple[tuple[int, ...], ...]
    _children: tuple[dict[str, int], ...]

    @staticmethod
    def of(game: PokerGame) -> BoardCut:
        """Compile the trunk of ``game``.

        Raises:
            GameDefinitionError: not a poker game, or no public deal to cut at.
        """
        if not isinstance(game, PokerGame):
            raise GameDefinitionError(f"{game.name}: a board cut is for the poker family; evaluate it whole")
        spec = game.spec
        if sum(spec.board_cards) == len(spec.board):
            raise GameDefinitionError(f"{game.name}: no public chance event to cut at; evaluate it whole")
        size = int(next(n for n in np.diff(np.cumsum((len(spec.board),) + spec.board_cards), prepend=0)[1:] if n > 0))
        if spec.board:
            trunk = compile_game(game, chance_limit=1)
        else:
            trunk = compile_poker(game, chance_limit=1, board=tuple(range(size)))
        chance = np.flatnonzero(trunk.kind == CHANCE_NODE)
        children: list[dict[str, int]] = [{} for _ in chance]
        slot = {int(n): i for i, n in enumerate(chance)}
        for c in np.flatnonzero(np.isin(trunk.parent, chance)):
            children[slot[int(trunk.parent[c])]][trunk.public_key[c][-1]] = int(trunk.kind[c])
        num_hands = deal_hands(game).shape[0]
        state_at = []
        for p in (0, 1):
            table = np.full((chance.size, num_hands), -1, dtype=np.int64)
            hands = state_hands(game, trunk, p)
            node = trunk.players[p].node
            for i, n in enumerate(chance.tolist()):
                g = np.flatnonzero(node == n)
                table[i, hands[g]] = g
            state_at.append(table)
        deals = tuple(combinations([c for c in range(spec.deck_size) if c not in spec.board], size))
        return BoardCut(game, trunk, size, chance, (state_at[0], state_at[1]), deals, tuple(children))

    def forest(self, boards: Sequence[Sequence[int]]) -> BoardForest | None:
        """The forest of every subgame dealt one of ``boards``, from every betting sequence reaching the deal.

        A chance node whose child for a board is terminal (after an all-in the trunk holds the
        showdown itself) contributes no root. None if no board leaves a subgame.
        """
        game, trunk = self.game, self.trunk
        keys: list[tuple[str, ...]] = []
        root_chance: list[int] = []
        root_board: list[int] = []  # per root, its board in ``kept``
        kept: list[tuple[int, ...]] = []
        for cards in boards:
            cards = tuple(int(c) for c in cards)
            name = game.cards_str(cards)
            used = False
            for i, n in enumerate(self.chance.tolist()):
                if self._children[i].get(name) == TERMINAL_NODE:
                    continue
                keys.append(trunk.public_key[n] + (name,))
                root_chance.append(i)
                root_board.append(len(kept))
                used = True
            if used:
                kept.append(cards)
        if not keys:
            return None
        tree = compile_game(game, public_states=keys)
        at = np.asarray(root_chance, dtype=np.int64)
        per_board = board_hands(game, [tuple(game.spec.board) + cards for cards in kept])
        gather = []
        for p in (0, 1):
            pa, rs = tree.players[p], tree.root_slice[p]
            hands = np.concatenate([per_board[b][p] for b in root_board])  # the roots' states are in root order
            if hands.size != rs.stop - rs.start:
                raise GameDefinitionError(f"{game.name}: the forest of boards {kept[:3]} has other root states than its boards' hands")
            g = self.state_at[p][at[pa.node[rs]], hands]
            if np.any(g < 0):
                raise GameDefinitionError(f"{game.name}: a root state of the forest of boards {kept[:3]} has no trunk state")
            gather.append(g)
        return BoardForest(tree, tuple(kept), at, (gather[0], gather[1]))

    def trunk_holds(self, board: Sequence[int]) -> np.ndarray:
        """[C] bool: the chance nodes whose child for ``board`` is a terminal of the trunk.

        There the trunk holds the showdown itself (after an all-in) and :meth:`forest` leaves
        the board out; everywhere else the board's subgame is the forest's.
        """
        name = self.game.cards_str(tuple(int(c) for c in board))
        return np.array([kids.get(name) == TERMINAL_NODE for kids in self._children], dtype=bool)

    @cached_property
    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, [G_p] of the trunk: the (chance node, hand) cell ``c·H + h`` of each private state at a chance node, -1 elsewhere."""
        out = []
        for p in (0, 1):
            table = self.state_at[p]
            cell = np.full(self.trunk.players[p].num_states, -1, dtype=np.int64)
            valid = table >= 0
            cell[table[valid]] = np.flatnonzero(valid)
            out.append(cell)
        return out[0], out[1]
