"""An implicit blueprint (:class:`~subgame.blueprint.blueprint_file.Blueprint`) playing the real no-limit game.

The agent never needs the real game's tree: at each decision it replays the public
betting to a real state (pot, stacks, legal bets), walks the blueprint's betting tree
alongside, buckets its hand on the board and plays the blueprint's row there.

Bets that the action abstraction lacks (either player's, the real game's sizes being
other than the abstraction's) are mapped by randomized pseudo-harmonic translation
(Ganzfried & Sandholm 2013; the baseline of safe-and-nested §6) between the two nearest
abstract sizes, as pot fractions; a bet beyond the abstract sizes maps to the nearest
one. The draw is seeded by the hand's seed and the move's place, so a hand's translation
is the same at every later decision. The agent's abstract raises are played as the real
legal raise nearest in pot fraction. Where translation leaves the abstract game (an
abstract all-in the real game did not make, a cap the real game lacks, a bet translated to
a check that closed the abstract round while the real one goes on) the agent checks or
calls for the rest of the hand: the documented fallback (:meth:`BlueprintAgent.fits`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..blueprint.actions import DECISION
from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import DealAbstraction
from ..errors import GameDefinitionError
from ..games.poker.game import CALL, FOLD, PokerGame, PokerState, _betting_actions
from ..games.poker.hands import card_name
from ..resolving.translation import translate
from .base import Decision, View


def _fraction(contrib: tuple[int, int], player: int, amount: int) -> float:
    """A raise to ``amount`` as a fraction of the pot after calling (the poker rules' convention)."""
    top, pot = max(contrib), contrib[0] + contrib[1]
    return (amount - top) / max(pot + top - contrib[player], 1)


@dataclass
class BlueprintAgent:
    """Plays ``blueprint`` in ``game`` with translation of off-tree bets (module docstring).

    Raises:
        GameDefinitionError: the blueprint is of other rules (deck, stack, blinds, rounds),
            or of another card abstraction than ``abstraction``.
    """

    game: PokerGame
    blueprint: Blueprint
    abstraction: DealAbstraction
    name: str = "blueprint"
    _seed: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        real, bp = self.game.spec, self.blueprint.spec
        same = (real.num_ranks, real.num_suits, real.hole_cards, real.board_cards, real.stack, real.blinds, real.ante,
                real.first_player) == (bp.num_ranks, bp.num_suits, bp.hole_cards, bp.board_cards, bp.stack, bp.blinds,
                                       bp.ante, bp.first_player)
        if not same or real.betting != "nolimit":
            raise GameDefinitionError(f"the blueprint is for other rules ({bp.num_ranks}x{bp.num_suits} deck, stack "
                                      f"{bp.stack}, blinds {bp.blinds}, boards {bp.board_cards}) than this game")
        self.blueprint.check(self.abstraction)

    @cached_property
    def _cards(self) -> dict[str, int]:
        s = self.game.spec
        return {card_name(c, s.num_ranks, s.num_suits): c for c in range(s.deck_size)}

    def _parse(self, text: str) -> tuple[int, ...] | None:
        """The cards a chance observation names, ``None`` if it is a betting action."""
        if len(text) % 2 or not text or any(text[i : i + 2] not in self._cards for i in range(0, len(text), 2)):
            return None
        return tuple(self._cards[text[i : i + 2]] for i in range(0, len(text), 2))

    def new_hand(self, player: int, seed: int) -> None:
        self._seed = seed

    def act(self, view: View) -> Decision:
        g, tree = self.game, self.blueprint.tree
        k = g.spec.hole_cards
        st = g.root()._replace(hole=(tuple(range(-k, 0)), tuple(range(-2 * k, -k))))
        node = 0
        for index, move in enumerate(view.moves[2:]):  # the hole deals first
            cards = self._parse(move.public)
            if cards is not None:
                st = st._replace(board=st.board + cards)
                continue
            if self.fits(node, st):
                node = self._abstract_child(node, st, move.public, index)
            else:
                node = -1
            st = self._advance(st, move.public)
        hand = np.array([self._parse(view.private_label) or ()], np.int64)
        if not self.fits(node, st) or tree.player[node] != view.player or hand.shape[1] != k:
            return Decision.pure(CALL if CALL in view.legal else view.legal[0])
        board = np.array([st.board], np.int64).reshape(1, len(st.board))
        bucket = self.abstraction.buckets(int(tree.round[node]), hand, board)
        probs = self.blueprint.policy(node, bucket)[0]
        out: dict[int, float] = {}
        for name, p in zip(tree.actions_of(node), probs.tolist()):
            a = self._real_action(st, node, name, view.legal)
            out[a] = out.get(a, 0.0) + p
        total = sum(out.values())
        return Decision({a: p / total for a, p in out.items()}) if total > 0 else Decision.uniform(view.legal)

    def _advance(self, st: PokerState, name: str) -> PokerState:
        """The state after public action ``name``; a raise the agent's game lacks (an ACPC opponent's size) is applied
        as the rules apply any raise."""
        for a in self.game.legal_actions(st):
            if self.game.action_name(st, a) == name:
                return self.game.next_state(st, a)
        if not name.startswith("r") or not name[1:].isdigit():
            raise GameDefinitionError(f"{self.name}: action {name!r} is not legal in the game here")
        amount, p = int(name[1:]), st.to_act
        contrib = (amount, st.contrib[1]) if p == 0 else (st.contrib[0], amount)
        return st._replace(contrib=contrib, acted=st.acted + 1, raises=st.raises + 1, to_act=1 - p,
                           last_raise=max(st.last_raise, amount - max(st.contrib)))

    def fits(self, node: int, st: PokerState) -> bool:
        """Whether abstract node ``node`` is a decision of the real state's betting round: translation can close an
        abstract round the real game has not closed (a bet translated to a check), and a node of another round has
        no buckets for the real board."""
        tree = self.blueprint.tree
        return node >= 0 and tree.kind[node] == DECISION and int(tree.round[node]) == st.round

    def _abstract_child(self, node: int, st: PokerState, name: str, index: int) -> int:
        """The abstract node after real action ``name`` at ``node`` (translated if off-tree; -1 if none)."""
        choices = self.abstract_children(node, st, name)
        if len(choices) == 1:
            return choices[0][0]
        draw = np.random.default_rng([self._seed, index]).random()
        cum = 0.0
        for child, q in choices:
            cum += q
            if draw < cum:
                return child
        return choices[-1][0]

    def abstract_children(self, node: int, st: PokerState, name: str) -> list[tuple[int, float]]:
        """``(abstract node, probability)`` of each node real action ``name`` at decision ``node`` may lead to: one
        where the abstraction has the action, the translation's two where it lacks a raise (-1: no node fits)."""
        tree = self.blueprint.tree
        hit = tree.child(node, name)
        if hit >= 0 or not name.startswith("r"):
            return [(hit if hit >= 0 else tree.child(node, "c"), 1.0)]
        raises = [a for a in tree.actions_of(node) if a.startswith("r")]
        if not raises:
            return [(tree.child(node, "c"), 1.0)]
        p = int(tree.player[node])
        contrib = (int(tree.contrib[node, 0]), int(tree.contrib[node, 1]))
        sizes = [_fraction(contrib, p, int(a[1:])) for a in raises]
        x = min(max(_fraction(st.contrib, st.to_act, int(name[1:])), min(sizes)), max(sizes))
        return [(tree.child(node, raises[i]), q) for i, q in translate(x, sizes)]

    def _real_action(self, st: PokerState, node: int, name: str, legal: tuple[int, ...]) -> int:
        """The real legal action the abstract action ``name`` at ``node`` is played as."""
        if name == "f":
            return FOLD if FOLD in legal else CALL
        if name == "c" or not name.startswith("r"):
            return CALL
        s = self.game.spec
        real = [(a, amount) for a, amount in _betting_actions(s, st.contrib, st.to_act, st.raises, st.round, st.last_raise)
                if a >= 2 and a in legal]
        if not real:
            return CALL
        if int(name[1:]) >= self.blueprint.spec.stack:
            return max(real, key=lambda x: x[1])[0]
        tree = self.blueprint.tree
        want = _fraction((int(tree.contrib[node, 0]), int(tree.contrib[node, 1])), int(tree.player[node]), int(name[1:]))
        return min(real, key=lambda x: (abs(_fraction(st.contrib, st.to_act, x[1]) - want), x[1]))[0]
