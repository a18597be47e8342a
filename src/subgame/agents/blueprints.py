"""A blueprint an agent queries per information set, on whatever part of the game it compiled.

An agent that searches a game too big to compile whole (the depth-limited paper's agent,
Brown, Sandholm & Amos 2018, Appendix A) never holds the game's tree, so its blueprint σ̂
cannot be a strategy over that tree. It asks the blueprint instead for σ̂ at the
information sets of each part it compiles (a subgame, the game below a depth limit): a
:class:`Blueprint` answers with one array of rows for the part, so the agent never asks
per information set in a Python loop.

* :class:`TreeBlueprint` — a strategy of the whole compiled game, read at a part's
  information sets through the part's place in the tree (:mod:`~subgame.tree.part`).
* :class:`UniformBlueprint` — the uniform strategy over the legal actions: a blueprint
  that needs no solve and no tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import StrategyFileError
from ..strategy import Strategy
from ..tree.part import place
from ..tree.public_tree import PublicTree


@runtime_checkable
class Blueprint(Protocol):
    """σ̂ of one game, queried at the information sets of any compiled part of it."""

    @property
    def game_id(self) -> str:
        """The fingerprint of the game (:func:`~subgame.games.base.game_fingerprint`)."""
        ...

    def probs(self, tree: PublicTree, player: int) -> np.ndarray:
        """[I, A] σ̂'s action probabilities at ``player``'s information sets of ``tree`` (its action slots).

        Raises:
            StrategyFileError: ``tree`` is of another game.
            GameDefinitionError: ``tree`` has information sets the blueprint cannot answer.
        """
        ...


def _check_game(blueprint: Blueprint, tree: PublicTree) -> None:
    if tree.game_id != blueprint.game_id:
        raise StrategyFileError(f"the blueprint is of game {blueprint.game_id!r}, the tree of {tree.game_id!r}")


@dataclass(frozen=True, eq=False)
class TreeBlueprint:
    """A strategy of the whole game's compiled tree, read at a part's information sets by the part's place in it.

    Attributes:
        tree: the whole game's tree.
        strategy: σ̂ on ``tree``.
    """

    tree: PublicTree
    strategy: Strategy

    @property
    def game_id(self) -> str:
        return self.tree.game_id

    def probs(self, tree: PublicTree, player: int) -> np.ndarray:
        _check_game(self, tree)
        if tree is self.tree:
            return self.strategy.probs[player]
        return place(self.tree, tree).restrict(self.strategy.probs[player], player)


@dataclass(frozen=True)
class UniformBlueprint:
    """Every legal action with the same probability, at every information set of any part of the game."""

    game_id: str

    def probs(self, tree: PublicTree, player: int) -> np.ndarray:
        _check_game(self, tree)
        legal = tree.players[player].legal
        out: np.ndarray = legal / legal.sum(axis=1, keepdims=True)
        return out
