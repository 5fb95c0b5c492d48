"""The one walk of a root's notes/ folder, shared by `note list` (and the MCP server) and search's stats.

core.ops and core.search may not import each other, and each walked notes/ with its own copy of the same
handle-based code and constants; this is that walk, once. It reads each folder through its own handle where the
OS allows (a stat looks up one name, not the whole path, and no DirEntry is made: a third less time than
os.scandir of the path, docs/how-it-is-built/speed.md), and reads no file.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import time

from .regular import why

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)  # a folder, never a link
BY_HANDLE = os.listdir in os.supports_fd and os.stat in os.supports_dir_fd and os.stat in os.supports_follow_symlinks


NOTES_DEPTH = 12  # folders below notes/ that search walks (a topic key has at most 10 segments)
Stamps = dict[str, tuple[int, int]]  # relative path -> (size, mtime_ns), what search's cache compares


def walk_notes(
    folder: str,
    rel: str,
    deepest: int,
    out: dict[str, os.stat_result],
    gaps: dict[str, str] | None = None,
    stamps: Stamps | None = None,
) -> None:
    """Add to out (to stamps instead, as (size, mtime_ns), when given: no second pass over 10k notes, 5 ms) the lstat
    of each `*.md` file (rel/… path) in the notes folder at path folder and in its subfolders down to deepest folders
    below it: symlinks (to files or folders) are skipped, a FIFO, socket or device named `*.md` is kept (its read
    names it unreadable). With gaps: a name gone meanwhile is left out, and a folder that cannot be listed, or whose
    names cannot be looked up (readable but not searchable), goes to gaps (`rel/` -> why); without: anything failing
    raises OSError (the caller then walks another way)."""
    _walk(folder, rel, 0, (deepest, out, gaps, stamps), None)


GONE = (FileNotFoundError, NotADirectoryError)  # a name gone (or no longer a folder) since it was listed


def _left(exc: OSError, rel: str, gaps: dict[str, str] | None, record: bool) -> None:
    """What walk_notes does where it cannot go on in folder rel: raise exc again without gaps; with gaps, note rel
    there (`rel/` -> why) when record, else leave it out silently."""
    if gaps is None:
        raise exc
    if record:
        gaps[f"{rel}/"] = why(exc)


_Walk = tuple[int, dict[str, os.stat_result], dict[str, str] | None, Stamps | None]  # walk_notes' deepest and sinks


def _walk(folder: str, rel: str, depth: int, how: _Walk, parent: int | None) -> None:
    """walk_notes of the folder (a name in the folder open at parent, when given), depth folders below the top."""
    try:
        fd = os.open(folder, DIR_FLAGS, dir_fd=parent) if BY_HANDLE else None
    except OSError as exc:  # (ELOOP: a folder replaced by a symlink since it was listed: skipped)
        _left(exc, rel, how[2], not isinstance(exc, GONE) and exc.errno != errno.ELOOP)
        return
    try:
        _names(folder if fd is None else fd, rel, depth, how)
    finally:
        if fd is not None:
            os.close(fd)


def _names(folder: str | int, rel: str, depth: int, how: _Walk) -> None:
    """_walk's work on a folder open at fd folder (or at path folder, where the OS has no handles for this)."""
    deepest, out, gaps, stamps = how
    try:
        names = os.listdir(folder)
    except OSError as exc:
        _left(exc, rel, gaps, not isinstance(exc, GONE))
        return
    fd = folder if isinstance(folder, int) else None
    paths = names if fd is not None else [os.path.join(str(folder), name) for name in names]
    lstat, is_dir, is_link = os.stat, stat.S_ISDIR, stat.S_ISLNK
    for name, path in zip(names, paths):
        try:
            st = lstat(path, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError as exc:
            _left(exc, rel, gaps, False)
            continue
        except OSError as exc:  # (no name of this folder can be looked up: what it holds is unknown)
            _left(exc, rel, gaps, True)
            return
        if is_dir(st.st_mode):
            if depth < deepest:
                _walk(path, f"{rel}/{name}", depth + 1, how, fd)
        elif name.endswith(".md") and not is_link(st.st_mode):
            if stamps is None:
                out[f"{rel}/{name}"] = st
            else:
                stamps[f"{rel}/{name}"] = (st.st_size, st.st_mtime_ns)


# -- the same walk by GNU find, started at the process's start ---------------------------------------------------

FIND = "/usr/bin/find"  # GNU find on Linux (elsewhere, or where it fails, walk_notes)
RECORDS = rb"(?:[0-9]+\.[0-9]{9}0\0[0-9]+\0[^\0]+\0)*"  # what GNU find 4.x prints (a time before 1970: walk_notes)


class EarlyWalk:
    """walk_notes' stamps taken by GNU find in a child process started before the caller needs them (a whole-process
    search: the child's stats run on another core while Python imports and opens SQLite); stamps() reads them."""

    def __init__(self, folder: str, rel: str, deepest: int):
        """Start `find` on folder (its output to an anonymous file, so it never waits for a reader)."""
        self.folder, self.rel, self.deepest = folder, rel, deepest
        self.began = time.time_ns()  # before the child's first stat: what "recently changed" is measured from
        self.out = os.memfd_create("memboard-notes", os.MFD_CLOEXEC)
        devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        # mtime (seconds, a dot, nine digits of nanoseconds and a 0), size, rel/path: NUL-separated, lstat's (-P)
        argv = [FIND, folder, "-mindepth", "1", "-maxdepth", str(deepest + 1), "!", "-type", "d", "!", "-type", "l"]
        argv += ["-name", "*.md", "-printf", f"%T@\\0%s\\0{rel}/%P\\0"]
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, self.out, 1)]
        try:
            self.pid = os.posix_spawn(
                FIND, argv, {"LC_ALL": "C"}, file_actions=[*actions, (os.POSIX_SPAWN_DUP2, devnull, 2)]
            )
        except BaseException:
            os.close(self.out)
            raise
        finally:
            os.close(devnull)

    def stamps(self) -> Stamps | None:
        """walk_notes' stamps once the child is done; None when it failed or printed what GNU find would not (the
        caller then walks in Python, which also says which folder could not be listed)."""
        try:
            _, status = os.waitpid(self.pid, 0)
            size = os.fstat(self.out).st_size
            data = os.pread(self.out, size, 0) if size else b""
        finally:
            os.close(self.out)
        import re  # lazy: loaded by the search by now; the start of the process, which starts find, need not wait

        if status != 0 or len(data) != size or not re.fullmatch(RECORDS, data):
            return None
        fields = data.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()).split("\0")  # os.fsdecode
        # each `%T@` ends in a 0 (then a NUL): without it and the dot, st_mtime_ns
        ns = "\0".join([*fields[0:-1:3], ""]).replace("0\0", "\0").replace(".", "").split("\0")
        return dict(zip(fields[2::3], zip(map(int, fields[1::3]), map(int, ns[:-1]))))


_EARLY: list[EarlyWalk] = []  # the walks start_early began, until take_early takes them


def start_early(folder: str, rel: str, deepest: int) -> None:
    """Start walk_notes(folder, rel, deepest)'s stamps by GNU find beside this process, for take_early (nothing
    happens where there is no GNU find, or it cannot be started: the caller walks as before)."""
    if sys.platform.startswith("linux") and hasattr(os, "memfd_create") and not set("%\\") & set(rel):
        try:
            _EARLY.append(EarlyWalk(folder, rel, deepest))
        except OSError:
            pass


def take_early(folder: str, rel: str, deepest: int) -> EarlyWalk | None:
    """The walk start_early began of this folder (however its path was spelled), rel and depth, or None."""
    from pathlib import PurePath  # lazy: loaded by the search by now (its root is a Path); not at the process's start

    for walk in _EARLY:
        if (walk.rel, walk.deepest) == (rel, deepest) and PurePath(walk.folder) == PurePath(folder):
            _EARLY.remove(walk)
            return walk
    return None
