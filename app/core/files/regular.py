"""Opening a memory root's files for reading: regular files only, never a wait, and why not in words.

A FIFO (named pipe) where memboard expects a snapshot, a note or index.md blocks the first `open`
until some program opens it for writing, which may be never; a device can block too, or answer
something that is no file's content, and a socket cannot be opened at all. memboard therefore
opens only regular files: it stats the path first and opens nothing else, opens it with
O_NONBLOCK (a file swapped for a FIFO between the look and the open does not block it), and
checks the descriptor it got with fstat, which closes that race. What is not a regular file is
`NotRegular`, an OSError like every other failed open or read; `why` says any of them in words
for the one line a command prints (errors.Unreadable carries it with the file's name).

This module imports only `os`, `stat` and `errno`: `memboard search` and the hook read through it.
"""

from __future__ import annotations

import errno
import os
import stat

READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)  # (O_BINARY: Windows)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # (none on Windows, which has no FIFOs in its folders)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CHUNK = 256 * 1024
KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symlink"),
)


class NotRegular(OSError):
    """The path is no regular file: a FIFO, a socket, a device (or a symlink, where links are not followed)."""

    def __init__(self, path: str | os.PathLike[str], what: str):
        """what: what the path is instead, as `kind_of` says it."""
        super().__init__(errno.EINVAL, f"it is {what}, not a regular file", os.fspath(path))
        self.what = what


def kind_of(mode: int) -> str | None:
    """What a file of this mode is when it is neither a regular file nor a folder (None when it is one of those)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((what for test, what in KINDS if test(mode)), "not a regular file")


def check_regular(path: str | os.PathLike[str], st: os.stat_result) -> None:
    """Raise IsADirectoryError for a folder, NotRegular for anything else that is no regular file."""
    if stat.S_ISREG(st.st_mode):
        return
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    raise NotRegular(path, kind_of(st.st_mode) or "not a regular file")


def open_regular(path: str | os.PathLike[str], follow: bool = True) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file at path, with its fstat (follow=False: a symlink is refused,
    NotRegular).

    FileNotFoundError when it is absent, IsADirectoryError for a folder, NotRegular for a FIFO, a socket
    or a device (never opened), any other OSError as the open gives it (PermissionError, EIO...).
    """
    check_regular(path, os.stat(path) if follow else os.lstat(path))
    fd = os.open(path, READ_FLAGS | NONBLOCK | (0 if follow else NOFOLLOW))
    try:
        st = os.fstat(fd)
        check_regular(path, st)  # the file opened is the one looked at, or at least a regular one
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular(path: str | os.PathLike[str], follow: bool = True) -> bytes:
    """The bytes of the regular file at path (errors as open_regular's, or the read's)."""
    fd = open_regular(path, follow)[0]
    try:
        pieces = []
        while piece := os.read(fd, CHUNK):
            pieces.append(piece)
        return b"".join(pieces)
    finally:
        os.close(fd)


def why(exc: OSError) -> str:
    """A failed open or read in words: `permission denied`, `it is a FIFO, not a regular file`,
    `Input/output error`..."""
    if isinstance(exc, NotRegular):
        return exc.strerror or "not a regular file"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder, not a file"
    return exc.strerror or str(exc) or type(exc).__name__
