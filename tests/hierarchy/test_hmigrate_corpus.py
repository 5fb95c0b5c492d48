"""`hierarchy migrate` on the corpus (issue 25 §9 "Migration loses nothing"): 22 prose MEMORY.md files, English
and Chinese, LF and CRLF, with and without BOM and final newline, each with its filled plan
(tests/corpus/hierarchy/). Every old line ends up somewhere, the migration copy is the old file, a stop after
any step then a second --apply gives the same tree as one run, the dry run's patch reproduces the write
under `git apply`, and PyYAML and ruamel.yaml read every moved value back at its key."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml as pyyaml  # type: ignore[import-untyped]  # PyYAML ships no type hints
from ruamel.yaml import YAML

from memboard.core.hierarchy import hot
from tests.support import runner
from tests.support.faults import Faults, installed

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "hierarchy"
ITEMS = sorted(p.name for p in CORPUS.iterdir() if (p / "MEMORY.md").is_file())
DATE = "2026-06-01"


def workspace(tmp_path: Path, name: str, folder: str = "ws") -> tuple[Path, Path]:
    """A workspace holding the corpus item's MEMORY.md, and its plan's path (outside the workspace)."""
    ws = tmp_path / folder
    ws.mkdir()
    shutil.copyfile(CORPUS / name / "MEMORY.md", ws / "MEMORY.md")
    plan = tmp_path / f"{folder}-plan.yaml"
    shutil.copyfile(CORPUS / name / "plan.yaml", plan)
    return ws, plan


def apply(ws: Path, plan: Path, *extra: str) -> runner.Ran:
    """`hierarchy migrate --apply PLAN` in this process (raw bytes out)."""
    return runner.run(["hierarchy", "migrate", "--workspace", str(ws), "--apply", str(plan), *extra])


def tree(ws: Path) -> dict[str, bytes]:
    """Every file of the workspace with its bytes."""
    return {p.relative_to(ws).as_posix(): p.read_bytes() for p in sorted(ws.rglob("*")) if p.is_file()}


def plan_lines(name: str) -> list[dict]:
    """The filled plan's lines."""
    return YAML(typ="safe", pure=True).load((CORPUS / name / "plan.yaml").read_text(encoding="utf-8"))["lines"]


def at_key(data: object, key: str) -> object:
    """The value at a dotted key path of parsed YAML (None when missing)."""
    for seg in key.split("."):
        if not isinstance(data, dict) or seg not in data:
            return None
        data = data[seg]
    return data


def test_the_corpus_is_big_enough_and_varied():
    assert len(ITEMS) >= 20
    raws = [(CORPUS / n / "MEMORY.md").read_bytes() for n in ITEMS]
    assert any(b"\r\n" in r for r in raws) and any(b"\r\n" not in r for r in raws)
    assert any(r.startswith(b"\xef\xbb\xbf") for r in raws)
    assert any(not r.endswith(b"\n") for r in raws)
    assert sum(1 for n in ITEMS if n.startswith("zh-")) >= 5


@pytest.mark.parametrize("name", ITEMS)
def test_every_old_line_ends_up_somewhere_and_the_copy_is_the_old_file(tmp_path, name):
    ws, plan = workspace(tmp_path, name)
    old = (ws / "MEMORY.md").read_bytes()
    ran = apply(ws, plan)
    assert ran.code == 0, ran.err
    assert (ws / f"memory/migrations/{DATE}-MEMORY.md").read_bytes() == old
    assert (ws / f"memory/migrations/{DATE}-plan.yaml").read_bytes() == plan.read_bytes()
    new_hot = hot.lines_of((ws / "MEMORY.md").read_bytes().decode("utf-8"))
    elsewhere = "\n".join(
        p.read_text(encoding="utf-8") for p in (ws / "memory").glob("*.md") if p.name != "lookup-index.md"
    ).splitlines()
    raw = (ws / "memory" / "facts.yaml").read_text(encoding="utf-8")
    readers = [pyyaml.safe_load(raw), YAML(typ="safe", pure=True).load(raw)]
    by_text = {item["text"]: item for item in plan_lines(name)}
    for line in hot.lines_of(old.decode("utf-8")):
        if not line.strip():
            assert line in new_hot or line == ""
            continue
        item = by_text[line]
        if item["to"] == "keep":
            assert line in new_hot, line
        elif item["to"] == "facts":
            assert line not in new_hot
            for data in readers:
                got = at_key(data, item["key"])
                if item["key"] == "todos":
                    assert item["value"] in got, line
                else:
                    # a string as the text given, or (issue 25 §2) a decimal integer written plain as that integer
                    as_text = got if isinstance(got, str) else str(got) if type(got) is int else None
                    assert as_text == item["value"], (line, got)
        else:
            assert line in elsewhere and line not in new_hot, line
    assert sum(1 for x in new_hot if "memory/facts.yaml" in x) >= 1
    assert sum(1 for x in new_hot if "memory/lookup-index.md" in x) >= 1
    # the rest of MEMORY.md is byte for byte what it was: BOM, line ends, the missing final newline
    if old.startswith(b"\xef\xbb\xbf"):
        assert (ws / "MEMORY.md").read_bytes().startswith(b"\xef\xbb\xbf")
    if b"\r\n" in old:
        assert b"\n" not in (ws / "MEMORY.md").read_bytes().replace(b"\r\n", b"")
    verified = runner.run(["hierarchy", "verify", "--workspace", str(ws), "--json"])
    assert verified.code == 0, verified.out.decode()
    assert json.loads(verified.out)["ok"] is True


@pytest.mark.parametrize("name", ITEMS)
def test_a_stop_after_any_step_then_a_second_apply_gives_one_runs_result(tmp_path, name):
    ws, plan = workspace(tmp_path, name, "once")
    assert apply(ws, plan).code == 0
    want = tree(ws)
    preview = json.loads(apply(*workspace(tmp_path, name, "count"), "--dry-run", "--json").out)
    steps = len(preview["changes"]) - 1  # the destinations; MEMORY.md is written last, on its own
    assert steps >= 3
    for k in range(1, steps + 1):
        ws_k, plan_k = workspace(tmp_path, name, f"stop{k}")
        with installed(Faults(k)):
            stopped = apply(ws_k, plan_k)
        assert stopped.code == 1, stopped.err
        assert (ws_k / "MEMORY.md").read_bytes() == (CORPUS / name / "MEMORY.md").read_bytes()
        assert apply(ws_k, plan_k).code == 0
        assert tree(ws_k) == want, f"stopped after step {k}"
        again = apply(ws_k, plan_k)
        assert again.code == 0 and b"nothing to change" in again.out
        assert tree(ws_k) == want


@pytest.mark.parametrize("name", ITEMS)
def test_git_apply_of_the_dry_run_reproduces_the_write_byte_for_byte(tmp_path, name):
    ws, plan = workspace(tmp_path, name, "real")
    assert apply(ws, plan).code == 0
    dry, plan2 = workspace(tmp_path, name, "dry")
    before = tree(dry)
    ran = apply(dry, plan2, "--dry-run")
    assert ran.code == 0, ran.err
    assert ran.err.decode().splitlines()[0] == f"patch base: {dry.resolve()}"
    assert tree(dry) == before
    subprocess.run(["git", "init", "-q", str(dry)], check=True)
    (dry / "fix.patch").write_bytes(ran.out)
    subprocess.run(["git", "-C", str(dry), "apply", "fix.patch"], check=True)
    (dry / "fix.patch").unlink()
    shutil.rmtree(dry / ".git")
    assert tree(dry) == tree(ws)


def test_a_killed_process_at_any_step_then_a_second_apply_gives_one_runs_result(tmp_path, cli):
    name = "en-08-crlf-bom"  # CRLF, a BOM, no final newline
    ws, plan = workspace(tmp_path, name, "once")
    assert apply(ws, plan).code == 0
    want = tree(ws)
    steps = len(json.loads(apply(*workspace(tmp_path, name, "count"), "--dry-run", "--json").out)["changes"]) - 1
    for k in range(1, steps + 1):
        ws_k, plan_k = workspace(tmp_path, name, f"kill{k}")
        args = ("hierarchy", "migrate", "--workspace", str(ws_k), "--apply", str(plan_k))
        killed = cli(*args, env={"FAULT_AFTER_STEP": str(k), "FAULT_MODE": "kill"}, use_root=False)
        assert killed.code == 137
        assert tree(ws_k) != want
        assert apply(ws_k, plan_k).code == 0
        assert tree(ws_k) == want, f"killed after step {k}"
