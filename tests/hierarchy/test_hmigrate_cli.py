"""`hierarchy migrate --plan|--apply` and `hierarchy verify` from the outside (issue 25 §3, §7, §8): the plan's
exact shape and proposal rules, --out and --json, every refusal of --apply (one line, nothing written, exit
1; an unknown `to` exit 2), MEMORY.md changing between the plan's check and its last step, and the checklist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml as pyyaml  # type: ignore[import-untyped]  # PyYAML ships no type hints
from ruamel.yaml import YAML

from tests.support.faults import AfterStep, installed

HOT = (
    "# Identity\n"
    "I am Kim's assistant.\n"
    "- Email: kim.lee@example.com\n"
    "\n"
    "## Rules\n"
    "- Always ask before spending more than $50.\n"
    "- Prefer short answers.\n"
    "\n"
    "## People\n"
    "- Sam feels like the one who got skipped.\n"
    "- Reading list lives in ~/books/list.md\n"
    "- Book research: in progress.\n"
    "- TODO: renew passport\n"
    "- Kim cooks on Fridays。\n"
)


def make(tmp_path: Path, hot: str = HOT) -> Path:
    """A workspace holding only MEMORY.md."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text(hot, encoding="utf-8", newline="")
    return ws


def plan_text(cli, ws: Path, *extra: str) -> str:
    """--plan's output."""
    r = cli("hierarchy", "migrate", "--plan", "--workspace", str(ws), *extra, use_root=False)
    assert r.code == 0, r.err
    return r.out


def files(ws: Path) -> dict[str, bytes]:
    """Every file of the workspace."""
    return {p.relative_to(ws).as_posix(): p.read_bytes() for p in sorted(ws.rglob("*")) if p.is_file()}


def test_the_plan_is_the_issues_shape_every_non_blank_line_once_in_order(cli, tmp_path):
    ws = make(tmp_path)
    out = plan_text(cli, ws)
    lines = out.splitlines()
    assert lines[0] == (
        "# memboard hierarchy migration plan — set `to`, `key`, `value`; then: memboard hierarchy migrate --apply FILE"
    )
    assert lines[1].startswith("memory_md: {path: MEMORY.md, sha256: ") and lines[1].endswith(", lines: 14}")
    assert lines[2] == "date: 2026-06-01"
    assert lines[3] == "lines:"
    assert lines[4:] == [
        '  - {n: 1, text: "# Identity", to: keep, why: heading}',
        '  - {n: 2, text: "I am Kim\'s assistant.", to: keep, why: narrative}',
        '  - {n: 3, text: "- Email: kim.lee@example.com", found: [email], to: facts, key: identity.email,'
        " value: kim.lee@example.com}",
        '  - {n: 5, text: "## Rules", to: keep, why: heading}',
        '  - {n: 6, text: "- Always ask before spending more than $50.", found: [amount], to: keep, why: rule}',
        '  - {n: 7, text: "- Prefer short answers.", to: keep, why: rule}',
        '  - {n: 9, text: "## People", to: keep, why: heading}',
        '  - {n: 10, text: "- Sam feels like the one who got skipped.", to: keep, why: narrative}',
        '  - {n: 11, text: "- Reading list lives in ~/books/list.md", found: [path], to: facts, key: null,'
        " value: null}",
        '  - {n: 12, text: "- Book research: in progress.", found: [status], to: facts, key: projects.book_research,'
        " value: in progress}",
        '  - {n: 13, text: "- TODO: renew passport", found: [todo], to: facts, key: todos, value: renew passport}',
        '  - {n: 14, text: "- Kim cooks on Fridays。", to: keep, why: narrative}',
    ]
    data = YAML(typ="safe", pure=True).load(out)
    assert [item["n"] for item in data["lines"]] == [1, 2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14]


def test_values_are_quoted_when_a_reader_would_type_them_and_labels_lose_the_final_stop(cli, tmp_path):
    ws = make(
        tmp_path,
        "- Started: 2026-01-05.\n- Site: https://x.example/a, b\n- 邮箱：wang@example.cn。\n"
        "- 2026-05-30: rotated the keys\n- Status: blocked\n",
    )
    data = YAML(typ="safe", pure=True).load(plan_text(cli, ws))
    first, second, third, fourth, fifth = data["lines"]
    assert (fourth["to"], fourth["key"], fourth["value"]) == ("facts", None, None)  # the date is the label
    assert (fifth["key"], fifth["value"]) == ("projects.status", "blocked")
    assert (first["key"], first["value"]) == ("misc.started", "2026-01-05")
    assert '"2026-01-05"' in plan_text(cli, ws).splitlines()[4]
    assert (second["key"], second["value"]) == ("misc.site", "https://x.example/a, b")
    assert (third["key"], third["value"]) == ("identity.邮箱", "wang@example.cn")


def test_out_creates_the_file_only_if_absent_and_json_is_the_same_plan(cli, tmp_path):
    ws = make(tmp_path)
    target = tmp_path / "plan.yaml"
    r = cli("hierarchy", "migrate", "--plan", "--workspace", str(ws), "--out", str(target), use_root=False)
    assert r.code == 0 and target.read_text(encoding="utf-8") == plan_text(cli, ws)
    again = cli("hierarchy", "migrate", "--plan", "--workspace", str(ws), "--out", str(target), use_root=False)
    assert again.code == 1 and "exists" in again.err and len(again.err.strip().splitlines()) == 1
    as_json = json.loads(plan_text(cli, ws, "--json"))
    assert as_json == YAML(typ="safe", pure=True).load(plan_text(cli, ws)) | {"date": "2026-06-01"}


def decided(cli, ws: Path, tmp_path: Path, edit=None) -> Path:
    """The proposal with its null facts filled (and edit applied to the data), written as JSON."""
    data = json.loads(plan_text(cli, ws, "--json"))
    for item in data["lines"]:
        if item["to"] == "facts" and item["key"] is None:
            item["key"], item["value"] = "paths.reading_list", "~/books/list.md"
    if edit is not None:
        edit(data)
    path = tmp_path / f"plan-{len(list(tmp_path.glob('plan-*')))}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def apply(cli, ws: Path, plan: Path, *extra: str):
    """--apply PLAN."""
    return cli("hierarchy", "migrate", "--workspace", str(ws), "--apply", str(plan), *extra, use_root=False)


def line(data: dict, n: int) -> dict:
    """The plan line n."""
    return next(item for item in data["lines"] if item["n"] == n)


REFUSALS = [
    ("sha", lambda d: d["memory_md"].update(sha256="0" * 64), "changed since the plan"),
    ("missing", lambda d: d["lines"].pop(1), "line 2 is missing"),
    ("repeated", lambda d: d["lines"].append(dict(d["lines"][1])), "plan line 2: repeated"),
    ("other text", lambda d: line(d, 2).update(text="I am someone else."), "plan line 2: its text"),
    ("no such line", lambda d: line(d, 2).update(n=4), "plan line 4: no such"),
    ("no key", lambda d: line(d, 3).update(key=None), "plan line 3: a facts line needs a key and a value"),
    ("no value", lambda d: line(d, 3).update(value=""), "plan line 3: a facts line needs a key and a value"),
    ("not a substring", lambda d: line(d, 3).update(value="kim@example.com"), "plan line 3: the value"),
    (
        "also not a substring",
        lambda d: line(d, 3).update(also=[{"key": "identity.name", "value": "Kim Lee"}]),
        "plan line 3: the value 'Kim Lee'",
    ),
]


@pytest.mark.parametrize(("why", "edit", "says"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_apply_refuses_a_plan_that_is_not_memory_md_in_one_line_writing_nothing(cli, tmp_path, why, edit, says):
    ws = make(tmp_path)
    before = files(ws)
    r = apply(cli, ws, decided(cli, ws, tmp_path, edit))
    assert r.code == 1, (why, r.out, r.err)
    assert says in r.err and len(r.err.strip().splitlines()) == 1
    assert files(ws) == before


def test_an_unknown_to_is_a_usage_error(cli, tmp_path):
    ws = make(tmp_path)
    before = files(ws)
    for to in ("drop", "project:Bad Name", None):
        r = apply(cli, ws, decided(cli, ws, tmp_path, lambda d, to=to: line(d, 2).update(to=to)))
        assert r.code == 2 and "unknown `to`" in r.err and len(r.err.strip().splitlines()) == 1
    assert files(ws) == before


FACTS_WITH = (
    "# memory/facts.yaml\n# Last updated: 2026-05-01\n"
    "contact: &c\n  email: old@example.com\n"
    "identity:\n  <<: *c\n  name: Kim\n"
)


def test_a_key_with_another_value_is_refused_unless_replace_and_an_alias_key_always(cli, tmp_path):
    ws = make(tmp_path)
    (ws / "memory").mkdir()
    (ws / "memory" / "facts.yaml").write_text(FACTS_WITH, encoding="utf-8")
    before = files(ws)
    moved = decided(cli, ws, tmp_path, lambda d: line(d, 3).update(key="contact.email"))
    r = apply(cli, ws, moved)
    assert r.code == 1 and "plan line 3: contact.email exists" in r.err and "replace: true" in r.err
    aliased = apply(cli, ws, decided(cli, ws, tmp_path))
    assert aliased.code == 1 and "plan line 3: identity.email" in aliased.err and "alias" in aliased.err
    assert files(ws) == before
    ok = decided(cli, ws, tmp_path, lambda d: line(d, 3).update(key="contact.email", replace=True))
    r = apply(cli, ws, ok)
    assert r.code == 0, r.err
    assert "  email: kim.lee@example.com\n" in (ws / "memory" / "facts.yaml").read_text(encoding="utf-8")


def test_apply_writes_the_seeds_files_and_the_checklist_after(cli, tmp_path):
    ws = make(tmp_path)

    def choose(d: dict) -> None:
        line(d, 10)["to"] = "project:people"
        line(d, 14)["to"] = "daily"

    r = apply(cli, ws, decided(cli, ws, tmp_path, choose))
    assert r.code == 0, r.err
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == (
        "# Identity\nI am Kim's assistant.\n\n## Rules\n- Always ask before spending more than $50.\n"
        "- Prefer short answers.\n\n## People\n"
        "# Structured facts → memory/facts.yaml\n# Find anything → memory/lookup-index.md\n"
    )
    assert (ws / "memory" / "project-people.md").read_text(encoding="utf-8") == (
        "## From MEMORY.md (2026-06-01)\n- Sam feels like the one who got skipped.\n"
    )
    assert (ws / "memory" / "2026-06-01.md").read_text(encoding="utf-8") == "# 2026-06-01\n\n- Kim cooks on Fridays。\n"
    assert (ws / "memory" / "facts.yaml").read_text(encoding="utf-8") == (
        "# memory/facts.yaml\n# Structured factual data — directly addressable, token-efficient\n"
        "# Last updated: 2026-06-01\nidentity:\n  email: kim.lee@example.com\npaths:\n  reading_list: ~/books/list.md\n"
        "projects:\n  book_research: in progress\n  people:\n    file: memory/project-people.md\ntodos:\n  - renew passport\n"
    )
    lint = cli("hierarchy", "lint", "--workspace", str(ws), "--json", use_root=False)
    assert "project_unlisted" not in [f["kind"] for f in json.loads(lint.out)]  # the file it created is listed
    assert (ws / "memory" / "lookup-index.md").read_text(encoding="utf-8") == (
        "| I need to know... | Go here |\n|---|---|\n| people project | memory/project-people.md |\n"
        "| identity facts | memory/facts.yaml → identity |\n| paths facts | memory/facts.yaml → paths |\n"
        "| projects facts | memory/facts.yaml → projects |\n| todos facts | memory/facts.yaml → todos |\n"
    )
    assert "✓ facts_moved" in r.out and "✓ where_is_x" in r.out
    assert "kept on purpose (amount): - Always ask before spending more than $50." in r.out
    v = cli("hierarchy", "verify", "--workspace", str(ws), use_root=False)
    assert v.code == 0 and v.out == r.out[r.out.index("✓ facts_moved") :]


def test_memory_md_changing_before_the_last_step_leaves_it_whole_then_a_new_plan_finishes(cli, tmp_path):
    ws = make(tmp_path)
    plan = decided(cli, ws, tmp_path)
    steps = len(json.loads(apply(cli, ws, plan, "--dry-run", "--json").out)["changes"]) - 1
    edited = HOT + "- A line the agent added.\n"

    def agent_edit() -> None:
        (ws / "MEMORY.md").write_text(edited, encoding="utf-8")

    with installed(AfterStep(steps, agent_edit)):
        r = apply(cli, ws, plan)
    assert r.code == 1 and "MEMORY.md changed" in r.err and "new plan" in r.err
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == edited  # whole: the agent's edit, nothing deleted
    assert (ws / "memory" / "facts.yaml").is_file() and (ws / "memory" / "lookup-index.md").is_file()
    lint = json.loads(cli("hierarchy", "lint", "--workspace", str(ws), "--json", use_root=False).out)
    assert any(f["kind"] == "migration_incomplete" for f in lint)
    facts_before = (ws / "memory" / "facts.yaml").read_bytes()
    r = apply(cli, ws, decided(cli, ws, tmp_path))
    assert r.code == 0, r.err
    assert (ws / "memory" / "facts.yaml").read_bytes() == facts_before  # nothing written twice
    assert (ws / "memory" / "migrations" / "2026-06-01-2-MEMORY.md").read_text(encoding="utf-8") == edited
    text = (ws / "MEMORY.md").read_text(encoding="utf-8")
    assert "- A line the agent added.\n" in text and "kim.lee@example.com" not in text
    lint = json.loads(cli("hierarchy", "lint", "--workspace", str(ws), "--json", use_root=False).out)
    assert not any(f["kind"] == "migration_incomplete" for f in lint)


def test_verify_fails_with_the_offending_lines(cli, tmp_path):
    ws = make(tmp_path, "# Me\n- Email: a@b.example\n" + "".join(f"- line {k}\n" for k in range(90)))
    r = cli("hierarchy", "verify", "--workspace", str(ws), use_root=False)
    assert r.code == 1
    assert "✗ hot_has_no_facts\n    MEMORY.md:2: email: - Email: a@b.example\n" in r.out
    assert "✗ hot_under_80_lines\n    MEMORY.md has 92 lines (limit 80)\n" in r.out
    assert "✗ lookup_covers" in r.out
    data = json.loads(cli("hierarchy", "verify", "--workspace", str(ws), "--json", use_root=False).out)
    assert data["ok"] is False and [c["name"] for c in data["checks"]] == [
        "facts_moved",
        "lookup_covers",
        "hot_has_no_facts",
        "hot_under_80_lines",
        "where_is_x",
    ]


def test_where_is_x_fails_when_a_rows_own_need_finds_another_target(cli, tmp_path):
    ws = make(tmp_path, "# Me\n# Structured facts → memory/facts.yaml\n# Find anything → memory/lookup-index.md\n")
    (ws / "memory").mkdir()
    (ws / "memory" / "facts.yaml").write_text("# Last updated: 2026-06-01\nidentity:\n  name: Kim\n", encoding="utf-8")
    (ws / "memory" / "lookup-index.md").write_text(
        "| I need to know... | Go here |\n|---|---|\n| facts | MEMORY.md |\n| identity facts | memory/facts.yaml → identity |\n",
        encoding="utf-8",
    )
    ok = cli("hierarchy", "verify", "--workspace", str(ws), "--json", use_root=False)
    checks = {c["name"]: c for c in json.loads(ok.out)["checks"]}
    assert checks["where_is_x"]["ok"] is True and checks["lookup_covers"]["ok"] is True
    (ws / "memory" / "lookup-index.md").write_text(
        "| I need to know... | Go here |\n|---|---|\n| identity facts | MEMORY.md |\n"
        "| Identity facts | memory/facts.yaml → identity |\n",
        encoding="utf-8",
    )
    bad = cli("hierarchy", "verify", "--workspace", str(ws), "--json", use_root=False)
    checks = {c["name"]: c for c in json.loads(bad.out)["checks"]}
    assert bad.code == 1 and checks["where_is_x"]["ok"] is False
    assert checks["where_is_x"]["details"] == [
        'lookup "Identity facts" finds MEMORY.md, not memory/facts.yaml → identity'
    ]
    with (ws / "memory" / "lookup-index.md").open("a", encoding="utf-8") as f:
        f.write("| who Kim is | memory/facts.yaml → identity |\n")  # another row reaches it by its own need
    again = cli("hierarchy", "verify", "--workspace", str(ws), "--json", use_root=False)
    assert again.code == 0, again.out


def test_a_line_under_a_sub_heading_of_rules_is_a_rule_and_a_sibling_section_is_not(cli, tmp_path):
    ws = make(tmp_path, "## Permissions\n### Money\n- Budget: $500\n## Notes\n- Budget: $600\n")
    data = YAML(typ="safe", pure=True).load(plan_text(cli, ws))
    assert [(i["n"], i["to"], i.get("why")) for i in data["lines"]] == [
        (1, "keep", "heading"),
        (2, "keep", "heading"),
        (3, "keep", "rule"),
        (4, "keep", "heading"),
        (5, "facts", None),
    ]


TRICKY = ["no", "on", "3.10", "~", "@kim", "a: b", "2026-01-05", "#tag", "yes please", "007"]


def test_moved_values_every_yaml_reader_would_type_are_written_so_both_read_the_text(cli, tmp_path):
    ws = make(tmp_path, "".join(f"- V{k}: {v}\n" for k, v in enumerate(TRICKY)))

    def fill(d: dict) -> None:
        for k, item in enumerate(d["lines"]):
            item.update(to="facts", key=f"misc.v{k}", value=TRICKY[k])

    r = apply(cli, ws, decided(cli, ws, tmp_path, fill))
    assert r.code == 0, r.err
    raw = (ws / "memory" / "facts.yaml").read_text(encoding="utf-8")
    for data in (pyyaml.safe_load(raw), YAML(typ="safe", pure=True).load(raw)):
        assert [data["misc"][f"v{k}"] for k in range(len(TRICKY))] == TRICKY


def test_a_credential_moved_out_of_memory_md_is_refused_unless_allowed(cli, tmp_path):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    ws = make(tmp_path, f"- Token: {token}\n")

    def fill(d: dict) -> None:
        d["lines"][0].update(to="facts", key="misc.token", value=token)

    plan = decided(cli, ws, tmp_path, fill)
    before = files(ws)
    r = apply(cli, ws, plan)
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1 and files(ws) == before
    assert apply(cli, ws, plan, "--allow-secrets").code == 0


def test_a_finished_plan_is_nothing_to_change_and_its_dry_run_names_the_base(cli, tmp_path):
    ws = make(tmp_path)
    plan = decided(cli, ws, tmp_path)
    assert apply(cli, ws, plan).code == 0
    after = files(ws)
    r = apply(cli, ws, plan)
    assert r.code == 0 and r.out.startswith("nothing to change")
    dry = apply(cli, ws, plan, "--dry-run")
    assert dry.code == 0 and dry.out == ""
    assert dry.err.splitlines() == [f"patch base: {ws.resolve()}", "dry run: nothing to change"]
    assert files(ws) == after
    (tmp_path / "other").mkdir()
    stale = decided(cli, make(tmp_path / "other", HOT + "- One more line.\n"), tmp_path)
    r = apply(cli, ws, stale)
    assert r.code == 1 and "changed since the plan" in r.err


def test_existing_warm_files_are_extended_never_rewritten(cli, tmp_path):
    ws = make(tmp_path)
    (ws / "memory").mkdir()
    facts = "# memory/facts.yaml\r\n# Last updated: 2026-05-01\r\nidentity:\r\n  name: Kim  # hand comment\r\n"
    (ws / "memory" / "facts.yaml").write_bytes(facts.encode())
    index = "| I need to know... | Go here | Notes |\n|---|---|---|\n| who Kim is | memory/facts.yaml → identity | x |"
    (ws / "memory" / "lookup-index.md").write_bytes(index.encode())
    (ws / "memory" / "project-people.md").write_bytes(b"# People\r\n\r\nNotes kept by hand.")
    (ws / "memory" / "2026-06-01.md").write_bytes(b"# 2026-06-01\n\nOpenClaw flushed this.\n")

    def choose(d: dict) -> None:
        line(d, 10)["to"] = "project:people"
        line(d, 14)["to"] = "daily"

    r = apply(cli, ws, decided(cli, ws, tmp_path, choose))
    assert r.code == 0, r.err
    assert (ws / "memory" / "facts.yaml").read_bytes() == (
        b"# memory/facts.yaml\r\n# Last updated: 2026-06-01\r\nidentity:\r\n  name: Kim  # hand comment\r\n"
        b"  email: kim.lee@example.com\r\npaths:\r\n  reading_list: ~/books/list.md\r\n"
        b"projects:\r\n  book_research: in progress\r\n  people:\r\n    file: memory/project-people.md\r\n"
        b"todos:\r\n  - renew passport\r\n"
    )
    assert (ws / "memory" / "project-people.md").read_bytes() == (
        b"# People\r\n\r\nNotes kept by hand.\r\n\r\n## From MEMORY.md (2026-06-01)\r\n"
        b"- Sam feels like the one who got skipped.\r\n"
    )
    assert (ws / "memory" / "2026-06-01.md").read_bytes() == (
        "# 2026-06-01\n\nOpenClaw flushed this.\n\n- Kim cooks on Fridays。\n".encode()
    )
    assert (ws / "memory" / "lookup-index.md").read_text(encoding="utf-8") == index + (
        "\n| people project | memory/project-people.md |  |\n| paths facts | memory/facts.yaml → paths |  |\n"
        "| projects facts | memory/facts.yaml → projects |  |\n| todos facts | memory/facts.yaml → todos |  |\n"
    )


def test_memory_md_changing_after_the_lock_checked_it_is_not_merged_onto(cli, tmp_path, monkeypatch):
    from memboard.core.files import execute

    ws = make(tmp_path)
    plan = decided(cli, ws, tmp_path)
    edited = HOT.replace("I am Kim's assistant.", "I am Kim's assistant, edited by hand.")
    real_confirm = execute.confirm

    def confirm_then_edit(root, built, budget):  # an agent's hand edit right after MEMORY.md was checked
        seen = real_confirm(root, built, budget)
        if any(ch.path == "MEMORY.md" for ch in built.changes) and "edited" not in (ws / "MEMORY.md").read_text():
            (ws / "MEMORY.md").write_text(edited, encoding="utf-8")
        return seen

    monkeypatch.setattr(execute, "confirm", confirm_then_edit)
    r = apply(cli, ws, plan)
    assert r.code == 1 and "MEMORY.md changed" in r.err, r.err
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == edited  # whole: nothing merged onto the edit
    assert (ws / "memory" / "facts.yaml").is_file()


ODD_LINES = [
    'She said "no" \\ then left',
    "\ttabbed: value # not a comment",
    "- key: {flow} [seq], & * ! | > ' %",
    "- 2026-01-05: yes",
    "ends with a line separator\u2028 and a NEL\x85 inside",
    "日本語: テスト、中文：测试",
]


def test_the_plan_yaml_reads_back_exactly_with_both_readers_and_applies(cli, tmp_path):
    ws = make(tmp_path, "\n".join(ODD_LINES) + "\n")
    text = plan_text(cli, ws)
    for data in (pyyaml.safe_load(text), YAML(typ="safe", pure=True).load(text)):
        assert [item["text"] for item in data["lines"]] == ODD_LINES
    plan = tmp_path / "plan.yaml"
    assert "to: facts, key: null, value: null" in text  # (the dated line: its date is no label)
    plan.write_text(text.replace("to: facts, key: null, value: null", "to: keep"), encoding="utf-8")
    r = apply(cli, ws, plan)
    assert r.code == 0, r.err


def test_the_builder_takes_the_plan_object_an_agent_sends(cli, tmp_path):
    from memboard.service import hierarchy_migrate as service

    ws = make(tmp_path)
    data = json.loads(plan_text(cli, ws, "--json"))
    for item in data["lines"]:
        if item["to"] == "facts" and item["key"] is None:
            item["to"] = "keep"
    preview = service.apply_write(ws, data, dry_run=True)
    assert preview.as_json()["dry_run"] is True and preview.as_json()["base"] == str(ws.resolve())
    assert preview.as_json()["places"] == [{"kind": "hierarchy workspace", "path": str(ws.resolve())}]
    assert "\n-- Email: kim.lee@example.com\n" in preview.as_json()["diff"] and not (ws / "memory").exists()
    applied = service.apply_write(ws, data)
    assert applied.as_json()["verify"]["ok"] is True
    kept = (ws / "memory" / "migrations" / "2026-06-01-plan.yaml").read_text(encoding="utf-8")
    assert kept.startswith("# memboard hierarchy migration plan") and YAML(typ="safe", pure=True).load(kept)["lines"]
    with pytest.raises(Exception, match="no `lines` list"):
        service.apply_write(ws, {"memory_md": "x"})


def test_a_memory_md_that_is_not_utf8_is_refused_in_one_line(cli, tmp_path):
    ws = make(tmp_path)
    (ws / "MEMORY.md").write_bytes(b"# Me\n- caf\xe9\n")
    r = cli("hierarchy", "migrate", "--plan", "--workspace", str(ws), use_root=False)
    assert r.code == 1 and r.err.strip().endswith("MEMORY.md is not UTF-8 (line 2); nothing written")
