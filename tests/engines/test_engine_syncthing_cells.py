"""Through a real Syncthing: the same cell changed on both machines in one minute, and a session archived on one
machine while the other updated it (issue 26's "Done when").

A Summary both machines changed at the same Updated At is no rule's to decide: `doctor --fix` merges the rest,
keeps this machine's value, reports a `conflict_cell` naming both values and leaves the copy in place, and
`resolve --prefer ours|theirs` finishes it. A session archived on the laptop and updated on the desktop ends
archived once, with the desktop's update in its archive; when both wrote in the same minute, the fields no time
decides are open cells until `resolve` decides them, and the session stays archived.
"""

from __future__ import annotations

import pytest

from tests.engines.scenarios import KEPT, board_sees, copies, snapshot
from tests.support.doctor import fix_report
from tests.support.engines import Machine, differences, shared_files

pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("engines")]

SAME_MINUTE = "2026-06-01 12:00"


def fix(one: Machine) -> dict:
    """`doctor --fix --json`: its report (exit 1 while open cells are left to resolve, else 0)."""
    return fix_report(one("doctor", "--fix", "--json"))


@pytest.mark.parametrize("prefer", ["theirs", "ours"])
def test_the_same_cell_changed_on_both_machines_is_open_until_resolve_decides_it(pair, laptop, desktop, prefer):
    sid = laptop.register("--manual", "--topic", "Shared", "--summary", "Started on the laptop.")
    pair.start()
    pair.sync()
    pair.pause()
    laptop.ok("update", sid, "--summary", "Laptop: the parser is done.", now=SAME_MINUTE)
    desktop.ok("update", sid, "--summary", "Desktop: the parser needs tests.", now=SAME_MINUTE)
    for instance in pair.both:
        instance.scan()
    pair.resume()
    found = copies(laptop.root)
    (index_copy,) = [path for path, of in found.items() if of == "index.md"]
    fix(laptop)
    cells = [f for f in laptop.doctor() if f["kind"] == "conflict_cell"]
    assert [(f["id"], f["column"], f["path"], f["fix"]) for f in cells] == [(sid, "Summary", index_copy, None)]
    assert "Laptop: the parser is done." in cells[0]["message"]
    assert "Desktop: the parser needs tests." in cells[0]["message"]
    assert (laptop.root / index_copy).is_file()  # the copy stays while its cell is open
    ours = laptop.rows()[sid]["summary"]
    assert ours == "Desktop: the parser needs tests."  # (the desktop's version was the newer: it kept the name)
    lines, listed = board_sees(laptop)
    assert f"index.md: open conflict: {sid} Summary (R: resolve)" in lines, lines
    assert listed == [(sid, "Summary", ours, "Laptop: the parser is done.")]
    copy_bytes = (laptop.root / index_copy).read_bytes()
    res = laptop("resolve", "--prefer", prefer)
    assert res.code == 0, res.err
    expected = ours if prefer == "ours" else "Laptop: the parser is done."
    assert laptop.rows()[sid]["summary"] == expected
    assert not (laptop.root / index_copy).exists()
    assert (laptop.root / KEPT / index_copy).read_bytes() == copy_bytes
    assert [f for f in laptop.doctor() if f["kind"] in ("conflict_cell", "sync_conflict_copy")] == []
    pair.sync()
    assert desktop.rows()[sid]["summary"] == expected
    assert fix(desktop)["changes"] == [] and not copies(desktop.root)
    assert not differences(pair.a.folder, pair.b.folder)


def test_a_session_archived_on_one_machine_and_updated_on_the_other_ends_archived_once(pair, laptop, desktop):
    sid = laptop.register("--manual", "--topic", "Finished work", "--summary", "Done on the laptop.")
    other = laptop.register("--manual", "--topic", "Ongoing work")
    pair.start()
    pair.sync()
    pair.pause()
    laptop.ok("archive", sid)
    desktop.ok("update", sid, "--snapshot", "-", input=snapshot("Desktop: one more finding, after the archive."))
    for instance in pair.both:
        instance.scan()
    pair.resume()
    fix(laptop)
    pair.sync()
    for one in (laptop, desktop):
        files = shared_files(one.root)
        assert sid not in one.rows() and other in one.rows()
        assert f"sessions/{sid}.md" not in files
        assert "Desktop: one more finding, after the archive." in files[f"archive/{sid}/session.md"].decode()
        assert [path for path in files if sid in path and not path.startswith(KEPT)] == [
            f"archive/{sid}/index.md",
            f"archive/{sid}/session.md",
        ]
        findings = one.doctor()
        assert [
            f for f in findings if f["fix"] is not None or f["kind"] in ("half_archived", "archived_and_live")
        ] == []
    assert fix(desktop)["changes"] == []
    assert not differences(pair.a.folder, pair.b.folder)


def test_archived_on_one_machine_and_updated_on_the_other_in_the_same_minute_is_open_until_resolve(
    pair, laptop, desktop
):
    sid = laptop.register("--manual", "--topic", "Work", "--summary", "Started.", now="2026-06-01 11:00")
    pair.start()
    pair.sync()
    pair.pause()
    for one, machine in ((laptop, "Laptop"), (desktop, "Desktop")):
        topic, summary = f"{machine} topic", f"{machine}: the summary."
        item = snapshot(f"{machine}: a decision in the same minute.")
        one.ok("update", sid, "--topic", topic, "--summary", summary, "--snapshot", "-", input=item, now=SAME_MINUTE)
    laptop.ok("archive", sid, now=SAME_MINUTE)
    for instance in pair.both:
        instance.scan()
    pair.resume()
    fix(laptop)
    cells = {f["column"]: f for f in laptop.doctor() if f["kind"] == "conflict_cell"}
    assert sorted(cells) == ["Summary", "Topic"], cells
    assert "'Desktop topic'" in cells["Topic"]["message"] and "'Laptop topic'" in cells["Topic"]["message"]
    lines, listed = board_sees(laptop)  # (open in the live row and snapshot or in a copy: whichever Syncthing left)
    assert sorted(line.split(": open conflict: ")[1] for line in lines if ": open conflict: " in line) == [
        f"{sid} Summary (R: resolve)",
        f"{sid} Topic (R: resolve)",
    ], lines
    assert sorted(listed) == [
        (sid, "Summary", "Laptop: the summary.", "Desktop: the summary."),
        (sid, "Topic", "Laptop topic", "Desktop topic"),
    ]
    res = laptop("resolve", sid, "--prefer", "theirs")
    assert res.code == 0, res.err
    pair.sync()
    for one in (laptop, desktop):
        files = shared_files(one.root)
        assert sid not in one.rows() and f"sessions/{sid}.md" not in files
        archive = files[f"archive/{sid}/session.md"].decode()
        assert (
            "Laptop: a decision in the same minute." in archive and "Desktop: a decision in the same minute." in archive
        )
        assert "| Topic | Desktop topic |" in files[f"archive/{sid}/index.md"].decode()
        assert [f for f in one.doctor() if f["fix"] is not None or f["kind"] == "conflict_cell"] == []
        assert not copies(one.root)
    assert fix(desktop)["changes"] == []
    assert not differences(pair.a.folder, pair.b.folder)
