"""The layout of a memory root: where the index, snapshots, archive and memboard's old state live.

Paths are relative to the root, with `/` separators; a Session ID is validated before it
becomes part of a path, so no ID can name a file outside its folder.
"""

from __future__ import annotations

from .ids import check_id

INDEX = "index.md"
SESSIONS = "sessions"
ARCHIVE = "archive"
STATE = ".memboard"
NOTES = "notes"
TEMP_SUFFIX = ".memboard-tmp"  # a write's temp file, `.<name>.<random>.memboard-tmp`, until its rename
MARKERS = (INDEX, SESSIONS, ARCHIVE, NOTES, STATE)  # what a memory root holds once it is in use
CONFLICTS = f"{STATE}/conflicts"  # merged sync-conflict copies, kept byte for byte (they travel with the root)


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
