"""The hook's new row is appended to index.md, not written by rewriting the file (issue 29's hook target).

When the board table ends the file, the row's bytes go after it with O_APPEND: the file keeps its inode,
every byte before the row stays where it was, and the write is verified by reading the appended bytes back.
Everywhere else (text under the table, conflict markers) the rules of a rewrite hold as before: the row lands
inside the table, or nothing is written. A writer that skips the lock and writes at the worst moment never
loses a line, and no Session ID is announced for a row that is not verified.
"""

from __future__ import annotations

import json
import os
import time

from memboard.core.files import probe
from tests.support.faults import installed
from tests.support.hooks import claude_payload, encoded
from tests.support.roots import HEADER, PREAMBLE, SEPARATOR, row_line

SID = "2026-06-01-0930-claude-main-agent"
NEW_ROW = (
    f"| {SID} | claude-main-agent | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart, claude-agent | idle | - "
    "| 2026-06-01 09:30 | 2026-06-01 09:30 |"
)
OTHER_ROW = row_line("2026-06-01-0931-hand-agent")


def aged(path, seconds: float = 60.0) -> None:
    """Make path look last written `seconds` ago (an index nobody is writing)."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def table(*rows: str, eol: str = "\n") -> str:
    """An index whose table ends the file."""
    return (PREAMBLE + HEADER + SEPARATOR).replace("\n", eol) + "".join(r + eol for r in rows)


def announced(res) -> str | None:
    """The Session ID the hook announced, or None."""
    if not res.out.strip():
        return None
    context = json.loads(res.out)["hookSpecificOutput"]["additionalContext"]
    return context.split("Your Memory Session ID is: ")[1].splitlines()[0]


def test_a_table_that_ends_the_file_gets_the_row_appended_in_place(cli, root):
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a"))
    index.write_bytes(original.encode())
    aged(index)
    inode = index.stat().st_ino
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert announced(res) == SID
    assert index.stat().st_ino == inode  # the same file, appended to: no temp file renamed over it
    assert index.read_bytes() == (original + NEW_ROW + "\n").encode()
    assert not [p for p in root.iterdir() if p.name.endswith(".memboard-tmp")]


def test_a_crlf_index_gets_a_crlf_row(cli, root):
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a"), eol="\r\n")
    index.write_bytes(original.encode())
    aged(index)
    inode = index.stat().st_ino
    assert announced(cli("hook", "claude", input=encoded(claude_payload()))) == SID
    assert index.stat().st_ino == inode
    assert index.read_bytes() == (original + NEW_ROW + "\r\n").encode()


def test_a_last_row_without_a_line_end_gets_one_before_the_new_row(cli, root):
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a")).removesuffix("\n")
    index.write_bytes(original.encode())
    aged(index)
    inode = index.stat().st_ino
    assert announced(cli("hook", "claude", input=encoded(claude_payload()))) == SID
    assert index.stat().st_ino == inode
    assert index.read_bytes() == (original + "\n" + NEW_ROW + "\n").encode()


def test_text_under_the_table_keeps_the_row_inside_the_table(cli, root):
    index = root / "index.md"
    first = row_line("2026-05-01-0900-agent-a")
    original = table(first) + "\nNotes under the table.\n"
    index.write_bytes(original.encode())
    aged(index)
    assert announced(cli("hook", "claude", input=encoded(claude_payload()))) == SID
    assert index.read_bytes() == original.replace(first + "\n", first + "\n" + NEW_ROW + "\n").encode()


def test_conflict_markers_above_a_table_that_ends_the_file_refuse_the_append(cli, root):
    index = root / "index.md"
    original = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n\n" + table(row_line("2026-05-01-0900-agent-a"))
    index.write_bytes(original.encode())
    aged(index)
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert res.code == 0 and announced(res) is None
    assert index.read_bytes() == original.encode()


class WriterAt(probe.Probe):
    """A writer that skips the lock, acting at one of the append's moments."""

    def __init__(self, moment: str, action):
        """Run action at moment ("before": right before the row's write, "after": right after it)."""
        self.moment, self.action, self.done = moment, action, False

    def _once(self, moment: str) -> None:
        if moment == self.moment and not self.done:
            self.done = True
            self.action()

    def before_rename(self, step: int) -> None:
        """Right before the row becomes visible."""
        self._once("before")

    def replaced(self, checked: float, target) -> None:
        """Right after the row was written (not the conversation map's write, which comes first)."""
        if os.path.basename(target) == "index.md":
            self._once("after")


def test_a_writer_appending_between_the_last_look_and_the_write_loses_nothing_and_no_id_is_told(cli, root):
    # the microseconds after the descriptor's last look: both rows stay, but the hook cannot verify its own
    # as planned (the file did not grow by exactly its row), so it announces nothing
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a"))
    index.write_bytes(original.encode())
    aged(index)

    def hand_append() -> None:
        with open(index, "ab") as fh:
            fh.write((OTHER_ROW + "\n").encode())

    with installed(WriterAt("before", hand_append)):
        res = cli("hook", "claude", input=encoded(claude_payload()))
    assert res.code == 0 and announced(res) is None
    assert index.read_bytes() == (original + OTHER_ROW + "\n" + NEW_ROW + "\n").encode()


def test_a_save_right_after_the_append_that_keeps_the_row_is_verified_on_the_whole_file(cli, root):
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a"))
    index.write_bytes(original.encode())
    aged(index)

    def hand_save_keeping_it() -> None:  # an editor re-reads and saves by rename, adding its own row
        data = index.read_bytes() + (OTHER_ROW + "\n").encode()
        tmp = index.with_name("index.md.editor")
        tmp.write_bytes(data)
        os.replace(tmp, index)

    with installed(WriterAt("after", hand_save_keeping_it)):
        res = cli("hook", "claude", input=encoded(claude_payload()))
    assert announced(res) == SID
    assert index.read_bytes() == (original + NEW_ROW + "\n" + OTHER_ROW + "\n").encode()


def test_a_save_right_after_the_append_that_drops_the_row_announces_no_id(cli, root):
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a"))
    index.write_bytes(original.encode())
    aged(index)

    def stale_buffer_save() -> None:  # an editor saves the buffer it read before the hook wrote
        tmp = index.with_name("index.md.editor")
        tmp.write_bytes((original + OTHER_ROW + "\n").encode())
        os.replace(tmp, index)

    with installed(WriterAt("after", stale_buffer_save)):
        res = cli("hook", "claude", input=encoded(claude_payload()))
    assert res.code == 0 and announced(res) is None


def test_a_change_before_the_last_look_plans_the_row_again_after_the_other_writers(cli, root, monkeypatch):
    # the file changes between the plan's read and the append: the descriptor's signature tells, nothing is
    # written, and the plan is built again on the settled file
    from memboard.core.files import fs

    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a"))
    index.write_bytes(original.encode())
    aged(index)
    real = fs.append_write
    calls = []

    def meddled(path, *args, **kwargs):
        if not calls:
            with open(index, "ab") as fh:
                fh.write((OTHER_ROW + "\n").encode())
            aged(index, 5)
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr("memboard.core.files.execute.append_write", meddled)
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert announced(res) == SID and len(calls) == 2
    assert index.read_bytes() == (original + OTHER_ROW + "\n" + NEW_ROW + "\n").encode()


def test_text_under_the_table_is_verified_by_reading_back_the_inserted_row_not_the_whole_file(cli, root, monkeypatch):
    # the rewrite inserts the row above the text under the table: on the written file's own signature, reading
    # back the bytes from the row on proves it; the whole 20 MB of a large index is not compared again
    index = root / "index.md"
    first = row_line("2026-05-01-0900-agent-a")
    original = table(first) + "\nNotes under the table.\n"
    index.write_bytes(original.encode())
    aged(index)

    from memboard.core.files import settle

    real = settle._holding

    def whole_compare(fh, expect):
        if b"Notes under the table." in expect:  # (the index's bytes: its read is on a descriptor, unnamed)
            raise AssertionError("the whole index was read back")
        return real(fh, expect)  # (the conversation map's small shard is verified whole, as before)

    monkeypatch.setattr("memboard.core.files.settle._holding", whole_compare)
    res = cli("hook", "claude", input=encoded(claude_payload()))
    assert announced(res) == SID
    assert index.read_bytes() == original.replace(first + "\n", first + "\n" + NEW_ROW + "\n").encode()


def test_a_save_right_after_the_rewrite_that_drops_the_row_announces_no_id(cli, root):
    index = root / "index.md"
    original = table(row_line("2026-05-01-0900-agent-a")) + "\nNotes under the table.\n"
    index.write_bytes(original.encode())
    aged(index)

    def stale_buffer_save() -> None:  # an editor saves the buffer it read before the hook wrote
        tmp = index.with_name("index.md.editor")
        tmp.write_bytes((original + "More notes.\n").encode())
        os.replace(tmp, index)

    with installed(WriterAt("after", stale_buffer_save)):
        res = cli("hook", "claude", input=encoded(claude_payload()))
    assert res.code == 0 and announced(res) is None
    assert index.read_bytes() == (original + "More notes.\n").encode()


def test_a_save_right_after_the_rewrite_that_keeps_the_row_is_verified_on_the_whole_file(cli, root):
    index = root / "index.md"
    first = row_line("2026-05-01-0900-agent-a")
    original = table(first) + "\nNotes under the table.\n"
    index.write_bytes(original.encode())
    aged(index)

    def hand_save_keeping_it() -> None:  # an editor re-reads and saves by rename, adding a line of its own
        tmp = index.with_name("index.md.editor")
        tmp.write_bytes(index.read_bytes() + b"More notes.\n")
        os.replace(tmp, index)

    with installed(WriterAt("after", hand_save_keeping_it)):
        res = cli("hook", "claude", input=encoded(claude_payload()))
    assert announced(res) == SID
    written = original.replace(first + "\n", first + "\n" + NEW_ROW + "\n") + "More notes.\n"
    assert index.read_bytes() == written.encode()
