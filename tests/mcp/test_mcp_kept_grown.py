"""index.md grown by an append, as the MCP server keeps it (app/mcp/kept.py): only the appended bytes are scanned.

After an append the server reads the file whole, and when its earlier bytes are the ones it kept it
scans the new bytes alone and keeps its look-ups of the IDs those bytes do not name. Each case here
changes index.md from outside between two calls, and every Session ID's rows must read as a fresh
read of the file gives them: an append, then an in-place edit of an earlier row at the same size and
mtime; a truncated file; a rewrite of the same size; an append that continues an unended last line;
an append of a second row of an ID already looked up.
"""

from __future__ import annotations

import os

import pytest

from memboard.core.files import continues
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.index import COLUMNS, IndexFile
from memboard.mcp.kept import Parsed

HEADER = ("| " + " | ".join(COLUMNS) + " |\n|" + "|".join("---" for _ in COLUMNS) + "|\n").encode()
IDS = [f"2026-05-01-10{n:02d}-agent" for n in range(4)]


def row(sid: str, topic: str = "Topic") -> bytes:
    """A table line of index.md for sid."""
    return f"| {sid} | agent | {topic} | s | k | active | - | 2026-05-01 10:00 | 2026-05-01 10:00 |\n".encode()


def seen(parsed: Parsed, root: MemoryRoot, data: bytes) -> None:
    """Every ID's rows (and the table's extent) the server answers are those a fresh read of data gives."""
    kept, fresh = parsed.index_file(root), IndexFile(data)
    assert kept.data == data
    assert kept.row_span() == fresh.row_span() and kept.table_end == fresh.table_end
    for sid in [*IDS, "2026-05-02-0000-new"]:
        assert kept.find(sid) == fresh.find(sid), sid
        assert [r.values for r in kept.find(sid)] == [r.values for r in fresh.find(sid)], sid


def write_keeping_stamp(path, data: bytes) -> None:
    """Write data in place, the mtime set back to what it was (a stamp that lies about mtime)."""
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.fixture(params=["aged", "racy"])
def server(request, tmp_path, monkeypatch):
    """(index path, memory root, what a server keeps of it) with three rows; aged: stamps trusted at once."""
    (tmp_path / "state").mkdir()
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(tmp_path / "state"))
    if request.param == "aged":
        monkeypatch.setattr(continues, "AGED_NS", 0)
    base = tmp_path / "memory"
    base.mkdir()
    index = base / "index.md"
    index.write_bytes(b"# Index\n\n" + HEADER + b"".join(row(s) for s in IDS[:3]))
    root, parsed = MemoryRoot(base), Parsed(base)
    seen(parsed, root, index.read_bytes())
    return index, root, parsed


def append(path, data: bytes) -> bytes:
    """Append data to the file as a hook does; the file's bytes after."""
    with open(path, "ab") as fh:
        fh.write(data)
    return path.read_bytes()


def test_an_append_then_an_edit_of_an_earlier_row_at_the_same_size_and_mtime(server):
    index, root, parsed = server
    data = append(index, row(IDS[3]))
    seen(parsed, root, data)
    assert parsed.index_file(root).grown  # (only the appended row was scanned)
    edited = data.replace(b"| Topic |", b"| Tapic |", 1)
    write_keeping_stamp(index, edited)
    seen(parsed, root, edited)


def test_a_truncated_file_and_a_rewrite_of_the_same_size(server):
    index, root, parsed = server
    data = append(index, row(IDS[3]))
    seen(parsed, root, data)
    short = data[: -len(row(IDS[3])) - 5] + b"\n"
    write_keeping_stamp(index, short)
    seen(parsed, root, short)
    same = short.replace(IDS[1].encode(), IDS[3].encode())
    write_keeping_stamp(index, same)
    seen(parsed, root, same)
    data = append(index, row(IDS[1], "Back"))
    seen(parsed, root, data)


def test_an_append_that_continues_an_unended_last_line(server):
    index, root, parsed = server
    data = index.read_bytes()[:-1]  # the last row's line has no newline
    write_keeping_stamp(index, data)
    seen(parsed, root, data)
    data = append(index, b" more |\n")
    seen(parsed, root, data)


def test_an_append_of_another_row_of_an_id_already_looked_up_and_of_text_under_the_table(server):
    index, root, parsed = server
    data = append(index, row(IDS[2], "Again"))
    seen(parsed, root, data)
    assert len(parsed.index_file(root).find(IDS[2])) == 2
    data = append(index, b"\nText under the table.\n")
    seen(parsed, root, data)
    data = append(index, row(IDS[0], "Below"))  # below the text: no row of the table
    seen(parsed, root, data)


def test_text_under_the_table_that_an_append_turns_into_table_lines(server):
    index, root, parsed = server
    data = append(index, b"  ")  # a line of whitespace under the table, then (appended) a `|`: a table line
    seen(parsed, root, data)
    data = append(index, b"| 2026-05-02-0000-new | agent | T | s | k | idle | - | - | - |\n")
    seen(parsed, root, data)
    assert len(parsed.index_file(root).find("2026-05-02-0000-new")) == 1
