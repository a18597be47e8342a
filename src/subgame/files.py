"""The one file format of the library: an ``.npz`` archive with a JSON header.

Strategies, solver checkpoints and CFR-D solutions are all written this way: a ``header``
entry (JSON with a ``format`` tag and a ``version``) beside named numpy arrays. Writing is
atomic (a temporary file renamed over the target), so an interrupted write leaves the
previous file intact; reading refuses anything that is not the expected kind of file with
one :class:`~subgame.errors.StrategyFileError`.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .errors import StrategyFileError


def write_npz(path: str | Path, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> Path:
    """Write ``header`` and ``arrays`` to ``path`` atomically (its folder is made if missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        payload: dict[str, Any] = {"header": np.array(json.dumps(header)), **arrays}
        np.savez_compressed(f, **payload)
    tmp.replace(path)
    return path


def read_npz(
    path: str | Path, *, format: str, version: int, kind: str, expected: str
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and arrays of a file of ``format``.

    ``kind`` ("strategy") and ``expected`` ("a subgame strategy file") name the file in
    error messages.

    Raises:
        StrategyFileError: the file is missing, not an archive of this library, of
            another kind, or of a version this library does not read.
    """
    path = Path(path)
    if not path.exists():
        raise StrategyFileError(f"{path}: no such {kind} file")
    try:
        with np.load(path, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            arrays = {k: np.array(z[k]) for k in z.files if k != "header"}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, json.JSONDecodeError):
        raise StrategyFileError(f"{path}: not {expected} (expected an .npz written by this library)") from None
    tag = header.get("format") if isinstance(header, dict) else None
    if tag != format:
        raise StrategyFileError(f"{path}: not {expected} (format tag {tag!r}, expected {format!r})")
    if header.get("version") != version:
        raise StrategyFileError(
            f"{path}: {kind} file version {header.get('version')} is not supported (this library reads version {version})"
        )
    return header, arrays
