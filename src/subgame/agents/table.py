"""A table where a person plays hands against an agent: the state machine the page and the terminal share.

A :class:`Table` deals hand after hand between a human seat and an :class:`~subgame.agents.base.Agent`.
Chance moves are drawn from the game's :meth:`~subgame.games.base.Game.chance_outcomes` with a
generator seeded by ``(seed, hand)``, and the agent's actions are sampled from its
:class:`~subgame.agents.base.Decision` with a second generator seeded the same way, so a deal
does not depend on how the hand is played and the same seed and the same human actions replay
the same hands. Every action goes through :meth:`~subgame.games.base.Game.apply`; each seat's
:class:`~subgame.agents.base.View` is built from :meth:`~subgame.games.base.Game.observations`
only. The human seat alternates between hands (player 0 in the first hand) unless it is fixed.

At each of its decisions the table records what the agent answered and, when the agent
exposes the behaviour strategy it plays (:class:`ExposesStrategy`, as
:class:`~subgame.agents.strategy.StrategyAgent` does), its whole strategy at that public
state: for every private state it could hold there, its range (its own reach probability,
normalized over the public state's private states: the range an observer who knows its
strategy would assign, in games such as poker whose deal is uniform over the private
states a public state allows) and its action probabilities; an agent that searches
(:class:`ExposesRange`) gives its own belief and its solve's strategy at every hand instead.
Each record keeps the agent's time to answer. The record is shown only once the hand is over.

Everything a client shows is one frozen :class:`TableState`, a plain value that
:meth:`TableState.to_json` turns into the page's JSON.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import IllegalActionError, SubgameError
from ..games.base import CHANCE, TERMINAL, Game
from ..games.poker.game import CALL, FOLD, PokerGame
from ..strategy import Strategy
from ..tree.lookup import InfosetLookup
from ..tree.public_tree import PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .base import Agent, Decision, Move, View


class AgentFailed(SubgameError):
    """The agent could not answer at one of its decisions (it raised, or its answer was not a distribution over the legal actions)."""


@runtime_checkable
class ExposesStrategy(Protocol):
    """An agent that plays a fixed behaviour strategy of a compiled tree (its range can be shown)."""

    tree: PublicTree
    strategy: Strategy


@runtime_checkable
class ExposesRange(Protocol):
    """An agent that tells its range and strategy at every private state of a decision it just answered (a searching
    agent, whose behaviour strategy is no compiled tree's): ``(labels [H], reach [H], probs [H, len(view.legal)])``, or
    ``None`` where it has nothing to show."""

    def decision_rows(self, view: View) -> tuple[Sequence[str], np.ndarray, np.ndarray] | None: ...


@dataclass(frozen=True)
class ActionChoice:
    """A legal action as a client offers it."""

    id: int  #: the game's action id
    name: str  #: the game's action name (``c``, ``r``, ``r8``, ``f``): what a person may type
    label: str  #: words for a button: ``fold``, ``check``, ``call 2``, ``bet to 3``, ``raise to 5``, ``all-in 20``


@dataclass(frozen=True)
class PrivateStateRow:
    """The agent's strategy at one of its possible private states in a public state."""

    label: str  #: the private state (its private observations, e.g. ``Kh``)
    reach: float  #: the agent's own probability of playing to this public state with it
    range: float  #: ``reach`` normalized over the public state's private states (0 when none has reach)
    probs: tuple[float, ...]  #: its action probabilities, in the order of :attr:`AgentDecisionRecord.actions`


@dataclass(frozen=True)
class AgentDecisionRecord:
    """One decision of the agent during a hand."""

    public: tuple[str, ...]  #: the public observations before the decision
    private: str  #: the agent's private state
    actions: tuple[ActionChoice, ...]  #: the legal actions
    probs: tuple[float, ...]  #: the agent's probabilities of ``actions``
    chosen: int  #: the action id played (sampled from ``probs``)
    rows: tuple[PrivateStateRow, ...] = ()  #: its strategy at every private state here; empty when not exposed
    seconds: float = field(default=0.0, compare=False)  #: how long it took to answer (wall time: not part of a replay)


@dataclass(frozen=True)
class Step:
    """One move of the hand as the human sees it."""

    actor: str  #: ``"you"``, ``"agent"`` or ``"chance"``
    action: int | None  #: the action id; ``None`` for the agent's private deal while the hand is on
    text: str  #: what the move shows (``you: raise 2``, ``board: Qs``, ``agent is dealt ??``)


@dataclass(frozen=True)
class TableState:
    """Everything a client shows at one moment of the table, as the human sees it."""

    game: str  #: the game's name (the table's ``label``)
    agent: str  #: the agent's name
    hand: int  #: the hand's number, from 1
    seat: int  #: the human's seat, 0 or 1
    your_cards: str  #: what chance dealt the human privately (hole cards), space separated
    board: str  #: public chance observations so far (board cards), space separated
    steps: tuple[Step, ...]  #: the moves of the hand
    legal: tuple[ActionChoice, ...]  #: the human's legal actions (empty when it is not the human's turn)
    over: bool  #: the hand has ended
    pot: int | None = None  #: poker: chips in the pot
    contributions: tuple[int, int] | None = None  #: poker: chips each seat has put in, seat 0 first
    stacks: tuple[int, int] | None = None  #: no-limit poker: chips each seat has left, seat 0 first
    result: float | None = None  #: the human's payoff in this hand, once over
    agent_cards: str | None = None  #: what chance dealt the agent privately, once over
    decisions: tuple[AgentDecisionRecord, ...] = ()  #: the agent's decisions, once over
    hands_played: int = 0  #: finished hands at this table
    total: float = 0.0  #: the human's summed payoff over finished hands

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Hand:
    """One hand in progress: the game state and what each seat has observed (a pure value)."""

    number: int  #: from 1
    seat: int  #: the human's seat
    state: Any  #: the game's state
    moves: tuple[tuple[Move, ...], tuple[Move, ...]] = ((), ())  #: each seat's observation history
    history: tuple[tuple[int, int], ...] = ()  #: ``(actor, action id)`` of every move, chance as -1
    decisions: tuple[AgentDecisionRecord, ...] = ()  #: the agent's decisions so far

    def after(self, game: Game, action: int) -> Hand:
        """This hand after ``action`` (validated by :meth:`~subgame.games.base.Game.apply`)."""
        state = game.apply(self.state, action)
        public, private0, private1 = game.observations(self.state, action)
        moves = (self.moves[0] + (Move(public, private0),), self.moves[1] + (Move(public, private1),))
        return replace(self, state=state, moves=moves, history=self.history + ((game.actor(self.state), action),))

    def view(self, game: Game, player: int) -> View:
        return View(player, self.moves[player], tuple(game.legal_actions(self.state)))


@dataclass
class Table:
    """Hands between a person and ``agent``; see the module docstring.

    Args:
        game: the game.
        agent: the agent; it plays the seat the human does not.
        seed: seeds every hand's deal and the agent's sampling.
        human_seat: the human's seat in every hand; ``None`` alternates, player 0 first.
        label: the game's name as clients show it (default: the game's registry name).
    """

    game: Game
    agent: Agent
    seed: int = 0
    human_seat: int | None = None
    label: str = ""
    hands_played: int = field(default=0, init=False)  #: finished hands
    total: float = field(default=0.0, init=False)  #: the human's summed payoff over finished hands
    _hand: Hand | None = field(default=None, init=False)
    _chance_rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0), init=False)
    _agent_rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0), init=False)
    #: per exposed (strategy, player): the strategy, [G] the player's own reach, [G] each private state's infoset (-1 if none)
    _reach_cache: dict[tuple[int, int], tuple[Strategy, np.ndarray, np.ndarray]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        if self.human_seat not in (None, 0, 1):
            raise IllegalActionError(f"the human's seat must be 0 or 1, got {self.human_seat!r}")

    # -- the state machine ----------------------------------------------------------------
    @property
    def hand(self) -> Hand | None:
        return self._hand

    def new_hand(self) -> TableState:
        """Deal the next hand and play up to the human's first decision (or the end)."""
        if self._hand is not None and not self._over(self._hand):
            raise IllegalActionError(f"hand {self._hand.number} is still being played; finish it before dealing the next")
        k = self._hand.number if self._hand is not None else 0
        seat = self.human_seat if self.human_seat is not None else k % 2
        self._chance_rng = np.random.default_rng((self.seed, k, 0))
        self._agent_rng = np.random.default_rng((self.seed, k, 1))
        self.agent.new_hand(1 - seat, int(np.random.default_rng((self.seed, k, 2)).integers(2**31)))
        self._hand = self._advance(Hand(k + 1, seat, self.game.root()))
        return self.state()

    def act(self, action: int | str) -> TableState:
        """The human plays ``action`` (an id, or a name or label as :meth:`parse_action` reads it)."""
        hand = self._hand
        if hand is None or self._over(hand):
            raise IllegalActionError("no hand is waiting for your action; deal a new hand first")
        if self.game.actor(hand.state) != hand.seat:
            raise IllegalActionError("it is not your turn")
        action_id = self.parse_action(action) if isinstance(action, str) else action
        self._hand = self._advance(hand.after(self.game, action_id))
        return self.state()

    def parse_action(self, text: str) -> int:
        """The legal action ``text`` names: its number in the list (from 1), its id as ``#id``, its name or its label's
        first word (``check`` and ``call`` both name the check/call).

        Raises:
            IllegalActionError: ``text`` names no legal action, or more than one.
        """
        legal = self.state().legal
        if not legal:
            raise IllegalActionError("it is not your turn")
        word = text.strip().lower()
        if word.isdigit() and 1 <= int(word) <= len(legal):
            return legal[int(word) - 1].id
        words = {"check", "call"} if word in ("check", "call") else {word}  # one action, named by what it costs now
        matches = [a for a in legal if words & {a.name.lower(), a.label.lower(), f"#{a.id}", a.label.split()[0]}]
        if len(matches) == 1:
            return matches[0].id
        choices = ", ".join(f"{i} or {a.name} ({a.label})" for i, a in enumerate(legal, 1))
        what = "names more than one legal action" if matches else "is not a legal action"
        raise IllegalActionError(f"{text.strip()!r} {what}; type one of: {choices}")

    def _over(self, hand: Hand) -> bool:
        return self.game.actor(hand.state) == TERMINAL

    def _advance(self, hand: Hand) -> Hand:
        """Play chance and the agent until the human acts or the hand ends."""
        game = self.game
        while True:
            who = game.actor(hand.state)
            if who == TERMINAL:
                u = game.utility(hand.state)
                self.hands_played += 1
                self.total += u if hand.seat == 0 else -u
                return hand
            if who == hand.seat:
                return hand
            if who == CHANCE:
                hand = hand.after(game, Decision(dict(game.chance_outcomes(hand.state))).sample(self._chance_rng))
                continue
            view = hand.view(game, who)
            started = time.perf_counter()
            try:
                decision = self.agent.act(view).checked(view)
            except SubgameError as exc:
                where = " ".join(m.public for m in view.moves if m.public) or "the start"
                raise AgentFailed(f"the agent {self.agent.name!r} failed after {where} (hand {hand.number}): {exc}") from None
            chosen = decision.sample(self._agent_rng)
            record = AgentDecisionRecord(
                public=view.public_key, private=view.private_label, actions=self._choices(hand.state, view.legal),
                probs=tuple(float(decision.probs.get(a, 0.0)) for a in view.legal), chosen=chosen,
                rows=self._rows(view), seconds=time.perf_counter() - started,
            )
            hand = replace(hand.after(game, chosen), decisions=hand.decisions + (record,))

    # -- what the agent exposes -------------------------------------------------------------
    def _rows(self, view: View) -> tuple[PrivateStateRow, ...]:
        """The agent's strategy at every private state of the view's public state (empty if not exposed)."""
        agent = self.agent
        if isinstance(agent, ExposesRange) and not isinstance(agent, ExposesStrategy):
            try:
                shown = agent.decision_rows(view)
            except SubgameError:  # what the agent shows is an extra: the hand goes on without it
                return ()
            if shown is None:
                return ()
            labels, reach, probs = shown
            total = float(reach.sum())
            return tuple(PrivateStateRow(label, float(r), float(r) / total if total > 0 else 0.0, tuple(float(q) for q in row))
                         for label, r, row in zip(labels, reach, probs) if r > 0)
        if not isinstance(agent, ExposesStrategy):
            return ()
        tree, strategy, p = agent.tree, agent.strategy, view.player
        node = tree.node_of_key.get(view.public_key)
        if node is None:
            return ()
        pa = tree.players[p]
        key = (id(strategy), p)
        if key not in self._reach_cache:
            infoset_of = InfosetLookup(tree, p).of_state
            reach = forward_reach(tree, p, transition_weights(tree, p, strategy.probs[p]))
            self._reach_cache[key] = (strategy, reach, infoset_of)
        _, reach, infoset_of = self._reach_cache[key]
        states = np.flatnonzero(pa.node == node)
        r = reach[states]
        total = float(r.sum())
        rows = []
        for g, rg in zip(states, r):
            i = infoset_of[g]
            by_id = {int(a): float(q) for a, q, ok in zip(pa.action_ids[i], strategy.probs[p][i], pa.legal[i]) if ok}
            rows.append(PrivateStateRow(pa.label[g], float(rg), float(rg) / total if total > 0 else 0.0,
                                        tuple(by_id.get(a, 0.0) for a in view.legal)))
        return tuple(rows)

    # -- what the human sees ---------------------------------------------------------------
    def state(self) -> TableState:
        """The table as the human sees it now (deals the first hand if none has been dealt)."""
        hand = self._hand if self._hand is not None else None
        if hand is None:
            return self.new_hand()
        game, over = self.game, self._over(hand)
        human_turn = not over and game.actor(hand.state) == hand.seat
        mine = hand.moves[hand.seat]
        board = [m.public for (who, _), m in zip(hand.history, mine) if who == CHANCE and m.public]
        poker: dict[str, Any] = {}
        if isinstance(game, PokerGame):
            contrib = (int(hand.state.contrib[0]), int(hand.state.contrib[1]))
            poker = {"pot": sum(contrib), "contributions": contrib}
            if game.spec.betting == "nolimit":
                poker["stacks"] = (game.spec.stack - contrib[0], game.spec.stack - contrib[1])
        return TableState(
            game=self.label or game.name, agent=self.agent.name, hand=hand.number, seat=hand.seat,
            your_cards=_dealt(hand, hand.seat), board=" ".join(board),
            steps=self._steps(hand, over), legal=self._choices(hand.state, game.legal_actions(hand.state)) if human_turn else (),
            over=over, result=(game.utility(hand.state) * (1 if hand.seat == 0 else -1)) if over else None,
            agent_cards=_dealt(hand, 1 - hand.seat) if over else None,
            decisions=hand.decisions if over else (), hands_played=self.hands_played, total=self.total, **poker,
        )

    def _steps(self, hand: Hand, over: bool) -> tuple[Step, ...]:
        """The moves as the human observed them; what the agent did unseen is shown once the hand is over."""
        game, state, out = self.game, self.game.root(), []
        chance_word = "board" if isinstance(game, PokerGame) else "chance"
        for (who, action), mine, theirs in zip(hand.history, hand.moves[hand.seat], hand.moves[1 - hand.seat]):
            if who == CHANCE:
                if mine.private:
                    out.append(Step("chance", action, f"you are dealt {mine.private}"))
                elif theirs.private:
                    out.append(Step("chance", action if over else None, f"agent is dealt {theirs.private if over else '??'}"))
                else:
                    out.append(Step("chance", action, f"{chance_word}: {mine.public}"))
            else:
                name = game.action_name(state, action)
                seen = f" ({mine.public})" if mine.public and mine.public != name else ""  # e.g. a round's result
                if who == hand.seat:
                    out.append(Step("you", action, f"you: {self._label(state, action)}{seen}"))
                elif over or mine.public == name:
                    out.append(Step("agent", action, f"agent: {self._label(state, action)}{seen}"))
                else:  # a move the human does not see (simultaneous moves played in turn)
                    out.append(Step("agent", None, f"agent: ??{seen}"))
            state = game.next_state(state, action)
        return tuple(out)

    def _choices(self, state: Any, legal: Sequence[int]) -> tuple[ActionChoice, ...]:
        return tuple(ActionChoice(int(a), self.game.action_name(state, a), self._label(state, a)) for a in legal)

    def _label(self, state: Any, action: int) -> str:
        """Words for an action: poker's fold, check, call (chips to call), bet/raise to (the seat's total
        contribution after it, as ACPC's ``r<total>`` counts), all-in; else the game's name."""
        game = self.game
        if not isinstance(game, PokerGame):
            return game.action_name(state, action)
        p, contrib = state.to_act, state.contrib
        to_call = max(contrib) - contrib[p]
        if action == FOLD:
            return "fold"
        if action == CALL:
            return f"call {to_call}" if to_call else "check"
        total = game.next_state(state, action).contrib[p]
        if game.spec.betting == "nolimit" and total >= game.spec.stack:
            return f"all-in {total}"
        return f"{'raise' if to_call else 'bet'} to {total}"


def _dealt(hand: Hand, player: int) -> str:
    """``player``'s private observations of chance moves (her cards), space separated."""
    return " ".join(m.private for (who, _), m in zip(hand.history, hand.moves[player]) if who == CHANCE and m.private)
