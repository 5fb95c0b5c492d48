"""A memory root on disk (the first kind of tree, see trees.py): paths that never leave it, reads of its files, and settled reads.

Every read notes the file's signature; a plan is only built on reads that are settled (see
settle.py). `MemoryRoot.wait_settled` watches files another program is saving until they are.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import MemboardError, OutsideRoot, Unreadable, UsageError
from ..formats.layout import ARCHIVE, INDEX, SESSIONS
from . import fsclock, statepaths
from .regular import why
from .settle import SETTLE_WINDOW, Budget, KnownFiles, NotSettled, Seen, next_look, read_seen, whole
from .trees import LOCAL_STATE, MEMORY_ROOT, OS_LITTER, START_HINT, Tree, TreeKind, is_temp_name, not_a_memory_root

__all__ = ["OS_LITTER", "START_HINT", "MemoryRoot", "is_temp_name", "not_a_memory_root", "root_key"]


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
    """The key of a root's local files (its lock, its state folder): see statepaths.key."""
    return statepaths.key(real)


class MemoryRoot:
    """The memory folder: resolves relative paths inside it, reads files, and tells settled reads apart."""

    on_disk = True  # reads are the files' own bytes (a record of what they held may stand in for reading them)
    kind: TreeKind = MEMORY_ROOT  # the rules of the tree it is (see trees.py)
    counted = True  # its steps are the ones the probe numbers (a crash test's FAULT_AFTER_STEP; not local state's)

    def __init__(self, path: str | os.PathLike[str]):
        """Wrap a root folder (it must exist and be a folder)."""
        self.path = Path(path)
        if not self.path.exists():
            raise UsageError(f"memory root {self.path} does not exist")
        if not self.path.is_dir():
            raise UsageError(f"memory root {self.path} is not a folder")
        self.real = self.path.resolve()
        if _inside_wiki(self.real):
            raise UsageError(
                f"memory root {self.path} is inside a wiki/ folder; Agent Memory lives beside wiki/, not in it"
            )
        self.window = SETTLE_WINDOW
        self.preview = False  # a preview (--dry-run) puts no clock probe in the root (see fs_time)
        self._local = threading.local()  # per thread: the reads a plan build made, pinned bytes for verification
        self._known: KnownFiles | None = None

    def state_key(self) -> str:
        """A short key for this root's files in local state (lock, settled record), from its real path."""
        return root_key(self.real)

    @property
    def known(self) -> KnownFiles:
        """The record of files memboard wrote or saw settled in this root (local state, per machine)."""
        if self._known is None:
            self._known = KnownFiles(statepaths.settled_record(self.real))
        return self._known

    @property
    def tree(self) -> Tree:
        """The tree this folder is: its kind, real path and what it may change."""
        return Tree(self.kind, self.real)

    def trees(self) -> list[Tree]:
        """The trees a plan on this folder writes in: its own, and its local state (written under its lock)."""
        if self.kind is not MEMORY_ROOT:
            return [self.tree]
        return [self.tree, Tree(LOCAL_STATE, statepaths.root_folder(self.real), lock_of=self.real)]

    def require_memory_root(self) -> None:
        """Refuse (one line, nothing written) to write into a folder its kind refuses (see trees.TreeKind.require)."""
        self.kind.require(self.path, self.real)

    def shown(self, rel: str) -> str:
        """How a patch names rel: as it is (a root's patch is applied in the root)."""
        return rel

    def writable_folder(self) -> Path:
        """The folder whose write permission tells whether this tree can be written."""
        return self.path

    def abs(self, rel: str) -> Path:
        """Absolute path of rel, refusing anything that would leave the root.

        Inside a `steady` block a folder is resolved once: a file there that is no symlink
        resolves to the folder's place plus its name (a pass over 3,000 snapshots then costs
        3,000 `lstat`s, not 3,000 walks of the whole path).
        """
        if (
            not rel
            or rel.startswith(("/", "\\"))
            or ".." in rel.replace("\\", "/").split("/")
            or ":" in rel
            or "\x00" in rel
        ):
            raise UsageError(f"refusing path {rel!r}: it would leave the memory root")
        path = self.path / rel
        folder, _, name = rel.replace("\\", "/").rpartition("/")
        folders: dict[str, bool] | None = getattr(self._local, "folders", None)
        try:
            if folders is not None and folder and name not in ("", ".") and not os.path.islink(path):
                inside = folders.get(folder)
                if inside is None:
                    inside = folders[folder] = self._inside(path.parent)
            else:
                inside = self._inside(path)
        except OSError as exc:  # pragma: no cover - loops on odd filesystems
            raise MemboardError(f"cannot resolve {rel}: {exc}") from None
        if not inside:
            raise OutsideRoot(rel)
        return path

    def _inside(self, path: Path) -> bool:
        """Whether path resolves to the root or to something inside it."""
        resolved, real = os.path.realpath(path), str(self.real)
        return resolved == real or resolved.startswith(real if real.endswith(os.sep) else real + os.sep)

    @contextmanager
    def steady(self) -> Iterator[None]:
        """Within this block (one plan build, one doctor pass) each folder of the root is resolved once and
        each file read once: the pass works from one read of every file it looks at (doctor looks at a
        snapshot three times: for sync-conflict copies, its Metadata and its Continues From)."""
        previous = getattr(self._local, "folders", None)
        if previous is None:
            self._local.folders, self._local.reads = {}, {}
        try:
            yield
        finally:
            if previous is None:
                self._local.folders = self._local.reads = None

    def read(self, rel: str) -> bytes | None:
        """File bytes, or None when absent; a folder where a file belongs is an error.

        While a plan is built (`tracking`) each read is noted with its signature; while a write
        is verified (`pinned`) the settled bytes of the written files are served.
        """
        pinned: dict[str, bytes | None] | None = getattr(self._local, "pinned", None)
        if pinned is not None and rel in pinned:
            return pinned[rel]
        return self.noted_read(rel).data

    def noted_read(self, rel: str, at: str | None = None) -> Seen:
        """The read `read` makes of rel (one per `steady` block, noted while `tracking`), with its signature
        and time (pinned bytes aside: only verification pins them); at: rel's place, when the caller found it
        inside the root already (see read_seen)."""
        reads: dict[str, Seen] | None = getattr(self._local, "reads", None)
        seen = reads.get(rel) if reads is not None else None
        if seen is None:
            seen = self.read_seen(rel, at=at)
            if reads is not None:
                reads[rel] = seen
        tracked = getattr(self._local, "tracked", None)
        if tracked is not None:
            tracked[rel] = seen
        return seen

    @contextmanager
    def tracking(self) -> Iterator[dict[str, Seen]]:
        """Note every read of this thread (the last per file) in the yielded dict."""
        previous = getattr(self._local, "tracked", None)
        reads: dict[str, Seen] = {}
        self._local.tracked = reads
        try:
            with self.steady():
                yield reads
        finally:
            self._local.tracked = previous

    def adopt(self, reads: dict[str, Seen]) -> None:
        """Take reads another process made of this root for this thread's pass as this thread's own: noted in the
        current `tracking` and `steady` blocks, as if made here (see continues.Beside)."""
        for name in ("reads", "tracked"):
            noted: dict[str, Seen] | None = getattr(self._local, name, None)
            if noted is not None:
                noted.update(reads)

    @contextmanager
    def pinned(self, files: dict[str, bytes | None]) -> Iterator[None]:
        """Serve these bytes for these files to this thread's reads (verification of one settled state)."""
        previous = getattr(self._local, "pinned", None)
        self._local.pinned = files
        try:
            yield
        finally:
            self._local.pinned = previous

    def read_seen(self, rel: str, expect: bytes | None = None, at: str | None = None) -> Seen:
        """A read of rel with its signature (compared with expect as it is read, see settle.read_seen); a folder
        where a file belongs is an error, and a file that cannot be read (not a regular file, permission denied,
        an I/O error, a symlink out of the root) is Unreadable, never an absent file. at: rel's place as the
        caller found it inside the root (a pass over 3,000 snapshots that lstat each one need not resolve each
        path again), else self.abs(rel)."""
        path = self.abs(rel) if at is None else at
        try:
            return read_seen(path, expect)
        except IsADirectoryError:
            raise MemboardError(f"{rel} is a folder, expected a file") from None
        except OSError as exc:
            if os.path.isdir(path):
                raise MemboardError(f"{rel} is a folder, expected a file") from None
            raise Unreadable(rel, why(exc)) from None

    def fs_time(self, rel: str, seen: Seen) -> int | None:
        """When seen was read, on the clock of the file system holding rel (ns), or None where that clock cannot
        be had (see fsclock: a preview probes only in local state, a read-only folder not at all)."""
        if seen.sig is None:
            return None
        offset = fsclock.cached(seen.sig[0])  # (most calls: no path made, organize asks for 3,000 snapshots)
        if offset is None:
            offset = fsclock.offset(seen.sig[0], self.path / rel, beside=self.probes_beside())
        return None if offset is None else seen.at_ns + offset

    def probes_beside(self) -> bool:
        """Whether a clock probe may go beside this tree's files (fsclock): not while previewing."""
        return not self.preview

    def settled(self, rel: str, seen: Seen, reference: bytes | None = None, planned: bytes | None = None) -> bool:
        """Whether a read can be a plan's base without waiting.

        reference is the bytes the plan read before (None: no earlier read), planned what the
        plan writes instead. The file must not have changed while it was read, and either be a
        version memboard wrote or saw settled, or have an mtime older than the window on its file
        system's clock and be whole next to reference (a file from that clock's future is recent;
        without that clock, no file is old). An absent file is settled unless the plan read it present.
        """
        if not seen.steady:
            return False
        if seen.sig is None or seen.data is None:
            return reference is None
        at = self.fs_time(rel, seen)
        if at is not None and at - seen.sig[3] >= self.window * 1e9 and whole(rel, seen.data, reference, planned):
            return True
        return self.known.matches(rel, seen)

    def wait_settled(self, pending: dict[str, tuple[bytes | None, bytes | None]], budget: Budget) -> dict[str, Seen]:
        """Watch files until each is settled; their settled reads. NotSettled when the budget runs out.

        pending maps each file to (reference, planned) as `settled` takes them. Besides that
        test, a file memboard itself sees unchanged (signature and bytes) for a whole window (on
        this process's monotonic clock) is settled too: that covers mtime clocks that are coarse or
        cannot be read, deliberate deletions of rows, and files without a final newline.
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
                if seen.steady and (
                    time.monotonic() - watch[rel][1] >= window or self.settled(rel, seen, reference, planned)
                ):
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
                raise NotSettled(
                    f"{names} is still being saved by another program (it kept changing for {budget.total:g}s)"
                )
            time.sleep(next_look(watch, done, window, budget.left - elapsed))

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
        # lazy: 2.3 ms of patterns, and the hook never lists snapshots
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


class SideTree(MemoryRoot):
    """A tree beside a memory root (its local state, a config file's folder), written by the same engine: its
    folder need not exist until the first write makes it, and a clock probe goes in local state only, never
    beside its files."""

    def __init__(self, path: Path, real: Path, window: float = SETTLE_WINDOW):
        """The tree at path (real: where it really is), read with this settle window."""
        self.path, self.real = path, real
        self.window = window
        self.preview = False
        self._local = threading.local()
        self._known = None

    def writable_folder(self) -> Path:
        """The nearest folder that exists on the way to the tree's own (where its missing folders would be made)."""
        folder = self.path
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        return folder

    def probes_beside(self) -> bool:
        """Never: a probe goes in local state itself."""
        return False
