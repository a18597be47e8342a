"""An agent at an ACPC dealer: connect, answer every match state that asks it to act.

:func:`play_match` connects to a dealer (the competition's ``dealer`` program or
:mod:`.dealer`), sends the version line and then, for every ``MATCHSTATE`` line, replays
the hand on the game built from the same ``.game`` file (:func:`~.hand.replay`). At the
player's turn it shows the agent its :class:`~subgame.agents.base.View`, samples the
agent's :class:`~subgame.agents.base.Decision` with a generator seeded by ``(seed, hand
number)`` (the agent's own seed for the hand comes from the same pair) and answers with the
action's protocol name. The last state of each hand gives the hand's result.

What can go wrong ends in one line in :attr:`ClientResult.errors` (and the log) and never
loses a finished hand:

* a malformed or rule-breaking message from the dealer is ignored, and so is a state that
  contradicts the last one (an earlier hand, a hand that goes on after it ended, betting or
  cards that do not continue the last state of the hand);
* cards named the other way (:class:`~.protocol.NamingError`) end the match at once: every
  message would be refused alike;
* an agent that fails or puts probability on an illegal action (an off-tree bet its
  strategy has no information set for, for instance) answers ``c``, the ACPC dealer's own
  replacement for an invalid action, and the match goes on;
* no message for ``timeout_s`` seconds, the connection closing during a hand, or an
  interrupt (Ctrl-C) ends the match; a connection closed between hands is the normal end.

:attr:`ClientResult.complete` says whether the match ended normally after at least one hand.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ...errors import SubgameError
from ...files import write_text
from ...games.poker.game import PokerGame
from ..base import Agent
from .channel import Channel, Closed
from .hand import Hand, replay
from .protocol import VERSION, Action, Codec, MatchState, Naming, NamingError, ProtocolError, format_betting

#: How a match that ended normally ends: the dealer closes the connection between hands.
CLOSED = "the dealer closed the connection"


@dataclass(frozen=True)
class ClientHand:
    """One finished hand as the client saw it."""

    hand: int  #: the dealer's hand number
    position: int  #: the client's position in it
    chips: float  #: what the client won (negative: lost)
    state: str  #: the hand's last match state


@dataclass(frozen=True)
class ClientResult:
    """What a client kept of a match."""

    agent: str
    hands: tuple[ClientHand, ...]
    errors: tuple[str, ...]  #: one line per problem, in order
    ended: str  #: why the match ended for this client
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """The dealer ended the match between hands, after at least one."""
        return self.ended == CLOSED and bool(self.hands)

    @property
    def total_chips(self) -> float:
        return float(sum(h.chips for h in self.hands))

    def to_json(self) -> str:
        record = {"agent": self.agent, "hands_played": len(self.hands), "total_chips": self.total_chips,
                  "ended": self.ended, "complete": self.complete, "errors": list(self.errors), "seconds": self.seconds,
                  "hands": [asdict(h) for h in self.hands]}
        return json.dumps(record, indent=1) + "\n"

    def save(self, path: str | Path) -> Path:
        """Write the result as JSON, atomically."""
        return write_text(path, self.to_json(), what="client results")


def hand_seeds(seed: int, hand: int) -> tuple[int, np.random.Generator]:
    """The agent's seed for a hand and the generator that samples its decisions."""
    ss = np.random.SeedSequence((seed, hand))
    agent_seed, sample_seed = ss.generate_state(2)
    return int(agent_seed), np.random.default_rng(int(sample_seed))


class _Leave(Exception):
    """The match cannot go on for this client; the message says why."""


@dataclass
class _Session:
    """The client's running state."""

    agent: Agent
    game: PokerGame
    codec: Codec
    seed: int
    log: Callable[[str], None]
    hands: list[ClientHand] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    current: int | None = None  # the hand in progress
    last: Hand | None = None  # its latest replay
    last_state: MatchState | None = None  # the last state accepted
    total: float = 0.0
    recorded: int | None = None  # the last hand whose result is kept
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def error(self, message: str) -> None:
        self.errors.append(message)
        self.log(message)

    def on_message(self, line: str) -> str | None:
        """The answer to one line from the dealer (``None``: nothing to send)."""
        if not line or line[0] in "#;":
            return None
        try:
            ms = self.codec.parse(line)
        except NamingError as exc:
            raise _Leave(f"the dealer names the cards another way: {exc}") from None
        except ProtocolError as exc:
            self.error(f"malformed message from the dealer, ignored: {exc}")
            return None
        why = self._contradiction(ms)
        if why is not None:
            self.error(f"a state that contradicts the last one, ignored: {line[:200]!r}: {why}")
            return None
        try:
            hand = replay(self.game, ms, self.last if ms.hand == self.current else None)
            if hand.showdown and not all(ms.hole):
                raise ProtocolError(f"{line!r} ends hand {ms.hand} in a showdown without showing both players' cards")
        except ProtocolError as exc:
            self.error(f"malformed message from the dealer, ignored: {exc}")
            return None
        if self.current is not None and ms.hand != self.current:
            self.error(f"hand {ms.hand} began before hand {self.current} ended; hand {self.current} is lost")
        self.last_state = ms
        if ms.hand != self.current:
            self.current = ms.hand
            agent_seed, self.rng = hand_seeds(self.seed, ms.hand)
            self.agent.new_hand(ms.position, agent_seed)
        self.last = hand
        if hand.finished:
            self.recorded, self.current = ms.hand, None
            chips = hand.values()[ms.position]
            self.hands.append(ClientHand(ms.hand, ms.position, chips, line))
            self.total += chips
            self.log(f"hand {ms.hand}: position {ms.position}, {chips:+g} chips "
                     f"(total {self.total:+g} over {len(self.hands)} hands)")
            return None
        if hand.actor != ms.position:
            return None
        return f"{line}:{self._decide(hand, ms.position, ms.hand)}"

    def _contradiction(self, ms: MatchState) -> str | None:
        """Why ``ms`` cannot follow the last state accepted (``None``: it can)."""
        last = self.last_state
        if last is None or ms.hand > last.hand:
            return None
        if ms.hand < last.hand:
            return f"hand {ms.hand} after hand {last.hand}"
        if ms.hand == self.recorded:
            return f"hand {ms.hand} goes on after it ended"
        if ms.position != last.position:
            return f"position {ms.position} in hand {ms.hand}, where the client sits in position {last.position}"
        before, now = [a for r in last.betting for a in r], [a for r in ms.betting for a in r]
        if len(now) <= len(before) or now[: len(before)] != before:
            return f"its betting does not continue the last state's {format_betting(last.betting)!r}"
        if ms.hole[ms.position] != last.hole[ms.position] or ms.board[: len(last.board)] != last.board:
            return "its cards are not the last state's"
        return None

    def _decide(self, hand: Hand, position: int, number: int) -> Action:
        view = hand.view(position)
        try:
            decision = self.agent.act(view).checked(view)
            return hand.protocol_action(decision.sample(self.rng))
        except Exception as exc:  # an agent is a plug-in: any failure of its own answers call, once logged
            off = f" (after off-tree bet(s) {', '.join(f'r{o.size}' for o in hand.off_tree)})" if hand.off_tree else ""
            kind = "" if isinstance(exc, SubgameError) else f"{type(exc).__name__}: "
            self.error(f"agent {self.agent.name} failed at hand {number}{off}: {kind}{exc}; answering c (check/call)")
            return Action("c")


def play_match(
    agent: Agent,
    game: PokerGame,
    host: str,
    port: int,
    *,
    seed: int = 0,
    timeout_s: float = 300.0,
    connect_timeout_s: float = 10.0,
    naming: Naming = "acpc",
    log: Callable[[str], None] | None = None,
) -> ClientResult:
    """Play a match at the dealer at ``host:port`` with ``agent`` for ``game``.

    Args:
        agent: the player.
        game: the game of the dealer's ``.game`` file, with the agent's bet abstraction.
        seed: seeds the agent and the sampling of its decisions, per hand.
        timeout_s: how long to wait for the dealer's next message before leaving.
        naming: how the dealer names a small deck's cards (see :class:`~.protocol.Deck`).
        log: receives one line per hand and per problem.

    Raises:
        SubgameError: the dealer cannot be reached.
    """
    say = log or (lambda _line: None)
    started = time.perf_counter()
    try:
        sock = socket.create_connection((host, port), timeout=connect_timeout_s)
    except OSError as exc:
        raise SubgameError(f"cannot connect to the dealer at {host}:{port}: {exc.strerror or exc}; "
                           "check that the dealer runs and listens on that port") from None
    channel = Channel(sock, f"dealer {host}:{port}")
    session = _Session(agent, game, Codec(game.spec, naming), seed, say)
    try:
        channel.send(VERSION)
        while True:
            try:
                line = channel.receive(timeout_s)
            except TimeoutError:
                session.error(f"no message from the dealer for {timeout_s:g} s; leaving the match")
                ended = "timeout"
                break
            except ValueError as exc:
                session.error(f"malformed message from the dealer, ignored: {exc}")
                continue
            except Closed as exc:
                if session.current is not None:
                    session.error(f"the dealer closed the connection during hand {session.current}: {exc}")
                    ended = "closed during a hand"
                else:
                    ended = CLOSED
                break
            try:
                answer = session.on_message(line)
            except _Leave as exc:
                session.error(f"{exc}; leaving the match")
                ended = "the dealer's cards are named another way"
                break
            if answer is not None:
                channel.send(answer, timeout_s)
    except Closed as exc:
        session.error(f"cannot answer the dealer: {exc}")
        ended = "closed during a hand"
    except KeyboardInterrupt:
        session.error(f"interrupted after {len(session.hands)} finished hands")
        ended = "interrupted"
    finally:
        channel.close()
    return ClientResult(agent.name, tuple(session.hands), tuple(session.errors), ended, time.perf_counter() - started)


__all__ = ["CLOSED", "ClientHand", "ClientResult", "hand_seeds", "play_match"]
