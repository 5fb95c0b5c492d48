"""`--dry-run` prints a patch that `git apply` turns into exactly the files the real command
writes: for every changing command, on roots with CRLF files, BOMs, bytes that are not UTF-8,
files without a final newline, and cells holding every character `str.splitlines` breaks on
besides `\\n`. Each case copies the root twice: one copy gets the dry run's patch through
`git apply`, the other the real command; the two trees must be equal byte for byte."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import runner
from tests.support.doctor import went_through
from tests.support.roots import HEADER, SEPARATOR, snapshot_text
from tests.support.tree import tree

A = "2026-05-01-0900-alpha"  # active, snapshot
B = "2026-05-02-0900-beta"  # active, referenced by C
C = "2026-05-03-0900-gamma"  # active, continues from B
I = "2026-05-04-0900-idle"  # idle placeholder
D = "2026-05-05-0900-delta"  # active without snapshot (doctor creates one)
E = "2026-05-06-0900-epsilon"  # snapshot without a row (doctor appends one)
H = "2026-05-07-0900-eta"  # half archived: archive index written, snapshot and row still live

# every character besides \n that str.splitlines breaks a line at
BREAKERS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def row(sid: str, status: str = "active", refs: str = "-", topic: str = "Topic", summary: str = "Did work.") -> str:
    """One index line without its ending."""
    return (
        f"| {sid} | {sid[16:]} | {topic} | {summary} | kw | {status} | {refs} | 2026-05-01 09:00 | 2026-05-01 09:00 |"
    )


def archive_index(sid: str) -> str:
    """The archive metadata file of H, as the first step of an archive writes it."""
    return (
        f"# Archived Session: {sid}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Session ID | {sid} |\n"
        f"| Agent Name | {sid[16:]} |\n| Topic | Topic |\n| Summary | Did work. |\n| Keywords | kw |\n"
        "| Original Status | active |\n| Referenced By | - |\n| Started At | 2026-05-01 09:00 |\n"
        "| Updated At | 2026-05-01 09:00 |\n| Archived At | 2026-05-08 09:00 |\n\n## Files\n\n- Session: ./session.md\n"
    )


def base_files(topic: str, cell: str, line: str) -> dict[str, str]:
    """The scenario's files as text; topic and cell go into rows, line into snapshots."""
    rows = [
        row(A, topic=topic, summary=f"alpha {cell} summary"),
        row(B, refs=C, summary=f"beta{cell}"),
        row(C),
        row(I, "idle", topic="未設定", summary=f"placeholder {cell}"),
        row(D, topic=f"Delta {cell}", summary=f"delta {cell} work"),
        row(H),
    ]
    index = (
        f"# Memory Index\n\nNotes {cell} here.\n\n"
        + HEADER
        + SEPARATOR
        + "".join(r + "\n" for r in rows)
        + "\nAfter.\n"
    )
    files = {"index.md": index}
    for sid, continues in ((A, None), (C, [B]), (E, None), (H, None)):
        text = snapshot_text(sid, continues=continues, decisions=[f"decided {line} firmly", "keep it"])
        files[f"sessions/{sid}.md"] = text
    files[f"archive/{H}/index.md"] = archive_index(H)
    return files


def hostile(kind: str) -> dict[str, bytes]:
    """The scenario's files made hostile in one way."""
    if kind == "breakers":
        texts = base_files("Top" + BREAKERS + "ic", "a" + BREAKERS + "b", "x" + BREAKERS + "y")
        return {k: v.encode("utf-8") for k, v in texts.items()}
    files = {k: v.encode("utf-8") for k, v in base_files("Topic", "plain", "plain").items()}
    out = {}
    for rel, data in files.items():
        if kind in ("crlf", "mixed"):
            data = data.replace(b"\n", b"\r\n")
        if kind in ("bom", "mixed"):
            data = b"\xef\xbb\xbf" + data
        if kind in ("no-final-newline", "mixed"):
            data = data.rstrip(b"\r\n")
        if kind == "not-utf8":
            data = data.replace(b"Notes plain", b"Notes caf\xe9 \xff\xfe").replace(
                b"decided plain", b"decided \xc3\x28 \x80"
            )
            data = data.replace(b"alpha plain summary", b"alpha \xe9t\xe9 summary").replace(
                b"Delta plain", b"Delta \xe9"
            )
        out[rel] = data
    if kind == "mixed":  # doctor deletes it: a path git must quote, with spaces and quotes
        out['notes/my "odd" notes/.x y.md.a1b2c3.memboard-tmp'] = b"half\r\na write"
    return out


KINDS = ["lf", "crlf", "bom", "not-utf8", "no-final-newline", "breakers", "mixed"]
COMMANDS = [
    ["register"],
    ["register", "--manual", "--topic", "t", "--summary", "s"],
    ["update", A, "--summary", "new summary"],
    ["update", I, "--summary", "now real work"],
    ["continue", B, "--as", A],
    ["continue", B, "--as", D],
    ["continue", B],
    ["release", B, "--as", C],
    ["archive", A],
    ["archive", I],
    ["organize"],
    ["doctor", "--fix"],
]


def write_root(path: Path, files: dict[str, bytes]) -> None:
    """Create a root from relative path -> bytes."""
    for rel, data in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def memboard(root: Path, argv: list[str]) -> runner.Ran:
    """Run memboard on root (in this process), bytes out."""
    return runner.run([*argv, "--root", str(root)])


def git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run git isolated from the user's and the system's configuration."""
    env = dict(os.environ, HOME=str(cwd.parent), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_git_apply_of_the_dry_run_writes_exactly_what_the_command_writes(tmp_path, kind, argv):
    files = hostile(kind)
    previewed, real = tmp_path / "previewed", tmp_path / "real"
    write_root(previewed, files)
    write_root(real, files)
    dry = memboard(previewed, [*argv, "--dry-run"])
    assert went_through(dry, argv), dry.err.decode("utf-8", "replace")
    assert tree(previewed, skip=(".git", ".memboard")) == files  # a dry run writes nothing
    done = memboard(real, argv)
    assert went_through(done, argv), done.err.decode("utf-8", "replace")
    assert tree(real, skip=(".git", ".memboard")) != files, "the command changed nothing: the case proves nothing"
    assert git(previewed, "init", "-q").returncode == 0
    applied = git(previewed, "apply", "--whitespace=nowarn", "-", stdin=dry.out)
    assert applied.returncode == 0, (
        applied.stderr.decode("utf-8", "replace") + "\n" + dry.out.decode("utf-8", "replace")
    )
    assert tree(previewed, skip=(".git", ".memboard")) == tree(real, skip=(".git", ".memboard"))


def test_a_dry_run_into_a_text_only_stream_still_prints_the_patch(tmp_path, capsys):
    """An embedding caller that swaps stdout for a StringIO gets the patch as text, not a crash."""
    import contextlib
    import io

    from memboard.cli import main

    write_root(tmp_path / "root", hostile("not-utf8"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["archive", A, "--dry-run", "--root", str(tmp_path / "root")]) == 0
    assert f"rename to archive/{A}/session.md" in out.getvalue() and "\ufffd" in out.getvalue()
