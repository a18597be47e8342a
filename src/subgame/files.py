"""The one file format of the library: an ``.npz`` archive with a JSON header.

Strategies, solver checkpoints and CFR-D solutions are all written this way: a ``header``
entry (JSON with a ``format`` tag and a ``version``) beside named numpy arrays. Writing is
atomic (a temporary file renamed over the target), so an interrupted write leaves the
previous file intact; reading refuses anything that is not the expected kind of file with
one :class:`~subgame.errors.StrategyFileError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .errors import OutputFileError, StrategyFileError, SubgameError


def output_file(path: str | Path, what: str = "output") -> Path:
    """``path`` as a regular file this process may create or replace, checked before any work.

    A symbolic link is followed to its target. Refused, with one line saying why: a
    device, FIFO, socket or folder at that place, a parent that is not a folder, or a
    folder that cannot be written. Missing parent folders are made.
    """
    path = Path(path)
    target = path.resolve() if path.is_symlink() else path
    if target.exists() and not target.is_file():
        kind = "a folder" if target.is_dir() else "not a regular file (a device, FIFO or socket)"
        raise OutputFileError(f"{what} {path} is {kind}; give the path of a regular file")
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputFileError(f"{what} {path}: cannot create its folder {parent} ({exc.strerror})") from None
    if not os.access(parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise OutputFileError(f"{what} {path}: no permission to write there; choose another path")
    return target


def input_file(path: str | os.PathLike[str], kind: str, error: type[SubgameError] = StrategyFileError) -> Path:
    """``path`` as an existing regular file to read, checked before opening it.

    A FIFO or a device would block or never end when read, so only regular files (or
    symbolic links to one) are read. Raises ``error`` (naming the ``kind`` of file) otherwise.
    """
    path = Path(path)
    if not path.exists():
        raise error(f"{path}: no such {kind} file")
    if path.is_dir():
        raise error(f"{path}: is a directory, not a {kind} file")
    if not path.is_file():
        raise error(f"{path}: not a regular file (a FIFO, device or socket); give the path of a {kind} file")
    return path


def read_text_file(path: str | os.PathLike[str], kind: str, error: type[SubgameError]) -> str:
    """The UTF-8 text of a regular file (see :func:`input_file`); anything else raises ``error``."""
    checked = input_file(path, kind, error)
    try:
        return checked.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{checked}: not a text file ({exc.reason} at byte {exc.start}); a {kind} file is plain UTF-8 text") from None
    except OSError as exc:
        raise error(f"{checked}: cannot read the {kind} file ({exc.strerror})") from None


def write_atomic(path: str | Path, write: Callable[[BinaryIO], object], what: str = "output") -> Path:
    """Write a file through ``write(f)`` into a temporary beside ``path``, then rename it over ``path``.

    An interruption leaves the previous file (or none) and no partial one; what
    :func:`output_file` refuses is refused before anything is written, and a write that
    fails (a full disk) raises :class:`~subgame.errors.OutputFileError` naming ``path``.
    """
    target = output_file(path, what)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
        tmp.replace(target)
    except SubgameError:
        tmp.unlink(missing_ok=True)
        raise
    except OSError as exc:  # a full disk, a quota, an I/O error: the error of a write names no file
        tmp.unlink(missing_ok=True)
        kept = "the previous file is kept" if target.exists() else "nothing was written"
        raise OutputFileError(f"{what} {path}: cannot write it ({exc.strerror or exc}); {kept}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def write_text(path: str | Path, text: str, what: str = "output") -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return write_atomic(path, lambda f: f.write(text.encode()), what)


def write_npz(path: str | Path, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    """Write ``header`` and ``arrays`` to ``path`` atomically (see :func:`output_file` for what is refused)."""
    payload: dict[str, Any] = {"header": np.array(json.dumps(header)), **arrays}
    return write_atomic(path, lambda f: np.savez_compressed(f, **payload))


def read_npz(
    path: str | Path, *, format: str, version: int, kind: str, expected: str, only: Collection[str] | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and arrays of a file of ``format`` (``only``: just the arrays of these names that it holds).

    ``kind`` ("strategy") and ``expected`` ("a subgame strategy file") name the file in
    error messages.

    Raises:
        StrategyFileError: the file is missing, not an archive of this library, of
            another kind, or of a version this library does not read.
    """
    header, _, arrays = _read_archive(path, kind, expected, only)
    return _checked_header(path, header, format, version, kind, expected), arrays


def read_npz_names(path: str | Path, *, format: str, version: int, kind: str, expected: str) -> tuple[dict[str, Any], frozenset[str]]:
    """The header of a file of ``format`` and the names of its arrays, none of them read (:func:`read_npz`'s checks)."""
    header, names, _ = _read_archive(path, kind, expected, ())
    return _checked_header(path, header, format, version, kind, expected), names


def _read_archive(path: str | Path, kind: str, expected: str,
                  only: Collection[str] | None) -> tuple[Any, frozenset[str], dict[str, np.ndarray]]:
    path = input_file(path, kind)
    try:
        with np.load(path, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            names = frozenset(z.files) - {"header"}
            arrays = {k: np.array(z[k]) for k in z.files if k != "header" and (only is None or k in only)}
    except Exception:  # a damaged archive fails in zipfile, zlib, numpy or json, each in its own way
        raise StrategyFileError(f"{path}: not {expected} (expected an .npz written by this library)") from None
    return header, names, arrays


def _checked_header(path: str | Path, header: Any, format: str, version: int, kind: str, expected: str) -> dict[str, Any]:
    tag = header.get("format") if isinstance(header, dict) else None
    if tag != format:
        raise StrategyFileError(f"{path}: not {expected} (format tag {tag!r}, expected {format!r})")
    if header.get("version") != version:
        raise StrategyFileError(
            f"{path}: {kind} file version {header.get('version')} is not supported (this library reads version {version})"
        )
    return header
