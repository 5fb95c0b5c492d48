"""Rows in the protocol's shape outside the board table (an agent appended its row below text under
the table): every write keeps them byte for byte, memboard's own appends land inside the table, and
list, doctor and the board name them."""

from __future__ import annotations

import json

from tests.support.doctor import doctor_findings, needing
from tests.support.hooks import claude_payload, encoded
from tests.support.roots import HEADER, PREAMBLE, SEPARATOR, idle_line, row_line, snapshot_text

A = "2026-05-01-0900-cursor-main-agent"
B = "2026-05-02-0900-claude-agent"
C = "2026-05-03-0900-codex-agent"
LOST = "2026-05-31-1200-claude-agent"
NEW = "2026-06-01-0930-cursor-main-agent"
OLD = "2026-05-01 09:00"
TEXT = "Rows are appended by hooks; run `memboard organize` to tidy up.\n"
OUTSIDE = row_line(LOST, topic="Appended below the text") + "\n"


def write(root, *table: str) -> bytes:
    """An index.md whose table holds the given lines, then a blank line, a line of text and one outside row."""
    data = (PREAMBLE + HEADER + SEPARATOR + "".join(t + "\n" for t in table) + "\n" + TEXT + OUTSIDE).encode()
    (root / "index.md").write_bytes(data)
    return data


def tail(root) -> bytes:
    """index.md's bytes from the line of text under the table on."""
    data = (root / "index.md").read_bytes()
    return data[data.index(TEXT.encode()) :]


def test_register_appends_inside_the_table_and_keeps_the_outside_row(cli, root):
    write(root, row_line(A))
    assert cli("register").code == 0
    data = (root / "index.md").read_text(encoding="utf-8")
    table_end = data.index("\n\n" + TEXT)
    assert f"| {NEW} |" in data[:table_end]
    assert tail(root) == (TEXT + OUTSIDE).encode()


def test_update_organize_and_archive_keep_the_outside_row_byte_for_byte(cli, root, mem):
    write(root, row_line(A, status="stale", updated=OLD), idle_line(B), row_line(C))
    mem.snapshot(A)
    mem.snapshot(C, snapshot_text(C))
    assert cli("update", C, "--summary", "More work.").code == 0
    assert tail(root) == (TEXT + OUTSIDE).encode()
    assert cli("organize").code == 0
    assert tail(root) == (TEXT + OUTSIDE).encode()
    res = cli("archive", A)
    assert res.code == 0, res.err
    assert tail(root) == (TEXT + OUTSIDE).encode()
    assert f"| {B} |" not in (root / "index.md").read_text(encoding="utf-8")  # (organize did delete the idle row)


def test_update_of_an_outside_row_does_not_append_a_second_row(cli, root):
    before = write(root, row_line(A))
    res = cli("update", LOST, "--summary", "x")
    data = (root / "index.md").read_bytes()
    assert data.count(f"| {LOST} |".encode()) == 1
    assert res.code != 0 or data == before


def test_the_hook_appends_inside_the_table_when_text_follows_it(cli, root):
    write(root, row_line(A))
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert res.code == 0, res.err
    data = (root / "index.md").read_text(encoding="utf-8")
    assert "| 2026-06-01-0930-claude-main-agent |" in data[: data.index("\n\n" + TEXT)]
    assert tail(root) == (TEXT + OUTSIDE).encode()


def test_list_json_names_the_outside_row_as_a_problem(cli, root):
    write(root, row_line(A))
    rows = json.loads(cli("list", "--json").out)
    assert [r["id"] for r in rows] == [A, LOST]
    assert rows[0]["problem"] is None
    assert "outside the table" in rows[1]["problem"] and rows[1]["line"] == 8


def test_doctor_names_the_outside_row_and_its_fix_moves_it_into_the_table_byte_exact(cli, root):
    before = write(root, row_line(A))
    found = [f for f in doctor_findings(cli("doctor", "--json")) if f["kind"] == "outside_row"]
    assert [f["id"] for f in found] == [LOST] and found[0]["fix"] and "line 8" in found[0]["message"]
    dry = cli("doctor", "--fix", "--dry-run")
    # a preview repairs nothing; the row moving into the table is checked as a row of it (it has no snapshot)
    assert needing(dry) == 3, dry.err
    assert "+" + OUTSIDE.rstrip("\n") in dry.out and "-" + OUTSIDE.rstrip("\n") in dry.out
    assert (root / "index.md").read_bytes() == before
    # one --fix is enough: the moved row's snapshot is created by the same run (it took a second run before)
    assert needing(cli("doctor", "--fix")) == 0
    assert (root / "sessions" / f"{LOST}.md").is_file()
    after = (root / "index.md").read_bytes()
    assert after == (PREAMBLE + HEADER + SEPARATOR + row_line(A) + "\n" + OUTSIDE + "\n" + TEXT).encode()
    assert [r["problem"] for r in json.loads(cli("list", "--json").out)] == [None, None]


def test_the_demo_root_writes_no_text_under_its_table(tmp_path):
    from memboard.core.formats.clock import now
    from memboard.core.formats.index import IndexFile
    from memboard.core.ops.demo import build_demo

    index = IndexFile((build_demo(tmp_path / "demo", now()) / "index.md").read_bytes())
    assert index.has_table and index.row_span()[1] == len(index.data)  # the table is the file's end
    assert index.outside == []


def test_register_never_reuses_the_id_of_an_outside_row(cli, root):
    (root / "index.md").write_text(
        PREAMBLE + HEADER + SEPARATOR + row_line(A) + "\n\n" + TEXT + row_line(NEW) + "\n", encoding="utf-8"
    )
    res = cli("register")
    assert res.code == 0, res.err
    assert res.out.strip().endswith(NEW + "-2")
    assert (root / "index.md").read_text(encoding="utf-8").count(f"| {NEW} |") == 1
