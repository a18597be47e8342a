"""An ACPC hand played on a :class:`PokerGame`: real bets, the game's observations, a View.

The dealer and the client both keep a hand as a :class:`Hand`: the deal, the state of the
game (a :class:`~subgame.games.poker.game.PokerState`), the actions as the protocol writes
them and every move's observations. Betting follows :class:`PokerGame` (who acts first in
each round, when a round closes, limit raise sizes and caps), with one difference: a
no-limit game's abstraction knows only some bet sizes, while the protocol allows every raise
to ``N`` with ``min_raise_to <= N <= stack``, where ``min_raise_to`` is the current bet plus
the largest of the big blind and the round's largest raise so far (at most the stack: a
short all-in is allowed). A raise the abstraction does not have is played at its real size
all the same (:meth:`PokerState` holds any contributions) and observed as its protocol name
``rN``, which no information set of the abstraction's tree contains: it is *off the tree*.
:attr:`Hand.off_tree` lists those moves with their real sizes; translating them (e.g.
pseudo-harmonic translation) is the job of the agent, which sees them in its
:class:`~subgame.agents.base.View`.

An agent's action id is turned back into a protocol action by its name in the game
(:meth:`PokerGame.action_name` is ``f``, ``c``, ``r`` or ``rN``), evaluated at the real
state, so a pot-fraction raise after an off-tree bet is that fraction of the real pot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from ...errors import IllegalActionError
from ...games.base import CHANCE, TERMINAL
from ...games.poker.game import PokerGame, PokerState
from ..base import Move, View
from .protocol import Action, MatchState, ProtocolError


@dataclass(frozen=True)
class OffTree:
    """A raise the game's bet abstraction does not have, played at its real size."""

    move: int  #: its index in :attr:`Hand.moves` (and in the View's moves)
    player: int  #: who raised
    size: int  #: raised to this many chips in all
    legal: tuple[str, ...]  #: the abstraction's actions at that point, by name


@dataclass(frozen=True)
class Hand:
    """One hand of an ACPC match on ``game``; every step returns a new hand."""

    game: PokerGame
    hole: tuple[tuple[int, ...], tuple[int, ...]]  #: hole cards by position (dealt order)
    board: tuple[tuple[int, ...], ...]  #: board cards per round, as far as known
    state: PokerState
    betting: tuple[tuple[Action, ...], ...]  #: actions per round, as far as played
    moves: tuple[tuple[str, str, str], ...]  #: (public, private 0, private 1) of every move
    off_tree: tuple[OffTree, ...] = ()

    # -- construction --------------------------------------------------------------------
    @staticmethod
    def deal(game: PokerGame, hole: tuple[tuple[int, ...], tuple[int, ...]], board: tuple[tuple[int, ...], ...]) -> Hand:
        """A new hand with these cards dealt (``board``: per round, all or the known ones)."""
        hand = Hand(game, hole, board, game.root(), ((),), ())
        for cards in hole:
            hand = hand._chance(cards)
        return hand._deal_boards()

    def _chance(self, cards: tuple[int, ...]) -> Hand:
        n = self.game.spec.deck_size
        action = sum(c * n**i for i, c in enumerate(sorted(cards)))
        obs = self.game.observations(self.state, action)
        return replace(self, state=self.game.next_state(self.state, action), moves=self.moves + (obs,))

    def _deal_boards(self) -> Hand:
        """Deal the known board cards the game asks for next."""
        hand = self
        while hand.actor == CHANCE:
            r = hand._board_round()
            if r >= len(hand.board):
                break
            hand = hand._chance(hand.board[r])
        return hand

    def _board_round(self) -> int:
        """The round whose board cards the game deals next."""
        spec, dealt, r = self.game.spec, len(self.state.board), 0
        while sum(spec.board_cards[: r + 1]) <= dealt:
            r += 1
        return r

    def reveal(self, hole: tuple[tuple[int, ...], tuple[int, ...]]) -> Hand:
        """This hand with other hole cards (as a showdown shows them); the betting stays."""
        dealt = Hand.deal(self.game, hole, ())
        return replace(self, hole=hole, state=self.state._replace(hole=dealt.state.hole),
                       moves=dealt.moves[:2] + self.moves[2:])

    # -- what the protocol shows -------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.actor == TERMINAL

    @cached_property
    def actor(self) -> int:
        """The position to act, or :data:`CHANCE` while board cards are unknown, or :data:`TERMINAL`."""
        return self.game.actor(self.state)

    @property
    def showdown(self) -> bool:
        return self.finished and self.state.folded < 0

    def shown_round(self) -> int:
        """The round the protocol shows: after an all-in call, the last (every board is dealt)."""
        if self.state.betting_over and self.state.folded < 0:
            return self.game.spec.num_rounds - 1
        return self.state.round

    def shown_betting(self) -> tuple[tuple[Action, ...], ...]:
        return self.betting + ((),) * (self.shown_round() + 1 - len(self.betting))

    def match_state(self, position: int, hand_number: int) -> MatchState:
        """What ``position`` is shown: its own hole cards, the opponent's only at a showdown."""
        r = self.shown_round()
        hole = tuple(h if p == position or self.showdown else () for p, h in enumerate(self.hole))
        return MatchState(position, hand_number, self.shown_betting(), (hole[0], hole[1]), self.board[: r + 1])

    def values(self) -> tuple[float, float]:
        """Chips won by position 0 and position 1 at the end of the hand."""
        u = self.game.utility(self.state)
        return (u + 0.0, -u + 0.0)

    def view(self, player: int) -> View:
        """``player``'s :class:`View` at her decision."""
        moves = tuple(Move(pub, privs[player]) for pub, *privs in self.moves)
        return View(player, moves, tuple(self.game.legal_actions(self.state)))

    # -- betting ---------------------------------------------------------------------------
    def raise_bounds(self) -> tuple[int, int] | None:
        """``(min, max)`` chips a no-limit raise may raise to, or ``None`` when no raise is allowed."""
        spec, st = self.game.spec, self.state
        top = max(st.contrib)
        if spec.betting != "nolimit" or top >= spec.stack:
            return None
        return min(top + max(st.last_raise, 1), spec.stack), spec.stack

    def names(self) -> dict[str, int]:
        """The legal action ids of the acting player by protocol name."""
        return dict(self._names)

    @cached_property
    def _names(self) -> dict[str, int]:
        if self.actor < 0:
            return {}
        return {self.game.action_name(self.state, a): a for a in self.game.legal_actions(self.state)}

    def protocol_action(self, action_id: int) -> Action:
        """The protocol action of one of the game's legal action ids at this state."""
        if action_id not in self.game.legal_actions(self.state):
            raise IllegalActionError(f"action {action_id} is not legal here; legal actions are {self.names()}")
        name = self.game.action_name(self.state, action_id)
        return Action(name[0], int(name[1:]) if name[1:] else None)

    def check(self, action: Action) -> str | None:
        """Why ``action`` is not legal for the acting player (``None`` when it is)."""
        who = self.actor
        if who < 0:
            return "the hand is over" if who == TERMINAL else "nobody is to act (board cards are still to come)"
        names = self._names
        if action.kind == "f" and "f" not in names:
            return "fold with nothing to call (check instead)"
        if action.kind != "r" or str(action) in names:
            return None
        if self.game.spec.betting == "limit":
            return f"no raise is allowed (the round's {self.game.spec.max_raises[self.state.round]} raises are made)"
        bounds = self.raise_bounds()
        if bounds is None:
            return "no raise is allowed (a player is all-in)"
        low, high = bounds
        if action.size is None or not low <= action.size <= high:
            return f"raise to {action.size} is outside the legal sizes {low} to {high}"
        return None

    def fixed(self, action: Action) -> tuple[Action, str | None]:
        """``action`` made legal the way the ACPC dealer does, and what was changed.

        A raise's size is moved into the legal sizes; a raise where none is allowed and a
        fold with nothing to call become a call.
        """
        problem = self.check(action)
        if problem is None:
            return action, None
        bounds = self.raise_bounds()
        if action.kind == "r" and bounds is not None and action.size is not None:
            size = min(max(action.size, bounds[0]), bounds[1])
            return Action("r", size), f"{problem}: changed to r{size}"
        return Action("c"), f"{problem}: changed to c"

    def play(self, action: Action) -> Hand:
        """The hand after the acting player's ``action`` (then any known board cards).

        Raises:
            ProtocolError: the action is not legal here (:meth:`check` says why).
        """
        problem = self.check(action)
        if problem is not None:
            raise ProtocolError(f"illegal action {action} by position {self.actor}: {problem}")
        st, p, names = self.state, self.actor, self._names
        a = names.get(str(action))
        off: tuple[OffTree, ...] = ()
        obs = (str(action), "", "")  # a betting action is public and observed by its name
        if a is not None:
            nxt = self.game.next_state(st, a)
        else:  # a raise the abstraction does not have, at its real size
            size = int(action.size or 0)  # check() let through only a no-limit raise with a size
            nxt = _raise_to(st, size)
            off = (OffTree(len(self.moves), p, size, tuple(names)),)
        rounds = self.betting[:-1] + (self.betting[-1] + (action,),)
        if nxt.round > st.round and not nxt.betting_over:
            rounds += ((),)
        hand = replace(self, state=nxt, betting=rounds, moves=self.moves + (obs,), off_tree=self.off_tree + off)
        return hand._deal_boards()


def _raise_to(st: PokerState, size: int) -> PokerState:
    """``st`` after the acting player raises to ``size`` chips in all (any size; :meth:`PokerGame.next_state`'s raise)."""
    p = st.to_act
    contrib = (size, st.contrib[1]) if p == 0 else (st.contrib[0], size)
    return st._replace(contrib=contrib, acted=st.acted + 1, raises=st.raises + 1, to_act=1 - p,
                       last_raise=max(st.last_raise, size - max(st.contrib)))


def replay(game: PokerGame, ms: MatchState, previous: Hand | None = None) -> Hand:
    """The hand a match state describes, replayed on ``game``.

    The opponent's hidden hole cards are stand-ins (the lowest cards nobody shows yet); they
    change nothing the player observes, and a showdown shows the real ones. With
    ``previous``, the replay of an earlier state of the same hand that this one continues,
    only the new moves are played.

    Raises:
        ProtocolError: the betting breaks the rules (an illegal action, a ``/`` where no
            round ends or none where one does, actions after the end of the hand).
    """
    flat = [(r, a) for r, actions in enumerate(ms.betting) for a in actions]
    hand = _continued(previous, ms, flat) if previous is not None and previous.game is game else None
    if hand is None:
        spec = game.spec
        shown = set(c for h in ms.hole for c in h) | set(c for b in ms.board for c in b)
        spare = iter(c for c in range(spec.deck_size) if c not in shown)
        hole = tuple(h if h else tuple(next(spare) for _ in range(spec.hole_cards)) for h in ms.hole)
        hand = Hand.deal(game, (hole[0], hole[1]), ms.board)
    for r, action in flat[sum(len(b) for b in hand.betting):]:
        if hand.actor >= 0 and hand.state.round != r:
            raise ProtocolError(f"betting {_betting(ms)}: round {r + 1} has an action after the round closed "
                                f"(a '/' is missing or misplaced)")
        try:
            hand = hand.play(action)
        except ProtocolError as exc:
            raise ProtocolError(f"betting {_betting(ms)}: {exc}") from None
    if hand.shown_round() != ms.round:
        raise ProtocolError(f"betting {_betting(ms)}: the actions reach round {hand.shown_round() + 1}, "
                            f"but the string shows {ms.round + 1} round(s)")
    return hand


def _continued(previous: Hand, ms: MatchState, flat: list[tuple[int, Action]]) -> Hand | None:
    """``previous`` with ``ms``'s new cards, if ``ms`` continues it (the player's cards, more moves)."""
    if ms.hole[ms.position] != previous.hole[ms.position]:
        return None
    done = [(r, a) for r, actions in enumerate(previous.betting) for a in actions]
    if flat[: len(done)] != done or ms.board[: len(previous.board)] != previous.board:
        return None
    hand = replace(previous, board=ms.board)
    if any(shown and shown != had for shown, had in zip(ms.hole, previous.hole)):
        hand = hand.reveal((ms.hole[0] or previous.hole[0], ms.hole[1] or previous.hole[1]))
    return hand._deal_boards()


def _betting(ms: MatchState) -> str:
    return repr("/".join("".join(map(str, r)) for r in ms.betting))


__all__ = ["Hand", "OffTree", "replay"]
