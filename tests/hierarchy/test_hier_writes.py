"""The hierarchy's writes (issue 25 §3): init (create-only), log (append-only, beside OpenClaw's slugged logs),
archive-logs (moves, bytes unchanged, never over a file, lookup cells rewritten) and lookup add (cells
escaped); each --dry-run patch reproduces the write byte for byte with `git -C WORKSPACE apply`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

TODAY = "2026-06-01"  # the suite's fixed clock (MEMBOARD_NOW)
SEED_FACTS = (
    f"# memory/facts.yaml\n# Structured factual data — directly addressable, token-efficient\n# Last updated: {TODAY}\n"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with a prose MEMORY.md and no warm files."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_bytes(b"# Me\r\nI help Kim.")  # CRLF, no final line end
    return w


def run(cli, ws: Path, *args: str, input: str | None = None):
    """A hierarchy command on the workspace."""
    return cli(*args, "--workspace", str(ws), use_root=False, input=input)


def files(folder: Path) -> dict[str, bytes]:
    """Every file under folder, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_init_creates_the_seed_files_and_appends_the_pointers_once(cli, ws):
    r = run(cli, ws, "hierarchy", "init")
    assert r.code == 0, r.err
    assert (ws / "memory" / "facts.yaml").read_text() == SEED_FACTS
    assert (ws / "memory" / "lookup-index.md").read_text() == "| I need to know... | Go here |\n|---|---|\n"
    assert (ws / "MEMORY.md").read_bytes() == (
        "# Me\r\nI help Kim.\r\n# Structured facts → memory/facts.yaml\r\n# Find anything → memory/lookup-index.md\r\n"
    ).encode()
    before = files(ws)
    again = run(cli, ws, "hierarchy", "init")
    assert (again.code, again.out) == (0, "nothing to change\n")
    assert files(ws) == before


def test_init_never_overwrites_and_counts_any_line_naming_a_file_as_its_pointer(cli, ws):
    (ws / "memory" / "facts.yaml").write_text("identity:\n  name: Kim\n")
    (ws / "MEMORY.md").write_text("# Me\nFacts live in memory/facts.yaml.\n")
    assert run(cli, ws, "hierarchy", "init").code == 0
    assert (ws / "memory" / "facts.yaml").read_text() == "identity:\n  name: Kim\n"
    assert (
        ws / "MEMORY.md"
    ).read_text() == "# Me\nFacts live in memory/facts.yaml.\n# Find anything → memory/lookup-index.md\n"


def test_log_starts_a_new_day_and_appends_by_the_seeds_rule(cli, ws):
    assert run(cli, ws, "hierarchy", "log", "--text", "wrote chapter 1").code == 0
    log = ws / "memory" / f"{TODAY}.md"
    assert log.read_text() == f"# {TODAY}\n\nwrote chapter 1\n"
    assert run(cli, ws, "hierarchy", "log", "--text", "two\nlines").code == 0
    assert log.read_text() == f"# {TODAY}\n\nwrote chapter 1\n\ntwo\nlines\n"
    same = run(cli, ws, "hierarchy", "log", "--text", "two\nlines")
    assert (same.code, same.out) == (0, "nothing to change\n")
    other = ws / "memory" / "2026-05-02.md"
    other.write_bytes(b"# 2026-05-02\r\n\r\nno line end")
    assert run(cli, ws, "hierarchy", "log", "--file", "-", "--date", "2026-05-02", input="a\nb\n").code == 0
    assert other.read_bytes() == b"# 2026-05-02\r\n\r\nno line end\r\n\r\na\r\nb\r\n"


@pytest.mark.parametrize(("args", "code"), [(("--date", "2026-02-30"), 2), (("--date", "tomorrow"), 2)])
def test_log_refuses_an_impossible_date(cli, ws, args, code):
    r = run(cli, ws, "hierarchy", "log", "--text", "x", *args)
    assert r.code == code and len(r.err.strip().splitlines()) == 1
    assert list((ws / "memory").iterdir()) == []


def test_log_refuses_a_secret_unless_allowed(cli, ws):
    secret = "key sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2
    r = run(cli, ws, "hierarchy", "log", "--text", secret)
    assert r.code == 1 and "credential" in r.err and list((ws / "memory").iterdir()) == []
    assert run(cli, ws, "hierarchy", "log", "--text", secret, "--allow-secrets").code == 0


def test_slugged_openclaw_logs_are_listed_and_never_written(cli, ws):
    slug = ws / "memory" / f"{TODAY}-new-session.md"
    slug.write_bytes(b"# Session\n\nOpenClaw's own\n")
    assert run(cli, ws, "hierarchy", "log", "--text", "mine").code == 0
    assert slug.read_bytes() == b"# Session\n\nOpenClaw's own\n"
    shown = json.loads(run(cli, ws, "hierarchy", "show", "--json").out)
    assert shown["cold"]["daily"] == [
        {"path": f"memory/{TODAY}.md", "date": TODAY, "slug": None},
        {"path": f"memory/{TODAY}-new-session.md", "date": TODAY, "slug": "new-session"},
    ]
    assert shown["cold"]["newest"] == TODAY


def test_archive_logs_moves_both_forms_unchanged_and_rewrites_their_lookup_cells(cli, ws):
    mem = ws / "memory"
    (mem / "2026-04-30.md").write_bytes(b"# 2026-04-30\r\n\r\nold\r\n")
    (mem / "2026-05-01-chat.md").write_bytes(b"chat \xff bytes")
    (mem / "2026-05-02.md").write_text("new\n")
    (mem / "lookup-index.md").write_text(
        "| Need | Where | Notes |\n|---|---|---|\n| april | memory/2026-04-30.md, memory/x.md |  keep  |\n| other | memory/x.md | |\n"
    )
    r = run(cli, ws, "hierarchy", "archive-logs", "--before", "2026-05-02")
    assert r.code == 0, r.err
    assert (mem / "daily-archive" / "2026-04" / "2026-04-30.md").read_bytes() == b"# 2026-04-30\r\n\r\nold\r\n"
    assert (mem / "daily-archive" / "2026-05" / "2026-05-01-chat.md").read_bytes() == b"chat \xff bytes"
    assert not (mem / "2026-04-30.md").exists() and not (mem / "2026-05-01-chat.md").exists()
    assert (mem / "2026-05-02.md").read_text() == "new\n"
    assert (mem / "lookup-index.md").read_text().splitlines()[2] == (
        "| april | memory/daily-archive/2026-04/2026-04-30.md, memory/x.md |  keep  |"
    )
    again = run(cli, ws, "hierarchy", "archive-logs", "--before", "2026-05-02")
    assert (again.code, again.out) == (0, "nothing to change\n")


def test_archive_logs_never_overwrites(cli, ws):
    mem = ws / "memory"
    (mem / "2026-04-30.md").write_text("mine\n")
    (mem / "daily-archive" / "2026-04").mkdir(parents=True)
    (mem / "daily-archive" / "2026-04" / "2026-04-30.md").write_text("other\n")
    before = files(ws)
    r = run(cli, ws, "hierarchy", "archive-logs", "--before", "2026-05-01")
    assert r.code == 1 and "nothing written" in r.err
    assert files(ws) == before


def test_lookup_add_escapes_cells_and_needs_an_existing_target(cli, ws):
    assert run(cli, ws, "hierarchy", "init").code == 0
    (ws / "memory" / "project-book.md").write_text("# Book\n")
    r = run(cli, ws, "lookup", "add", "the book | plan", "memory/project-book.md")
    assert r.code == 0, r.err
    text = (ws / "memory" / "lookup-index.md").read_text()
    assert text.splitlines()[-1] == "| the book \\| plan | memory/project-book.md |"
    assert json.loads(run(cli, ws, "lookup", "book", "plan", "--json").out)["need"] == "the book | plan"
    before = files(ws)
    missing = run(cli, ws, "lookup", "add", "gone", "memory/gone.md")
    assert missing.code == 1 and "does not exist" in missing.err
    assert run(cli, ws, "lookup", "add", "two\nlines", "memory/project-book.md").code == 2
    assert files(ws) == before


DRY_RUNS = [
    ("hierarchy", "init"),
    ("hierarchy", "log", "--text", "appended\nlines"),
    ("hierarchy", "log", "--text", "on a CRLF log", "--date", "2026-05-02"),
    ("hierarchy", "archive-logs", "--before", "2026-05-03"),
    ("lookup", "add", "the | book", "memory/project-book.md → Plan"),
]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("args", DRY_RUNS, ids=lambda a: " ".join(a[:2]))
def test_a_dry_run_patch_applied_with_git_reproduces_the_write(cli, tmp_path, ws, args):
    mem = ws / "memory"
    (ws / "MEMORY.md").write_bytes(b"\xef\xbb\xbf# Me\r\nno final line end")
    (mem / "lookup-index.md").write_bytes(b"| Need | Go |\r\n|---|---|\r\n| may | memory/2026-05-01-chat.md |")
    (mem / "project-book.md").write_text("# Book\n\n## Plan\n")
    (mem / "2026-05-02.md").write_bytes(b"# 2026-05-02\r\n\r\nsomething")
    (mem / "2026-05-01-chat.md").write_bytes(b"chat \xff\n")
    twin = tmp_path / "twin"
    shutil.copytree(ws, twin)
    dry = run(cli, ws, *args, "--dry-run")
    assert dry.code == 0, dry.err
    assert f"patch base: {ws.resolve()}" in dry.err
    assert files(ws) == files(twin)  # the dry run wrote nothing
    patch = cli(*args, "--dry-run", "--workspace", str(ws), use_root=False)
    data = patch.out.encode()
    applied = subprocess.run(["git", "-C", str(twin), "apply", "-"], input=data, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert run(cli, ws, *args).code == 0
    assert files(twin) == files(ws)


def test_no_workspace_is_one_line_and_exit_1(cli, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("OPENCLAW_WORKSPACE_DIR", raising=False)
    monkeypatch.chdir(home)
    for args in (("hierarchy", "show"), ("hierarchy", "lint"), ("hierarchy", "log", "--text", "x"), ("lookup", "x")):
        r = cli(*args, use_root=False)
        assert (r.code, r.err) == (1, "memboard: no hierarchy workspace; pass --workspace DIR\n"), args
    assert list(home.iterdir()) == []


def test_bad_usage_is_exit_2_and_writes_nothing(cli, ws):
    before = files(ws)
    for args in (
        ("hierarchy", "log"),
        ("hierarchy", "log", "--text", "x", "--file", "-"),
        ("hierarchy", "archive-logs"),
        ("hierarchy", "archive-logs", "--before", "2026-02-30"),
        ("lookup", "x", "--dry-run"),
        ("hierarchy", "show", "--bogus"),
    ):
        r = run(cli, ws, *args)
        assert r.code == 2 and len(r.err.strip().splitlines()) == 1, (args, r.err)
    assert files(ws) == before


def test_the_json_of_a_write_names_its_changes(cli, ws):
    r = run(cli, ws, "hierarchy", "init", "--json", "--dry-run")
    out = json.loads(r.out)
    assert out["dry_run"] is True and out["workspace"] == out["base"] == str(ws.resolve())
    assert out["changes"] == ["create memory/facts.yaml", "create memory/lookup-index.md", "modify MEMORY.md"]
    assert out["diff"].startswith("diff --git a/memory/facts.yaml b/memory/facts.yaml\n")
    r = run(cli, ws, "hierarchy", "log", "--text", "x", "--json")
    assert json.loads(r.out) == {
        "workspace": str(ws.resolve()),
        "base": str(ws.resolve()),
        "places": [{"kind": "hierarchy workspace", "path": str(ws.resolve())}],
        "dry_run": False,
        "changes": [f"create memory/{TODAY}.md"],
        "done": [f"created memory/{TODAY}.md"],
    }
