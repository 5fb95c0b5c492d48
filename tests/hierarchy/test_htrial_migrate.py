"""Issue 25's migration with a plan edited wrongly (htrial's findings): two lines moved to one key with different
values were applied — the later value replaced the earlier in facts.yaml while MEMORY.md lost both lines, and
`verify` failed right after. Such a plan is refused, exit 1, one line, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace whose MEMORY.md names two e-mail addresses."""
    w = tmp_path / "workspace"
    (w / "memory").mkdir(parents=True)
    (w / "MEMORY.md").write_text("# Me\n- Email: a@b.co\n- Email: c@d.co\n")
    return w


def run(cli, ws: Path, *args: str):
    """A hierarchy command on the workspace."""
    return cli(*args, "--workspace", str(ws), use_root=False)


def files(folder: Path) -> dict[str, bytes]:
    """Every file under folder, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_two_values_for_one_key_are_refused_even_with_replace(cli, ws, tmp_path):
    plan_file = tmp_path / "plan.yaml"
    assert run(cli, ws, "hierarchy", "migrate", "--plan", "--out", str(plan_file)).code == 0
    plan = yaml.safe_load(plan_file.read_text())
    assert [(line.get("key"), line.get("value")) for line in plan["lines"][1:]] == [
        ("identity.email", "a@b.co"),
        ("identity.email", "c@d.co"),
    ]
    plan["lines"][2]["replace"] = True
    plan_file.write_text(yaml.safe_dump(plan, allow_unicode=True))
    before = files(ws)
    r = run(cli, ws, "hierarchy", "migrate", "--apply", str(plan_file))
    assert r.code == 1, r.out
    assert r.err == (
        "memboard: plan line 3: identity.email is also plan line 2's key, with another value ('a@b.co'); "
        "give one of them another key; nothing written\n"
    )
    assert files(ws) == before
