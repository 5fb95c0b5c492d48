"""list / show / chain: the documented JSON shapes, filters, archived and missing links, cycles."""

from __future__ import annotations

import json

from tests.support.roots import idle_line, row_line

A = "2026-05-01-0900-cursor-main-agent"
B = "2026-05-30-0800-claude-agent"
C = "2026-05-31-0900-codex-agent"
GONE = "2026-04-01-0900-cursor-main-agent"

ROW_KEYS = [
    "id",
    "agent",
    "topic",
    "summary",
    "keywords",
    "status",
    "referenced_by",
    "started_at",
    "updated_at",
    "line",
    "problem",
    "has_snapshot",
]
NODE_KEYS = ["id", "state", "topic", "status", "one_sided", "cycle", "unreadable", "children"]


def run_json(cli, *args):
    """Run a command with --json and parse its stdout."""
    res = cli(*args, "--json")
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_list_json_shape_and_status_filter(cli, root, mem):
    mem.index(row_line(A, refs=f"{B}, {C}"), idle_line(B), row_line(C, status="stale"), "| bad | row |")
    mem.snapshot(A)
    rows = run_json(cli, "list")
    assert [list(r) for r in rows] == [ROW_KEYS] * 4
    assert rows[0]["referenced_by"] == [B, C] and rows[0]["has_snapshot"] is True and rows[0]["line"] == 5
    assert rows[1]["referenced_by"] == [] and rows[1]["has_snapshot"] is False
    assert rows[3]["id"] == "bad" and "cells" in rows[3]["problem"]
    assert [r["id"] for r in run_json(cli, "list", "--status", "idle")] == [B]
    assert [r["id"] for r in run_json(cli, "list", "--status", "stale")] == [C]


def test_list_on_missing_index_is_empty(cli, root):
    assert run_json(cli, "list") == []
    assert cli("list").out == ""


def test_list_text_marks_problem_rows(cli, root, mem):
    mem.index(row_line(A), "| bad | row |")
    lines = cli("list").out.splitlines()
    assert lines[0].startswith(" " + A + "\tactive") and lines[1].startswith("!bad")


def test_show_json_live(cli, root, mem):
    mem.index(row_line(A))
    path = mem.snapshot(A)
    info = run_json(cli, "show", A)
    assert list(info) == ["id", "archived", "row", "duplicates", "snapshot_path", "snapshot"]
    assert info["archived"] is False and list(info["row"]) == ROW_KEYS
    assert info["snapshot_path"] == f"sessions/{A}.md" and info["snapshot"] == path.read_text(encoding="utf-8")


def test_show_json_without_snapshot_and_duplicates(cli, root, mem):
    mem.index(row_line(A), row_line(A))
    info = run_json(cli, "show", A)
    assert info["snapshot"] is None and info["snapshot_path"] is None and info["duplicates"] == 1


def test_show_json_archived(cli, root, mem):
    mem.index(row_line(A, topic="T"))
    mem.snapshot(A)
    assert cli("archive", A).code == 0
    info = run_json(cli, "show", A)
    assert info["archived"] is True
    assert list(info["row"]) == ROW_KEYS + ["archived_at"]
    assert info["row"]["topic"] == "T" and info["row"]["line"] is None


def test_show_text(cli, root, mem):
    mem.index(row_line(A))
    out = cli("show", A).out
    assert out.startswith(A + "\n") and "(no snapshot)" in out


def test_chain_json_both_directions(cli, root, mem):
    mem.index(row_line(A, refs=B), row_line(B, refs=C), row_line(C))
    mem.snapshot(B, continues=[A])
    mem.snapshot(C, continues=[B])
    info = run_json(cli, "chain", B)
    assert list(info) == ["id", "state", "continues_from", "referenced_by"]
    up, down = info["continues_from"], info["referenced_by"]
    assert [n["id"] for n in up] == [A] and list(up[0]) == NODE_KEYS
    assert up[0]["one_sided"] is False and up[0]["state"] == "live" and up[0]["status"] == "active"
    assert [n["id"] for n in down] == [C] and down[0]["one_sided"] is False
    chain_a = run_json(cli, "chain", A)
    assert [n["id"] for n in chain_a["referenced_by"]] == [B]
    assert [n["id"] for n in chain_a["referenced_by"][0]["children"]] == [C]


def test_chain_marks_one_sided_missing_archived_and_cycles(cli, root, mem):
    mem.index(row_line(A, refs=B), row_line(B, refs=A), row_line(C))
    mem.snapshot(A, continues=[B])
    mem.snapshot(B, continues=[A, GONE])
    mem.snapshot(C, continues=[A])  # A does not list C: one-sided
    info = run_json(cli, "chain", C)
    node = info["continues_from"][0]
    assert node["id"] == A and node["one_sided"] is True
    b = node["children"][0]
    assert b["id"] == B
    back = {n["id"]: n for n in b["children"]}
    assert back[A]["cycle"] is True and back[A]["children"] == []
    assert back[GONE]["state"] == "missing" and back[GONE]["topic"] is None


def test_chain_of_archived_session(cli, root, mem):
    mem.index(row_line(A), row_line(B))
    mem.snapshot(B, continues=[A])
    mem.snapshot(A)
    assert cli("continue", A, "--as", B).code == 0
    assert cli("release", A, "--as", B).code == 0
    assert cli("archive", A).code == 0
    assert run_json(cli, "chain", A)["state"] == "archived"


def test_chain_text(cli, root, mem):
    mem.index(row_line(A, refs=B), row_line(B))
    mem.snapshot(B, continues=[A])
    out = cli("chain", A).out
    assert out.splitlines() == [f"{A} (live)", "continues from:", "referenced by:", f"  ↓ {B}  Topic"]


def test_changing_commands_json_results(cli, root, mem):
    """The --json result of each changing command (documented in the README)."""
    mem.index(row_line(A), idle_line(B))
    mem.snapshot(A)
    new = "2026-06-01-0930-cursor-main-agent"
    assert run_json(cli, "register") == {
        "session_id": new,
        "status": "idle",
        "dry_run": False,
        "changes": ["modify index.md"],
    }
    out = run_json(cli, "register", "--manual", "--dry-run")
    assert list(out) == ["session_id", "status", "snapshot", "dry_run", "changes"] and out["dry_run"] is True
    out = run_json(cli, "continue", A, "--as", new)
    assert out == {
        "session_id": new,
        "continues_from": A,
        "dry_run": False,
        "changes": [f"create sessions/{new}.md", "modify index.md"],
    }
    out = run_json(cli, "release", A, "--as", new)
    assert out["session_id"] == new and out["released"] == A
    out = run_json(cli, "update", A)
    assert list(out) == ["session_id", "snapshot_created", "added", "marked", "carried_over", "dry_run", "changes"]
    out = run_json(cli, "organize", "--dry-run")
    assert list(out) == [
        "deleted",
        "marked_stale",
        "kept_active",
        "protected",
        "blocked",
        "malformed",
        "stale",
        "reasons",
        "stale_days",
        "unreadable",
        "dry_run",
        "changes",
    ]
    for sid, action in ((B, "deleted"), (A, "archived")):
        out = run_json(cli, "archive", sid)
        assert list(out) == ["session_id", "action", "released", "archive", "dry_run", "changes"]
        assert out["action"] == action
    doc = run_json(cli, "doctor")
    assert all(list(f) == ["kind", "id", "message", "fix"] for f in doc)


def test_only_sessions_folder_holds_snapshots(cli, root, mem):
    """sessions/<id>.md is the only snapshot path; a file elsewhere is not the session's snapshot."""
    mem.index(row_line(A))
    (root / f"{A}.md").write_text("# stray\n", encoding="utf-8")
    (root / "sessions" / "sub").mkdir(parents=True)
    (root / "sessions" / "sub" / f"{A}.md").write_text("# stray\n", encoding="utf-8")
    assert run_json(cli, "list")[0]["has_snapshot"] is False
    assert run_json(cli, "show", A)["snapshot"] is None
    assert cli("update", A).code == 0
    assert (root / "sessions" / f"{A}.md").read_text(encoding="utf-8").startswith(f"# Session: {A}")


def test_invalid_utf8_in_index_is_listed_not_crashed(cli, root, mem):
    data = mem.index(row_line(A, topic="PLACEHOLDER"))
    (root / "index.md").write_bytes(data.replace(b"PLACEHOLDER", b"bad \xff byte"))
    for env in ({"PYTHONIOENCODING": "utf-8"}, {}):
        res = cli("list", "--json", env=env)
        assert res.code == 0, res.err
        assert json.loads(res.out)[0]["topic"] == "bad \ufffd byte"
        assert cli("list", env=env).code == 0 and cli("show", A, env=env).code == 0
    assert cli("update", A).code == 0
    assert b"bad \xff byte" in (root / "index.md").read_bytes()
