"""doctor --fix converges in one run and every state memboard can leave has a fix.

A full disk during `archive` leaves an empty `archive/<id>/` beside the live row; an update that
stops between its snapshot and its index write leaves the row behind its snapshot; an index
holding NUL bytes refuses every write. Each is named with a fix (or, for the index, with what
to do), and a property test throws combinations of every damage doctor knows at it: after one
`--fix` a second doctor finds nothing fixable, and no row or snapshot line is lost.
"""

from __future__ import annotations

import errno
import json
import shutil
from collections.abc import Sequence
from datetime import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.cli import main
from memboard.core.files import revisions
from memboard.core.files.execute import execute
from memboard.core.files.root import MemoryRoot
from memboard.core.formats.index import IndexFile
from memboard.core.ops.doctor import diagnose
from tests.support.doctor import doctor_findings, needing
from tests.support.roots import item_lines, temp_files
from tests.support.sizes import examples
from tests.support.tree import tree

from .rootstate import index_ids, parse_problems
from .test_faults import C, seed

WHEN = datetime(2026, 6, 1, 9, 30)
HEADER = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|---|---|---|---|---|---|---|---|---|\n"


def doctor_json(cli) -> list[dict]:
    """The findings of `doctor --json`."""
    return doctor_findings(cli("doctor", "--json"))


def test_a_full_disk_during_archive_leaves_a_state_doctor_finishes_in_one_run(root, cli, capsys, monkeypatch):
    seed(root)
    snapshot = (root / "sessions" / f"{C}.md").read_bytes()

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    import memboard.core.files.fs as fs_module

    monkeypatch.setattr(fs_module.tempfile, "mkstemp", full_disk)
    assert main(["archive", C, "--root", str(root)]) == 1
    monkeypatch.undo()
    assert "nothing written" in capsys.readouterr().err
    assert not (root / "archive" / C).exists()  # the folder made for the failed write went with it
    assert C in index_ids(root)
    assert [f for f in doctor_json(cli) if f["id"] == C] == []
    # a crash between creating the folder and writing into it (or an older memboard) leaves it empty
    (root / "archive" / C).mkdir(parents=True)
    found = [f for f in doctor_json(cli) if f["id"] == C]
    assert [f["kind"] for f in found] == ["half_archived"] and "finish the archive" in found[0]["fix"]
    res = cli("doctor", "--fix")
    assert res.code == 0 and "repaired" in res.out, res.err
    assert [f for f in doctor_json(cli) if f["fix"]] == []
    assert C not in index_ids(root)
    assert (root / "archive" / C / "session.md").read_bytes() == snapshot
    assert f"| Session ID | {C} |" in (root / "archive" / C / "index.md").read_text(encoding="utf-8")


def test_archive_itself_goes_through_an_empty_archive_folder_instead_of_refusing_forever(root, cli):
    seed(root)
    (root / "archive" / C).mkdir(parents=True)  # what a full disk at the archive's first write leaves
    res = cli("archive", C)
    assert res.code == 0, res.err
    assert C not in index_ids(root) and (root / "archive" / C / "session.md").is_file()


def test_a_row_behind_its_snapshot_is_caught_up_from_the_snapshot(root, cli, capsys):
    seed(root)
    snap = root / "sessions" / f"{C}.md"
    revisions.record(MemoryRoot(root), C, snap.read_bytes())  # memboard saw this version
    text = snap.read_text(encoding="utf-8")
    snap.write_text(
        text.replace("| Updated At | 2026-05-01 10:00 |", "| Updated At | 2026-05-20 08:15 |").replace(
            "| Topic | Gamma work |", "| Topic | Gamma, later |"
        ),
        encoding="utf-8",
    )
    found = [f for f in doctor_json(cli) if f["kind"] == "row_behind_snapshot"]
    assert len(found) == 1 and found[0]["id"] == C and "Updated At" in found[0]["fix"]
    assert cli("doctor", "--fix").code == 0
    row = {r["id"]: r for r in json.loads(cli("list", "--json").out)}[C]
    assert (row["updated_at"], row["topic"], row["summary"]) == ("2026-05-20 08:15", "Gamma, later", "Gamma summary.")
    assert doctor_json(cli) == []


def test_an_index_with_nul_bytes_is_named_not_called_healthy(root, cli):
    text = (
        "# Memory Index\n\n"
        + HEADER
        + "| 2026-05-01-0900-a | a | T | S | k | active | - | 2026-05-01 09:00 | 2026-05-01 09:00 |\n"
    )
    for data in (b"\xff\xfe" + text.encode("utf-16-le"), text.encode("utf-8").replace(b"| T |", b"| T\x00 |")):
        (root / "index.md").write_bytes(data)
        res = cli("doctor")
        assert needing(res) == 1 and "no problems found" not in res.out
        assert "index_not_text" in res.out and "NUL bytes" in res.out and "UTF-8" in res.out
        res = cli("doctor", "--fix")
        assert needing(res) == 1 and (root / "index.md").read_bytes() == data  # left for a hand


# -- every damage doctor knows, in combination -----------------------------------------------

L1, L2, L3, L4 = (f"2026-05-0{n}-0900-live{n}" for n in range(1, 5))
O1, O2 = "2026-05-05-0900-orphan1", "2026-05-06-0900-orphan2"
H1, H2, H3 = "2026-05-07-0900-half1", "2026-05-07-0900-half2", "2026-05-07-0900-half3"
GONE, OLD = "2026-04-01-0900-gone", "2026-04-02-0900-old"
DAMAGES = [
    "missing_snapshot",
    "idle_with_snapshot",
    "identical_duplicate",
    "orphan",
    "orphan_continues_from_live",
    "orphan_continues_from_orphan",
    "live_continues_from_orphan",
    "refs_lack_continuation",
    "continuation_lacks_refs",
    "refs_to_gone",
    "refs_to_archived",
    "half_meta_only",
    "half_meta_and_moved",
    "half_empty_folder",
    "half_moved_only",
    "ref_to_half_archived",
    "half_continues_from_live",
    "archive_without_index",
    "stray_temp",
    "stray_temp_in_archive",
    "row_behind",
]


def row(sid: str, status: str = "active", refs: str = "-", updated: str = "2026-05-10 09:00") -> str:
    """One index line."""
    return f"| {sid} | {sid[16:]} | Topic {sid[16:]} | Summary of {sid[16:]}. | kw | {status} | {refs} | 2026-05-01 09:00 | {updated} |\n"


def snap(sid: str, continues: Sequence[str] = (), updated: str = "2026-05-10 09:00", note: str = "") -> str:
    """A snapshot with one item of its own, so a lost line shows."""
    cont = "".join(f"- {c}\n" for c in continues) or "- None\n"
    return (
        f"# Session: {sid}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Session ID | {sid} |\n"
        f"| Agent Name | {sid[16:]} |\n| Topic | Topic {sid[16:]} |\n| Status | active |\n"
        f"| Started At | 2026-05-01 09:00 |\n| Updated At | {updated} |\n\n## Current Context\n\n"
        f"Context of {sid}.{note}\n\n## Decisions\n\n- decision of {sid}\n\n## Continues From\n\n{cont}"
    )


def build(path, damages: set[str]) -> None:
    """A root with the chosen damages (each on its own sessions where possible)."""
    if "ref_to_half_archived" in damages:
        damages = damages | {"half_meta_and_moved"}
    if "half_continues_from_live" in damages:
        damages = damages | {"half_meta_only"}
    rows: dict[str, str] = {L1: row(L1), L2: row(L2), L3: row(L3), L4: row(L4)}
    snaps: dict[str, str] = {L1: snap(L1), L2: snap(L2), L3: snap(L3), L4: snap(L4)}
    other: dict[str, str] = {}
    if "missing_snapshot" in damages:
        del snaps[L1]
    if "idle_with_snapshot" in damages:
        rows[L2] = row(L2, "idle")
    if damages & {"orphan", "orphan_continues_from_live", "orphan_continues_from_orphan", "live_continues_from_orphan"}:
        snaps[O1] = snap(O1, [L3] if "orphan_continues_from_live" in damages else [])
        if "orphan_continues_from_orphan" in damages:
            snaps[O2] = snap(O2, [O1])
        if "live_continues_from_orphan" in damages:
            snaps[L4] = snap(L4, [O1])
    if "refs_lack_continuation" in damages:  # L3 lists L2, but L2's snapshot does not continue from L3
        rows[L3] = row(L3, refs=L2)
    if "continuation_lacks_refs" in damages:  # L4 continues from L2, L2's row does not list it
        snaps[L4] = snap(L4, [L2] + ([O1] if "live_continues_from_orphan" in damages else []))
    refs = [r for d, r in (("refs_to_gone", GONE), ("refs_to_archived", OLD)) if d in damages]
    if refs:
        rows[L1] = row(L1, refs=", ".join(refs))
        if OLD in refs:
            other[f"archive/{OLD}/index.md"] = f"# Archived Session: {OLD}\n"
            other[f"archive/{OLD}/session.md"] = snap(OLD)
    for damage, sid in (
        ("half_meta_only", H1),
        ("half_meta_and_moved", H2),
        ("half_empty_folder", H3),
        ("half_moved_only", H3),
    ):
        if damage not in damages:
            continue
        rows[sid] = row(sid)
        snaps[sid] = snap(sid, [L3] if "half_continues_from_live" in damages else [])
        if damage != "half_empty_folder" and damage != "half_moved_only":
            other[f"archive/{sid}/index.md"] = f"# Archived Session: {sid}\n"
        if damage in ("half_meta_and_moved", "half_moved_only"):
            other[f"archive/{sid}/session.md"] = snaps.pop(sid)
        if damage == "half_empty_folder" and "half_moved_only" not in damages:
            (path / "archive" / sid).mkdir(parents=True, exist_ok=True)
        if "half_continues_from_live" in damages:
            rows[L3] = row(L3, refs=", ".join(filter(None, [rows[L3].split(" | ")[6].replace("-", ""), sid])))
    if "ref_to_half_archived" in damages and H2 in rows:
        rows[L4] = row(L4, refs=H2)  # H2 continued from L4 (its row says so) while being archived
    if "archive_without_index" in damages:
        other[f"archive/{GONE}/session.md"] = snap(GONE)
    if "stray_temp" in damages:
        other[f"sessions/.{L3}.md.x1y2z3.memboard-tmp"] = "half a snap"
    if "stray_temp_in_archive" in damages:
        other[f"archive/{L3}/.index.md.q1w2e3.memboard-tmp"] = "half an archive index"
    lines = "".join(rows.values())
    if "identical_duplicate" in damages:
        lines += rows[L2]
    other["index.md"] = "# Memory Index\n\n" + HEADER + lines
    for sid, text in snaps.items():
        other[f"sessions/{sid}.md"] = text
    for rel, text in other.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text, encoding="utf-8")
    if "row_behind" in damages and L3 in snaps:
        revisions.record(MemoryRoot(path), L3, snaps[L3].encode("utf-8"))
        (path / "sessions" / f"{L3}.md").write_text(
            snap(L3, updated="2026-05-20 10:00", note=" More."), encoding="utf-8"
        )


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sets(st.sampled_from(DAMAGES), min_size=1, max_size=8))
def test_one_fix_reaches_a_root_with_nothing_left_to_fix_and_loses_nothing(tmp_path, damages):
    path = tmp_path / "memory"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    build(path, damages)
    root = MemoryRoot(path)
    before = tree(path, links=False)
    rows_before = {r.id for r in IndexFile(before["index.md"]).rows}
    findings, _ = diagnose(root, WHEN)
    assert findings, damages
    execute(root, lambda r: diagnose(r, WHEN)[1])
    again, repair = diagnose(root, WHEN)
    assert not repair.changes and not [f for f in again if f.fix], (sorted(damages), again)
    assert temp_files(path) == [] and parse_problems(path) == []
    after = tree(path, links=False)
    kept = b"".join(v for k, v in after.items() if k.startswith(("sessions/", "archive/")))
    for rel, data in before.items():
        if rel.startswith("sessions/") and rel.endswith(".md") and not rel.startswith("sessions/."):
            assert item_lines(data) <= item_lines(kept), (rel, item_lines(data) - item_lines(kept))
    live = set(index_ids(path))
    for sid in rows_before:
        assert sid in live or (path / "archive" / sid / "index.md").is_file(), f"row {sid} lost"


# -- hand-made index layouts, with every damage doctor knows -------------------------------------

SEPARATOR = HEADER.splitlines(keepends=True)[1]
LAYOUTS = [
    "as_written",
    "rows_below_text",  # rows after text below the table, where Markdown reads no row
    "text_right_under",  # a line of text right under the table ends it
    "rows_below_text_crlf",
    "no_separator",  # a header with no separator line: Markdown reads no table at all
    "no_separator_rows_below_text",
    "no_header",  # rows with no header above them
]


def laid(text: str, layout: str) -> str:
    """index.md's text (a preamble, HEADER, rows) in one of LAYOUTS."""
    head, rest = text.split(HEADER, 1)
    rows = rest.splitlines(keepends=True)
    first, others = "".join(rows[:1]), "".join(rows[1:])
    header = HEADER.replace(SEPARATOR, "") if layout.startswith("no_separator") else HEADER
    if layout == "no_header":
        header = ""
    if layout.startswith(("rows_below_text", "no_separator_rows")):
        out = head + header + first + "\nSome text below the table.\n" + others
    elif layout == "text_right_under":
        out = head + header + first + "A line right under the table.\n" + others
    else:
        out = head + header + first + others
    return out.replace("\n", "\r\n") if layout.endswith("crlf") else out


def row_ids(data: bytes) -> set[str]:
    """The Session IDs of every line in the table's shape, read as lines (a layout Markdown reads no table in
    hides them from IndexFile)."""
    found = set()
    for line in data.decode("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.lstrip().startswith("|") and len(cells) == 9 and cells[0][:4].isdigit():
            found.add(cells[0])
    return found


def prose(data: bytes) -> list[str]:
    """The lines of index.md that are no table line (text a person wrote): each must be kept."""
    return [line for line in data.decode("utf-8").splitlines() if line.strip() and not line.lstrip().startswith("|")]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(LAYOUTS[1:]), st.sets(st.sampled_from(DAMAGES), max_size=6))
def test_one_fix_lays_out_a_hand_made_index_and_repairs_everything_else_in_the_same_run(tmp_path, layout, damages):
    path = tmp_path / "memory"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    build(path, damages)
    index = path / "index.md"
    index.write_bytes(laid(index.read_text(encoding="utf-8"), layout).encode("utf-8"))
    root = MemoryRoot(path)
    before = tree(path, links=False)
    findings, _ = diagnose(root, WHEN)
    assert [f for f in findings if f.fix], (layout, damages)
    execute(root, lambda r: diagnose(r, WHEN)[1])
    again, repair = diagnose(root, WHEN)
    assert not repair.changes and not [f for f in again if f.fix], (layout, sorted(damages), again)
    assert temp_files(path) == [] and parse_problems(path) == []
    after = index.read_bytes()
    assert IndexFile(after).has_table and IndexFile(after).outside == []
    assert [line for line in prose(before["index.md"]) if line not in prose(after)] == []
    live = set(index_ids(path))
    for sid in row_ids(before["index.md"]):
        assert sid in live or (path / "archive" / sid / "index.md").is_file(), f"row {sid} lost"
    kept = b"".join(v for k, v in tree(path, links=False).items() if k.startswith(("sessions/", "archive/")))
    for rel, data in before.items():
        if rel.startswith("sessions/") and rel.endswith(".md") and not rel.startswith("sessions/."):
            assert item_lines(data) <= item_lines(kept), (rel, item_lines(data) - item_lines(kept))


def test_doctor_names_a_header_without_its_separator_and_one_fix_inserts_it(root, cli):
    rows = row(L1) + row(L2)
    (root / "index.md").write_text("# Memory Index\n\n" + HEADER.replace(SEPARATOR, "") + rows, encoding="utf-8")
    (root / "sessions").mkdir()
    (root / "sessions" / f"{L1}.md").write_text(snap(L1), encoding="utf-8")
    found = doctor_json(cli)
    table = [f for f in found if f["kind"] == "index_table"]
    assert len(table) == 1 and "line 4: a table header with no separator line" in table[0]["message"]
    assert table[0]["fix"] == "insert the separator line (every other byte is kept)"
    # the rows are checked as the inserted line leaves them: L2 has no snapshot, none is an orphan
    assert {f["kind"] for f in found} == {"index_table", "missing_snapshot"}
    res = cli("doctor", "--fix")
    assert res.code == 0, res.out + res.err
    assert (root / "index.md").read_text(encoding="utf-8") == "# Memory Index\n\n" + HEADER + rows
    assert [f for f in doctor_json(cli) if f["fix"]] == []


def test_rows_without_a_header_get_the_protocol_s_header_above_them(root, cli):
    text = "# Memory Index\n\nOur sessions:\n" + row(L1) + "\nNotes after.\n" + row(L2)
    (root / "index.md").write_text(text, encoding="utf-8")
    assert {f["kind"] for f in doctor_json(cli)} >= {"index_table", "outside_row"}
    res = cli("doctor", "--fix")
    assert res.code == 0, res.out + res.err
    after = (root / "index.md").read_text(encoding="utf-8")
    assert after == "# Memory Index\n\nOur sessions:\n" + HEADER + row(L1) + row(L2) + "\nNotes after.\n"
    assert [f for f in doctor_json(cli) if f["fix"]] == []
    assert set(index_ids(root)) == {L1, L2}
