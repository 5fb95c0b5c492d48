"""Dry runs write nothing, refusals write nothing, hostile IDs are usage errors, concurrent
writers lose nothing, and nothing outside the root (a sibling wiki/) is touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.support.doctor import went_through
from tests.support.roots import idle_line, row_line

A = "2026-05-01-0900-cursor-main-agent"
B = "2026-05-30-0800-claude-agent"
C = "2026-05-31-0900-codex-agent"
I = "2026-05-31-1000-cursor-main-agent"


@pytest.fixture
def busy(root, mem):
    """A root where every changing command has something to change."""
    mem.index(row_line(A), row_line(B, refs=C), row_line(C), idle_line(I))
    mem.snapshot(A)
    mem.snapshot(C, continues=[B])
    wiki = root.parent / "wiki"
    wiki.mkdir()
    (wiki / "index.md").write_text("# Wiki\n", encoding="utf-8")
    (wiki / "log.md").write_text("# Log\n", encoding="utf-8")
    return root


CHANGING = [
    ("register",),
    ("register", "--manual", "--topic", "t"),
    ("update", A, "--summary", "s"),
    ("update", I),
    ("continue", B, "--as", A),
    ("continue", B),
    ("release", B, "--as", C),
    ("organize",),
    ("archive", A),
    ("archive", I),
    ("doctor", "--fix"),
]


@pytest.mark.parametrize("args", CHANGING, ids=lambda a: "-".join(a))
def test_dry_run_changes_no_byte(cli, busy, whole_tree, args):
    before = whole_tree()
    res = cli(*args, "--dry-run")
    assert went_through(res, args), res.err
    assert whole_tree() == before
    assert "\n+++ " in "\n" + res.out or "rename to" in res.out, res.out
    assert "dry run: nothing written" in res.err


@pytest.mark.parametrize("args", CHANGING, ids=lambda a: "-".join(a))
def test_operations_touch_nothing_outside_the_root(cli, busy, whole_tree, args):
    """Ordinary Memory operations never update the Wiki's index or log."""
    outside = {k: v for k, v in whole_tree().items() if not k.startswith("memory/")}
    assert cli(*args).code == 0
    assert {k: v for k, v in whole_tree().items() if not k.startswith("memory/")} == outside


def test_dry_run_shows_unified_diff_with_a_and_b_paths(cli, busy):
    res = cli("update", A, "--summary", "new", "--dry-run")
    assert f"--- a/sessions/{A}.md\n+++ b/sessions/{A}.md\n" in res.out
    assert "--- a/index.md\n+++ b/index.md\n" in res.out
    assert "+| " + A in res.out and "-| " + A in res.out


def test_dry_run_shows_moves_as_renames(cli, busy):
    res = cli("archive", A, "--dry-run")
    assert f"rename from sessions/{A}.md\nrename to archive/{A}/session.md\n" in res.out
    assert f"--- /dev/null\n+++ b/archive/{A}/index.md\n" in res.out


def test_dry_run_then_apply_writes_the_previewed_bytes(cli, busy):
    preview = cli("register", "--dry-run").out
    cli("register")
    added = [l[1:] for l in preview.splitlines() if l.startswith("+|")]
    assert len(added) == 1 and added[0] in (busy / "index.md").read_text(encoding="utf-8")


REFUSED = [
    ("archive", B),  # referenced
    ("archive", "2026-01-01-0000-nobody"),
    ("update", "2026-01-01-0000-nobody"),
    ("continue", "2026-01-01-0000-nobody", "--as", A),
    ("continue", B, "--as", "2026-01-01-0000-nobody"),
    ("release", A, "--as", C),  # no such reference
    ("show", "2026-01-01-0000-nobody"),
    ("chain", "2026-01-01-0000-nobody"),
]


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: "-".join(a))
def test_refused_commands_write_nothing(cli, busy, whole_tree, args):
    before = whole_tree()
    res = cli(*args)
    assert res.code == 1
    assert len(res.err.strip().splitlines()) == 1 and res.err.startswith("memboard: ")
    assert whole_tree() == before


BAD_IDS = [
    "..",
    "../x",
    "a/b",
    "a\\b",
    "C:x",
    "C:\\x",
    "2026-05-01-0900-a\nb",
    "x|y",
    "2026-05-01-0900-" + "a" * 500,
    "2026-13-01-0900-a",
    "2026-05-01-0900-A",
    "2026-05-01-0900-a/../../b",
    " 2026-05-01-0900-a",
    "",
]


BAD_ID_COMMANDS = {
    "update": lambda r, b: ["update", "--root", r, "--", b],
    "archive": lambda r, b: ["archive", "--root", r, "--", b],
    "show": lambda r, b: ["show", "--root", r, "--", b],
    "chain": lambda r, b: ["chain", "--root", r, "--", b],
    "continue": lambda r, b: ["continue", "--root", r, "--", b],
    "continue-as": lambda r, b: ["continue", A, f"--as={b}", "--root", r],
    "release-as": lambda r, b: ["release", A, f"--as={b}", "--root", r],
    "release-source": lambda r, b: ["release", "--as", C, "--root", r, "--", b],
}


BAD_ID_CASES = [("update", bad) for bad in BAD_IDS] + [
    (cmd, bad) for cmd in sorted(BAD_ID_COMMANDS) if cmd != "update" for bad in ("..", "a/b", "C:\\x", "x|y")
]


@pytest.mark.parametrize("cmd,bad", BAD_ID_CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(BAD_ID_CASES)])
def test_bad_ids_are_usage_errors(cli, busy, whole_tree, cmd, bad):
    before = whole_tree()
    res = cli(*BAD_ID_COMMANDS[cmd](str(busy), bad), use_root=False)
    assert res.code == 2, res.err
    assert len(res.err.strip().splitlines()) == 1
    assert "invalid" in res.err
    assert whole_tree() == before


def test_nul_in_an_id_is_refused_by_the_core():
    """argv cannot carry a NUL byte (the OS refuses it), so the ID check is exercised directly."""
    from memboard.core.errors import UsageError
    from memboard.core.formats.ids import check_id
    from memboard.core.formats.layout import session_path

    for bad in ["2026-05-01-0900-a\x00b", "\x00"]:
        with pytest.raises(UsageError):
            check_id(bad)
        with pytest.raises(UsageError):
            session_path(bad)


def test_snapshot_input_with_nul_is_usage_error(cli, busy, whole_tree):
    before = whole_tree()
    res = cli("update", A, "--snapshot", "-", input=b"## Decisions\n\n- a\x00b\n")
    assert res.code == 2 and whole_tree() == before


def test_missing_root_is_usage_error(cli, tmp_path):
    res = cli("list", "--root", str(tmp_path / "nope"), use_root=False)
    assert res.code == 2 and len(res.err.strip().splitlines()) == 1


def test_root_inside_wiki_is_refused(cli, tmp_path):
    """Memory lives beside wiki/ (the seed's Agent/raw, Agent/wiki layout), never inside it."""
    (tmp_path / "Agent" / "raw").mkdir(parents=True)
    inside = tmp_path / "Agent" / "wiki" / "memory"
    inside.mkdir(parents=True)
    res = cli("register", "--root", str(inside), use_root=False)
    assert res.code == 2 and "wiki" in res.err
    assert list(inside.iterdir()) == []


def test_root_under_a_folder_merely_named_wiki_is_allowed(cli, tmp_path):
    """A folder called wiki that is not the Wiki of the layout (no raw/ beside it, no Wiki
    index or log) does not block a root below it."""
    root = tmp_path / "wiki" / "notes" / "memory"
    root.mkdir(parents=True)
    res = cli("register", "--root", str(root), use_root=False)
    assert res.code == 0, res.err


def test_eight_concurrent_registrations_lose_nothing(root):
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memboard", "register", "--root", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        for _ in range(8)
    ]
    deadline = time.monotonic() + 60
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=max(1, deadline - time.monotonic()))
        assert p.returncode == 0, err
        outs.append(out.decode().strip().rsplit(" ", 1)[1])
    assert len(set(outs)) == 8
    base = "2026-06-01-0930-cursor-main-agent"
    assert sorted(outs) == sorted([base] + [f"{base}-{n}" for n in range(2, 9)])
    text = (root / "index.md").read_text(encoding="utf-8")
    lines = [l for l in text.splitlines() if l.startswith(f"| {base}")]
    assert sorted(l.split(" | ")[0][2:] for l in lines) == sorted(outs)
    assert text.count("| Session ID |") == 1


def test_concurrent_mixed_writers_keep_every_row(root, mem):
    """Registrations racing an update and an organize: every registered row survives."""
    mem.index(row_line(A, updated="2026-05-31 09:00"))
    mem.snapshot(A)
    cmds = [["register", "--agent", f"agent-{n}"] for n in range(6)] + [
        ["update", A, "--summary", "x"],
        ["organize", "--stale-days", "100"],
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memboard", *c, "--root", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for c in cmds
    ]
    for p in procs:
        p.communicate(timeout=60)
        assert p.returncode == 0
    text = (root / "index.md").read_text(encoding="utf-8")
    assert text.count("| Session ID |") == 1
    assert f"| {A} |" in text and "| x |" in text
    # organize may run before or after each registration; a deleted idle row is not lost data,
    # but every registration that happened after organize must be there and IDs must be unique
    ids = [l.split(" | ")[0][2:] for l in text.splitlines() if l.startswith("| 2026-06-01-0930-")]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    "args",
    [
        ("register",),
        ("register", "--manual"),
        ("update", A),
        ("continue", A),
        ("organize",),
        ("archive", A),
        ("doctor", "--fix"),
    ],
    ids=lambda a: "-".join(a),
)
def test_index_without_protocol_columns_is_refused_not_crashed(cli, root, whole_tree, args):
    (root / "index.md").write_text(
        "| Session ID | Agent Name | Topic | Status | Updated At |\n|---|---|---|---|---|\n"
        f"| {A} | cursor-main-agent | t | idle | 2026-05-01 09:00 |\n",
        encoding="utf-8",
    )
    before = whole_tree()
    res = cli(*args)
    assert res.code in (0, 1) and "Traceback" not in res.err
    if args[0] != "doctor":
        assert res.code == 1 and "lacks the column" in res.err and len(res.err.strip().splitlines()) == 1
    assert whole_tree() == before


@pytest.mark.skipif(os.name == "nt", reason="POSIX argv bytes")
def test_non_utf8_argument_is_usage_error(root, busy, whole_tree):
    before = whole_tree()
    proc = subprocess.run(
        [
            sys.executable.encode(),
            b"-m",
            b"memboard",
            b"register",
            b"--manual",
            b"--topic",
            b"bad \xff",
            b"--root",
            str(root).encode(),
        ],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 2 and b"UTF-8" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert whole_tree() == before


def test_root_from_env_then_config(cli, root, mem, tmp_path):
    mem.index(row_line(A))
    res = cli("list", "--json", use_root=False, env={"MEMBOARD_ROOT": str(root)})
    assert res.code == 0 and A in res.out
    with open(os.environ["MEMBOARD_CONFIG"], "w", encoding="utf-8") as fh:
        fh.write(f"root = {json.dumps(str(root))}\n")  # a TOML basic string is JSON-compatible
    res = cli("list", "--json", use_root=False)
    assert res.code == 0 and A in res.out
    other = tmp_path / "other"
    other.mkdir()
    res = cli("list", "--json", "--root", str(other), use_root=False, env={"MEMBOARD_ROOT": str(root)})
    assert res.code == 0 and res.out.strip() == "[]"  # --root wins


def test_no_root_anywhere_is_usage_error(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "memboard", "list"], cwd=elsewhere, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [[], ["demo"]])
def test_a_missing_textual_is_a_one_line_error(root, argv):
    """The board needs Textual: without it `memboard` says so in one line and exits 1 (it never pretends)."""
    code = "import sys; sys.modules['textual'] = None; from memboard.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "--root", str(root), *argv], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "the board needs textual" in proc.stderr, proc.stderr


@pytest.mark.parametrize("argv", [[], ["demo"], ["demo", "--keep", "KEEP"]])
def test_the_board_without_a_terminal_is_a_one_line_refusal(root, tmp_path, argv):
    """`memboard` from a script or a hook (stdin not a terminal) says so and exits 1 at once: it ran for ever,
    busy, waiting for keys; `demo --keep` writes no demo root then."""
    keep = tmp_path / "kept"
    argv = [str(keep) if a == "KEEP" else a for a in argv]
    proc = subprocess.run(
        [sys.executable, "-m", "memboard", "--root", str(root), *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "the board needs a terminal" in proc.stderr, proc.stderr
    assert not keep.exists()


@pytest.mark.parametrize(
    ("argv", "handler", "collecting"),
    [([], "ui:cmd_board", True), (["demo"], "ui:cmd_demo", True), (["mcp"], "server:cmd_mcp", True)]
    + [(["organize"], "changes:cmd_organize", False)],
)
def test_only_one_shot_commands_run_without_the_cyclic_collector(root, argv, handler, collecting):
    """A one-shot command turns the cyclic collector off (speed); the board and the MCP server run for hours
    and keep it (their cycles must be collected)."""
    module, _, name = handler.partition(":")
    code = (
        "import gc, importlib, sys; from memboard.cli import main;"
        f"setattr(importlib.import_module('memboard.cli.{module}'), {name!r}, lambda args: print(gc.isenabled()) or 0);"
        "rc = main(sys.argv[1:]); print(rc, gc.isenabled())"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "--root", str(root), *argv], capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.split() == [str(collecting), "0", "True"], proc.stderr
