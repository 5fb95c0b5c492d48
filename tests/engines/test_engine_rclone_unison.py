"""What rclone bisync and unison really do with a memory root that two machines changed, and that memboard
finds what they leave.

Each "machine" is a local folder with its own local state; the engine runs between the two folders, as between
a laptop's folder and a remote's, with no network. rclone bisync renames both versions of a file changed on both
sides (`index.md..path1`, `index.md..path2`) and leaves no `index.md`. unison by default skips the file (the two
machines stay different, exit 1); with `-prefer newer` the older side's text is overwritten and no copy is kept;
with `-copyonconflict` the overwritten version is kept as `<stem> (conflict_on_<date>)<ext>` on that side.
"""

from __future__ import annotations

import re

import pytest

from tests.engines.scenarios import NOTE, NOTE_KEY, snapshot
from tests.support.engines import differences, rclone_bisync, shared_files, tool, unison

pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("engines")]

ITEMS = {"laptop": "Laptop: keep the lock file.", "desktop": "Desktop: pin Python 3.12."}
STATEMENTS = {"laptop": "uv locks on the laptop.", "desktop": "uv caches on the desktop."}
UNISON_COPY_RE = re.compile(r" \(conflict_on_\d{4}-\d{2}-\d{2}\)\.md$")


@pytest.fixture
def two(tmp_path, machine):
    """(laptop, desktop): two machines, each with its own folder; the laptop registered one session there."""
    laptop = machine("laptop", tmp_path / "laptop")
    desktop = machine("desktop", tmp_path / "desktop")
    laptop.root.mkdir()
    desktop.root.mkdir()
    return laptop, desktop


def both_register(laptop, desktop) -> tuple[str, str]:
    """Each machine registers a session through its hook (the desktop last, so its index.md is the newer)."""
    return laptop.hook("conversation-laptop"), desktop.hook("conversation-desktop")


def both_edit(laptop, desktop, sid: str) -> None:
    """Each machine adds a decision to session sid's snapshot and a statement to the shared note."""
    for one in (laptop, desktop):
        one.ok("update", sid, "--snapshot", "-", input=snapshot(ITEMS[one.name]))
        one.ok("note", "save", *NOTE, "--what", f"uv resolves fast.\n\n{STATEMENTS[one.name]}")


def test_rclone_bisync_renames_both_versions_and_leaves_no_index(two):
    laptop, desktop = two
    tool("rclone")
    first = laptop.register("--manual", "--topic", "Shared")
    untouched = laptop.register("--manual", "--topic", "Untouched")  # (bisync aborts when every file changed)
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.")
    res = rclone_bisync(laptop.root, desktop.root, "--resync")
    assert res.returncode == 0, res.stderr
    assert desktop.rows().keys() == {first, untouched}
    mine, theirs = both_register(laptop, desktop)
    both_edit(laptop, desktop, first)
    res = rclone_bisync(laptop.root, desktop.root)
    assert res.returncode == 0, res.stderr
    for one in (laptop, desktop):
        names = shared_files(one.root)
        assert "index.md" not in names and {"index.md..path1", "index.md..path2"} <= names.keys()
        assert mine in names["index.md..path1"].decode() and theirs in names["index.md..path2"].decode()
    assert not differences(laptop.root, desktop.root)
    named = {f["path"]: (f["of"], f["tool"]) for f in laptop.doctor() if f["kind"] == "sync_conflict_copy"}
    originals = ("index.md", f"sessions/{first}.md", f"notes/{NOTE_KEY}.md")
    assert named == {f"{of}..{side}": (of, "rclone") for of in originals for side in ("path1", "path2")}


def test_after_an_rclone_bisync_conflict_doctor_fix_brings_index_md_back_with_both_machines_rows(two):
    laptop, desktop = two
    tool("rclone")
    # (bisync refuses to delete more than half the files without --force: the merge deletes six copies, so the
    # root holds more snapshots, as a root in use does)
    first = [laptop.register("--manual", "--topic", f"Shared {n}") for n in range(8)]
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.")
    assert rclone_bisync(laptop.root, desktop.root, "--resync").returncode == 0
    mine, theirs = both_register(laptop, desktop)
    both_edit(laptop, desktop, first[0])
    assert rclone_bisync(laptop.root, desktop.root).returncode == 0
    kept = {name: data for name, data in shared_files(laptop.root).items() if re.search(r"\.md\.\.path[12]$", name)}
    assert len(kept) == 6, sorted(kept)
    res = laptop("doctor", "--fix")
    assert res.code == 0, res.err
    assert laptop.rows().keys() == {*first, mine, theirs}
    files = shared_files(laptop.root)
    assert not [name for name in files if "..path" in name and not name.startswith(".memboard/")]
    assert {name: files.get(f".memboard/conflicts/{name}") for name in kept} == kept
    assert all(item in files[f"sessions/{first[0]}.md"].decode() for item in ITEMS.values())
    assert all(statement in files[f"notes/{NOTE_KEY}.md"].decode() for statement in STATEMENTS.values())
    res = rclone_bisync(laptop.root, desktop.root)
    assert res.returncode == 0, res.stderr
    assert desktop.rows().keys() == {*first, mine, theirs}
    assert [f for f in desktop.doctor() if f["fix"] is not None] == []
    assert not differences(laptop.root, desktop.root)


def test_unison_default_skips_the_conflict_and_the_machines_stay_different(two):
    laptop, desktop = two
    tool("unison")
    laptop.register("--manual", "--topic", "Shared")
    assert unison(laptop.root, desktop.root).returncode == 0
    mine, theirs = both_register(laptop, desktop)
    res = unison(laptop.root, desktop.root)
    assert res.returncode == 1 and "skipped: index.md" in res.stdout + res.stderr
    assert mine in laptop.rows() and mine not in desktop.rows()
    assert theirs in desktop.rows() and theirs not in laptop.rows()
    assert differences(laptop.root, desktop.root) == ["index.md"]


def test_unison_prefer_newer_overwrites_the_older_side_with_no_copy(two):
    laptop, desktop = two
    tool("unison")
    laptop.register("--manual", "--topic", "Shared")
    assert unison(laptop.root, desktop.root).returncode == 0
    mine, theirs = both_register(laptop, desktop)
    res = unison(laptop.root, desktop.root, "-prefer", "newer")
    assert res.returncode == 0, res.stdout + res.stderr
    for one in (laptop, desktop):
        assert theirs in one.rows() and mine not in one.rows()  # the laptop's row is gone from both
        assert not [name for name in shared_files(one.root) if name.startswith("index") and name != "index.md"]


def test_unison_copyonconflict_keeps_the_overwritten_versions_on_their_side_and_doctor_merges_them(two):
    laptop, desktop = two
    tool("unison")
    shared = laptop.register("--manual", "--topic", "Shared")
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.")
    assert unison(laptop.root, desktop.root).returncode == 0
    mine, _ = both_register(laptop, desktop)
    both_edit(laptop, desktop, shared)
    res = unison(laptop.root, desktop.root, "-prefer", "newer", "-copyonconflict")
    assert res.returncode == 0, res.stdout + res.stderr
    made = {name for name in shared_files(laptop.root) if UNISON_COPY_RE.search(name)}
    originals = {"index", f"sessions/{shared}", f"notes/{NOTE_KEY}"}
    assert len(made) == 3 and {name.split(" (")[0] for name in made} == originals, made
    assert not made & shared_files(desktop.root).keys()  # (until the next run carries them over)
    index_copy = next(name for name in made if name.startswith("index"))
    assert mine in (laptop.root / index_copy).read_text("utf-8") and mine not in laptop.rows()
    found = {f["path"]: (f["of"], f["tool"]) for f in laptop.doctor() if f["kind"] == "sync_conflict_copy"}
    assert found == {name: (name.split(" (")[0] + ".md", "unison") for name in made}
    assert laptop("doctor", "--fix").code == 0
    files = shared_files(laptop.root)
    assert {mine, *desktop.rows()} <= laptop.rows().keys()
    assert all(item in files[f"sessions/{shared}.md"].decode() for item in ITEMS.values())
    assert all(statement in files[f"notes/{NOTE_KEY}.md"].decode() for statement in STATEMENTS.values())
    assert unison(laptop.root, desktop.root, "-prefer", "newer", "-copyonconflict").returncode == 0
    assert desktop.rows().keys() == laptop.rows().keys() and not differences(laptop.root, desktop.root)
