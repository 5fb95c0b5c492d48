"""A whole day of the protocol end to end: register, update, continue, release, organize, archive."""

from __future__ import annotations

import json


def test_full_lifecycle(cli, root):
    def sid_of(res):
        assert res.code == 0, res.err
        return res.out.strip().splitlines()[-1].rsplit(" ", 1)[1]

    first = sid_of(cli("register"))  # chat 1 starts: idle placeholder
    second = sid_of(cli("register", env={"MEMBOARD_NOW": "2026-06-01 10:00"}))  # chat 2
    third = sid_of(cli("register", env={"MEMBOARD_NOW": "2026-06-01 10:05"}))  # chat 3, never used
    assert (
        cli(
            "update",
            first,
            "--topic",
            "Parser",
            "--summary",
            "Wrote the parser.",
            "--snapshot",
            "-",
            input="## Decisions\n\n- Line-based index parser.\n",
        ).code
        == 0
    )
    assert cli("continue", first, "--as", second, env={"MEMBOARD_NOW": "2026-06-01 10:30"}).code == 0
    rows = {r["id"]: r for r in json.loads(cli("list", "--json").out)}
    assert rows[first]["referenced_by"] == [second] and rows[second]["status"] == "active"
    assert rows[third]["status"] == "idle"

    # three weeks later: organize deletes the idle row, protects the referenced source,
    # and marks the referencing session stale (it has a snapshot, nobody references it)
    later = {"MEMBOARD_NOW": "2026-06-22 09:00"}
    report = json.loads(cli("organize", "--json", env=later).out)
    assert report["deleted"] == [third] and report["protected"] == [first] and report["marked_stale"] == [second]

    # the source cannot be archived while referenced; the referencing session can, releasing first
    assert cli("archive", first, env=later).code == 1
    archived = json.loads(cli("archive", second, "--json", env=later).out)
    assert archived["action"] == "archived" and archived["released"] == [first]
    assert cli("archive", first, env=later).code == 0
    assert json.loads(cli("list", "--json").out) == []
    assert sorted(p.name for p in (root / "archive").iterdir()) == sorted([first, second])
    assert "- Line-based index parser." in (root / "archive" / first / "session.md").read_text(encoding="utf-8")
    assert json.loads(cli("doctor", "--json").out) == []
