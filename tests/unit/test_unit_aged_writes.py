"""A write guarded by the signature of an aged read still never replaces a file someone changed.

When the plan's read found the file unchanged for two seconds (settle.aged_read), the last look
before the rename compares the file's signature instead of reading it again (a 21 MB index at
100k rows): any save after that read gives the file another mtime, and another inode when it
saves by rename.
"""

from __future__ import annotations

import os
import time

import pytest

from memboard.core.files import fsclock
from memboard.core.files.fs import ChangedUnderfoot, atomic_write
from memboard.core.files.settle import aged_read, read_seen


def aged_file(path, data: bytes, age: float = 60.0):
    """path holding data, last changed `age` seconds ago; its read."""
    path.write_bytes(data)
    then = time.time() - age
    os.utime(path, (then, then))
    return read_seen(path)


def read_at(seen, path) -> int:
    """When seen was read, on the clock of its file system (see fsclock)."""
    offset = fsclock.offset(seen.sig[0], path)
    assert offset is not None
    return seen.at_ns + offset


def test_an_unchanged_aged_file_is_replaced_without_reading_it_again(tmp_path, monkeypatch):
    path = tmp_path / "index.md"
    seen = aged_file(path, b"| a |\n")
    assert aged_read(seen, read_at(seen, path))
    monkeypatch.setattr("memboard.core.files.fs.read_seen", lambda p: pytest.fail("read again"))
    atomic_write(path, b"| a |\n| b |\n", expect=seen.data, sig=seen.sig, by_signature=True)
    assert path.read_bytes() == b"| a |\n| b |\n"


@pytest.mark.parametrize("save", ["in place, same size", "append", "by rename"])
def test_a_save_after_an_aged_read_is_never_overwritten(tmp_path, save):
    path = tmp_path / "index.md"
    seen = aged_file(path, b"| a |\n")
    if save == "in place, same size":
        with open(path, "r+b") as fh:
            fh.write(b"| b |\n")
    elif save == "append":
        with open(path, "ab") as fh:
            fh.write(b"| hand |\n")
    else:
        (tmp_path / "tmp").write_bytes(b"| a |\n")
        os.replace(tmp_path / "tmp", path)
    edited = path.read_bytes()
    with pytest.raises(ChangedUnderfoot):
        atomic_write(path, b"| a |\n| b |\n", expect=seen.data, sig=seen.sig, by_signature=True)
    assert path.read_bytes() == edited


def test_a_fresh_read_is_not_aged(tmp_path):
    path = tmp_path / "index.md"
    seen = aged_file(path, b"x\n", age=0.5)
    assert not aged_read(seen, read_at(seen, path))


def test_a_read_is_never_aged_without_its_file_systems_clock(tmp_path):
    """Where no timestamp of the file system can be had, this process's clock says nothing of the file's age."""
    assert not aged_read(aged_file(tmp_path / "index.md", b"x\n"), None)
