"""A corpus of hostile and broken memory roots, built in code (see ROOTS) plus raw files in files/."""

from __future__ import annotations

import os
from pathlib import Path

from memboard.core.formats.snapshot import render_template
from tests.support import roots

HERE = Path(__file__).parent
FILES = HERE / "files"
HEADER = roots.HEADER + roots.SEPARATOR
A = "2026-05-01-1000-alpha"  # active, has a snapshot, referenced by B
B = "2026-05-01-1100-beta"  # active, continues from A
I = "2026-05-01-1200-idle"  # idle placeholder
IDS = (A, B, I)


def row(
    sid: str, status: str = "active", refs: str = "-", summary: str = "Real work.", agent: str | None = None
) -> str:
    """One table line."""
    agent = agent or sid[16:]
    ts = f"{sid[:10]} {sid[11:13]}:{sid[13:15]}"
    return roots.row_line(sid, status, refs, summary, f"Topic of {agent}", ts, "k", agent) + "\n"


def snap(sid: str, continues: list[str] | None = None) -> str:
    """A template snapshot for sid."""
    ts = f"{sid[:10]} {sid[11:13]}:{sid[13:15]}"
    return render_template(
        sid,
        sid[16:],
        f"Topic of {sid[16:]}",
        ts,
        ts,
        context=f"Context of {sid}.",
        decisions=[f"decision of {sid}"],
        continues=continues,
    )


def write(root: Path, rel: str, data: str | bytes) -> None:
    """Write a file of the root (text as UTF-8)."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def healthy(root: Path, index: str | None = None) -> None:
    """The base most roots start from: A referenced by B, an idle row, snapshots for A and B."""
    write(
        root,
        "index.md",
        index
        if index is not None
        else "# Memory\n\n"
        + HEADER
        + row(A, refs=B)
        + row(B)
        + row(I, "idle", summary="sessionStart 自動註冊，尚未整理主題。"),
    )
    write(root, f"sessions/{A}.md", snap(A))
    write(root, f"sessions/{B}.md", snap(B, [A]))


def malformed_table(root: Path) -> None:
    """Rows with too few/many cells, bad IDs, bad status, a row without the closing pipe."""
    healthy(
        root,
        "# Memory\n\n"
        + HEADER
        + row(A, refs=B)
        + "| 2026-05-01-1300-short | short | only four |\n"
        + "| not-an-id | x | t | s | k | active | - | a | b |\n"
        + row("2026-05-01-1400-odd", status="closed")
        + row(B)
        + "| 2026-05-01-1500-open | open | t | s | k | idle | - | a | b\n"
        + row(I, "idle")
        + "| 2026-05-01-1600-many | m | t | s | k | idle | - | a | b | extra | more |\n",
    )


def missing_columns(root: Path) -> None:
    """A table that lacks Keywords and Referenced By."""
    header = "| Session ID | Agent Name | Topic | Summary | Status | Started At | Updated At |\n|---|---|---|---|---|---|---|\n"
    body = "".join(
        f"| {sid} | {sid[16:]} | t | s | {st} | 2026-05-01 10:00 | 2026-05-01 10:00 |\n"
        for sid, st in ((A, "active"), (B, "active"), (I, "idle"))
    )
    healthy(root, header + body)


def extra_columns(root: Path) -> None:
    """Unknown columns between and after the known ones; their cells must survive."""
    header = (
        "| Session ID | Owner | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At | Notes |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body = "".join(
        f"| {sid} | owner-{n} | {sid[16:]} | t | s | k | {st} | {refs} | 2026-05-01 10:00 | 2026-05-01 10:00 | keep me {n} |\n"
        for n, (sid, st, refs) in enumerate(((A, "active", B), (B, "active", "-"), (I, "idle", "-")))
    )
    healthy(root, header + body)


def duplicate_ids(root: Path) -> None:
    """The same ID twice identically, and another twice with different cells."""
    healthy(root, HEADER + row(A, refs=B) + row(A, refs=B) + row(B) + row(B, summary="Other copy.") + row(I, "idle"))


def empty_files(root: Path) -> None:
    """An empty index.md and an empty snapshot."""
    write(root, "index.md", b"")
    write(root, f"sessions/{A}.md", b"")


def empty_snapshot_of_live_row(root: Path) -> None:
    """A live row whose snapshot file is empty."""
    healthy(root)
    write(root, f"sessions/{A}.md", b"")


def non_utf8(root: Path) -> None:
    """Latin-1 and stray bytes in cells, around the table and in a snapshot."""
    index = (
        ("# Memory \xe9t\xe9\n\n" + HEADER).encode("latin-1")
        + row(A, refs=B).encode().replace(b"Real work.", b"caf\xe9 \xff\xfe")
        + row(B).encode()
        + row(I, "idle").encode()
        + b"\ntrailing \x80\x81\n"
    )
    healthy(root, "")
    write(root, "index.md", index)
    write(root, f"sessions/{B}.md", snap(B, [A]).encode() + b"\n- stray \xff byte\n")


def huge_cells(root: Path) -> None:
    """A 200 kB Summary cell and a 200 kB line in a snapshot."""
    healthy(root, HEADER + row(A, refs=B, summary="x" * 200_000) + row(B) + row(I, "idle"))
    write(root, f"sessions/{B}.md", snap(B, [A]) + "\n" + "y" * 200_000 + "\n")


def pipes_and_backslashes(root: Path) -> None:
    """Escaped pipes, trailing backslashes, Windows paths, a cell that is only a backslash."""
    healthy(
        root,
        HEADER
        + row(A, refs=B, summary=r"a \| b \\| c C:\Users\x\ ")
        + row(B, summary="\\")
        + row(I, "idle", summary=r"ends with \\"),
    )


def code_fence_table(root: Path) -> None:
    """A board-looking table inside a code fence before the real one (with a clashing ID)."""
    fenced = (
        "```markdown\n"
        + HEADER
        + row(A, status="idle", summary="fenced copy")
        + "```\n\n~~~\n| Session ID |\n|---|\n~~~\n\n"
    )
    healthy(root, "# Memory\n\n" + fenced + HEADER + row(A, refs=B) + row(B) + row(I, "idle"))


def only_fenced_table(root: Path) -> None:
    """The only table is inside a fence: there is no board yet."""
    healthy(root, "# Notes\n\n```\n" + HEADER + row(A) + "```\n")


def mixed_crlf_bom(root: Path) -> None:
    """A BOM, CRLF on some lines and LF on others, no newline at the end; a CRLF BOM snapshot."""
    text = (
        "\ufeff# Memory\r\n\r\n"
        + HEADER.replace("\n", "\r\n", 1)
        + row(A, refs=B).replace("\n", "\r\n")
        + row(B)
        + row(I, "idle").rstrip("\n")
    )
    healthy(root, text)
    write(root, f"sessions/{A}.md", "\ufeff" + snap(A).replace("\n", "\r\n"))


def snapshot_without_sections(root: Path) -> None:
    """Snapshots that are plain text (no `## ` sections), one for a live row, one orphan."""
    healthy(root)
    write(root, f"sessions/{A}.md", "just some notes\nno sections here\n")
    write(root, "sessions/2026-05-02-0900-orphan.md", "orphan text only\n")


def symlinks_outside(root: Path) -> None:
    """Snapshots, a session folder and an archive folder that are symlinks pointing outside the root."""
    healthy(root)
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text(snap(B, [A]))
    (outside / "dir").mkdir(exist_ok=True)
    os.unlink(root / "sessions" / f"{B}.md")
    os.symlink(outside / "secret.md", root / "sessions" / f"{B}.md")
    os.symlink(outside / "secret.md", root / "sessions" / "2026-05-03-0900-linked.md")
    (root / "archive").mkdir()
    os.symlink(outside / "dir", root / "archive" / "2026-04-01-0900-gone")
    os.symlink(outside / "dir", root / "archive" / A)


def index_is_symlink_outside(root: Path) -> None:
    """index.md itself is a symlink to a file outside the root."""
    healthy(root)
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (root / "index.md").rename(outside / "index.md")
    os.symlink(outside / "index.md", root / "index.md")


def session_is_folder(root: Path) -> None:
    """sessions/<id>.md is a folder, for a live row and for an unknown ID; archive/<id>/session.md too."""
    healthy(root)
    os.unlink(root / "sessions" / f"{B}.md")
    (root / "sessions" / f"{B}.md").mkdir()
    (root / "sessions" / f"{B}.md" / "inner.md").write_text("inside a folder\n")
    (root / "sessions" / "2026-05-04-0900-dir.md").mkdir()
    (root / "archive" / "2026-04-02-0900-old" / "session.md").mkdir(parents=True)


def index_is_folder(root: Path) -> None:
    """index.md is a folder."""
    (root / "index.md").mkdir()
    write(root, f"sessions/{A}.md", snap(A))


def no_index(root: Path) -> None:
    """Snapshots but no index.md at all."""
    write(root, f"sessions/{A}.md", snap(A))


def junk_names(root: Path) -> None:
    """Files and folders whose names are not Session IDs, beside real ones."""
    healthy(root)
    write(root, "sessions/notes.md", "## Notes\n\n- not a session\n")
    write(root, "sessions/2026-05-01-1000-ALPHA.md", "## Upper\n")
    write(root, "sessions/readme.txt", "text")
    write(root, "archive/README.md", "about the archive\n")
    write(root, "archive/not-an-id/index.md", "# x\n")


def raw_file(name: str):
    """A builder that copies a raw corpus file as index.md (beside the healthy snapshots)."""

    def build(root: Path) -> None:
        healthy(root)
        write(root, "index.md", (FILES / name).read_bytes())

    build.__doc__ = f"index.md is the raw corpus file files/{name}."
    return build


ROOTS = {
    "healthy": healthy,
    "malformed_table": malformed_table,
    "missing_columns": missing_columns,
    "extra_columns": extra_columns,
    "duplicate_ids": duplicate_ids,
    "empty_files": empty_files,
    "empty_snapshot_of_live_row": empty_snapshot_of_live_row,
    "non_utf8": non_utf8,
    "huge_cells": huge_cells,
    "pipes_and_backslashes": pipes_and_backslashes,
    "code_fence_table": code_fence_table,
    "only_fenced_table": only_fenced_table,
    "mixed_crlf_bom": mixed_crlf_bom,
    "snapshot_without_sections": snapshot_without_sections,
    "symlinks_outside": symlinks_outside,
    "index_is_symlink_outside": index_is_symlink_outside,
    "session_is_folder": session_is_folder,
    "index_is_folder": index_is_folder,
    "no_index": no_index,
    "junk_names": junk_names,
}
for _path in sorted(FILES.glob("*.md")) if FILES.is_dir() else []:
    ROOTS[f"file:{_path.name}"] = raw_file(_path.name)
