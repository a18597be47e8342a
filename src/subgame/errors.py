"""The library's error hierarchy.

Every error a user can cause (a bad game parameter, an illegal action, a malformed file)
is raised at the boundary as one of these, with a message that names the object, the bad
value and how to fix it. Hot loops never validate.
"""

from __future__ import annotations


class SubgameError(Exception):
    """Base class of every error this library raises on bad input."""


class UnknownGameError(SubgameError, KeyError):
    """A game name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class GameDefinitionError(SubgameError, ValueError):
    """Invalid game parameters, a malformed game file, or rules the compiler cannot handle."""


class IllegalActionError(SubgameError, ValueError):
    """An action that is not legal in the state it is applied to."""


class InvalidRangeError(SubgameError, ValueError):
    """A range or strategy whose probabilities are negative or do not sum to one."""


class StrategyFileError(SubgameError, ValueError):
    """A file that is not a strategy, is corrupt, or belongs to another game."""


class OutputFileError(SubgameError, OSError):
    """An output path that is not a regular file this process may write (a device, FIFO, folder, ...)."""
