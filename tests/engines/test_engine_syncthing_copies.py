"""What a real Syncthing leaves when two machines using one memory root work offline and reconnect, and that
memboard names every copy it leaves.

Two instances on 127.0.0.1 (tests/support/engines.py); one pausing the other's device is the machines going
offline. Syncthing keeps the newer version of a file changed on both sides under its name and the older as
`<stem>.sync-conflict-<yyyymmdd>-<hhmmss>-<device>.md`, where the device is the first 7 characters of the ID of
the device whose version replaced it. These tests hold what the engine really does, so that a Syncthing release
that names copies otherwise fails here, not on a user's machine.
"""

from __future__ import annotations

import re

import pytest

from tests.support.engines import Machine, SyncthingPair, differences, shared_files

pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("engines")]

NOTE = ("--title", "Use uv for environments", "--type", "fact", "--scope", "global")
NOTE_KEY = "global/fact/use-uv-for-environments"
COPY_RE = re.compile(r"^(?P<stem>.+)\.sync-conflict-\d{8}-\d{6}-(?P<device>[A-Z0-9]{7})(?P<ext>\.md)$")


def snapshot(item: str) -> str:
    """Snapshot text for `update --snapshot -` adding one decision."""
    return f"## Decisions\n\n- {item}\n"


def copies(folder) -> dict[str, str]:
    """Every Syncthing conflict copy in the folder: its path -> the path of the file it copies."""
    out = {}
    for rel in shared_files(folder):
        head, _, name = rel.rpartition("/")
        found = COPY_RE.match(name)
        if found:
            out[rel] = f"{head}/" * bool(head) + found["stem"] + found["ext"]
    return out


def offline_work(pair: SyncthingPair, laptop: Machine, desktop: Machine) -> tuple[str, str, str]:
    """One session and one note shared by both machines; then, offline, each registers a session through its
    hook, updates the shared session's snapshot and saves the note; then they reconnect.
    The Session IDs (shared, laptop's, desktop's)."""
    shared = laptop.register("--manual", "--topic", "Shared work", "--summary", "Started on the laptop.")
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.")
    pair.start()
    pair.sync()
    assert desktop.rows().keys() == {shared}
    pair.pause()
    mine = laptop.hook("conversation-laptop")
    laptop.ok("update", shared, "--snapshot", "-", input=snapshot("Laptop: keep the lock file."))
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.\n\nuv locks on the laptop.")
    theirs = desktop.hook("conversation-desktop")
    desktop.ok("update", shared, "--snapshot", "-", input=snapshot("Desktop: pin Python 3.12."))
    desktop.ok("note", "save", *NOTE, "--what", "uv resolves fast.\n\nuv caches on the desktop.")
    for one in pair.both:
        one.scan()
    pair.resume()
    return shared, mine, theirs


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
    shared, mine, theirs = offline_work(pair, laptop, desktop)
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


def test_doctor_names_every_syncthing_copy_the_engine_left(pair, laptop, desktop):
    offline_work(pair, laptop, desktop)
    found = copies(pair.a.folder)
    named = [f for f in laptop.doctor() if f["kind"] == "sync_conflict_copy"]
    messages = " ".join(f["message"] for f in named)
    for path, original in found.items():
        if original.startswith("notes/"):
            continue  # (named as a note's copy once memboard knows them: tests below)
        assert f"{path} is a sync-conflict copy of {original} (Syncthing naming)" in messages
