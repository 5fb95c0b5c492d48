"""What a real Syncthing leaves when two machines using one memory root work offline and reconnect, and that
memboard names every copy it leaves.

Two instances on 127.0.0.1 (tests/support/engines.py); one pausing the other's device is the machines going
offline. Syncthing keeps the newer version of a file changed on both sides under its name and the older as
`<stem>.sync-conflict-<yyyymmdd>-<hhmmss>-<device>.md`, where the device is the first 7 characters of the ID of
the device whose version replaced it. These tests hold what the engine really does, so that a Syncthing release
that names copies otherwise fails here, not on a user's machine.
"""

from __future__ import annotations

import json

import pytest

from tests.engines.scenarios import COPY_RE, NOTE_KEY, copies, offline_work
from tests.support.engines import differences

pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("engines")]


def test_two_instances_start_connect_and_sync_a_small_root(pair, laptop, desktop):
    """The harness itself: both APIs up and connected, a registration on one machine listed on the other."""
    first = laptop.register()
    pair.start()
    pair.sync()
    assert desktop.rows().keys() == {first}
    second = desktop.register("--manual", "--topic", "From the desktop")
    pair.sync()
    assert laptop.rows().keys() == {first, second}
    assert not differences(pair.a.folder, pair.b.folder)
    assert pair.timings.start < 15, pair.timings


def test_offline_machines_leave_a_syncthing_copy_of_the_index_the_snapshot_and_the_note(pair, laptop, desktop):
    done = offline_work(pair, laptop, desktop)
    shared, mine, theirs = done.shared, done.mine, done.theirs
    found = copies(pair.a.folder)
    assert sorted(found.values()) == sorted(["index.md", f"sessions/{shared}.md", f"notes/{NOTE_KEY}.md"]), found
    assert copies(pair.b.folder) == found and not differences(pair.a.folder, pair.b.folder)
    devices = {COPY_RE.match(path.rpartition("/")[2])["device"] for path in found}
    assert devices <= {pair.a.device_id[:7], pair.b.device_id[:7]}
    # the newer version (the desktop's, written last) kept its name; the laptop's rows are only in the copy
    (index_copy,) = [path for path, of in found.items() if of == "index.md"]
    assert mine not in (pair.a.folder / "index.md").read_text("utf-8")
    assert mine in (pair.a.folder / index_copy).read_text("utf-8")
    assert theirs in (pair.a.folder / "index.md").read_text("utf-8")


def test_doctor_names_every_syncthing_copy_the_engine_left_with_its_tool_and_device(pair, laptop, desktop):
    """On both machines: each copy a sync_conflict_copy with path, of, tool and device (the desktop's: its newer
    version replaced the laptop's); the note's copy is never a note_name finding nor listed as a note."""
    offline_work(pair, laptop, desktop)
    found = copies(pair.a.folder)
    for one in (laptop, desktop):
        findings = one.doctor()
        named = {f["path"]: f for f in findings if f["kind"] == "sync_conflict_copy"}
        assert {path: f["of"] for path, f in named.items()} == found
        assert {(f["tool"], f["device"]) for f in named.values()} == {("syncthing", pair.b.device_id[:7])}
        assert not [f for f in findings if f["kind"] == "note_name"]
        notes = json.loads(one.ok("note", "list", "--json").out)
        assert [n["topic_key"] for n in notes] == [NOTE_KEY], notes
