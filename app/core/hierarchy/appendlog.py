"""A daily log's append, written as an append: beside OpenClaw and agents that append to today's log without a lock.

A write by rename (a temp file, then a rename over the log) replaces the file another process is
appending to: a line it appends between memboard's last look and the rename goes into the old file
and is lost. A daily log is append-only, so memboard appends too: under the workspace's lock it
reads the log, renders the append by the seed's rule (daily.appended), and writes only the new bytes
with O_APPEND when the file still has the length it read (else it reads again). A line another writer
appends at the same moment lands before or after memboard's block, never instead of it; a new log is
created exclusively (O_EXCL). The write is verified by reading the log back. The dry run and its patch
are the places engine's, as for every other write (the patch's bytes are the same).
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import MemboardError
from ..files import lock
from . import daily

ROUNDS = 50


def _write_all(fd: int, data: bytes, start: int, rel: str) -> None:
    """Write every byte of data to fd (which held start bytes), then flush it to the disk; when that fails (a
    full disk), cut the bytes written off again, so that no half block is left for the next appender to
    write after, unless another writer appended behind them (then they stay: cutting would lose its line)."""
    view = memoryview(data)
    written = 0
    try:
        while view:
            n = os.write(fd, view)
            written += n
            view = view[n:]
        os.fsync(fd)
    except OSError as e:
        if os.fstat(fd).st_size == start + written:
            os.ftruncate(fd, start)
        raise MemboardError(f"cannot append to {rel} ({e.strerror}); nothing written") from e


def append_log(place: Any, text: str, date: str) -> str | None:
    """Append text to the place's memory/<date>.md; what was done in words (None: nothing to change)."""
    rel = daily.log_path(date)
    path = place.abs(rel)
    with lock.locked(place):
        for _ in range(ROUNDS):
            try:
                with open(path, "rb") as f:
                    before: bytes | None = f.read()
            except FileNotFoundError:
                before = None
            after = daily.appended(before, text, date)
            if after is None:
                return None
            if before is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                try:
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
                except FileExistsError:
                    continue  # another writer made it first: append to theirs
                try:
                    _write_all(fd, after, 0, rel)
                except MemboardError:
                    if not os.fstat(fd).st_size:
                        path.unlink()
                    raise
                finally:
                    os.close(fd)
                done = f"created {rel}"
            else:
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
                try:
                    if os.fstat(fd).st_size != len(before):
                        continue  # it grew since the read: render the append on what it holds now
                    _write_all(fd, after[len(before) :], len(before), rel)
                finally:
                    os.close(fd)
                done = f"appended to {rel}"
            with open(path, "rb") as f:
                now = f.read()
            if after[len(before or b"") :] not in now:
                raise MemboardError(f"{rel} does not hold the appended text; check it by hand")
            return done
    raise MemboardError(f"{rel} kept changing while memboard appended to it; nothing written")
