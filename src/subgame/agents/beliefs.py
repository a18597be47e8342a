"""A player's range over every hand by Bayes' rule from an implicit blueprint, for agents that reason about ranges.

An agent that searches (:mod:`.hunl_search`) or that best-responds locally (:mod:`.lbr`)
needs, at a public state of the real game, the opponent's probability of each of his hands
(1,326 in hold'em) given the public moves: each of his betting actions multiplies his range
by the probability his strategy gives it at each hand, and a hand that holds a board card
gets zero. :class:`BlueprintRows` gives the blueprint's rows at every hand (its buckets
computed once per round and board); :class:`BlueprintModel` is the opponent *as the
blueprint agent plays* (:class:`~.blueprint.BlueprintAgent`), over every hand at once.

**Translation as a mixture.** The blueprint agent maps a bet its abstraction lacks to one of
the two nearest abstract bets by a seeded draw (randomized pseudo-harmonic translation) that
an observer cannot see. Its play is then a mixture over those draws, the same for every
hand, so the model keeps one *branch* per abstract betting node the draws may have led to,
each with the joint probability [H] of the draws and of the modelled player's actions so
far at each hand. Bayes' rule acts per branch (what a hand plays later depends only on its
branch's node), branches that reach the same node are merged by adding, and the range is
the sum over branches. Without off-tree bets there is one branch: plain Bayes on the
blueprint's rows.

Where the blueprint agent leaves its abstraction (no node fits, the node is of another round,
or it is not the modelled player's), it checks or calls, and so does the model. A move the model gives
probability zero at every hand (an opponent who is not the model) leaves the range as it
was, as :mod:`.hunl_search` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np

from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import DealAbstraction
from ..errors import SubgameError
from ..games.poker.game import CALL, PokerGame, PokerState
from ..games.poker.spec import PokerSpec
from .blueprint import BlueprintAgent

#: boards whose buckets one :class:`BlueprintRows` keeps (a hand meets at most one a round)
BUCKET_CACHE = 16

#: bytes of ranges one :class:`BlueprintModel` keeps in the beliefs it has reached, before it lets them go
BELIEF_BYTES = 64 << 20


def hand_cards(spec: PokerSpec) -> np.ndarray:
    """[H, k] every hand of ``k`` hole cards, ascending cards, in ``itertools.combinations`` order."""
    return np.array(list(combinations(range(spec.deck_size), spec.hole_cards)), dtype=np.int64).reshape(-1, spec.hole_cards)


def meets(hands: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """[H] whether each hand [H, k] holds one of ``cards``."""
    if not len(cards):
        return np.zeros(hands.shape[0], dtype=bool)
    return np.asarray(np.isin(hands, np.asarray(cards, np.int64)).any(axis=1))


class BlueprintRows:
    """The blueprint's rows at every hand of the game, with each (round, board)'s buckets computed once."""

    def __init__(self, blueprint: Blueprint, abstraction: DealAbstraction, hands: np.ndarray) -> None:
        self.blueprint, self.abstraction, self.hands = blueprint, abstraction, hands
        self._buckets: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}

    def buckets(self, rnd: int, board: Sequence[int]) -> np.ndarray:
        """[H] the round-``rnd`` bucket of each hand on ``board`` (dealt order), -1 where the hand meets the board."""
        key = (rnd, tuple(int(c) for c in board))
        hit = self._buckets.get(key)
        if hit is None:
            free = ~meets(self.hands, key[1])
            boards = np.broadcast_to(np.array(key[1], np.int64), (int(free.sum()), len(key[1])))
            hit = np.full(self.hands.shape[0], -1, dtype=np.int64)
            hit[free] = self.abstraction.buckets(rnd, self.hands[free], boards)
            if len(self._buckets) >= BUCKET_CACHE:
                self._buckets.pop(next(iter(self._buckets)))
            self._buckets[key] = hit
        return hit

    def at(self, node: int, board: Sequence[int]) -> np.ndarray:
        """[H, A] the blueprint's strategy at betting node ``node`` for every hand on ``board`` (zero where blocked)."""
        b = self.buckets(int(self.blueprint.tree.round[node]), board)
        free = b >= 0
        out = np.zeros((b.size, int(self.blueprint.tree.num_actions[node])))
        out[free] = self.blueprint.policy(node, b[free])
        return out


class BlueprintModel:
    """The blueprint agent as an opponent model: its action probabilities at every hand (module docstring).

    Args:
        game: the real no-limit game.
        blueprint, abstraction: the blueprint and its card abstraction.
        rows: the blueprint's rows to share (e.g. a search agent's, :attr:`~.hunl_search.HunlSearchAgent.blueprint_rows`).

    Raises:
        GameDefinitionError: the blueprint is of other rules or another card abstraction.
    """

    def __init__(self, game: PokerGame, blueprint: Blueprint, abstraction: DealAbstraction, *, name: str = "blueprint",
                 rows: BlueprintRows | None = None) -> None:
        self.game, self.name = game, name
        self.agent = BlueprintAgent(game, blueprint, abstraction, name=name)
        self.hands = hand_cards(game.spec)
        if rows is not None and (rows.blueprint is not blueprint or rows.hands.shape != self.hands.shape):
            raise SubgameError("the blueprint rows given are of another blueprint or other hands")
        self.rows = rows or BlueprintRows(blueprint, abstraction, self.hands)
        self._roots: dict[int, BlueprintBelief] = {}
        self._kept_bytes = 0

    def start(self, player: int) -> BlueprintBelief:
        """The belief about seat ``player`` after the deal (no public move yet): every hand equally likely.

        Each belief keeps those it leads to (:meth:`BlueprintBelief.after`), so that a public path met again (the next
        decision of a hand, another hand of the same public path, a look-ahead's subtree) is not computed again, up
        to :data:`BELIEF_BYTES` of ranges; then they are let go and the next start begins anew."""
        if player not in (0, 1):
            raise SubgameError(f"the modelled seat must be 0 or 1, got {player!r}")
        root = self._roots.get(player)
        if root is None:
            k = self.game.spec.hole_cards
            st = self.game.root()._replace(hole=(tuple(range(-k, 0)), tuple(range(-2 * k, -k))))
            reach = (~meets(self.hands, st.board)).astype(np.float64)
            root = self._roots[player] = BlueprintBelief(self, player, st, ((0, reach),))
        return root

    def __getstate__(self) -> dict[str, object]:
        return self.__dict__ | {"_roots": {}, "_kept_bytes": 0}  # a copy sent to a worker reaches its own beliefs

    def _keep(self, nbytes: int) -> bool:
        """Whether a belief of ``nbytes`` of ranges may be kept; past the budget every kept one is let go."""
        if self._kept_bytes + nbytes > BELIEF_BYTES:
            self._roots.clear()
            self._kept_bytes = 0
            return False
        self._kept_bytes += nbytes
        return True

    def policy(self, player: int, node: int, st: PokerState) -> tuple[tuple[int, ...], np.ndarray]:
        """The legal actions at ``st`` and [H, A] the blueprint agent's probability of each at every hand, in seat
        ``player`` at betting node ``node`` (its check/call where it is off the abstraction)."""
        legal = self.game.legal_actions(st)
        tree = self.agent.blueprint.tree
        out = np.zeros((self.hands.shape[0], len(legal)))
        if not self.agent.fits(node, st) or tree.player[node] != player:
            out[:, legal.index(CALL)] = 1.0
            return legal, out
        rows = self.rows.at(node, st.board)
        for k, name in enumerate(tree.actions_of(node)):  # a few abstract actions, each to one real action
            out[:, legal.index(self.agent._real_action(st, node, name, legal))] += rows[:, k]
        total = out.sum(axis=1, keepdims=True)
        np.divide(out, total, out=out, where=total > 0)
        out[total[:, 0] <= 0] = 1.0 / len(legal)  # the agent's uniform answer to an empty row (blocked hands too)
        return legal, out


@dataclass(frozen=True, eq=False)
class BlueprintBelief:
    """What :class:`BlueprintModel` knows of seat ``player`` after some public moves: the branches of translation."""

    model: BlueprintModel
    player: int  #: the modelled seat
    state: PokerState  #: the real public state (hole cards unknown)
    branches: tuple[tuple[int, np.ndarray], ...]  #: (abstract betting node or -1, [H] joint reach of the branch)
    _next: dict[str, BlueprintBelief] = field(default_factory=dict, repr=False)  #: the beliefs after moves, as reached

    @cached_property
    def range(self) -> np.ndarray:
        """[H] the modelled player's reach of every hand (unnormalised; zero where a hand meets the board)."""
        out: np.ndarray = np.sum([r for _, r in self.branches], axis=0)
        return out

    def replies(self) -> tuple[tuple[int, ...], np.ndarray]:
        """At the modelled player's decision: his legal actions and [H, A] the joint probability of hand and action
        (read-only: computed once)."""
        if self.model.game.actor(self.state) != self.player:
            raise SubgameError(f"the modelled player {self.player} is not to act here")
        return self._replies

    @cached_property
    def _replies(self) -> tuple[tuple[int, ...], np.ndarray]:
        legal: tuple[int, ...] = ()
        joint = np.zeros(0)
        for node, reach in self.branches:
            legal, probs = self.model.policy(self.player, node, self.state)
            joint = reach[:, None] * probs + (joint if joint.size else 0.0)
        joint.setflags(write=False)
        return legal, joint

    def after(self, name: str) -> BlueprintBelief:
        """The belief after the public move ``name``: board cards, or a betting action of either player."""
        hit = self._next.get(name)
        if hit is None:
            hit = self._after(name)
            if self.model._keep(sum(r.nbytes for _, r in hit.branches)):
                self._next[name] = hit
        return hit

    def _after(self, name: str) -> BlueprintBelief:
        model, st = self.model, self.state
        cards = model.agent._parse(name)
        if cards is not None:
            keep = (~meets(model.hands, cards)).astype(np.float64)
            return BlueprintBelief(model, self.player, st._replace(board=st.board + cards),
                                   tuple((node, reach * keep) for node, reach in self.branches))
        mine = st.to_act == self.player
        names = {model.game.action_name(st, a): k for k, a in enumerate(model.game.legal_actions(st))}
        merged: dict[int, np.ndarray] = {}
        kept: dict[int, np.ndarray] = {}
        for node, reach in self.branches:
            if mine:
                _, probs = model.policy(self.player, node, st)
                likely = reach * probs[:, names[name]] if name in names else np.zeros_like(reach)
            else:
                likely = reach
            kids = model.agent.abstract_children(node, st, name) if model.agent.fits(node, st) else [(-1, 1.0)]
            for child, q in kids:
                merged[child] = merged.get(child, 0.0) + q * likely
                kept[child] = kept.get(child, 0.0) + q * reach
        if not any(r.any() for r in merged.values()):  # a move the model rules out at every hand: the range as it was
            merged = kept
        return BlueprintBelief(model, self.player, model.agent._advance(st, name), tuple(merged.items()))
