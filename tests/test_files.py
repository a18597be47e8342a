"""Atomic output files: an interrupted, killed or failed write leaves the previous file and no temporary; a failed one names the file."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from subgame import files
from subgame.errors import OutputFileError, StrategyFileError
from subgame.files import write_atomic, write_text


class Interrupted(Exception):
    pass


def _write_half_then_fail(f) -> None:
    f.write(b"new and partial")
    f.flush()
    raise Interrupted


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path: Path):
    target = tmp_path / "out.txt"
    files.write_text(target, "old content")
    with pytest.raises(Interrupted):
        files.write_atomic(target, _write_half_then_fail)
    assert target.read_text() == "old content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_an_interrupted_first_write_leaves_nothing(tmp_path: Path):
    with pytest.raises(Interrupted):
        files.write_atomic(tmp_path / "out.bin", _write_half_then_fail)
    assert list(tmp_path.iterdir()) == []


def test_an_npz_whose_serialization_fails_midway_leaves_the_old_archive(tmp_path: Path, monkeypatch):
    target = tmp_path / "s.npz"
    files.write_npz(target, {"format": "t", "version": 1}, {"x": np.arange(3.0)})
    real = np.savez_compressed

    def failing(f, **arrays):
        real(f, **arrays)  # the whole archive is written, then the process is "interrupted"
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", failing)
    with pytest.raises(KeyboardInterrupt):
        files.write_npz(target, {"format": "t", "version": 1}, {"x": np.arange(1000.0)})
    monkeypatch.undo()
    header, arrays = files.read_npz(target, format="t", version=1, kind="test", expected="a test file")
    np.testing.assert_array_equal(arrays["x"], np.arange(3.0))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.npz"]


def test_a_killed_writer_never_leaves_a_partial_target(tmp_path: Path):
    """A process killed while writing (no chance to clean up) leaves the old target as it was."""
    target = tmp_path / "out.txt"
    target.write_text("old content")
    src = Path(files.__file__).resolve().parents[1]
    child = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(src)!r})
        from subgame import files
        def slow(f):
            f.write(b"partial")
            f.flush()
            print("writing", flush=True)
            time.sleep(60)
        files.write_atomic({str(target)!r}, slow)
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert target.read_text() == "old content"
    others = [p for p in tmp_path.iterdir() if p != target]
    assert all(p.name.startswith(".") for p in others)  # only the hidden temporary of the killed writer


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


def test_an_npz_reads_only_the_arrays_asked_and_names_them_without_reading(tmp_path: Path):
    target = tmp_path / "a.npz"
    files.write_npz(target, {"format": "t", "version": 1}, {"x": np.arange(3.0), "y": np.ones(2)})
    kw = {"format": "t", "version": 1, "kind": "test", "expected": "a test file"}
    header, arrays = files.read_npz(target, only=("y", "z"), **kw)
    assert header["version"] == 1 and list(arrays) == ["y"] and arrays["y"].tolist() == [1.0, 1.0]
    assert files.read_npz_names(target, **kw) == (header, frozenset({"x", "y"}))
    with pytest.raises(StrategyFileError, match="version 1 is not supported"):
        files.read_npz_names(target, **{**kw, "version": 2})
