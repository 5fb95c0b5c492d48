"""The steps of dream and archive on real folders (issue 24 §4, §8), read through a plain folder reader and applied
by hand: the refusal before a dream, the two writes and the crash between them, another writer's entries kept,
a hand-edited dream-notes.md kept, snapshots named as the skill names them."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memboard.core.errors import Refused
from memboard.core.plan import Change
from memboard.core.spaces import archive as A
from memboard.core.spaces import cold
from memboard.core.spaces import dream as D


class Folder:
    """A plain folder as a cold.Place (the engine's trees read settled; these tests write nothing concurrently)."""

    def __init__(self, path: Path):
        self.path = path

    def read(self, rel: str) -> bytes | None:
        p = self.path / rel
        return p.read_bytes() if p.is_file() else None

    def listdir(self, rel: str) -> list[str]:
        p = self.path / rel
        return sorted(os.listdir(p)) if p.is_dir() else []

    def abs(self, rel: str) -> Path:
        return self.path / rel


def apply(trees: dict[str, Path], changes: list[Change]) -> None:
    for ch in changes:
        base = trees[ch.tree]
        if ch.kind == "move":
            dest = base / (ch.dest or "")
            dest.parent.mkdir(parents=True, exist_ok=True)
            (base / ch.path).rename(dest)
        else:
            path = base / ch.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(ch.after or b"")


def entry(minute: int, body: str = "x", ctx: str = "main") -> str:
    return f"### 2026-11-30 10:{minute:02d} [context: {ctx}]\r\n- 触发原因：{body}\r\n"


@pytest.fixture
def space(tmp_path: Path) -> tuple[cold.Spot, cold.Spot, dict[str, Path]]:
    project, home = tmp_path / "p", tmp_path / "home"
    (project / ".session-memory").mkdir(parents=True)
    (home / "dreams").mkdir(parents=True)
    spot = cold.Spot(cold.SPACE, Folder(project), ".session-memory")
    return spot, cold.Spot(cold.HOME, Folder(home), ""), {cold.SPACE: project, cold.HOME: home}


NOTES = "# Dream Notes\n\n- Last Updated: 2026-11-30 11:00\n\n## 判断准则\n- x\n"
NOW = datetime(2026, 12, 2, tzinfo=UTC)


def test_archive_before_a_dream_is_refused_unless_forced(space: tuple[cold.Spot, cold.Spot, dict[str, Path]]) -> None:
    spot, home, trees = space
    mem = trees[cold.SPACE] / ".session-memory"
    (mem / "history.md").write_bytes(("\ufeff# 会话记忆历史\r\n\r\n" + entry(1) + entry(2) + entry(3)).encode())
    with pytest.raises(Refused, match="have not been through a dream"):
        cold.archive_steps(spot, home, NOW, keep=1)
    (mem / "dream-notes.md").write_text("# Dream Notes\n\n- Last Updated: 2026-11-30 10:01\n")
    with pytest.raises(Refused):  # the dream covers 10:01, not 10:02
        cold.archive_steps(spot, home, NOW, keep=1)
    assert cold.archive_steps(spot, home, NOW, keep=1, force=True).changes
    (mem / "dream-notes.md").write_text(NOTES)
    steps = cold.archive_steps(spot, home, NOW, keep=1)
    assert [c.path for c in steps.changes] == [
        ".session-memory/archive/history-archive.md",
        ".session-memory/history.md",
    ]
    apply(trees, steps.changes)
    assert (mem / "history.md").read_bytes() == ("\ufeff# 会话记忆历史\r\n\r\n" + entry(3)).encode()
    header = A.HISTORY_ARCHIVE_HEADER.replace("\n", "\r\n") + "\r\n"
    assert (mem / "archive/history-archive.md").read_bytes() == (header + entry(1) + entry(2)).encode()
    assert cold.archive_steps(spot, home, NOW, keep=1).changes == []  # nothing to change


def test_a_crash_between_the_archive_write_and_the_source_is_found_and_finished(
    space: tuple[cold.Spot, cold.Spot, dict[str, Path]],
) -> None:
    spot, home, trees = space
    mem = trees[cold.SPACE] / ".session-memory"
    original = "# r\n\n" + entry(1, "a", "f") + entry(2) + entry(1, "a", "f")  # identical entries: two entries
    research = original.replace("触发原因：a", "研究主题：t\r\n- 是否有效：no")
    (mem / "research.md").write_bytes(research.encode())
    (mem / "dream-notes.md").write_text(NOTES)
    steps = cold.archive_steps(spot, home, NOW, skip_history=True)
    journal = steps.journal  # (written to local state before the archive file)
    apply(trees, steps.changes[:1])  # the archive written, then the crash
    assert [f["kind"] for f in cold.half_archived_findings(spot, journal)] == ["half_archived"]
    assert cold.half_archived_findings(spot, None) == []  # no journal: nothing is taken for a half-done move
    with (mem / "research.md").open("ab") as f:  # another writer appends before the next run
        f.write(b"\r\n" + entry(40, "theirs").encode())
    again = cold.archive_steps(spot, home, NOW, skip_history=True, journal=journal)
    assert [c.path for c in again.changes] == [".session-memory/research.md"]  # the archive holds them already
    assert again.result["research"]["finished"] == 2
    apply(trees, again.changes)
    assert (mem / "research.md").read_bytes() == ("# r\n\n" + entry(2) + "\r\n" + entry(40, "theirs")).encode()
    assert (mem / "archive/research-archive.md").read_bytes().count(entry(1, "a", "f").encode().split(b"\r\n")[0]) == 2
    assert cold.half_archived_findings(spot, again.journal or journal) == []


def test_identical_entries_on_both_sides_of_keep_are_two_entries_not_a_half_done_move(
    space: tuple[cold.Spot, cold.Spot, dict[str, Path]],
) -> None:
    spot, home, trees = space
    mem = trees[cold.SPACE] / ".session-memory"
    (mem / "history.md").write_bytes(("# h\r\n\r\n" + entry(1) + entry(1)).encode())
    (mem / "dream-notes.md").write_text(NOTES)
    steps = cold.archive_steps(spot, home, NOW, keep=1, skip_research=True)
    apply(trees, steps.changes)  # both writes done: the archive's last entry equals the one kept
    assert cold.half_archived_findings(spot, steps.journal) == []
    again = cold.archive_steps(spot, home, NOW, keep=1, skip_research=True, journal=steps.journal)
    assert again.changes == []
    assert (mem / "history.md").read_bytes() == ("# h\r\n\r\n" + entry(1)).encode()


def test_the_source_step_keeps_what_another_writer_appended_and_refuses_when_a_moved_range_changed(
    space: tuple[cold.Spot, cold.Spot, dict[str, Path]],
) -> None:
    spot, home, trees = space
    mem = trees[cold.SPACE] / ".session-memory"
    (mem / "history.md").write_bytes(("# h\r\n\r\n" + entry(1) + entry(2)).encode())
    (mem / "dream-notes.md").write_text(NOTES)
    steps = cold.archive_steps(spot, home, NOW, keep=1, skip_research=True)
    apply(trees, [c for c in steps.changes if "archive/" in c.path])
    with (mem / "history.md").open("ab") as f:  # the other writer, between the two writes
        f.write(("\r\n" + entry(9, "theirs")).encode())
    finish = cold.finish_steps(spot, steps.moved)
    apply(trees, finish.changes)
    assert (mem / "history.md").read_bytes() == ("# h\r\n\r\n" + entry(2) + "\r\n" + entry(9, "theirs")).encode()
    (mem / "history.md").write_bytes(("# h\r\n\r\n" + entry(1, "changed") + entry(2)).encode())
    with pytest.raises(Refused, match="in both files"):
        cold.finish_steps(spot, {"history.md": [entry(1)]})


def test_old_dream_snapshots_move_by_month_never_over_a_file(
    space: tuple[cold.Spot, cold.Spot, dict[str, Path]],
) -> None:
    spot, home, trees = space
    dreams = trees[cold.HOME] / "dreams"
    (dreams / "20261001T000000+0000-p-12345678.md").write_text("a")
    (dreams / "20261130T000000+0000-p-12345678.md").write_text("b")
    (trees[cold.HOME] / "archive/dreams/2026-10").mkdir(parents=True)
    (trees[cold.HOME] / "archive/dreams/2026-10/20261001T000000+0000-p-12345678.md").write_text("other")
    steps = cold.archive_steps(spot, home, NOW)
    assert [(c.kind, c.path, c.dest) for c in steps.changes] == [
        (
            "move",
            "dreams/20261001T000000+0000-p-12345678.md",
            "archive/dreams/2026-10/20261001T000000+0000-p-12345678-1.md",
        )
    ]
    assert cold.archive_steps(spot, home, NOW, skip_dreams=True).changes == []
    assert cold.archive_steps(spot, home, NOW + timedelta(days=30), dream_keep_days=100).changes == []


CURRENT = "# 会话记忆\n\n## 有效做法\n- 先写测试\n\n## 未决问题\n- 为什么慢\n"


def test_dream_keeps_a_hand_edited_notes_file_first_and_copies_the_new_one(
    space: tuple[cold.Spot, cold.Spot, dict[str, Path]],
) -> None:
    spot, home, trees = space
    mem = trees[cold.SPACE] / ".session-memory"
    (mem / "current.md").write_text(CURRENT)
    (mem / "dream-notes.md").write_bytes(
        b"# Dream Notes\r\n\r\n## \xe5\x88\xa4\xe6\x96\xad\xe5\x87\x86\xe5\x88\x99\r\n- hand\r\n"
    )
    local, utc = datetime(2026, 12, 2, 13, 5), datetime(2026, 12, 2, 5, 5, 7, tzinfo=UTC)
    steps = cold.dream_steps(spot, home, "/p/.session-memory", "p", local, utc)
    kinds = [(c.tree, c.path.split("/")[0]) for c in steps.changes]
    assert kinds == [(cold.HOME, "dreams"), (cold.SPACE, ".session-memory"), (cold.HOME, "dreams")]
    new = steps.changes[1].after or b""
    assert steps.changes[2].after == new and steps.changes[0].after == (mem / "dream-notes.md").read_bytes()
    assert steps.changes[2].path == f"dreams/{D.snapshot_name(utc, 'p', '/p/.session-memory')}"
    assert b"\r\n- Generated By: memboard extract (verbatim items, not distilled)\r\n" in new
    assert (
        b"## \xe6\xad\xa3\xe7\xa1\xae\xe8\xbd\xa8\xe8\xbf\xb9\r\n- \xe5\x85\x88\xe5\x86\x99\xe6\xb5\x8b\xe8\xaf\x95\r\n"
        in new
    )
    apply(trees, steps.changes)
    again = cold.dream_steps(spot, home, "/p/.session-memory", "p", local, utc + timedelta(seconds=1))
    # the old notes are memboard's, already a file in dreams/: not copied again
    assert [c.path.split("/")[0] for c in again.changes] == [".session-memory", "dreams"]
    assert again.result["kept_old"] is None


def test_dream_from_notes_checks_shape_and_says_which_items_are_unsupported(
    space: tuple[cold.Spot, cold.Spot, dict[str, Path]],
) -> None:
    spot, home, trees = space
    (trees[cold.SPACE] / ".session-memory/current.md").write_text(CURRENT)
    local, utc = datetime(2026, 12, 2, 13, 5), datetime(2026, 12, 2, 5, 5, 7, tzinfo=UTC)
    with pytest.raises(Refused, match=r"not in dream-notes\.md's shape"):
        cold.dream_steps(spot, home, "id", "p", local, utc, notes="## 判断准则\n")
    steps = cold.dream_steps(spot, home, "id", "p", local, utc, notes="## 判断准则\n- 先写测试\n- zebra quantum\n")
    assert steps.result["unsupported"] == ["zebra quantum"]
    empty = cold.dream_steps(spot, home, "id", "p", local, utc, notes=None)
    assert empty.changes and empty.result["mode"] == "extract"
    (trees[cold.SPACE] / ".session-memory/current.md").write_text("# 会话记忆\n\n## 有效做法\n- \n")
    assert cold.dream_steps(spot, home, "id", "p", local, utc).changes == []  # nothing to distil
