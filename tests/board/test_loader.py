"""The board's reading side: incremental re-reads, the file watcher, merge views, revisions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from memboard.board.loader import (
    FileWatch,
    common_prefix,
    load_detail,
    merge_view,
    observe_snapshots,
    read_model,
    without_metadata,
)
from memboard.core.files.revisions import list_revisions
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.index import COLUMNS
from memboard.core.formats.snapshot import render_template

NOW = datetime(2026, 6, 1, 9, 30)
HEAD = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"


def line(n: int, status: str = "active", eol: str = "\n") -> str:
    return f"| 2026-05-{1 + n % 28:02d}-1000-agent{n} | agent{n} | topic {n} | s | k | {status} | - | 2026-05-01 10:00 | 2026-05-02 10:00 |{eol}"


BASE = "# Index\n\n" + HEAD + "".join(line(i) for i in range(30)) + "\nText after the table.\n"
EDITS = {
    "append inside the table": BASE.replace("\nText after", line(99) + "\nText after"),
    "append at end of file": "# Index\n\n" + HEAD + "".join(line(i) for i in range(30)) + line(99),
    "modify a middle row": BASE.replace(line(15), line(15, "stale")),
    "delete a row": BASE.replace(line(20), ""),
    "break a row": BASE.replace(line(7), "| half | a row |\n"),
    "change the header": BASE.replace("| Session ID |", "| Session ID  |"),
    "edit text after the table": BASE.replace("Text after", "Words after"),
    "edit text before the table": BASE.replace("# Index", "# The Index"),
    "unchanged": BASE,
    "truncate": BASE[:200],
    "empty": "",
}


def snapshot_of(model):
    return [(r.line, r.id, r.status, r.problem, r.topic) for r in model.rows]


@pytest.mark.parametrize("edit", list(EDITS))
def test_reread_matches_a_full_parse(root, edit):
    mroot = MemoryRoot(root)
    first = read_model(mroot, NOW, BASE.encode())
    new = EDITS[edit].encode()
    assert snapshot_of(read_model(mroot, NOW, new, previous=first)) == snapshot_of(read_model(mroot, NOW, new))


def test_reread_of_an_append_reuses_earlier_rows(root):
    mroot = MemoryRoot(root)
    first = read_model(mroot, NOW, BASE.encode())
    second = read_model(mroot, NOW, EDITS["append inside the table"].encode(), previous=first)
    assert all(a is b for a, b in zip(first.rows, second.rows))
    assert second.rows[-1].id.endswith("agent99") and len(second.rows) == 31


def test_common_prefix():
    assert common_prefix(b"abcdef", b"abcxef") == 3
    assert common_prefix(b"abc", b"abcdef") == 3
    assert common_prefix(b"", b"x") == 0
    big = b"x" * 200_000
    assert common_prefix(big + b"a", big + b"b") == 200_000
    assert common_prefix(big, big) == 200_000


def test_file_watch_sees_index_and_snapshot_changes(root):
    (root / "index.md").write_text(BASE, encoding="utf-8")
    watch = FileWatch(MemoryRoot(root))
    watch.prime()
    assert watch.changes() == (False, set())
    (root / "sessions").mkdir()
    (root / "sessions" / "2026-05-01-1000-agent0.md").write_text("# x\n", encoding="utf-8")
    assert watch.changes() == (False, {"2026-05-01-1000-agent0"})
    (root / "index.md").write_text(BASE + "more\n", encoding="utf-8")
    assert watch.changes() == (True, set())
    (root / "sessions" / "2026-05-01-1000-agent0.md").unlink()
    assert watch.changes() == (False, {"2026-05-01-1000-agent0"})


def snap(**kw) -> str:
    base: dict[str, Any] = dict(
        session_id="2026-05-01-1000-agent0",
        agent="agent0",
        topic="t",
        started="2026-05-01 10:00",
        updated="2026-05-02 10:00",
    )
    base.update(kw)
    return render_template(**base)


def test_merge_view_flags_items_dropped_without_a_marker():
    old = snap(decisions=["Keep A", "Keep B"], questions=["Why C?", "Why D?"])
    new = snap(decisions=["Keep A", "Keep B", "Add E"], questions=["[resolved] Why C?"], updated="2026-05-03 10:00")
    view = merge_view(old, new)
    assert view.breaks == [("Open Questions", "- Why D?")]
    names = [s.name for s in view.sections]
    assert names == ["Metadata", "Decisions", "Open Questions"]
    decisions = next(s for s in view.sections if s.name == "Decisions")
    assert [ln for ln in decisions.lines if ln[0] in "+-"] == ["+- Add E"]
    assert decisions.lines[0] == " - Keep B"  # one line of context
    assert merge_view(old, old).sections == [] and merge_view(old, old).breaks == []


def test_observe_records_only_changed_snapshots_and_detail_lists_them(root):
    mroot = MemoryRoot(root)
    sid = "2026-05-01-1000-agent0"
    (root / "sessions").mkdir()
    path = root / "sessions" / f"{sid}.md"
    path.write_text(snap(), encoding="utf-8")
    assert observe_snapshots(mroot) == {sid}
    assert observe_snapshots(mroot) == set()
    path.write_text(snap(decisions=["New"]), encoding="utf-8")
    detail = load_detail(mroot, sid)  # reading never records: the current text is appended
    assert len(list_revisions(mroot, sid)) == 1 and len(detail.revisions) == 2
    assert detail.merge(1).sections and detail.merge(0) is None
    assert observe_snapshots(mroot, {sid}) == {sid}
    assert len(load_detail(mroot, sid).revisions) == 2
    assert load_detail(mroot, "2026-05-09-1000-none").revisions == []
    assert "## Metadata" not in without_metadata(snap()) and "## Decisions" in without_metadata(snap())
