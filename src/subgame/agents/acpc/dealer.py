"""A dealer of our own: a match of ACPC hands between two TCP clients.

:class:`Dealer` listens on two ports (0 picks a free one; :attr:`Dealer.ports` says which),
one per player of the match, and plays ``hands`` hands between the two clients that
connect, in the ACPC protocol (:mod:`.protocol`). As the ACPC dealer does, the players
change positions every hand (the match's player ``k`` is in position ``(k + hand) % 2``).
The cards of hand ``h`` are a permutation of the deck drawn by
``numpy.random.default_rng((seed, h))``; with ``duplicate`` the hands ``2i`` and ``2i + 1``
share the deal ``i``, so each deal is played once from each position by each player.

Answers are checked against the rules (:meth:`~.hand.Hand.fixed`); what cannot be used is
replaced the ACPC dealer's way, with one ``# WARNING`` line in the log:

* an invalid action: a raise size outside the legal sizes is moved to the nearest legal
  size; a raise where none is allowed and a fold with nothing to call become a call;
* an answer to the state sent whose action cannot be read becomes a call; any other line
  (an answer to another state, garbage) is ignored and the dealer keeps waiting;
* no answer within ``response_timeout_s`` becomes a call (the ACPC dealer ends the match
  instead); ``max_timeouts`` silences in a row count as a disconnect.

A client that disconnects ends the match: the unfinished hand is dropped (one ``# ERROR``
line) and every finished hand is kept. The log (ACPC's format: one
``STATE:hand:betting:cards:values:names`` line per hand, values and names by position, then
``SCORE:totals:names`` by the match's players) is rewritten atomically at most once a second
during the match and once at its end, so even an interrupted match leaves a complete log of
the hands it finished.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import SubgameError
from ...files import output_file, write_text
from ...games.poker.game import PokerGame
from .channel import Channel, Closed
from .hand import Hand
from .protocol import Action, Codec, Naming, ProtocolError, format_chips, parse_action


@dataclass(frozen=True)
class DealerConfig:
    """How a match is played."""

    hands: int
    seed: int = 0
    duplicate: bool = False
    names: tuple[str, str] = ("player0", "player1")
    response_timeout_s: float = 10.0
    start_timeout_s: float = 60.0
    max_timeouts: int = 3
    naming: Naming = "acpc"

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise SubgameError(f"a match needs at least one hand, got hands={self.hands}")
        for name in self.names:
            if not name or any(ch in name for ch in ":|\r\n"):
                raise SubgameError(f"player name {name!r} must be non-empty without ':', '|' or line breaks "
                                   "(the log separates fields with them)")
        if self.response_timeout_s <= 0 or self.start_timeout_s <= 0 or self.max_timeouts < 1:
            raise SubgameError("timeouts must be positive and max_timeouts at least 1")


@dataclass(frozen=True)
class HandRecord:
    """One finished hand."""

    hand: int
    players: tuple[int, int]  #: the match's player in position 0 and in position 1
    values: tuple[float, float]  #: chips won, by position
    line: str  #: its ``STATE`` log line


@dataclass(frozen=True)
class MatchResult:
    """A match as the dealer saw it."""

    names: tuple[str, str]
    hands: tuple[HandRecord, ...]
    events: tuple[str, ...]  #: warnings and errors, in order
    planned: int  #: the hands the match was to have
    ended: str  #: ``"complete"`` or why it stopped early

    @property
    def totals(self) -> tuple[float, float]:
        """Chips won by the match's player 0 and player 1."""
        out = [0.0, 0.0]
        for h in self.hands:
            for position, player in enumerate(h.players):
                out[player] += h.values[position]
        return (out[0], out[1])

    @property
    def complete(self) -> bool:
        return self.ended == "complete"


def deal(game: PokerGame, seed: int, index: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], ...]]:
    """The hole cards (by position) and board (per round) of deal ``index`` of a match seeded ``seed``."""
    s = game.spec
    cards = [int(c) for c in np.random.default_rng((seed, index)).permutation(s.deck_size)]
    hole = (tuple(cards[: s.hole_cards]), tuple(cards[s.hole_cards : 2 * s.hole_cards]))
    board, at = [], 2 * s.hole_cards
    for n in s.board_cards:
        board.append(tuple(cards[at : at + n]))
        at += n
    return hole, tuple(board)


class _Gone(Exception):
    """A player left the match."""


class Dealer:
    """Plays one match; see the module docstring.

    The listening sockets are opened at construction, so clients may connect as soon as
    :attr:`ports` is known; :meth:`run` accepts them, plays and closes everything.
    """

    def __init__(
        self,
        game: PokerGame,
        config: DealerConfig,
        *,
        ports: tuple[int, int] = (0, 0),
        host: str = "127.0.0.1",
        log_file: str | Path | None = None,
        log: Callable[[str], None] | None = None,
        describe: str = "",
    ):
        self.game = game
        self.config = config
        self.codec = Codec(game.spec, config.naming)
        self.say = log or (lambda _line: None)
        self.log_file = None if log_file is None else output_file(log_file, "dealer log")
        self.header = [f"# subgame dealer: {describe or game.describe()}, {config.hands} hands, seed {config.seed}"
                       f"{', duplicate deals' if config.duplicate else ''}, "
                       f"response timeout {config.response_timeout_s:g} s, players {config.names[0]} and {config.names[1]}"]
        self._listeners: list[socket.socket] = []
        try:
            for port in ports:
                listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                self._listeners.append(listener)
                listener.bind((host, port))
                listener.listen(1)
        except OSError as exc:
            self.close()
            raise SubgameError(f"cannot listen on {host} port(s) {ports}: {exc.strerror or exc}; "
                               "choose other ports (0 picks a free one)") from None
        self.ports = (self._listeners[0].getsockname()[1], self._listeners[1].getsockname()[1])
        self._lines: list[str] = []
        self._events: list[str] = []
        self._records: list[HandRecord] = []
        self._last_write = 0.0

    def close(self) -> None:
        for listener in self._listeners:
            listener.close()

    # -- the match -------------------------------------------------------------------------
    def run(self) -> MatchResult:
        """Accept the two clients, play the match, write the log; returns what happened."""
        channels: list[Channel] = []
        ended = "complete"
        try:
            for player, listener in enumerate(self._listeners):
                channels.append(self._accept(player, listener))
            for player, channel in enumerate(channels):
                self._version(player, channel)
            timeouts = [0, 0]
            for h in range(self.config.hands):
                self._play_hand(h, channels, timeouts)
                self._checkpoint()
        except _Gone as exc:
            ended = str(exc)
            self._event("ERROR", f"{exc}; the match ends after {len(self._records)} of {self.config.hands} hands")
        except KeyboardInterrupt:
            self._event("ERROR", f"interrupted; the match ends after {len(self._records)} of {self.config.hands} hands")
            self._write()
            raise
        finally:
            for channel in channels:
                channel.close()
            self.close()
        result = MatchResult(self.config.names, tuple(self._records), tuple(self._events), self.config.hands, ended)
        self._write()
        return result

    def _accept(self, player: int, listener: socket.socket) -> Channel:
        name = self.config.names[player]
        listener.settimeout(self.config.start_timeout_s)
        try:
            sock, addr = listener.accept()
        except TimeoutError:
            raise _Gone(f"{name} did not connect to port {self.ports[player]} within "
                        f"{self.config.start_timeout_s:g} s") from None
        self.say(f"{name} connected from {addr[0]}:{addr[1]}")
        return Channel(sock, name)

    def _version(self, player: int, channel: Channel) -> None:
        name = self.config.names[player]
        try:
            line = channel.receive(self.config.start_timeout_s)
        except (TimeoutError, Closed, ValueError) as exc:
            raise _Gone(f"{name} sent no version line ({exc})") from None
        if not line.startswith("VERSION:2."):
            raise _Gone(f"{name} sent {line[:80]!r} instead of the version line VERSION:2.0.0")

    def _play_hand(self, h: int, channels: list[Channel], timeouts: list[int]) -> None:
        hole, board = deal(self.game, self.config.seed, h // 2 if self.config.duplicate else h)
        hand = Hand.deal(self.game, hole, board)
        players = (h % 2, (h + 1) % 2)  # the match's player in position 0 and 1
        while not hand.finished:
            sent = self._send_states(hand, h, channels, players)
            pos = hand.actor
            action = self._answer(channels[players[pos]], sent[pos], hand, h, timeouts, players[pos])
            hand = hand.play(action)
        values = hand.values()
        line = self.codec.state_line(h, hand.shown_betting(), hand.hole, hand.board[: hand.shown_round() + 1],
                                     values, (self.config.names[players[0]], self.config.names[players[1]]))
        self._records.append(HandRecord(h, players, values, line))  # kept even if the last message cannot be sent
        self._lines.append(line)
        self._send_states(hand, h, channels, players)

    def _send_states(self, hand: Hand, h: int, channels: list[Channel], players: tuple[int, int]) -> list[str]:
        """Send each player the hand as its position sees it; returns the two texts."""
        sent = [self.codec.format(hand.match_state(pos, h)) for pos in (0, 1)]
        for pos in (0, 1):
            self._send(channels[players[pos]], sent[pos], h)
        return sent

    def _send(self, channel: Channel, text: str, h: int) -> None:
        try:
            channel.send(text, self.config.response_timeout_s)
        except Closed as exc:
            raise _Gone(f"{channel.peer} disconnected at hand {h} ({exc})") from None

    def _answer(self, channel: Channel, sent: str, hand: Hand, h: int, timeouts: list[int], player: int) -> Action:
        """The acting player's action: read, checked, fixed or replaced (see the module docstring)."""
        name = channel.peer
        deadline = time.monotonic() + self.config.response_timeout_s
        while True:
            try:
                line = channel.receive(max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                timeouts[player] += 1
                if timeouts[player] >= self.config.max_timeouts:
                    raise _Gone(f"{name} did not answer {timeouts[player]} times in a row "
                                f"(last at hand {h})") from None
                self._event("WARNING", f"{name} did not answer within {self.config.response_timeout_s:g} s "
                            f"at hand {h} ({sent}): changed to c")
                return Action("c")
            except Closed as exc:
                raise _Gone(f"{name} disconnected during hand {h} ({exc})") from None
            except ValueError as exc:
                self._event("WARNING", f"{name} at hand {h}: {exc}: changed to c")
                return Action("c")
            timeouts[player] = 0
            state, _, text = line.rpartition(":")
            if state != sent:
                self._event("WARNING", f"{name} at hand {h}: ignoring an answer to another state: {line[:200]!r}")
                continue
            try:
                action = parse_action(text, self.game.spec.betting)
            except ProtocolError as exc:
                self._event("WARNING", f"{name} at hand {h}: {exc}: changed to c")
                return Action("c")
            fixed, why = hand.fixed(action)
            if why is not None:
                self._event("WARNING", f"{name} at hand {h}: invalid action {action} at {sent}: {why}")
            return fixed

    # -- the log -------------------------------------------------------------------------------
    def _event(self, kind: str, message: str) -> None:
        self._events.append(f"{kind}: {message}")
        self._lines.append(f"# {kind}: {message}")
        self.say(f"{kind}: {message}")

    def log_text(self) -> str:
        totals = MatchResult(self.config.names, tuple(self._records), (), self.config.hands, "").totals
        score = f"SCORE:{format_chips(totals[0])}|{format_chips(totals[1])}:{self.config.names[0]}|{self.config.names[1]}"
        return "\n".join(self.header + self._lines + [score]) + "\n"

    def _checkpoint(self) -> None:
        if time.monotonic() - self._last_write >= 1.0:
            self._write()

    def _write(self) -> None:
        if self.log_file is not None:
            write_text(self.log_file, self.log_text(), what="dealer log")
        self._last_write = time.monotonic()


__all__ = ["Dealer", "DealerConfig", "HandRecord", "MatchResult", "deal"]
