"""A memory root on disk: safe paths for Session IDs and a reader of its files."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import MemboardError, UsageError
from .ids import check_id

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


class MemoryRoot:
    """The memory folder: resolves relative paths inside it and reads files."""

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
        """File bytes, or None when absent; a folder where a file belongs is an error."""
        path = self.abs(rel)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise MemboardError(f"{rel} is a folder, expected a file") from None
        except NotADirectoryError:
            return None
        except PermissionError:
            raise MemboardError(f"cannot read {rel}: permission denied") from None
        except OSError as exc:
            if path.is_dir():
                raise MemboardError(f"{rel} is a folder, expected a file") from None
            raise MemboardError(f"cannot read {rel}: {exc.strerror or exc}") from None

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
        from .conflicts import snapshot_copies

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
