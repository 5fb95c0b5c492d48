"""Opening files of a root: regular files only, never a wait, and a failed read always a typed error with its reason."""

from __future__ import annotations

import errno
import os
import stat
import threading

import pytest

from memboard.core.errors import OutsideRoot, Unreadable
from memboard.core.files import regular
from memboard.core.files.regular import NotRegular, kind_of, open_regular, read_regular, why
from memboard.core.files.root import MemoryRoot


def test_a_regular_file_is_read_and_a_missing_one_is_absent(tmp_path):
    path = tmp_path / "a.md"
    path.write_bytes(b"x\n")
    assert read_regular(path) == b"x\n"
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "gone.md")
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path)


def test_a_fifo_is_never_opened(tmp_path, monkeypatch):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_regular(fifo)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # blocked in open(): let it go before failing
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("reading a FIFO blocked")
    assert isinstance(outcome[0], NotRegular)
    assert why(outcome[0]) == "it is a FIFO, not a regular file"


def test_a_device_is_refused_before_any_open(monkeypatch):
    if not os.path.exists(os.devnull) or not stat.S_ISCHR(os.stat(os.devnull).st_mode):
        pytest.skip("no character device to look at")
    opened = []
    monkeypatch.setattr(os, "open", lambda *a, **kw: opened.append(a) or -1)  # (never reached)
    with pytest.raises(NotRegular, match="a character device"):
        open_regular(os.devnull)
    assert opened == []


def test_a_file_swapped_for_a_fifo_after_the_look_is_caught_on_the_descriptor(tmp_path, monkeypatch):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    plain = tmp_path / "plain.md"
    plain.write_text("x")
    looked = os.stat(plain)
    monkeypatch.setattr(os, "stat", lambda *a, **kw: looked)  # the look saw a regular file; then the swap
    with pytest.raises(NotRegular, match="FIFO"):
        open_regular(fifo)  # with O_NONBLOCK the open returns at once, and the descriptor tells


def test_every_kind_of_file_has_a_name():
    assert kind_of(stat.S_IFIFO) == "a FIFO"
    assert kind_of(stat.S_IFSOCK) == "a socket"
    assert kind_of(stat.S_IFBLK) == "a block device"
    assert kind_of(stat.S_IFREG) is None and kind_of(stat.S_IFDIR) is None
    assert why(PermissionError(errno.EACCES, "Permission denied")) == "permission denied"
    assert why(OSError(errno.EIO, "Input/output error")) == "Input/output error"


def test_a_root_read_that_fails_is_unreadable_never_absent(tmp_path, monkeypatch):
    root = tmp_path / "memory"
    (root / "sessions").mkdir(parents=True)
    (root / "sessions" / "a.md").write_text("x")
    os.mkfifo(root / "sessions" / "b.md")
    os.symlink(tmp_path, root / "sessions" / "c.md")
    memory = MemoryRoot(root)
    with pytest.raises(Unreadable) as fifo:
        memory.read("sessions/b.md")
    assert (fifo.value.rel, fifo.value.reason) == ("sessions/b.md", "it is a FIFO, not a regular file")
    with pytest.raises(OutsideRoot) as out:
        memory.read("sessions/c.md")
    assert str(out.value) == "refusing sessions/c.md: it resolves outside the memory root (symlink?)"
    real_open = regular.os.open

    def failing(path, flags, *args, **kw):
        """os.open failing with EIO for sessions/a.md."""
        if str(path).endswith("a.md"):
            raise OSError(errno.EIO, os.strerror(errno.EIO), path)
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", failing)
    with pytest.raises(Unreadable, match=f"cannot read sessions/a.md: {os.strerror(errno.EIO)}"):
        memory.read("sessions/a.md")
    assert memory.read("sessions/none.md") is None
