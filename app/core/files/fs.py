"""Atomic file writes: a temp file in the same folder, flushed to disk, renamed over the old file.

A rename the OS refuses for a moment (a synced or scanned file on Windows) is retried briefly.
A write given the bytes it expects to replace compares the file once more right before the
rename, so an edit made meanwhile by a program that skips the lock is never overwritten. After
the rename the folder is synced (the new entry survives a power loss), and so is the parent of
each folder made for the file (`archive/<id>/`, `notes/<a>/<b>/`), as POSIX asks of a new folder.
The temp file's stamp, a timestamp its file system just wrote, tells this process that file
system's clock (fsclock.learn).
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import Incomplete, MemboardError
from . import fsclock, probe
from .settle import Seen, Signature, read_seen, signature


class Unset:
    """The type of ANY."""


ANY = Unset()  # atomic_write: do not compare the file before replacing it
RENAME_TRIES = 8


class ChangedUnderfoot(MemboardError):
    """A file changed between the plan's read and its rename (a writer that skips the lock)."""


def _umask() -> int:
    """The process umask, read without changing it (Linux /proc), else the common 022."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _file_mode(path: Path) -> int:
    """The mode a rewritten file keeps: the old file's, or what a plain create would give."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def still(path: Path, expect: bytes | None, sig: Signature | None, when: str) -> Seen:
    """path's read, when it still holds expect (None: absent) with signature sig (if given); else ChangedUnderfoot."""
    seen = read_seen(path, expect)
    if seen.data != expect or not seen.steady or (sig is not None and seen.sig != sig):
        raise ChangedUnderfoot(f"{path.name} changed {when}")
    return seen


def _stat_sig(path: Path) -> Signature | None:
    """path's signature right now (None when absent)."""
    try:
        return signature(os.stat(path))
    except FileNotFoundError:
        return None


def _through_link(path: Path) -> Path:
    """Where a write of path lands: a symlink's target (written through, the link kept), else path itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def make_folders(folder: Path) -> list[Path]:
    """Create folder and its missing parents, shallowest first, each one's parent flushed right after it is made
    (POSIX: a new folder's entry is durable once its parent is synced; one fsync per new folder, none on Windows);
    the ones created, deepest first. On failure the folders it made are removed again."""
    missing = []
    probe_path = folder
    while not probe_path.exists() and probe_path.parent != probe_path:
        missing.append(probe_path)
        probe_path = probe_path.parent
    made: list[Path] = []
    try:
        for path in reversed(missing):
            try:
                path.mkdir()
            except FileExistsError:  # made meanwhile by another writer (its entry is its to sync)
                if not path.is_dir():
                    raise
                continue
            made.insert(0, path)
            fsync_dir(path.parent)
        if not missing and not folder.is_dir():
            folder.mkdir()  # (it exists as something else: the error mkdir gives)
    except BaseException:
        remove_folders(made)
        raise
    return made


def remove_folders(made: list[Path]) -> None:
    """Remove folders make_folders created, deepest first, while they are empty."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return


def atomic_write(
    path: Path,
    data: bytes | tuple[bytes | memoryview, ...],
    expect: bytes | Unset | None = ANY,
    sig: Signature | None = None,
    note: Callable[[Signature], None] | None = None,
    by_signature: bool = False,
    mode: int | None = None,
) -> Signature:
    """Write data to path via a temp file in the same folder, fsync, then rename over it; the new file's signature.

    A symlink is written through: the temp file goes beside its target, which is replaced.
    With `expect` (the bytes the plan read, None for "absent"), the file is compared once
    more after the temp file is flushed, and its signature (sig when given) looked at
    immediately before the rename; if a writer that skips the lock (a hand edit, a sync tool)
    changed it, ChangedUnderfoot is raised and nothing is replaced (by_signature: sig came from a read
    of a file that had not changed for a while, see settle.aged_read, so its signature alone tells,
    and the file is not read again). `note` is called with the new file's signature right before the rename. On any failure the temp file and the folders
    created for it are removed. mode: the new file's permission bits (default: the old file's, or a plain create's).
    """
    target = _through_link(path)
    made = make_folders(target.parent)
    try:
        mode = _file_mode(target) if mode is None else mode
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".memboard-tmp", dir=target.parent)
    except BaseException:
        remove_folders(made)
        raise
    try:
        if os.name != "nt":
            os.fchmod(fd, mode)  # mkstemp makes 0600 files; keep the file's own permissions
        with os.fdopen(fd, "wb") as fh:
            for piece in data if isinstance(data, tuple) else (data,):  # (a splice's pieces: never joined)
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
            st = os.fstat(fh.fileno())
            fsclock.learn(st, time.time_ns())  # a timestamp its file system just wrote: its clock (see fsclock)
            written = signature(st)
        checked = time.time()
        if by_signature and sig is not None:
            if _stat_sig(target) != sig:  # the last look, right before the rename
                raise ChangedUnderfoot(f"{path.name} changed while memboard was writing it")
        elif not isinstance(expect, Unset):
            seen = still(target, expect, sig, "while memboard was writing it")
            if _stat_sig(target) != seen.sig:  # the last look, right before the rename
                raise ChangedUnderfoot(f"{path.name} changed while memboard was writing it")
        if note:
            note(written)
        rename(tmp, target)
        probe.current().replaced(checked, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        remove_folders(made)
        raise
    fsync_dir(target.parent)
    return written


def append_write(
    path: Path,
    before: bytes,
    added: bytes,
    sig: Signature | None,
    by_signature: bool = False,
    about_to: Callable[[], None] | None = None,
) -> Signature:
    """Append added to path, which must still be the file the plan read (before, with signature sig), with
    O_APPEND and no rewrite of what is there; flushed to the disk; the new file's signature.

    The last look is at the open descriptor: its signature must be sig (and, unless by_signature, its bytes
    before, as atomic_write compares them); else ChangedUnderfoot and nothing is written. about_to is called
    right before the write (the probe's moment). A write that fails (a full disk) cuts its own bytes off
    again when nothing else was appended behind them, and says nothing was written. When the file did not
    grow by exactly added on the same inode (a writer that skips the lock wrote in the microseconds between
    the last look and the write), the bytes cannot be taken back: Incomplete.
    """
    target = _through_link(path)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise ChangedUnderfoot(f"{path.name} was removed before memboard could append to it") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or sig is None or signature(st) != sig:
            raise ChangedUnderfoot(f"{path.name} changed before memboard could append to it")
        if not by_signature:  # (changed within the mtime clock's tick: the bytes tell, as atomic_write's)
            still(target, before, sig, "before memboard could append to it")
            if signature(os.fstat(fd)) != sig:
                raise ChangedUnderfoot(f"{path.name} changed before memboard could append to it")
        if about_to is not None:
            about_to()
        _write_all(fd, added, st.st_size, path.name)
        now = os.fstat(fd)
        fsclock.learn(now, time.time_ns())  # a timestamp its file system just wrote: its clock (see fsclock)
    finally:
        os.close(fd)
    if now.st_ino != st.st_ino or now.st_size != st.st_size + len(added):
        raise Incomplete(
            f"{path.name} changed while memboard appended to it (another program wrote at the same moment): "
            "check it with memboard doctor"
        )
    return signature(now)


def _write_all(fd: int, data: bytes, start: int, name: str) -> None:
    """Write every byte of data to fd (which held start bytes) and flush it to the disk; when that fails, cut
    the bytes written off again unless another writer appended behind them, and say nothing was written."""
    view = memoryview(data)
    written = 0
    try:
        while view:
            n = os.write(fd, view)
            written += n
            view = view[n:]
        os.fsync(fd)
    except OSError as exc:
        if os.fstat(fd).st_size == start + written:
            os.ftruncate(fd, start)
        raise MemboardError(f"cannot append to {name} ({exc.strerror or exc}); nothing written") from exc


def read_tail(path: Path, start: int, size: int, sig: Signature) -> bytes | None:
    """size bytes of path from start when the file still has signature sig (else None): an append read back."""
    target = _through_link(path)
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        if signature(os.fstat(fd)) != sig:
            return None
        return os.pread(fd, size, start) if hasattr(os, "pread") else _seek_read(fd, start, size)
    finally:
        os.close(fd)


def _seek_read(fd: int, start: int, size: int) -> bytes:
    """pread where the OS lacks it (Windows)."""
    os.lseek(fd, start, os.SEEK_SET)
    return os.read(fd, size)


def rename(src: str | Path, dst: str | Path) -> None:
    """os.replace, retried briefly where the OS refuses (a synced or scanned file on Windows)."""
    delay = 0.01
    for attempt in range(RENAME_TRIES):
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if attempt == RENAME_TRIES - 1:
                raise
            time.sleep(delay)
            delay *= 2


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries where the OS allows it."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
