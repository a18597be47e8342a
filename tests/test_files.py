"""Atomic output files: a failed write names the file and leaves the previous one."""

from __future__ import annotations

import errno

import pytest

from subgame.errors import OutputFileError
from subgame.files import write_atomic, write_text


def _disk_full(f):
    f.write(b"partial")
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_names_the_file_and_keeps_the_previous_one(tmp_path):
    """Regression: the disk-full error said only 'No space left on device'."""
    path = tmp_path / "s.npz"
    with pytest.raises(OutputFileError, match=rf"^--out {path}: cannot write it \(No space left on device\); "
                       "nothing was written$"):
        write_atomic(path, _disk_full, "--out")
    assert not path.exists() and list(tmp_path.iterdir()) == []  # no temporary left behind
    write_text(path, "old")
    with pytest.raises(OutputFileError, match="the previous file is kept"):
        write_atomic(path, _disk_full, "--out")
    assert path.read_text() == "old" and list(tmp_path.iterdir()) == [path]
