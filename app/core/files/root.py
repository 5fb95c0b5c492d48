"""A memory root on disk: safe paths for Session IDs, a reader of its files, and settled reads.

An editor or sync client that saves a file the plain way (truncate, then write, perhaps in
chunks with pauses) leaves it empty or cut off for a moment. Such a read must never become
the base of a plan. Every read therefore notes the file's signature (device, inode, size,
mtime_ns) around it, and a read is *settled* when the file did not change while it was read
and has not changed for the settle window: memboard wrote or saw these very bytes settled
before (recorded per machine in local state, so memboard never waits on its own writes), or
the file's mtime is older than the window and, next to the bytes the plan read before, it is
still whole (same header, still ending at a line end, no untouched row gone). A file that is
not settled is watched until it is (`MemoryRoot.wait_settled`), within a bounded wait.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..errors import MemboardError, UsageError
from ..formats.ids import check_id

INDEX = "index.md"
SESSIONS = "sessions"
ARCHIVE = "archive"
STATE = ".memboard"
NOTES = "notes"
TEMP_SUFFIX = ".memboard-tmp"  # a write's temp file, `.<name>.<random>.memboard-tmp`, until its rename
MARKERS = (INDEX, SESSIONS, ARCHIVE, NOTES, STATE)  # what a memory root holds once it is in use
OS_LITTER = {".DS_Store", "Thumbs.db", "desktop.ini", ".localized"}  # files an OS drops in any folder
START_HINT = (
    "to start a memory root, pass a new empty folder (for example `mkdir ~/memory` then "
    "`memboard register --root ~/memory`, or `memboard config set root ~/memory`)"
)


def session_path(session_id: str) -> str:
    """Relative path of a session's snapshot (the ID is validated first)."""
    return f"{SESSIONS}/{check_id(session_id)}.md"


def archive_dir(session_id: str) -> str:
    """Relative path of a session's archive folder."""
    return f"{ARCHIVE}/{check_id(session_id)}"


def archive_index_path(session_id: str) -> str:
    """Relative path of an archived row's metadata file."""
    return f"{archive_dir(session_id)}/index.md"


def archive_session_path(session_id: str) -> str:
    """Relative path of an archived snapshot."""
    return f"{archive_dir(session_id)}/session.md"


def _inside_wiki(real: Path) -> bool:
    """Whether a root lies in the Wiki of the seed's layout (a `wiki` folder beside `raw/`,
    or one holding the Wiki's index.md or log.md); a folder merely named wiki elsewhere is fine."""
    for folder in (real, *real.parents):
        if folder.name.casefold() != "wiki":
            continue
        if (folder.parent / "raw").is_dir() or (folder / "log.md").is_file() or (folder / "index.md").is_file():
            return True
    return False


def root_key(real: Path) -> str:
    """The key of a root's local files (its lock, its state folder): a hash of its real path."""
    return hashlib.sha256(str(real).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def not_a_memory_root(real: Path) -> str | None:
    """Why the folder real cannot be taken as a memory root for writing, or None when it can.

    A root in use holds one of MARKERS; a new root is an empty folder. The filesystem root, the
    home folder and any other folder that already holds files but none of MARKERS are someone
    else's: memboard would scatter index.md, sessions/ and archive/ among them.
    """
    if real == real.parent:
        return "it is the filesystem root"
    try:
        if real == Path.home().resolve():
            return "it is your home folder"
    except (RuntimeError, OSError):
        pass
    if any((real / marker).exists() for marker in MARKERS):
        return None
    try:
        with os.scandir(real) as entries:
            other = next((e.name for e in entries if e.name not in OS_LITTER), None)
    except OSError:
        return None  # unreadable: the write itself will say why
    if other is None:
        return None
    return f"it holds other files (such as {other!r}) and none of index.md, sessions/, archive/, notes/, .memboard/"


Signature = tuple[int, int, int, int]
SETTLE_WINDOW = 0.5  # seconds a file must stay unchanged before memboard builds on it (config `settle_seconds`)
KNOWN_LIMIT = 64  # file versions kept in a root's record of settled files (only recent ones matter)
VERSIONS_KEPT = 8  # of them, at most this many versions of one file
COMPACT_AT = 8 * 1024  # bytes of appended record lines before the record is rewritten with the newest only
ROW_RE = re.compile(rb"^[ \t]*\|[ \t]*(\d{4}-\d{2}-\d{2}-\d{4}-[^|\s]+)[^\n]*", re.M)
HEADER_RE = re.compile(rb"^[ \t]*\|[^\n]*Session ID[^\n]*\n", re.M)


def signature(st: os.stat_result) -> Signature:
    """A file's identity and version: (device, inode, size, mtime_ns)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass(frozen=True)
class Seen:
    """One read of a file: its bytes (None when absent), its signature and the wall-clock time of the read."""

    data: bytes | None
    sig: Signature | None
    steady: bool  # the file did not change while it was read
    at_ns: int


def read_seen(path: Path) -> Seen:
    """Read a file with its signature before and after the read (FileNotFoundError becomes an absent Seen)."""
    at = time.time_ns()
    try:
        with open(path, "rb") as fh:
            first = os.fstat(fh.fileno())
            data = fh.read()
            last = os.fstat(fh.fileno())
    except (FileNotFoundError, NotADirectoryError):
        return Seen(None, None, True, at)
    sig = signature(last)
    return Seen(data, sig, signature(first) == sig and len(data) == last.st_size, at)


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
        super().__init__(f"{what}; nothing written, try again once it is saved")
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


def _next_look(watch: dict[str, tuple[Seen, float]], done: dict[str, Seen], window: float, left: float) -> float:
    """Seconds until the first watched file could count as settled (by its mtime, or by memboard's own watch)."""
    now, wall = time.monotonic(), time.time_ns()
    soonest = left
    for rel, (seen, since) in watch.items():
        if rel in done:
            continue
        by_watch = since + window - now  # at most a window away: a skewed mtime never makes it longer
        by_mtime = (seen.sig[3] - wall) / 1e9 + window if seen.sig else by_watch
        soonest = min(soonest, by_watch, by_mtime if by_mtime > 0 else by_watch)
    return min(max(soonest, 0.005), max(left, 0.0)) + 0.001


class MemoryRoot:
    """The memory folder: resolves relative paths inside it, reads files, and tells settled reads apart."""

    def __init__(self, path: str | os.PathLike):
        """Wrap a root folder (it must exist and be a folder)."""
        self.path = Path(path)
        if not self.path.exists():
            raise UsageError(f"memory root {self.path} does not exist")
        if not self.path.is_dir():
            raise UsageError(f"memory root {self.path} is not a folder")
        self.real = self.path.resolve()
        if _inside_wiki(self.real):
            raise UsageError(f"memory root {self.path} is inside a wiki/ folder; Agent Memory lives beside wiki/, not in it")
        self.window = SETTLE_WINDOW
        self._local = threading.local()  # per thread: the reads a plan build made, pinned bytes for verification
        self._known: KnownFiles | None = None

    def state_key(self) -> str:
        """A short key for this root's files in local state (lock, settled record), from its real path."""
        return root_key(self.real)

    @property
    def known(self) -> KnownFiles:
        """The record of files memboard wrote or saw settled in this root (local state, per machine)."""
        if self._known is None:
            from ..config import state_dir

            self._known = KnownFiles(state_dir() / "settled" / f"{self.state_key()}.tsv")
        return self._known

    def require_memory_root(self) -> None:
        """Refuse (one line, nothing written) to write into a folder that is not a memory root."""
        reason = not_a_memory_root(self.real)
        if reason:
            raise UsageError(f"{self.path} is not a memory root: {reason}; nothing written; {START_HINT}")

    def abs(self, rel: str) -> Path:
        """Absolute path of rel, refusing anything that would leave the root."""
        if not rel or rel.startswith(("/", "\\")) or ".." in rel.replace("\\", "/").split("/") or ":" in rel or "\x00" in rel:
            raise UsageError(f"refusing path {rel!r}: it would leave the memory root")
        path = self.path / rel
        try:
            resolved = path.resolve()
        except OSError as exc:  # pragma: no cover - loops on odd filesystems
            raise MemboardError(f"cannot resolve {rel}: {exc}") from None
        if resolved != self.real and self.real not in resolved.parents:
            raise MemboardError(f"refusing {rel}: it resolves outside the memory root (symlink?)")
        return path

    def read(self, rel: str) -> bytes | None:
        """File bytes, or None when absent; a folder where a file belongs is an error.

        While a plan is built (`tracking`) each read is noted with its signature; while a write
        is verified (`pinned`) the settled bytes of the written files are served.
        """
        pinned = getattr(self._local, "pinned", None)
        if pinned is not None and rel in pinned:
            return pinned[rel]
        seen = self.read_seen(rel)
        tracked = getattr(self._local, "tracked", None)
        if tracked is not None:
            tracked[rel] = seen
        return seen.data

    @contextmanager
    def tracking(self) -> Iterator[dict[str, Seen]]:
        """Note every read of this thread (the last per file) in the yielded dict."""
        previous = getattr(self._local, "tracked", None)
        reads: dict[str, Seen] = {}
        self._local.tracked = reads
        try:
            yield reads
        finally:
            self._local.tracked = previous

    @contextmanager
    def pinned(self, files: dict[str, bytes | None]) -> Iterator[None]:
        """Serve these bytes for these files to this thread's reads (verification of one settled state)."""
        previous = getattr(self._local, "pinned", None)
        self._local.pinned = files
        try:
            yield
        finally:
            self._local.pinned = previous

    def read_seen(self, rel: str) -> Seen:
        """A read of rel with its signature; a folder where a file belongs is an error."""
        path = self.abs(rel)
        try:
            return read_seen(path)
        except IsADirectoryError:
            raise MemboardError(f"{rel} is a folder, expected a file") from None
        except PermissionError:
            raise MemboardError(f"cannot read {rel}: permission denied") from None
        except OSError as exc:
            if path.is_dir():
                raise MemboardError(f"{rel} is a folder, expected a file") from None
            raise MemboardError(f"cannot read {rel}: {exc.strerror or exc}") from None

    def settled(self, rel: str, seen: Seen, reference: bytes | None = None, planned: bytes | None = None) -> bool:
        """Whether a read can be a plan's base without waiting.

        reference is the bytes the plan read before (None: no earlier read), planned what the
        plan writes instead. The file must not have changed while it was read, and either be a
        version memboard wrote or saw settled, or have an mtime older than the window and be
        whole next to reference. An absent file is settled unless the plan read it present.
        """
        if not seen.steady:
            return False
        if seen.sig is None or seen.data is None:
            return reference is None
        if seen.at_ns - seen.sig[3] >= self.window * 1e9 and whole(rel, seen.data, reference, planned):
            return True
        return self.known.matches(rel, seen)

    def wait_settled(self, pending: dict[str, tuple[bytes | None, bytes | None]], budget: Budget) -> dict[str, Seen]:
        """Watch files until each is settled; their settled reads. NotSettled when the budget runs out.

        pending maps each file to (reference, planned) as `settled` takes them. Besides that
        test, a file memboard itself sees unchanged (signature and bytes) for a whole window is
        settled too: that covers mtime clocks that are coarse or skewed, deliberate deletions
        of rows, and files without a final newline.
        """
        start = time.monotonic()
        window = self.window
        watch: dict[str, tuple[Seen, float]] = {}  # rel -> (last read, monotonic time since which it is unchanged)
        done: dict[str, Seen] = {}
        while True:
            for rel, (reference, planned) in pending.items():
                if rel in done:
                    continue
                seen = self.read_seen(rel)
                last = watch.get(rel)
                if last is None or not seen.steady or (seen.sig, seen.data) != (last[0].sig, last[0].data):
                    watch[rel] = (seen, time.monotonic())
                if seen.steady and (time.monotonic() - watch[rel][1] >= window or self.settled(rel, seen, reference, planned)):
                    done[rel] = seen
                    if seen.sig is not None and seen.data is not None:
                        self.known.add(rel, seen.sig, seen.data)
            elapsed = time.monotonic() - start
            if len(done) == len(pending):
                budget.spend(elapsed)
                return done
            if elapsed >= budget.left:
                budget.spend(elapsed)
                names = ", ".join(rel for rel in pending if rel not in done)
                raise NotSettled(f"{names} is still being saved by another program (it kept changing for {budget.total:g}s)")
            time.sleep(_next_look(watch, done, window, budget.left - elapsed))

    def exists(self, rel: str) -> bool:
        """Whether rel exists (file or folder)."""
        return self.abs(rel).exists()

    def listdir(self, rel: str) -> list[str]:
        """Names in a folder of the root (empty when it is absent)."""
        path = self.abs(rel)
        try:
            return sorted(os.listdir(path))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def session_ids_on_disk(self) -> set[str]:
        """IDs that have a snapshot file under sessions/ (a sync tool's conflict copy of one is no session)."""
        from .copies import snapshot_copies

        names = self.listdir(SESSIONS)
        copies = {c.path[len(SESSIONS) + 1 :] for c in snapshot_copies(self, names=names)}
        return {n[:-3] for n in names if n.endswith(".md") and n not in copies}

    def archived_ids(self) -> set[str]:
        """IDs that have a folder under archive/."""
        return set(self.listdir(ARCHIVE))

    def read_only_reason(self) -> str | None:
        """Why memboard cannot write here (a read-only filesystem, a folder it may not change), else None.

        Cheap (a statvfs and a few access checks) and writes nothing: memboard writes each
        file through a temp file in its folder, so the folders must be writable.
        """
        statvfs = getattr(os, "statvfs", None)
        try:
            if statvfs is not None and statvfs(self.path).f_flag & os.ST_RDONLY:
                return "the memory root is on a read-only filesystem"
        except OSError:
            pass
        for rel, name in ((".", "the memory root folder"), (SESSIONS, f"{SESSIONS}/"), (ARCHIVE, f"{ARCHIVE}/")):
            folder = self.path / rel
            if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
                return f"{name} is not writable"
        index = self.path / INDEX
        if os.name == "nt" and index.is_file() and not os.access(index, os.W_OK):
            return "index.md is read-only"
        return None
