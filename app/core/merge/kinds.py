"""Which of memboard's files a path in the root names, and the merge of three versions of it (issue 26 §5).

git's merge driver and `memboard resolve` both start from a path relative to the root: `index.md`, a
snapshot (`sessions/<id>.md`), an archive file (`archive/<id>/index.md`, `archive/<id>/session.md`) or a
typed note (`notes/**/*.md`). Each kind has its merge function; they are imported only when a file of
that kind is merged (git runs the driver once per file per merge: it loads what that file needs).
"""

from __future__ import annotations

from typing import Literal

from .result import Merged

Kind = Literal["index", "snapshot", "archive_index", "archive_session", "note"]
PATTERNS = (  # what `install-merge-driver` writes in <root>/.gitattributes, relative to the root
    "index.md",
    "sessions/*.md",
    "archive/*/index.md",
    "archive/*/session.md",
    "notes/**/*.md",
)


def kind_of(rel: str) -> Kind | None:
    """The kind of memboard's file rel names (a path relative to the root, `/` separators), or None."""
    parts = rel.split("/")
    if not rel.endswith(".md") or any(p in ("", ".", "..") for p in parts):
        return None
    if parts == ["index.md"]:
        return "index"
    if len(parts) == 2 and parts[0] == "sessions":
        return "snapshot"
    if len(parts) == 3 and parts[0] == "archive":
        return "archive_index" if parts[2] == "index.md" else "archive_session" if parts[2] == "session.md" else None
    if len(parts) >= 2 and parts[0] == "notes":
        return "note"
    return None


def subject_of(rel: str) -> str:
    """The session (snapshot, archive file) or note (its topic key) the file rel belongs to; "" for index.md."""
    kind = kind_of(rel)
    parts = rel.split("/")
    if kind == "snapshot":
        return parts[1][: -len(".md")]
    if kind in ("archive_index", "archive_session"):
        return parts[1]
    if kind == "note":
        return rel[len("notes/") : -len(".md")]
    return ""


def merge_three(kind: Kind, base: bytes | None, ours: bytes, theirs: bytes, marker_size: int) -> Merged:
    """ours and theirs merged with their common ancestor base (None: none, a two-way merge), open cells and
    items left as conflict blocks of marker_size characters (git's driver)."""
    if kind == "index":
        from .index import merge_index  # lazy: git merges one file per driver process

        return merge_index(ours, theirs, base, marker_size=marker_size)
    from . import documents  # lazy: as above

    if kind == "note":
        return documents.merge_note(ours, theirs, base, marker_size=marker_size)
    if kind == "archive_index":
        return documents.merge_archive_index(ours, theirs, base, marker_size=marker_size)
    return documents.merge_snapshot(ours, theirs, base, marker_size=marker_size)
