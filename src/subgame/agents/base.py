"""The agent seam: an observation history in, an action distribution out.

An agent plays one seat of a game. At each of its decisions it is shown a
:class:`View`: its seat, the sequence of moves as it observed them (each move's public
observation and its own private observation, exactly what the game's
:meth:`~subgame.games.base.Game.observations` reveals) and the legal action ids. It returns
a :class:`Decision`, a probability over those actions; whoever runs the game (a match, the
ACPC client, the page) samples the action with its own seeded generator, so an agent's
randomness in play is the match's and an agent's exact strategy can be evaluated.

An agent's own randomness (rollouts, a search's sampling) comes from the seed it is given
at :meth:`Agent.new_hand`; its work per decision is bounded by the
:class:`~subgame.solve.driver.Budget` it is built with. Strategy files, re-solvers,
depth-limited search and counter-strategies are agents; matches and the ACPC client talk
only to this protocol.

An agent whose behaviour can be written out as a strategy of a compiled tree (a strategy
file, the baselines, translation, a re-solver that solves every subgame it could meet) is a
:class:`KnownAgent`: matches use that strategy for the exact expected value and for AIVAT's
value function.

An observation history names an information set of any compiled tree of the game: the
public observations are the public node's key and the non-empty private observations,
joined by ``/``, are the private state's label (:func:`infoset_key`).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import IllegalActionError, InvalidRangeError
from ..strategy import Strategy
from ..tree.public_tree import PublicKey, PublicTree


@dataclass(frozen=True)
class Move:
    """One move of the game as one player observed it."""

    public: str  #: the move's public observation
    private: str  #: the player's own private observation of it ("" when none)


@dataclass(frozen=True)
class View:
    """What an agent sees at one of its decisions."""

    player: int  #: the agent's seat, 0 or 1
    moves: tuple[Move, ...]  #: every move since the start of the hand, as this player observed it
    legal: tuple[int, ...]  #: the legal action ids, sorted

    @property
    def public_key(self) -> PublicKey:
        return tuple(m.public for m in self.moves)

    @property
    def private_label(self) -> str:
        return "/".join(m.private for m in self.moves if m.private)


def infoset_key(view: View) -> tuple[PublicKey, str]:
    """``(public key, private label)`` of the agent's information set, as trees name it."""
    return view.public_key, view.private_label


@dataclass(frozen=True)
class Decision:
    """An agent's answer: a probability for each legal action (absent actions have zero)."""

    probs: Mapping[int, float]

    def checked(self, view: View, *, atol: float = 1e-6) -> Decision:
        """This decision if it is a distribution over ``view.legal``; one clear error otherwise."""
        illegal = sorted(a for a, p in self.probs.items() if p > 0 and a not in view.legal)
        if illegal:
            raise IllegalActionError(f"agent put probability on illegal action(s) {illegal}; legal actions are {list(view.legal)}")
        values = [float(p) for p in self.probs.values()]
        if not values or not all(math.isfinite(p) and p >= 0 for p in values) or abs(math.fsum(values) - 1.0) > atol:
            raise InvalidRangeError(f"agent's action probabilities {dict(self.probs)} are not a distribution over {list(view.legal)}")
        return self

    def sample(self, rng: np.random.Generator) -> int:
        """One action drawn with these probabilities (ties in order of action id)."""
        actions = sorted(self.probs)
        return actions[sample_index([self.probs[a] for a in actions], rng)]

    @staticmethod
    def pure(action: int) -> Decision:
        return Decision({action: 1.0})

    @staticmethod
    def uniform(legal: Sequence[int]) -> Decision:
        return Decision({a: 1.0 / len(legal) for a in legal})


def sample_index(probs: Sequence[float], rng: np.random.Generator) -> int:
    """An index drawn with weights ``probs`` from one uniform draw of ``rng`` (inverse CDF, first index on ties)."""
    cum = list(accumulate(probs))
    return min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)


@runtime_checkable
class Agent(Protocol):
    """A player of one seat; see the module docstring."""

    @property
    def name(self) -> str:
        """A short name for tables and logs (``"blueprint"``, ``"random"``, ``"cfr-d"``)."""
        ...

    def new_hand(self, player: int, seed: int) -> None:
        """A hand starts with the agent in seat ``player``; ``seed`` seeds its own randomness for the hand."""
        ...

    def act(self, view: View) -> Decision:
        """The agent's action probabilities at ``view``."""
        ...


@runtime_checkable
class KnownAgent(Agent, Protocol):
    """An agent whose play is a behaviour strategy that can be written on a compiled tree."""

    def behaviour(self, tree: PublicTree) -> Strategy:
        """The strategy the agent plays in either seat, on ``tree`` (the full game's tree).

        Raises:
            SubgameError: ``tree`` is not the game the agent plays.
        """
        ...
