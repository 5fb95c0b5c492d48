"""Settled reads: a file caught mid-save never becomes the base of a plan.

An editor or sync client that saves a file the plain way (truncate, then write, perhaps in
chunks with pauses) leaves it empty or cut off for a moment. Every read therefore notes the
file's signature (device, inode, size, mtime_ns) around it, and a read is *settled* when the
file did not change while it was read and has not changed for the settle window: memboard
wrote or saw these very bytes settled before (recorded per machine in local state by
`KnownFiles`, so memboard never waits on its own writes), or the file's mtime is older than
the window and, next to the bytes the plan read before, it is still whole (same header, still
ending at a line end, no untouched row gone). "Older" is judged on the clock of the file system
that stamped the mtime, not on this process's (fsclock.py): where that clock cannot be had, no
file is settled by its age. `MemoryRoot.wait_settled` watches a file that is not settled until
it is (unchanged for a window on this process's monotonic clock counts too, whatever the mtime
says), within a bounded wait (`Budget`).
"""

from __future__ import annotations

import os
import re
import time
import zlib
from io import BufferedReader
from pathlib import Path
from typing import NamedTuple

from .. import config
from ..errors import MemboardError
from ..formats.layout import INDEX
from . import fsclock
from .regular import open_regular

Signature = tuple[int, int, int, int]
SETTLE_WINDOW = 0.5  # seconds a file must stay unchanged before memboard builds on it (config `settle_seconds`)
SETTLE_ENV = "MEMBOARD_SETTLE_SECONDS"
KNOWN_LIMIT = 64  # file versions kept in a root's record of settled files (only recent ones matter)
VERSIONS_KEPT = 8  # of them, at most this many versions of one file
COMPACT_AT = 8 * 1024  # bytes of appended record lines before the record is rewritten with the newest only
ROW_RE = re.compile(rb"^[ \t]*\|[ \t]*(\d{4}-\d{2}-\d{2}-\d{4}-[^|\s]+)[^\n]*", re.M)
HEADER_RE = re.compile(rb"^[ \t]*\|[^\n]*Session ID[^\n]*\n", re.M)


CHUNK = 256 * 1024  # bytes read at a time when a file is compared with the bytes it should hold
AGED_NS = 2_000_000_000  # a file read this long after its last change: only a new change can give it a new mtime


def aged_read(seen: Seen, fs_at: int | None) -> bool:
    """Whether the file read had not changed for AGED_NS when it was read: any later save then gives it
    another mtime (two seconds is coarser than every filesystem's mtime clock, FAT's included), so
    an unchanged signature (device, inode, size, mtime) means unchanged bytes, without reading them.

    fs_at: when it was read, on its file system's clock (MemoryRoot.fs_time); None, where that clock is not
    known, is never aged: this process's own clock may run far ahead of the one that stamped the file."""
    return seen.sig is not None and fs_at is not None and fs_at - seen.sig[3] >= AGED_NS


def signature(st: os.stat_result) -> Signature:
    """A file's identity and version: (device, inode, size, mtime_ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Seen(NamedTuple):
    """One read of a file: its bytes (None when absent), its signature and the time of the read (this process's
    clock: see MemoryRoot.fs_time for the file system's).

    A typed NamedTuple, not a dataclass: `memboard search` reads through this module, and importing
    `dataclasses` would cost it about 5 ms of its budget (twice Python's own start).
    """

    data: bytes | None
    sig: Signature | None
    steady: bool  # the file did not change while it was read
    at_ns: int


def read_seen(path: str | os.PathLike[str], expect: bytes | None = None) -> Seen:
    """Read a file with its signature before and after the read (FileNotFoundError becomes an absent Seen; a FIFO,
    socket or device is never opened: regular.NotRegular).

    expect: bytes the file is thought to hold (a plan's, a write's). The file is compared with them
    piece by piece as it is read, and when it holds exactly them the Seen's data is expect itself:
    a 20 MB index written or confirmed costs no second 20 MB copy of itself (allocating and filling
    it costs four times the compare). When it differs it is read whole, as without expect.
    """
    at = time.time_ns()
    try:
        if expect is None:  # (the plain read, on the descriptor: organize reads 3,000 snapshots)
            fd, first = open_regular(path)
            try:
                data = _read_all(fd, first.st_size)
                last = os.fstat(fd)
            finally:
                os.close(fd)
        else:
            fd, first = open_regular(path)
            with os.fdopen(fd, "rb") as fh:
                held = _holding(fh, expect) if first.st_size == len(expect) else None
                if held is None and first.st_size == len(expect):
                    fh.seek(0)  # (only after the compare read some of it: every other read starts at 0)
                data = fh.read() if held is None else held
                last = os.fstat(fh.fileno())
    except (FileNotFoundError, NotADirectoryError):
        return Seen(None, None, True, at)
    sig = signature(last)
    return Seen(data, sig, signature(first) == sig and len(data) == last.st_size, at)


def _read_all(fd: int, size: int) -> bytes:
    """Everything from the open file fd's position to its end (size: its size when opened; one byte more is
    asked for at first, so that a file that grew meanwhile is read to its new end too)."""
    pieces: list[bytes] = []
    want = size + 1
    while piece := os.read(fd, want):
        pieces.append(piece)
        want = CHUNK
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def _holding(fh: BufferedReader, expect: bytes) -> bytes | None:
    """expect when the open file fh holds exactly those bytes from its start to its end, else None."""
    buffer = bytearray(min(len(expect), CHUNK) or 1)
    piece = memoryview(buffer)
    pos = 0
    while True:
        n = fh.readinto(buffer)
        if not n:
            return expect if pos == len(expect) else None
        if not expect.startswith(piece[:n] if n < len(buffer) else buffer, pos):
            return None
        pos += n


def row_ids(data: bytes) -> set[bytes]:
    """Session IDs of table rows, by a cheap scan of first cells (no parse)."""
    return set(ROW_RE.findall(data))


def touched_ids(before: bytes | None, after: bytes | None) -> set[bytes]:
    """IDs of the rows a change rewrites or removes (their line in before is not a line of after); none
    when there is no change (after None)."""
    if not before or after is None:
        return set()
    kept = set(after.split(b"\n"))
    return {m.group(1) for m in ROW_RE.finditer(before) if m.group(0) not in kept}


def whole(rel: str, data: bytes, reference: bytes | None, planned: bytes | None = None) -> bool:
    """Whether data looks complete next to reference (the bytes a plan read; planned: what it writes instead).

    Still ending at a line end when reference did; for index.md also the same header line and every
    row reference had, except the rows the plan itself rewrites.
    """
    if reference is None or data == reference:
        return True
    if reference.endswith(b"\n") and not data.endswith(b"\n"):
        return False
    if rel != INDEX:
        return True
    head = HEADER_RE.search(reference)
    if head is not None and head.group(0) not in data:
        return False
    lost = row_ids(reference) - row_ids(data)
    return not lost or not (lost - touched_ids(reference, planned))


class NotSettled(MemboardError):
    """A file kept changing, or stayed cut off, for longer than the wait allows."""

    def __init__(self, what: str):
        """what: the reason without the closing `nothing written`."""
        super().__init__(f"{what}; nothing written, try again once it is saved", says_written=True)
        self.what = what


class Budget:
    """The seconds an operation may still spend waiting for files to settle."""

    def __init__(self, seconds: float):
        """A budget of seconds (at least 0)."""
        self.total = self.left = max(0.0, seconds)

    def spend(self, seconds: float) -> None:
        """Take seconds off what is left."""
        self.left = max(0.0, self.left - seconds)


class KnownFiles:
    """Signatures (and CRC-32) of file versions memboard wrote or saw settled, kept per machine in local state.

    A read whose signature and checksum match needs no settle wait: those bytes are whole. So a
    command run right after another memboard write, or a hook after a hook, never waits. The
    last few versions of each file are kept: under contention a plan may read a version that
    another memboard process has already replaced.
    """

    def __init__(self, path: Path):
        """The record at path (read on first use; a missing or broken record is empty)."""
        self.path = path
        self.entries: dict[tuple[str, Signature], tuple[int, int]] = {}  # (rel, signature) -> (crc32, recorded_ns)
        self.added: dict[tuple[str, Signature], tuple[int, int]] = {}
        self._stamp: Signature | None = None  # the record file's signature when read to its end
        self._file: tuple[int, ...] = ()  # its device and inode
        self._read_to = 0  # bytes of it read so far

    def _load(self) -> None:
        """Read what changed in the record on disk (another memboard process appended to it or compacted it).

        Appends are read from where the last read ended; a replaced (compacted) record is read whole.
        """
        try:
            now = signature(os.stat(self.path))
        except OSError:
            return
        if now == self._stamp:
            return
        start = self._read_to if self._file == now[:2] and self._read_to <= now[2] else 0
        try:
            with open(self.path, "rb") as fh:
                fh.seek(start)
                data = fh.read()
        except OSError:
            return
        complete = data[: data.rfind(b"\n") + 1]  # a line being appended right now is read next time
        entries = self.entries if start else {}
        for line in complete.decode("utf-8", "surrogateescape").splitlines():
            parts = line.split("\t")
            if len(parts) == 7 and all(p.isdigit() for p in parts[1:]):
                n = [int(p) for p in parts[1:]]
                entries[(parts[0], (n[0], n[1], n[2], n[3]))] = (n[4], n[5])
        if not start:
            entries.update(self.added)
        self.entries, self._read_to, self._file = entries, start + len(complete), now[:2]
        self._stamp = now if self._read_to == now[2] else None

    def matches(self, rel: str, seen: Seen) -> bool:
        """Whether memboard wrote or saw exactly this version of rel settled."""
        if seen.data is None or seen.sig is None:
            return False
        key = (rel, seen.sig)
        if key not in self.entries:
            self._load()
        entry = self.entries.get(key)
        return entry is not None and entry[0] == zlib.crc32(seen.data)

    def add(self, rel: str, sig: Signature, data: bytes) -> None:
        """Note that this version of rel is whole (memboard saw it settled); written out by `save`."""
        entry = (zlib.crc32(data), time.time_ns())
        self.entries[(rel, sig)] = self.added[(rel, sig)] = entry

    def note_appended(self, rel: str, sig: Signature, before: bytes, added: bytes) -> None:
        """note for a version that is before + added (an append), without joining the two."""
        entry = (zlib.crc32(added, zlib.crc32(before)), time.time_ns())
        self.entries[(rel, sig)] = self.added[(rel, sig)] = entry
        self.save()

    def note_pieces(self, rel: str, sig: Signature, pieces: tuple[bytes | memoryview, ...]) -> None:
        """note for a version whose bytes are pieces, one after the other, without joining them."""
        crc = 0
        for piece in pieces:
            crc = zlib.crc32(piece, crc)
        self.entries[(rel, sig)] = self.added[(rel, sig)] = (crc, time.time_ns())
        self.save()

    def note(self, rel: str, sig: Signature, data: bytes) -> None:
        """Add and write out at once: called right before memboard's rename makes this version visible, so
        no reader ever finds memboard's own fresh file unrecorded."""
        self.add(rel, sig, data)
        self.save()

    def save(self) -> None:
        """Append the versions noted since the last save (called under the root's lock, so appends and the
        occasional compaction never race); a record that cannot be written only costs waits."""
        if not self.added:
            return
        lines = "".join(_record_line(rel, sig, entry) for (rel, sig), entry in self.added.items())
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, lines.encode("utf-8", "surrogateescape"))
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
        except OSError:
            return
        self.added.clear()
        if size > COMPACT_AT:
            self._compact()

    def _compact(self) -> None:
        """Rewrite the record with the newest versions only (a temp file renamed over it)."""
        self._load()
        kept: list[str] = []
        per_file: dict[str, int] = {}
        for (rel, sig), entry in sorted(self.entries.items(), key=lambda kv: kv[1][1], reverse=True):
            per_file[rel] = per_file.get(rel, 0) + 1
            if per_file[rel] <= VERSIONS_KEPT and len(kept) < KNOWN_LIMIT:
                kept.append(_record_line(rel, sig, entry))
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text("".join(kept), encoding="utf-8", errors="surrogateescape")
            os.replace(tmp, self.path)
        except OSError:
            try:
                tmp.unlink()
            except OSError:
                pass


def _record_line(rel: str, sig: Signature, entry: tuple[int, int]) -> str:
    """One line of the settled record (paths with tabs or newlines are not recorded)."""
    if "\t" in rel or "\n" in rel:
        return ""
    return f"{rel}\t{sig[0]}\t{sig[1]}\t{sig[2]}\t{sig[3]}\t{entry[0]}\t{entry[1]}\n"


def next_look(watch: dict[str, tuple[Seen, float]], done: dict[str, Seen], window: float, left: float) -> float:
    """Seconds until the first watched file could count as settled (by its mtime, or by memboard's own watch)."""
    now, wall = time.monotonic(), time.time_ns()
    soonest = left
    for rel, (seen, since) in watch.items():
        if rel in done:
            continue
        by_watch = since + window - now  # at most a window away: a skewed mtime never makes it longer
        offset = fsclock.cached(seen.sig[0]) if seen.sig else None  # (its file system's clock, see fsclock)
        by_mtime = (seen.sig[3] - wall - offset) / 1e9 + window if seen.sig and offset is not None else by_watch
        soonest = min(soonest, by_watch, by_mtime if by_mtime > 0 else by_watch)
    return min(max(soonest, 0.005), max(left, 0.0)) + 0.001


def settle_seconds() -> float:
    """The settle window: MEMBOARD_SETTLE_SECONDS, config `settle_seconds`, or 0.5 (at most config.MAX_SETTLE)."""
    return min(config.seconds_setting(SETTLE_ENV, "settle_seconds", SETTLE_WINDOW), config.MAX_SETTLE)
