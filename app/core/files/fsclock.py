"""The file system's clock: how far the clock that stamps a device's files runs from this process's clock.

The settle window and the racy rules ask how long ago a file last changed: now minus its mtime. The
mtime comes from the clock of whatever keeps the file system's metadata: the kernel for a local
disk, the server for a network share, the host for a VM's shared folder, a FUSE daemon for a sync
client's mount. This process's clock may differ from it by seconds or minutes either way, and then
a file saved a moment ago looks old and settled (or one saved long ago looks as if it came from the
future). So "now" is taken on the file system's own clock, as git's racy check does: from a
timestamp that same file system just wrote.

- memboard's own writes: the temp file of every atomic write is stamped by the file system; its
  stamp, next to this process's clock read right after the data reached the file, tells the
  offset (`learn`, free).
- a probe, where this process has no fresh offset for the device: an empty file created with
  O_EXCL (a `.memboard-tmp` name, as a write's temp file) and removed at once, its stamp read with
  fstat (`offset`). It goes in local state when that lies on the same device (the root then sees
  nothing), else beside the file, unless the caller is a preview (`--dry-run` writes nothing in the
  root) or the folder cannot be written (a read-only root): then there is no offset, and callers
  fall back to a rule that needs no clock (watch the file for one settle window; trust no racy stamp).

Each measurement pairs a stamp with a clock reading taken after it, so it errs one way only: the
offset comes out lower than it is, files look younger, and the worst it costs is a wait. Of a
stamp's mtime and ctime the lower is taken (an exclusive create on some NFS servers stores a
verifier in the times until they are set). Offsets are kept per device for the process, for
FRESH seconds (clocks drift and get stepped); the newest measurement replaces the older.
"""

from __future__ import annotations

import os
import time

from . import statepaths

FRESH = 60.0  # seconds an offset is used before it is measured again (a write measures it for free)
PROBE_PREFIX = ".memboard-clock."  # a probe's name: `.memboard-clock.<random>.memboard-tmp` (a temp file's shape)
PROBE_SUFFIX = ".memboard-tmp"
CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)

_offsets: dict[int, tuple[int, float]] = {}  # st_dev -> (file system clock minus this process's, in ns; monotonic when)


def learn(st: os.stat_result, after_ns: int) -> None:
    """Note the stamp of a file the file system just wrote (st, its fstat), stamped no later than after_ns on
    this process's clock (time.time_ns() read after the write)."""
    _offsets[st.st_dev] = (min(st.st_mtime_ns, st.st_ctime_ns) - after_ns, time.monotonic())


def cached(dev: int) -> int | None:
    """The offset of device dev measured within FRESH seconds (ns to add to this process's clock), or None."""
    known = _offsets.get(dev)
    if known is None or time.monotonic() - known[1] >= FRESH:
        return None
    return known[0]


def offset(dev: int, near: str | os.PathLike[str], beside: bool = True) -> int | None:
    """How far the clock stamping device dev's files runs ahead of this process's clock (ns; negative when it
    runs behind), or None when no timestamp of that file system can be had.

    near: a file on dev (the one being judged); a probe goes in local state when that is on dev, else (when
    beside) in near's folder. A probe that cannot be made (a read-only folder, a full disk) gives None.
    """
    known = cached(dev)
    if known is not None:
        return known
    state = str(statepaths.base())
    if _on(state, dev) and _probe(state, dev):
        return cached(dev)
    if beside:
        folder = os.path.dirname(os.path.realpath(near))
        if _on(folder, dev) and _probe(folder, dev):
            return cached(dev)
    return None


def _on(folder: str, dev: int) -> bool:
    """Whether folder exists and lies on device dev."""
    try:
        return os.stat(folder).st_dev == dev
    except OSError:
        return False


def _probe(folder: str, dev: int) -> bool:
    """Create an empty file in folder, learn from its stamp and remove it; whether it told dev's offset."""
    path = os.path.join(folder, f"{PROBE_PREFIX}{os.urandom(6).hex()}{PROBE_SUFFIX}")
    try:
        fd = os.open(path, CREATE, 0o600)
    except OSError:
        return False
    try:
        after = time.time_ns()
        st = os.fstat(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass
    if st.st_dev != dev:
        return False
    learn(st, after)
    return True
