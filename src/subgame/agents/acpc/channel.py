"""Lines over a TCP socket, with timeouts that leave the connection usable.

The protocol's messages are lines ended by ``\\r\\n`` (a bare ``\\n`` is accepted). A
:class:`Channel` buffers what it receives itself, so a read that times out loses nothing
and the next read goes on where it stopped; Nagle's algorithm is switched off, since every
message is a small write that waits for an answer.
"""

from __future__ import annotations

import socket
import time

#: The longest line accepted (a hold'em match state is about 200 characters).
MAX_LINE = 1 << 16


class Closed(ConnectionError):
    """The other side closed the connection (or it broke)."""


class Channel:
    """One connection's lines: :meth:`send` and :meth:`receive`."""

    def __init__(self, sock: socket.socket, peer: str):
        self.sock = sock
        self.peer = peer
        self._buffer = bytearray()
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # not TCP (a socketpair in tests): nothing to switch off
            pass

    def send(self, line: str, timeout_s: float | None = 60.0) -> None:
        """Send ``line`` and ``\\r\\n``.

        Raises:
            Closed: the connection is closed or the peer stopped reading for ``timeout_s``.
        """
        try:
            self.sock.settimeout(timeout_s)
            self.sock.sendall(line.encode("ascii", "replace") + b"\r\n")
        except (OSError, ValueError) as exc:
            raise Closed(f"{self.peer}: the connection is closed ({_why(exc)})") from None

    def receive(self, timeout_s: float | None) -> str:
        """The next line, without its line end.

        Raises:
            TimeoutError: no complete line came within ``timeout_s`` (what came is kept).
            Closed: the peer closed the connection (a partial last line is dropped) or it broke.
            ValueError: a line longer than :data:`MAX_LINE`.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                raw = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return raw.rstrip(b"\r").decode("ascii", "replace")
            if len(self._buffer) > MAX_LINE:
                self._buffer.clear()
                raise ValueError(f"{self.peer}: a line longer than {MAX_LINE} bytes")
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(f"{self.peer}: no message for {timeout_s:g} s")
            try:
                self.sock.settimeout(left)
                chunk = self.sock.recv(65536)
            except TimeoutError:
                raise TimeoutError(f"{self.peer}: no message for {timeout_s:g} s") from None
            except (OSError, ValueError) as exc:
                raise Closed(f"{self.peer}: the connection broke ({_why(exc)})") from None
            if not chunk:
                raise Closed(f"{self.peer}: the connection was closed")
            self._buffer += chunk

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


__all__ = ["MAX_LINE", "Channel", "Closed"]
