"""A fixed strategy as an agent: look up the information set the observations name."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..errors import StrategyFileError
from ..strategy import Strategy
from ..tree.lookup import InfosetLookup, lookups
from ..tree.public_tree import PublicTree
from .base import Decision, View, infoset_key


@dataclass
class StrategyAgent:
    """Plays a behaviour strategy of a compiled tree of the game.

    At a view it finds the information set ``(public key, private label)`` in ``tree``
    and returns that row of ``strategy``. A view the tree does not contain (an action
    outside the strategy's abstraction) is refused with one clear error; translating such
    actions is the job of an agent built on top of this one.
    """

    tree: PublicTree
    strategy: Strategy
    name: str = "strategy"
    _player: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.strategy.check(self.tree)

    @cached_property
    def _index(self) -> tuple[InfosetLookup, InfosetLookup]:
        return lookups(self.tree)

    def new_hand(self, player: int, seed: int) -> None:
        self._player = player

    def behaviour(self, tree: PublicTree) -> Strategy:
        """The strategy itself, checked against ``tree`` (the same game compiled again)."""
        return self.strategy.check(tree)

    def act(self, view: View) -> Decision:
        key = infoset_key(view)
        row = self._index[view.player](*key)
        if row < 0:
            raise StrategyFileError(
                f"{self.name}: the strategy has no information set for player {view.player} at public "
                f"observations {list(key[0])!r} with private observations {key[1]!r}"
            )
        pa = self.tree.players[view.player]
        probs = self.strategy.probs[view.player][row]
        ids = pa.action_ids[row]
        return Decision({int(ids[k]): float(probs[k]) for k in range(len(ids)) if pa.legal[row, k]})
