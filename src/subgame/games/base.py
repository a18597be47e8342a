"""The game interface: a two-player zero-sum factored-observation game.

A game says who acts, which actions are legal, what chance does, what each terminal pays
player 0, and what every move lets each player observe: one public observation shared by
both and one private observation per player. Information sets (a player's own observation
sequence) and public states (the public observation sequence) follow from the
observations, so no game hand-codes infoset keys (Kovařík et al., "Rethinking formal
models of partially observable multiagent decision making", 2022).

States are immutable and hashable; ``next_state`` returns a new one. A game is generic in
its state type (``class PokerGame(Game[PokerState])``); a bare ``Game`` is a game of any state.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic

import numpy as np

from ..errors import IllegalActionError

CHANCE = -1
TERMINAL = -2

State = Hashable

if TYPE_CHECKING:  # a default for the state type (PEP 696) is known to the type checker only before Python 3.13
    from typing_extensions import TypeVar

    StateT = TypeVar("StateT", bound=Hashable, default=Any)
else:
    from typing import TypeVar

    StateT = TypeVar("StateT", bound=Hashable)


class Game(ABC, Generic[StateT]):
    """A two-player zero-sum game with factored observations.

    Subclasses implement the rules; the compiler in :mod:`subgame.tree` turns them into a
    public tree of arrays. Utilities are player 0's; player 1 receives the negation.
    """

    #: Registry name of the game (``kuhn``, ``leduc``, ...).
    name: str = "game"

    #: Which public-tree compiler :func:`subgame.tree.compile.compile_game` runs on the game:
    #: ``"enumerate"`` walks every history; ``"poker"`` walks public states only (poker family).
    tree_compiler: ClassVar[str] = "enumerate"

    @property
    def params(self) -> Mapping[str, Any]:
        """The parameters that, with :attr:`name`, identify the game exactly."""
        return {}

    @abstractmethod
    def root(self) -> StateT:
        """The initial state."""

    @abstractmethod
    def actor(self, state: StateT) -> int:
        """0 or 1 for a player's turn, :data:`CHANCE`, or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self, state: StateT) -> Sequence[int]:
        """Sorted, distinct action ids legal for the acting player (or chance)."""

    def chance_outcomes(self, state: StateT) -> Sequence[tuple[int, float]]:
        """``(action, probability)`` pairs at a chance state; probabilities sum to 1."""
        raise NotImplementedError(f"{self.name} has no chance moves")

    @abstractmethod
    def next_state(self, state: StateT, action: int) -> StateT:
        """The state after ``action``; the action is assumed legal."""

    @abstractmethod
    def observations(self, state: StateT, action: int) -> tuple[str, str, str]:
        """What applying ``action`` at ``state`` reveals: ``(public, private_0, private_1)``.

        A player's own action must be part of what she observes (perfect recall).
        """

    @abstractmethod
    def utility(self, state: StateT) -> float:
        """Player 0's payoff at a terminal state."""

    def action_name(self, state: StateT, action: int) -> str:
        """A human-readable name of ``action`` at ``state``."""
        return str(action)

    def apply(self, state: StateT, action: int) -> StateT:
        """Validated :meth:`next_state`: raises :class:`IllegalActionError` on a bad action."""
        who = self.actor(state)
        if who == TERMINAL:
            raise IllegalActionError(f"{self.name}: no action can be applied at a terminal state")
        legal = (
            [a for a, _ in self.chance_outcomes(state)] if who == CHANCE else list(self.legal_actions(state))
        )
        if action not in legal:
            names = ", ".join(f"{a}={self.action_name(state, a)}" for a in legal)
            raise IllegalActionError(
                f"{self.name}: action {action!r} is not legal here; legal actions are {names}"
            )
        return self.next_state(state, action)

    def utility_bound(self) -> float:
        """An upper bound on ``|utility|`` (used to scale tolerances)."""
        return 1.0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"

    def describe(self) -> str:
        """One line: the name and parameters."""
        if not self.params:
            return self.name
        body = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}({body})"


def game_fingerprint(game: Game) -> str:
    """A short stable id of a game and its parameters (strategy files and trees carry it)."""
    blob = json.dumps({"name": game.name, "params": _jsonable(dict(game.params))}, sort_keys=True)
    return game.name + ":" + hashlib.sha256(blob.encode()).hexdigest()[:16]


def _jsonable(x: object) -> object:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x
