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

from .regular import why

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)  # a folder, never a link
BY_HANDLE = os.listdir in os.supports_fd and os.stat in os.supports_dir_fd and os.stat in os.supports_follow_symlinks


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
