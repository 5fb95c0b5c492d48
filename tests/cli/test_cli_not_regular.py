"""Things that are not regular files: a FIFO or a socket where a snapshot or a note belongs is never opened.

Opening a FIFO for reading waits for a writer, which may never come: before, `show`, `doctor`,
`organize`, `archive`, `update`, `note list` and `note show` never returned. Each command runs here
in a process of its own with a deadline (tests/support/process.py), so a regression fails the test
instead of hanging the suite; each returns at once, names the file in one line, writes nothing,
and `doctor` reports it as a finding.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import tempfile
from pathlib import Path

import pytest

from tests.support.doctor import doctor_findings
from tests.support.process import memboard
from tests.support.roots import Mem, idle_line, row_line

IDLE = "2026-05-30-0900-cursor-main-agent"
B = "2026-05-31-0900-claude-agent"  # its snapshot is a FIFO or a socket
RECENT = "2026-05-30 09:00"
WHAT = {"fifo": "a FIFO", "socket": "a socket"}


def plant(path: Path, kind: str) -> None:
    """Make path a FIFO or a Unix socket (bound in a short temp folder, a socket's name being short, then closed,
    which leaves its file, and moved into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
        return
    with tempfile.TemporaryDirectory() as folder:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(os.path.join(folder, "s"))
        try:
            os.rename(os.path.join(folder, "s"), path)
        except OSError as exc:  # (another filesystem than the temp folder's)
            pytest.skip(f"cannot move a socket into the test's folder: {exc}")


def still_there(path: Path, kind: str) -> bool:
    """Whether path is still the FIFO or socket planted there."""
    mode = os.lstat(path).st_mode
    return stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISSOCK(mode)


@pytest.fixture(params=["fifo", "socket"])
def kind(request) -> str:
    """A FIFO or a socket."""
    return request.param


@pytest.fixture
def planted(root, mem: Mem, kind) -> Path:
    """A root whose IDLE row is protected by nothing that can be read, and whose B has no readable snapshot."""
    mem.index(idle_line(IDLE), row_line(B, updated=RECENT))
    path = root / "sessions" / f"{B}.md"
    plant(path, kind)
    return path


@pytest.mark.parametrize(
    "args", [("show", B), ("update", B, "--summary", "More."), ("archive", B), ("chain", B)], ids=lambda a: a[0]
)
def test_a_command_on_a_snapshot_that_is_no_file_refuses_at_once(root, planted, kind, whole_tree, args):
    before = whole_tree()
    res = memboard(root, *args)
    assert (res.code, res.out) == (1, "")
    assert res.err == f"memboard: cannot read sessions/{B}.md: it is {WHAT[kind]}, not a regular file\n"
    assert whole_tree() == before and still_there(planted, kind)


@pytest.mark.parametrize("dry_run", [False, True], ids=["apply", "dry-run"])
def test_organize_names_a_snapshot_that_is_no_file_and_deletes_nothing(root, planted, kind, whole_tree, dry_run):
    before = whole_tree()
    extra = ("--dry-run",) if dry_run else ()
    res = memboard(root, "organize", "--json", *extra)
    assert res.code == 0, res.err
    out = json.loads(res.out)
    reason = f"it is {WHAT[kind]}, not a regular file"
    assert out["deleted"] == [] and IDLE in out["protected"]
    assert out["unreadable"] == {f"sessions/{B}.md": reason}
    text = memboard(root, "organize", *extra)
    assert f"could not read: 1 — sessions/{B}.md ({reason})" in text.out + text.err
    assert whole_tree() == before and still_there(planted, kind)


def test_doctor_reports_a_snapshot_or_a_note_that_is_no_file(root, planted, kind, whole_tree):
    plant(root / "notes" / "ops" / "pipe.md", kind)
    before = whole_tree()
    found = [(f["kind"], f["message"].split(":")[0]) for f in doctor_findings(memboard(root, "doctor", "--json"))]
    what = WHAT[kind]
    assert found == [
        ("not_a_file", f"sessions/{B}.md is {what}, not a regular file"),
        ("not_a_file", f"notes/ops/pipe.md is {what}, not a regular file"),
    ]
    fix = memboard(root, "doctor", "--fix")
    assert fix.code == 1 and fix.err.count("\n") == 1 and fix.err.endswith("; nothing written\n")
    assert whole_tree() == before and still_there(planted, kind)


def test_note_commands_name_a_note_that_is_no_file(cli, root, kind, whole_tree):
    saved = ["--title", "Keep CRLF", "--type", "gotcha", "--scope", "ops", "--what", "Zebrafish lines end in CRLF."]
    assert cli("note", "save", *saved, "--topic-key", "ops/crlf").code == 0
    pipe = root / "notes" / "ops" / "pipe.md"
    plant(pipe, kind)
    before = whole_tree()
    line = f"cannot read notes/ops/pipe.md: it is {WHAT[kind]}, not a regular file"
    listed = memboard(root, "note", "list")
    assert listed.code == 0 and listed.err == f"memboard: {line}\n"
    assert [row.split("\t")[0] for row in listed.out.splitlines()] == [" ops/crlf", "!ops/pipe"]
    shown = memboard(root, "note", "show", "ops/pipe")
    assert (shown.code, shown.err) == (1, f"memboard: {line}\n")
    found = memboard(root, "note", "search", "zebrafish")
    assert "ops/crlf" in found.out and "1 file could not be read: notes/ops/pipe.md" in found.err
    assert whole_tree() == before and still_there(pipe, kind)
