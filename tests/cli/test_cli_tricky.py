"""The tricky root: BOM, CRLF, preamble and trailer text, `\\|`, CJK, an extra column and a
malformed row survive every operation; only the intended lines change."""

from __future__ import annotations

import difflib
import json
import re

import pytest

from tests.support.doctor import needing, went_through
from tests.support.roots import TRICKY_ACTIVE, TRICKY_IDLE, TRICKY_LINES, TRICKY_OLD, TRICKY_SOURCE

NOW = "2026-06-01 09:30"
NEW_ID = "2026-06-01-0930-cursor-main-agent"
LINE_OF = {
    sid: i
    for i, line in enumerate(TRICKY_LINES)
    for sid in [TRICKY_ACTIVE, TRICKY_IDLE, TRICKY_SOURCE, TRICKY_OLD]
    if f"| {sid} |" in line
}
MALFORMED = 8
TABLE_END = 11  # the blank line after the table


def lines_of(data: bytes) -> list[str]:
    """Lines with their endings (`\\r` stays on its line)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", data.decode("utf-8"))


def line_diff(before: bytes, after: bytes) -> tuple[dict[int, str | None], list[tuple[int, str]]]:
    """Old line index -> its new text (None when deleted), and inserted lines (old position, text)."""
    old, new = lines_of(before), lines_of(after)
    changed: dict[int, str | None] = {}
    inserted: list[tuple[int, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(pairs):
            changed[i1 + k] = new[j1 + k]
        for k in range(i1 + pairs, i2):
            changed[k] = None
        for k in range(j1 + pairs, j2):
            inserted.append((i2, new[k]))
    return changed, inserted


def cells(line: str) -> list[str]:
    """Cells of a table line (escaped pipes kept raw)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.rstrip("\r\n"))[1:-1]]


def read(root) -> bytes:
    """index.md bytes."""
    return (root / "index.md").read_bytes()


def assert_invariants(root, cli):
    """BOM first, every line CRLF, malformed row kept verbatim and reported by list --json."""
    data = read(root)
    assert data.startswith(b"\xef\xbb\xbf# Memory Index")
    assert all(line.endswith("\r\n") for line in lines_of(data)), "a line lost its CRLF ending"
    assert TRICKY_LINES[MALFORMED] in lines_of(data)
    assert TRICKY_LINES[2] in lines_of(data) and TRICKY_LINES[-1] in lines_of(data)
    rows = json.loads(cli("list", "--json").out)
    bad = [r for r in rows if r["problem"]]
    assert len(bad) == 1 and bad[0]["id"] == "this row is broken"
    assert "3 cells" not in bad[0]["problem"] and "cells" in bad[0]["problem"]


def test_tricky_index_parses_and_lists_every_row(cli, root, tricky):
    rows = json.loads(cli("list", "--json").out)
    by = {r["id"]: r for r in rows}
    assert by[TRICKY_ACTIVE]["topic"] == "設計 | 管線"
    assert by[TRICKY_ACTIVE]["summary"] == "決定了 A | B 方案"
    assert by[TRICKY_SOURCE]["topic"] == "中文主題"
    assert by["this row is broken"]["problem"]
    assert by["this row is broken"]["line"] == MALFORMED + 1
    assert_invariants(root, cli)


def test_register_appends_one_crlf_row_after_the_table(cli, root, tricky):
    res = cli("register")
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert changed == {}
    assert len(inserted) == 1
    pos, line = inserted[0]
    assert pos == TABLE_END
    assert line.endswith("\r\n")
    assert cells(line)[0] == NEW_ID and cells(line)[5] == "idle" and len(cells(line)) == 10 and cells(line)[9] == ""
    assert_invariants(root, cli)


def test_register_manual_appends_one_row_and_writes_snapshot(cli, root, tricky):
    res = cli("register", "--manual", "--topic", "主題 | 含管線", "--summary", "做了 X")
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert changed == {} and len(inserted) == 1
    assert cells(inserted[0][1])[2] == "主題 \\| 含管線"
    assert (root / "sessions" / f"{NEW_ID}.md").exists()
    assert_invariants(root, cli)


def test_update_rewrites_only_its_line_and_keeps_unknown_cells(cli, root, tricky):
    res = cli("update", TRICKY_ACTIVE, "--summary", "新的摘要 | 更新")
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert set(changed) == {LINE_OF[TRICKY_ACTIVE]} and not inserted
    new = cells(changed[LINE_OF[TRICKY_ACTIVE]])
    old = cells(TRICKY_LINES[LINE_OF[TRICKY_ACTIVE]])
    assert new[2] == old[2] == "設計 \\| 管線"  # untouched cell keeps its raw text
    assert new[3] == "新的摘要 \\| 更新"
    assert new[5] == "active" and new[8] == NOW and new[9] == "extra note"
    assert new[7] == old[7]
    assert_invariants(root, cli)


def test_continue_with_as_changes_only_the_two_rows(cli, root, tricky):
    res = cli("continue", TRICKY_SOURCE, "--as", TRICKY_ACTIVE)
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert set(changed) == {LINE_OF[TRICKY_ACTIVE], LINE_OF[TRICKY_SOURCE]} and not inserted
    src = cells(changed[LINE_OF[TRICKY_SOURCE]])
    assert src[6] == TRICKY_ACTIVE
    assert src[:6] == cells(TRICKY_LINES[LINE_OF[TRICKY_SOURCE]])[:6]
    assert_invariants(root, cli)


def test_continue_without_as_changes_source_and_appends_one_row(cli, root, tricky):
    res = cli("continue", TRICKY_SOURCE)
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert set(changed) == {LINE_OF[TRICKY_SOURCE]} and len(inserted) == 1
    assert cells(changed[LINE_OF[TRICKY_SOURCE]])[6] == NEW_ID
    assert_invariants(root, cli)


def test_release_restores_the_source_line_byte_for_byte(cli, root, tricky):
    assert cli("continue", TRICKY_SOURCE, "--as", TRICKY_ACTIVE).code == 0
    middle = read(root)
    res = cli("release", TRICKY_SOURCE, "--as", TRICKY_ACTIVE)
    assert res.code == 0, res.err
    changed, inserted = line_diff(middle, read(root))
    assert set(changed) == {LINE_OF[TRICKY_SOURCE]} and not inserted
    assert changed[LINE_OF[TRICKY_SOURCE]] == TRICKY_LINES[LINE_OF[TRICKY_SOURCE]]
    assert_invariants(root, cli)


def test_organize_deletes_idle_marks_stale_and_keeps_the_rest(cli, root, tricky):
    res = cli("organize")
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert not inserted
    assert changed[LINE_OF[TRICKY_IDLE]] is None
    for sid in (TRICKY_OLD, TRICKY_ACTIVE):
        old = TRICKY_LINES[LINE_OF[sid]]
        assert changed[LINE_OF[sid]] == old.replace("| active |", "| stale |")
    assert set(changed) == {LINE_OF[TRICKY_IDLE], LINE_OF[TRICKY_OLD], LINE_OF[TRICKY_ACTIVE]}
    assert_invariants(root, cli)


def test_archive_removes_only_its_line(cli, root, tricky):
    res = cli("archive", TRICKY_OLD)
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert changed == {LINE_OF[TRICKY_OLD]: None} and not inserted
    assert (root / "archive" / TRICKY_OLD / "index.md").exists()
    assert_invariants(root, cli)


def test_archive_of_placeholder_removes_only_its_line(cli, root, tricky):
    res = cli("archive", TRICKY_IDLE)
    assert res.code == 0, res.err
    changed, inserted = line_diff(tricky, read(root))
    assert changed == {LINE_OF[TRICKY_IDLE]: None} and not inserted
    assert not (root / "archive").exists()


def test_doctor_fix_changes_only_the_repaired_line(cli, root, tricky, mem):
    # a one-sided link: the source's snapshot continues from TRICKY_OLD, whose row does not know it
    from tests.support.roots import snapshot_text

    mem.snapshot(TRICKY_SOURCE, snapshot_text(TRICKY_SOURCE, continues=[TRICKY_OLD], agent="claude-agent"))
    res = cli("doctor", "--fix")
    assert needing(res) == 1, res.err  # the malformed row is left for a hand
    changed, inserted = line_diff(tricky, read(root))
    assert set(changed) == {LINE_OF[TRICKY_OLD]} and not inserted
    assert cells(changed[LINE_OF[TRICKY_OLD]])[6] == TRICKY_SOURCE
    assert (root / "sessions" / f"{TRICKY_ACTIVE}.md").exists()  # missing snapshot recreated from the row
    assert_invariants(root, cli)
    doc = json.loads(cli("doctor", "--json").out)
    assert [f["kind"] for f in doc] == ["malformed_row"]


@pytest.mark.parametrize(
    "args",
    [
        ("register",),
        ("register", "--manual"),
        ("update", TRICKY_ACTIVE),
        ("continue", TRICKY_SOURCE),
        ("continue", TRICKY_SOURCE, "--as", TRICKY_ACTIVE),
        ("organize",),
        ("archive", TRICKY_OLD),
        ("doctor", "--fix"),
    ],
)
def test_every_operation_in_sequence_keeps_the_frame(cli, root, tricky, args):
    """Preamble, header, separator, malformed row and trailer bytes stay identical."""
    assert went_through(cli(*args), args)
    data = lines_of(read(root))
    for k in (0, 1, 2, 3, 4, 5, MALFORMED, len(TRICKY_LINES) - 2, len(TRICKY_LINES) - 1):
        assert TRICKY_LINES[k] in data
    assert data[0] == TRICKY_LINES[0] and data[-1] == TRICKY_LINES[-1]


def test_crlf_bom_snapshot_survives_update_continue_release_archive(cli, root, tricky):
    """A snapshot with a BOM and CRLF endings keeps both through every snapshot-changing command."""
    from tests.support.roots import snapshot_text

    path = root / "sessions" / f"{TRICKY_OLD}.md"
    original = b"\xef\xbb\xbf" + snapshot_text(TRICKY_OLD, agent="codex-agent").replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(original)

    def check():
        data = path.read_bytes()
        assert data.startswith(b"\xef\xbb\xbf# Session: ")
        assert b"\n" not in data.replace(b"\r\n", b""), "a bare LF crept in"
        return data

    assert (
        cli("update", TRICKY_OLD, "--summary", "更新了", "--snapshot", "-", input="## Decisions\n\n- 新決定\n").code
        == 0
    )
    data = check()
    assert "- 新決定\r\n".encode() in data and "更新了\r\n".encode() in data
    assert cli("continue", TRICKY_SOURCE, "--as", TRICKY_OLD).code == 0
    assert f"## Continues From\r\n\r\n- {TRICKY_SOURCE}\r\n".encode() in check()
    assert cli("release", TRICKY_SOURCE, "--as", TRICKY_OLD).code == 0
    assert b"## Continues From\r\n\r\n- None\r\n" in check()
    kept = path.read_bytes()
    assert cli("archive", TRICKY_OLD).code == 0
    assert (root / "archive" / TRICKY_OLD / "session.md").read_bytes() == kept
