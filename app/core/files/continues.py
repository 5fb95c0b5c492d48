"""What every snapshot lists under Continues From, with a per-machine record that spares reading them all.

Organize keeps each row that a snapshot lists under Continues From (its fallback protection):
at 100k rows that is 3,000 snapshots read and scanned on every pass. A snapshot's answer (the
IDs it lists, and the session it speaks for: a sync tool's conflict copy speaks for its
original) depends on its bytes alone, so it is recorded in local state,
`<state>/continues/<key>.tsv` (keyed like the lock by the root's real path, never in the root),
against the file's stamp: its name, device, inode, size, mtime_ns and ctime_ns.

- A recorded answer is used only while the file shows that very stamp.
- Only answers of files that had not changed for AGED_NS when they were read are recorded, and
  an entry is trusted only when it says so (git's racy rule): a file changed within its clock's
  resolution of a read may change again without a new stamp, while every change after that
  gives it a new ctime (a write, and an mtime set back with utime, both set it to now). Any
  other file is read and scanned, as it always was. The time of the read is taken on the clock
  that stamps the file (fsclock.py), never on this process's, which may run ahead of it: where
  that clock cannot be had nothing is recorded, and a file stamped in that clock's future is never
  aged.
- The record is derived data: a missing, torn, corrupt, older or unwritable record only costs
  the reads. It is written when a plan built on it is applied, or found to change nothing
  (see `premise`), never by a preview (`--dry-run`, the board's preview): those write nothing
  anywhere.
- The same premise asks, under the lock right before the plan is written, whether every
  snapshot still has the stamp the plan saw (and, for one read too soon after a change, the
  same bytes): a snapshot written or added between plan and apply sends the plan back to be
  built again, so no row is deleted or marked stale on a Continues From that no longer holds.
- A snapshot that cannot be read (permission denied, held locked, a placeholder whose download fails, not a
  regular file, a symlink out of the root) lists nothing *known*: its name and the reason go to
  `Snapshots.unreadable`, never an empty answer, and organize keeps every row it might protect. It is
  never recorded, so it is read again on the next look.
- On Windows a file's ctime is its creation time: an in-place rewrite that sets the mtime back
  keeps the stamp there, so no record is kept or used, and the premise compares every
  snapshot's bytes.
"""

from __future__ import annotations

import os
import pickle
import signal
import stat
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import MemboardError, Unreadable
from ..formats.layout import SESSIONS
from ..formats.snapshot import lists_an_id
from ..formats.sources import continues_from
from ..plan import Premise
from . import statepaths
from .copies import copied_session
from .fs import atomic_write
from .root import MemoryRoot
from .settle import AGED_NS

FOLDER = "continues"
# the record's first line; a new number when what an answer holds, or how it is read, changes (an older
# record is then read as empty)
HEADER = b"memboard continues-from record 2\n"  # (2: reads timed on the file system's clock; 1's on the process's)
Stamp = tuple[int, int, int, int, int]  # (device, inode, size, mtime_ns, ctime_ns)
Answer = tuple[str, tuple[str, ...]]  # (the session the snapshot speaks for, the IDs it lists under Continues From)
Entry = tuple[Stamp, int, Answer]  # (the file's stamp, when it was read (ns, on its file system's clock), its answer)
UNSAFE = ("\t", "\n", "\r", ",")  # what a recorded name or ID never holds (the record's separators)
# where a file's ctime is its last change (POSIX); on Windows it is its creation time, so a rewrite that keeps
# the size and sets the mtime back would keep the stamp: there the record is neither used nor written, and
# the premise compares every snapshot's bytes
STAMPS_TELL = os.name != "nt"


def record_path(root: MemoryRoot) -> Path:
    """Where the record of root's snapshots lives (local state, keyed like the lock)."""
    return statepaths.continues_record(root.real)


def stamp_of(st: os.stat_result) -> Stamp:
    """A file's stamp: which file it is and the version it holds, as far as its metadata tell."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def aged(stamp: Stamp, at_ns: int) -> bool:
    """Whether a file with this stamp, read at at_ns (on the clock of its file system), had not changed for AGED_NS
    (its last change, content or metadata, lies that far before the read): only then does an unchanged stamp mean
    unchanged bytes."""
    return at_ns - max(stamp[3], stamp[4]) >= AGED_NS


def answer_of(stem: str, data: bytes | None) -> Answer:
    """What the snapshot `sessions/<stem>.md` holding data lists under Continues From, and whom it speaks for."""
    if data is None or not lists_an_id(data):  # (the cheap pre-check: most say `- None`)
        return stem, ()
    return copied_session(stem, data) or stem, tuple(continues_from(data))


def load(path: Path) -> dict[str, Entry]:
    """The trusted entries of a record file (none when it is missing, unreadable or of another version)."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(HEADER):
        return {}
    out: dict[str, Entry] = {}
    text = data[len(HEADER) : data.rfind(b"\n") + 1].decode("utf-8", "surrogateescape")  # a torn last line is no entry
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 9 or not all(p.isdigit() for p in parts[1:7]):
            continue
        n = [int(p) for p in parts[1:7]]
        stamp: Stamp = (n[0], n[1], n[2], n[3], n[4])
        if aged(stamp, n[5]):  # (an entry from a racy read is never trusted, whoever wrote it)
            out[parts[0]] = (stamp, n[5], (parts[7] or parts[0][:-3], tuple(parts[8].split(",")) if parts[8] else ()))
    return out


def recorded(root: MemoryRoot) -> dict[str, Entry]:
    """The trusted entries of root's record (none where no record is kept: see STAMPS_TELL)."""
    return load(record_path(root)) if root.on_disk and STAMPS_TELL else {}


def _line(name: str, entry: Entry) -> str:
    """One line of the record ("" for what it cannot hold)."""
    stamp, at, (owner, sources) = entry
    if any(ch in item for item in (name, owner, *sources) for ch in UNSAFE):
        return ""
    fields = [name, *map(str, stamp), str(at), "" if owner == name[:-3] else owner, ",".join(sources)]
    return "\t".join(fields) + "\n"


@dataclass
class Snapshots:
    """One look at sessions/: each snapshot's answer, and what the plan built on it must find again."""

    names: list[str]  # the `.md` names in sessions/, in order
    answers: dict[str, Answer]
    stamps: dict[str, Stamp | None]  # each name's stamp when it was looked at (None: not a file memboard reads)
    fresh: dict[str, int | None] = field(default_factory=dict)  # read too soon after a change: CRC-32 of its bytes
    record: dict[str, Entry] = field(default_factory=dict)  # the record as it should now be
    loaded: dict[str, Entry] = field(default_factory=dict)  # the record as it was read
    unreadable: dict[str, str] = field(default_factory=dict)  # names that could not be read -> why, in words

    def holds(self, root: MemoryRoot) -> bool:
        """Whether sessions/ still holds these snapshots: the same names, stamps and (for fresh ones) bytes."""
        with root.steady():
            if snapshot_names(root) != self.names:
                return False
            folder = str(root.abs(SESSIONS))
            for name in self.names:
                if _placed(root, name, folder)[0] != self.stamps[name]:
                    return False
                if name in self.fresh and _crc(root, name) != self.fresh[name]:
                    return False
        return True

    def keep(self, root: MemoryRoot) -> None:
        """Write the record as this look left it, when that changes it (a failure only costs reads next time)."""
        if self.record == self.loaded:
            return
        data = HEADER + "".join(_line(name, entry) for name, entry in self.record.items()).encode(
            "utf-8", "surrogateescape"
        )
        try:
            atomic_write(record_path(root), data)
        except OSError:
            pass


def _placed(root: MemoryRoot, name: str, folder: str) -> tuple[Stamp | None, str | None]:
    """The stamp of sessions/<name> (None when it is no file memboard may read: gone, or outside the root), and
    its place when that is folder plus name (None: go through root.abs, as any read).

    folder is sessions/ as root.abs resolved it: a name that is no link there is a file inside the root,
    and its lstat is its stamp; a link, or a name root.abs would refuse, goes through root.abs like a read.
    """
    try:
        if ":" not in name and "\\" not in name:
            at = os.path.join(folder, name)
            st = os.lstat(at)
            if not stat.S_ISLNK(st.st_mode):
                return stamp_of(st), at
        return stamp_of(os.stat(root.abs(f"{SESSIONS}/{name}"))), None
    except (OSError, MemboardError):  # gone, or a name or link root.abs refuses: the read says which
        return None, None


def _crc(root: MemoryRoot, name: str) -> int | None:
    """CRC-32 of sessions/<name> read now (None when it cannot be read)."""
    try:
        data = root.read_seen(f"{SESSIONS}/{name}").data
    except MemboardError:
        return None
    return None if data is None else zlib.crc32(data)


def snapshot_names(root: MemoryRoot) -> list[str]:
    """The `.md` names in sessions/, in order."""
    return [n for n in root.listdir(SESSIONS) if n.endswith(".md")]


def look(root: MemoryRoot, loaded: dict[str, Entry] | None = None, names: list[str] | None = None) -> Snapshots:
    """Every snapshot's answer: from the record where the file still has the stamp recorded, else read
    (through root.read, as every plan reads) and noted for the record when it was read long after its last change
    (loaded: the record, names: sessions/'s snapshots, when read already)."""
    with root.steady():  # (each folder resolved once: 3,000 lstats, not 3,000 walks of the path)
        if names is None:
            names = snapshot_names(root)
        if loaded is None:
            loaded = recorded(root)
        out = Snapshots(names, {}, {}, loaded=loaded)
        folder = str(root.abs(SESSIONS))
        for name in names:
            _look_at(root, name, folder, out)
    return out


BESIDE_AT = 500  # snapshots from which a look is worth a child process (see Beside)


class Beside:
    """look(root), begun in a child process where the caller's own work goes on meanwhile (an organize pass
    parses 100k rows while 3,000 snapshots are read). Calling it waits for the child's answer and takes its
    reads as this process's own (MemoryRoot.adopt), so a plan built on them is checked as if they were made
    here; leaving the block ends a child whose answer was not asked for.

    Only a single-threaded process on a system with fork begins a child (forking a process with threads can
    leave the child holding another thread's lock), for a root with BESIDE_AT snapshots or more that the
    record does not answer for; otherwise, and when the child fails in any way, calling it looks here, as
    look does."""

    def __init__(self, root: MemoryRoot, apart: bool = True):
        """Begin the look (in a child when apart, and one is worth it and safe; else it is made when called)."""
        self.root = root
        self.pid = 0
        self.readable = -1
        self.loaded: dict[str, Entry] | None = None
        if not apart or not hasattr(os, "fork") or not root.on_disk or threading.active_count() > 1:
            return
        loaded = self.loaded = recorded(root)
        names = snapshot_names(root)
        if sum(1 for name in names if name not in loaded) < BESIDE_AT:
            return  # (few snapshots, or a record that answers for most of them: a look here is quick)
        try:
            readable, writable = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:
            os.close(readable)
            os.close(writable)
            return
        if pid == 0:  # the child: look, hand the answer over, and leave without the parent's cleanup
            code = 1
            try:
                os.close(readable)
                with root.tracking() as reads:
                    seen = look(root, loaded, names)  # (listed just now, before the fork)
                answer = memoryview(pickle.dumps((seen, reads), pickle.HIGHEST_PROTOCOL))
                while answer:
                    answer = answer[os.write(writable, answer) :]
                code = 0
            finally:
                os._exit(code)
        os.close(writable)
        self.pid, self.readable = pid, readable

    def __enter__(self) -> Beside:
        """The look under way."""
        return self

    def __exit__(self, *exc: object) -> None:
        """End the child if its answer was not taken (the caller gave up: a refusal, an interrupt)."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:  # pragma: no cover - gone already
                pass
            self._reap()

    def _reap(self) -> int:
        """Close the pipe and wait for the child; its exit status."""
        os.close(self.readable)
        pid, self.pid = self.pid, 0
        return os.waitpid(pid, 0)[1]

    def __call__(self) -> Snapshots:
        """The snapshots' answers: the child's, or a look here."""
        if self.pid:
            try:
                chunks = []
                while chunk := os.read(self.readable, 1 << 20):
                    chunks.append(chunk)
                if self._reap() == 0 and chunks:
                    seen, reads = pickle.loads(b"".join(chunks))
                    self.root.adopt(reads)
                    return seen  # type: ignore[no-any-return]
            except Exception:  # pragma: no cover - a child that failed: look here
                if self.pid:
                    self._reap()
        return look(self.root, self.loaded)


def _look_at(root: MemoryRoot, name: str, folder: str, out: Snapshots) -> None:
    """Note the answer and stamp of sessions/<name> in out (and its record entry, or its bytes' CRC-32)."""
    stamp, at = _placed(root, name, folder) if root.on_disk else (None, None)
    out.stamps[name] = stamp
    entry = out.loaded.get(name)
    if stamp is not None and entry is not None and entry[0] == stamp:
        out.answers[name] = entry[2]
        out.record[name] = entry
        return
    rel = f"{SESSIONS}/{name}"
    try:
        seen = root.noted_read(rel, at) if root.on_disk else None
        data = seen.data if seen is not None else root.read(rel)
    except Unreadable as exc:  # (a symlink out of the root too): it may list anything, see organize
        seen, data = None, None
        out.unreadable[name] = exc.reason
    except MemboardError as exc:  # a folder holds no snapshot; any other refusal (a name memboard never reads)
        seen, data = None, None
        if not os.path.isdir(at or os.path.join(folder, name)):
            out.unreadable[name] = str(exc)
    answer = out.answers[name] = answer_of(name[:-3], data)
    # recorded only when this read is of the file as stamped, and it had not changed for AGED_NS then (on the clock
    # that stamped it)
    read_at = root.fs_time(rel, seen) if STAMPS_TELL and seen is not None else None
    if (
        read_at is not None
        and seen is not None
        and stamp is not None
        and data is not None
        and seen.steady
        and seen.sig == stamp[:4]
        and aged(stamp, read_at)
    ):
        out.record[name] = (stamp, read_at, answer)
        return
    out.fresh[name] = None if data is None else zlib.crc32(data)


def premise(seen: Snapshots) -> Premise:
    """The premise of a plan built on this look at sessions/ (see the module's notes)."""
    files = tuple(f"{SESSIONS}/{name}" for name in seen.names)
    return Premise("the snapshots in sessions/ are as the plan read them", seen.holds, seen.keep, files)
