"""Both machines writing at once through a real Syncthing for 20 s, each running `doctor --fix` every 5 s (issue
26's "Done when"): every Session ID a hook announced and every update that succeeded is live at the end, on
both machines, and the two folders are equal.

Measured before memboard merged copies: in 60 s of hooks and updates on both machines Syncthing made 15 copies,
deleted those beyond its 10 per file, and one announced Session ID was gone from every file. Here each machine
runs its hook for a new conversation, updates that session's Summary, and updates its previous session again,
each command a process of its own at the next minute of a clock both machines share (so a later update always
has the later Updated At); Syncthing's file watcher carries the changes as they happen, with no rescan asked.
Under load a command takes seconds, so each machine writes for at least DURATION and until its hook announced
at least HOOKS sessions (else the test proves little), and `doctor --fix` runs until both stopped writing.

What the engine does and memboard cannot prevent: Syncthing replaces a file both machines changed by the newer
version and keeps the other as a copy, so a row a hook just wrote can be, for a few seconds, only in a copy of
index.md; an `update` of it then fails (`unknown session`, exit 1, nothing written) until `doctor --fix` merges
the copy. Such an update is reported to its caller as failed and is not counted; what memboard guarantees, and
this test asserts, is that no announced Session ID and no update that succeeded is lost.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.engines.scenarios import copies
from tests.support.engines import Machine, differences, shared_files

pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("engines")]

DURATION = 20.0  # seconds both machines write at least
HOOKS = 3  # sessions each machine's hook announces at least (a slow machine writes for longer)
LONGEST = 120.0  # seconds a machine writes at most, however slow
FIX_EVERY = 5.0  # seconds between two `doctor --fix` runs on one machine
ROUNDS = 6  # at most this many rounds of sync + doctor --fix on each machine to converge after the writes


@dataclass
class Work:
    """What one machine did: the IDs its hook announced, each session's last Summary that an update set."""

    announced: list[str] = field(default_factory=list)
    summaries: dict[str, str] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)  # commands that exited non-zero (hook: fail-open, no ID)
    fixes: list[int] = field(default_factory=list)  # doctor --fix's exit statuses
    errors: list[BaseException] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)  # set when its machine stopped writing


def write(one: Machine, work: Work, until: float) -> None:
    """Hooks and updates on one machine until the monotonic time `until` and HOOKS announced sessions (at most
    LONGEST seconds); work.done is set when it stops."""
    try:
        k = 0
        stop = until - DURATION + LONGEST
        while (time.monotonic() < until or len(work.announced) < HOOKS) and time.monotonic() < stop:
            res = one("hook", "claude", input=json.dumps({"session_id": f"{one.name}-{k}"}), process=True)
            announced = (
                res.out.split("Your Memory Session ID is: ")[1].split('"')[0] if "Session ID is" in res.out else None
            )
            if announced is None:
                work.failed.append(f"hook {k}: {res.code} {res.err.strip()}")
                continue
            work.announced.append(announced)
            targets = [announced] + work.announced[-2:-1]
            for sid in targets:
                summary = f"{one.name} update {k} of {sid[-25:]}"
                res = one("update", sid, "--summary", summary, process=True)
                if res.code == 0:
                    work.summaries[sid] = summary
                else:
                    work.failed.append(f"update {sid}: {res.code} {res.err.strip()}")
            k += 1
    except BaseException as exc:  # (raised again in the test's thread)
        work.errors.append(exc)
    finally:
        work.done.set()


def doctor(one: Machine, work: Work, writers: list[Work]) -> None:
    """`doctor --fix` on one machine every FIX_EVERY seconds until both machines stopped writing."""
    try:
        while True:
            time.sleep(FIX_EVERY)  # (the period of the runs, not a wait for a condition)
            if all(writer.done.is_set() for writer in writers):
                return
            work.fixes.append(one("doctor", "--fix", process=True).code)
    except BaseException as exc:
        work.errors.append(exc)


def where(folder: Path, texts) -> dict[str, list[str]]:
    """The files of the folder (copies kept under .memboard/ too) that hold each text."""
    files = shared_files(folder)
    return {text: [path for path, data in files.items() if text.encode() in data] for text in texts}


def test_both_machines_writing_for_20_s_with_doctor_fix_every_5_s_lose_nothing(pair, laptop, desktop):
    pair.start()
    laptop.register("--manual", "--topic", "Shared")
    pair.sync()
    works = {one.name: Work() for one in (laptop, desktop)}
    until = time.monotonic() + DURATION
    writers = list(works.values())
    threads = [threading.Thread(target=write, args=(one, works[one.name], until)) for one in (laptop, desktop)]
    threads += [threading.Thread(target=doctor, args=(one, works[one.name], writers)) for one in (laptop, desktop)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(LONGEST + 120)
        assert not thread.is_alive(), f"a machine's commands did not end within {LONGEST + 120:.0f} s; {works}"
    for work in works.values():
        if work.errors:
            raise work.errors[0]
    for _ in range(ROUNDS):  # the last changes: carried, merged on each side, carried back
        pair.sync()
        changed = [json.loads(one.ok("doctor", "--fix", "--json").out)["changes"] for one in (laptop, desktop)]
        if not any(changed):
            pair.sync()
            if not copies(laptop.root) and not copies(desktop.root):
                break
    else:
        found = [f for one in (laptop, desktop) for f in one.doctor()]
        raise AssertionError(f"no rest after {ROUNDS} rounds: changes {changed}, findings {found}; {works}")
    announced = [sid for work in works.values() for sid in work.announced]
    assert len(announced) >= 6, works  # (a few commands on each machine, else the test proves nothing)
    for one in (laptop, desktop):
        rows = one.rows()
        assert [sid for sid in announced if sid not in rows] == [], f"{one.name} lost announced IDs"
        for work in works.values():
            live = {sid: rows[sid]["summary"] for sid in work.summaries}
            lost = {sid: text for sid, text in work.summaries.items() if live[sid] != text}
            assert not lost, f"{one.name} lost updates {lost}, still in {where(one.root, lost.values())}; {works}"
        assert [f for f in one.doctor() if f["fix"] is not None or f["kind"] == "conflict_cell"] == []
    assert not differences(pair.a.folder, pair.b.folder)
