"""doctor --fix merges what a real Syncthing left when two machines worked offline (issue 26's "Done when").

After the reconnect, `doctor --fix` on either machine leaves every row either machine wrote live once (a row
only one machine wrote byte for byte), every snapshot item and note statement of both, each copy byte for byte
under .memboard/conflicts/, none in place and no finding with a fix; a second run changes nothing; Syncthing
then carries the result to the other machine, which has nothing left to do. Both machines merging at the same
moment write the same bytes, and Syncthing makes no new copy of them.
"""

from __future__ import annotations

import json
import threading

import pytest

from tests.engines.scenarios import KEPT, NOTE_KEY, Offline, copies, offline_work
from tests.support.engines import Machine, differences, shared_files

pytestmark = [pytest.mark.engines, pytest.mark.xdist_group("engines")]


def fixed(one: Machine) -> dict:
    """`doctor --fix --json` on the machine, which must exit 0: its report."""
    res = one("doctor", "--fix", "--json")
    assert res.code == 0, f"{one.name}: doctor --fix exited {res.code}: {res.err.strip()}"
    return json.loads(res.out)


def assert_merged(one: Machine, done: Offline, kept: dict[str, bytes]) -> None:
    """Everything both machines wrote is in the machine's root, and every copy is kept, none in place."""
    files = shared_files(one.root)
    rows = one.rows()
    assert set(done.lines) | {done.shared} <= rows.keys()
    index = (one.root / "index.md").read_bytes().splitlines(keepends=True)
    for sid, line in done.lines.items():
        assert index.count(line) == 1, f"{one.name}: {sid}'s row is not its machine's line, once"
    assert [line.split(b"|")[1].strip() for line in index].count(done.shared.encode()) == 1
    snapshot = files[f"sessions/{done.shared}.md"].decode()
    note = files[f"notes/{NOTE_KEY}.md"].decode()
    assert all(item in snapshot for item in done.items), snapshot
    assert all(statement in note for statement in done.statements), note
    assert not copies(one.root), copies(one.root)
    assert {path: files.get(KEPT + path) for path in kept} == kept
    assert [f for f in one.doctor() if f["fix"] is not None] == []
    hits = json.loads(one.ok("search", "pin Python", "--json").out)
    assert done.shared in json.dumps(hits), hits


@pytest.mark.parametrize("who", ["laptop", "desktop"])
def test_doctor_fix_on_either_machine_merges_everything_both_wrote_offline(pair, laptop, desktop, who):
    done = offline_work(pair, laptop, desktop)
    kept = {path: (pair.a.folder / path).read_bytes() for path in copies(pair.a.folder)}
    assert len(kept) == 3, kept
    fixer, other = (laptop, desktop) if who == "laptop" else (desktop, laptop)
    report = fixed(fixer)
    assert sum(change.startswith("move ") for change in report["changes"]) == 3, report["changes"]
    assert_merged(fixer, done, kept)
    before = shared_files(fixer.root)
    assert fixed(fixer)["changes"] == [] and shared_files(fixer.root) == before  # a second run changes nothing
    pair.sync()
    assert_merged(other, done, kept)
    assert fixed(other)["changes"] == []
    assert not differences(pair.a.folder, pair.b.folder)


def test_both_machines_fixing_at_once_write_the_same_bytes_and_syncthing_makes_no_new_copy(pair, laptop, desktop):
    done = offline_work(pair, laptop, desktop)
    kept = {path: (pair.a.folder / path).read_bytes() for path in copies(pair.a.folder)}
    results = {}
    start = threading.Barrier(2)

    def fix(one: Machine) -> None:
        start.wait()
        results[one.name] = one("doctor", "--fix", "--json", process=True)

    threads = [threading.Thread(target=fix, args=(one,)) for one in (laptop, desktop)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [(name, res.code) for name, res in sorted(results.items())] == [("desktop", 0), ("laptop", 0)], results
    assert not differences(pair.a.folder, pair.b.folder)  # the same bytes, before Syncthing carried anything
    pair.sync()
    for one in (laptop, desktop):
        assert_merged(one, done, kept)
        assert not [path for path in shared_files(one.root) if ".sync-conflict-" in path and not path.startswith(KEPT)]
        assert sorted(path for path in shared_files(one.root) if path.startswith(KEPT)) == sorted(
            KEPT + p for p in kept
        )
