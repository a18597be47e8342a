"""The options many commands share, checked in one place before any command starts its work.

:func:`check_shared` runs (through :func:`~subgame.cli.app.reports_errors`, which every
command wears) on the values a command receives, by parameter name: a seed, a count of
iterations, hands or workers, a port, a duration, and the files a run writes. Every output
must be a file this process may write (:func:`subgame.files.output_file`: never a folder,
device or FIFO), and no two outputs of one run may name the same file, however spelled
(``./x``, a symbolic link, a hard link).
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import SubgameError


class CommandLineError(SubgameError, ValueError):
    """Command-line options that do not fit together."""


def _at_least(low: int) -> Callable[[Any], str | None]:
    return lambda v: None if isinstance(v, int) and v >= low else f"give an integer of at least {low}"


def _port(v: Any) -> str | None:
    return None if isinstance(v, int) and 0 <= v <= 65535 else "give a port number from 0 to 65535"


def _positive_seconds(v: Any) -> str | None:
    return None if isinstance(v, (int, float)) and v > 0 else "give a positive number of seconds"


def _duration(v: Any) -> str | None:
    try:
        parse_duration(v)
    except CommandLineError:
        return "give a positive duration such as 90s, 10m or 1h"
    return None


#: Parameter name -> the check of its value (``None`` when valid, else how to fix it). A
#: command whose parameter has one of these names gets the check; ``None`` values (an option
#: not given) pass.
SHARED_OPTIONS: dict[str, Callable[[Any], str | None]] = {
    "seed": _at_least(0),
    "iterations": _at_least(1),
    "hands": _at_least(1),
    "workers": _at_least(1),
    "port": _port, "port0": _port, "port1": _port,
    "timeout": _positive_seconds, "start_timeout": _positive_seconds, "seconds": _positive_seconds,
    "time_limit": _duration,
}

#: Parameters that name a file the run writes.
OUTPUT_OPTIONS = frozenset({"out", "checkpoint_file", "blueprint_out", "buckets_out", "strategy_out", "plot", "grid", "save_values", "results",
                            "log"})


def flag_of(parameter: inspect.Parameter) -> str:
    """The option's long flag as the user types it (``--checkpoint-file``), or the argument's name."""
    for meta in getattr(parameter.annotation, "__metadata__", ()):
        # typer reads a flag given first in Annotated form as the option's default
        given = (getattr(meta, "default", None), *(getattr(meta, "param_decls", None) or ()))
        decls = [d for d in given if isinstance(d, str) and d.startswith("--")]
        if decls:
            return decls[0].split("/")[0]
        if type(meta).__name__ == "ArgumentInfo":
            return parameter.name.upper()
    return "--" + parameter.name.replace("_", "-")


def check_shared(signature: inspect.Signature, values: Mapping[str, Any]) -> None:
    """Refuse, with one message naming the option, a shared option's bad value or two outputs that are one file."""
    for name, value in values.items():
        check = SHARED_OPTIONS.get(name)
        problem = None if check is None or value is None else check(value)
        if problem is not None:
            raise CommandLineError(f"{flag_of(signature.parameters[name])} {value}: {problem}")
    outputs = {flag_of(signature.parameters[n]): Path(v) for n, v in values.items() if n in OUTPUT_OPTIONS and v is not None}
    check_outputs(outputs)


def check_outputs(outputs: Mapping[str, Path]) -> None:
    """Each output a regular file this process may write, and no two of them the same file."""
    from ..files import output_file

    checked: list[tuple[str, Path]] = []
    for flag, path in outputs.items():
        output_file(path, flag)
        for other, earlier in checked:
            if os.path.realpath(earlier) == os.path.realpath(path) or _same_file(earlier, path):
                raise CommandLineError(f"{other} and {flag} both name {path}: one would overwrite the other; "
                                       "give each its own file")
        checked.append((flag, path))


def _same_file(a: Path, b: Path) -> bool:
    """Whether two existing paths are one file (hard links included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(s|m|h)?\s*$")


def parse_duration(text: str) -> float:
    """Seconds in ``90``, ``90s``, ``10m``, ``1.5h``; a clear error otherwise.

    >>> parse_duration("10m")
    600.0
    """
    match = _DURATION.match(text)
    seconds = 0.0 if match is None else float(match.group(1)) * {"s": 1, "m": 60, "h": 3600}[match.group(2) or "s"]
    if not seconds > 0:
        raise CommandLineError(f"--time {text!r}: give a positive duration such as 90s, 10m or 1h")
    return seconds
