"""The work two machines do on one memory root in the real-engine tests, and readers of what the engine left."""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from tests.support.engines import Machine, SyncthingPair, shared_files

NOTE = ("--title", "Use uv for environments", "--type", "fact", "--scope", "global")
NOTE_KEY = "global/fact/use-uv-for-environments"
COPY_RE = re.compile(r"^(?P<stem>.+)\.sync-conflict-\d{8}-\d{6}-(?P<device>[A-Z0-9]{7})(?P<ext>\.md)$")
KEPT = ".memboard/conflicts/"  # where doctor --fix keeps each merged copy, under the copy's own path


def board_sees(one: Machine) -> tuple[list[str], list[tuple[str, str, str, str]]]:
    """The board on one's root, as that machine opens it: its banner's lines, and what `R` lists to resolve
    ((id, column, ours, theirs) each; escape then: nothing is written)."""
    # lazy: the board (Textual) loads only in the tests that open it
    from memboard.board.app import MemboardApp

    # lazy: the screen is the board's, loaded with it
    from memboard.board.screens import ResolveScreen

    # lazy: the banner widget is the board's, loaded with it
    from memboard.widgets.board_status import BoardBanner

    async def look() -> tuple[list[str], list[tuple[str, str, str, str]]]:
        app = MemboardApp(one.root, watch=False)
        async with app.run_test(size=(140, 40)) as pilot:
            for _ in range(2):  # (the first read, then the banner's doctor pass)
                await pilot.pause()
                await asyncio.wait_for(app.workers.wait_for_complete(), 30)
                await pilot.pause()
            lines = [text for _, text in app.query_one("#banner", BoardBanner).lines]
            await pilot.press("R")
            for _ in range(500):
                if isinstance(app.screen, ResolveScreen):
                    break
                await pilot.pause(0.01)
            screen = app.screen
            listed = [(c.id, c.column, c.ours, c.theirs) for c in getattr(screen, "conflicts", [])]
            await pilot.press("escape")
            await asyncio.wait_for(app.workers.wait_for_complete(), 30)
        return lines, listed

    with mock.patch.dict(os.environ, one.env()):
        return asyncio.run(look())


def snapshot(item: str) -> str:
    """Snapshot text for `update --snapshot -` adding one decision."""
    return f"## Decisions\n\n- {item}\n"


def copies(folder: Path) -> dict[str, str]:
    """Every Syncthing conflict copy in the folder (not those kept under .memboard/): its path -> the path of the
    file it copies."""
    out = {}
    for rel in shared_files(folder):
        head, _, name = rel.rpartition("/")
        found = COPY_RE.match(name)
        if found and not rel.startswith(".memboard/"):
            out[rel] = f"{head}/" * bool(head) + found["stem"] + found["ext"]
    return out


def row_line(folder: Path, sid: str) -> bytes:
    """The index.md line of session sid in the folder (its bytes, line ending included)."""
    lines = [
        line for line in (folder / "index.md").read_bytes().splitlines(keepends=True) if f"| {sid} |".encode() in line
    ]
    assert len(lines) == 1, f"{folder}/index.md holds {len(lines)} lines of {sid}"
    return lines[0]


@dataclass
class Offline:
    """What two machines wrote while offline: the Session IDs, each machine's own row line, the snapshot items and
    note statements only one of them wrote."""

    shared: str
    mine: str  # the laptop's new session
    theirs: str  # the desktop's new session
    lines: dict[str, bytes] = field(default_factory=dict)  # a new session's row line as its machine wrote it
    items: tuple[str, ...] = ("Laptop: keep the lock file.", "Desktop: pin Python 3.12.")
    statements: tuple[str, ...] = ("uv resolves fast.", "uv locks on the laptop.", "uv caches on the desktop.")


def offline_work(pair: SyncthingPair, laptop: Machine, desktop: Machine) -> Offline:
    """One session and one note shared by both machines; then, offline, each registers a session through its
    hook and one by hand, updates the shared session's snapshot and saves the note (the desktop last, so its
    versions are the newer); then they reconnect and sync."""
    shared = laptop.register("--manual", "--topic", "Shared work", "--summary", "Started on the laptop.")
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.")
    pair.start()
    pair.sync()
    assert desktop.rows().keys() == {shared}
    pair.pause()
    done = Offline(shared, laptop.hook("conversation-laptop"), "")
    manual_l = laptop.register("--manual", "--topic", "Laptop work", "--summary", "Registered on the laptop.")
    laptop.ok("update", shared, "--snapshot", "-", input=snapshot(done.items[0]))
    laptop.ok("note", "save", *NOTE, "--what", "uv resolves fast.\n\nuv locks on the laptop.")
    done.theirs = desktop.hook("conversation-desktop")
    manual_d = desktop.register("--manual", "--topic", "Desktop work", "--summary", "Registered on the desktop.")
    desktop.ok("update", shared, "--snapshot", "-", input=snapshot(done.items[1]))
    desktop.ok("note", "save", *NOTE, "--what", "uv resolves fast.\n\nuv caches on the desktop.")
    for one, sids in ((laptop, (done.mine, manual_l)), (desktop, (done.theirs, manual_d))):
        for sid in sids:
            done.lines[sid] = row_line(one.root, sid)
    for instance in pair.both:
        instance.scan()
    pair.resume()
    return done
