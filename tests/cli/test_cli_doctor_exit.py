"""doctor's exit status is a checker's (issue 28 §6): 1 when a finding needs attention, with one line on stderr
saying how many and which kinds; 0 when nothing does (history and information are no reason); `--exit-zero` for
scripts that only read the report. The status is about the root as the command leaves it."""

from __future__ import annotations

import json

from tests.support.roots import idle_line, row_line

A = "2026-05-01-0900-cursor-main-agent"
B = "2026-05-30-0800-claude-agent"
GONE = "2026-04-01-0900-cursor-main-agent"


def history_only(mem) -> None:
    """A root whose one finding is history: a snapshot continuing from a session that is gone."""
    mem.index(row_line(A))
    mem.snapshot(A, continues=[GONE])


def repairable(mem) -> None:
    """A root with one finding `--fix` repairs: an idle row that has a snapshot."""
    mem.index(idle_line(A), row_line(B))
    mem.snapshot(A)
    mem.snapshot(B)


def test_a_finding_to_repair_exits_1_with_one_line_naming_it(cli, mem):
    repairable(mem)
    res = cli("doctor")
    assert res.code == 1 and res.out.startswith(f"idle_with_snapshot\t{A}\t")
    assert res.err == "memboard: 1 finding needs attention (`memboard doctor --fix` repairs it): idle_with_snapshot\n"
    res = cli("doctor", "--json")
    assert res.code == 1 and [f["kind"] for f in json.loads(res.out)] == ["idle_with_snapshot"]
    assert json.loads(res.err) == {
        "error": "memboard: 1 finding needs attention (`memboard doctor --fix` repairs it): idle_with_snapshot",
        "exit_code": 1,
    }
    dry = cli("doctor", "--fix", "--dry-run")
    assert dry.code == 1 and dry.err.splitlines()[-1].startswith("memboard: 1 finding needs attention")
    res = cli("doctor", "--fix")
    assert (res.code, res.err) == (0, "") and "repaired: 1 file change(s)" in res.out
    assert (cli("doctor").code, cli("doctor", "--fix", "--json").code) == (0, 0)


def test_history_is_no_reason_to_exit_1_and_a_repair_that_leaves_only_history_exits_0(cli, mem):
    history_only(mem)
    mem.index(row_line(A), idle_line(B))
    mem.snapshot(B)
    found = [f["kind"] for f in json.loads(cli("doctor", "--json").out)]
    assert sorted(found) == ["idle_with_snapshot", "link_to_missing"]
    res = cli("doctor")
    assert res.code == 1 and res.err.startswith("memboard: 1 finding needs attention")  # the history is not counted
    res = cli("doctor", "--fix")
    assert (res.code, res.err) == (0, "") and "repaired: 1 file change(s)" in res.out
    for args in (("doctor",), ("doctor", "--json"), ("doctor", "--fix"), ("doctor", "--fix", "--dry-run")):
        res = cli(*args)
        assert res.code == 0 and "need" not in res.err and "link_to_missing" in res.out + res.err, (args, res.err)


def test_what_only_a_hand_can_mend_exits_1_after_the_repair_too(cli, mem):
    mem.index(row_line(A), "| broken | row |", idle_line(B))
    mem.snapshot(A)
    mem.snapshot(B)
    res = cli("doctor")
    assert res.code == 1
    assert res.err == (
        "memboard: 2 findings need attention (`memboard doctor --fix` repairs 1, 1 by hand): "
        "malformed_row, idle_with_snapshot\n"
    )
    res = cli("doctor", "--fix")
    assert res.code == 1 and "repaired: 1 file change(s)" in res.out
    assert res.err == "memboard: 1 finding needs attention (after the repair, by hand): malformed_row\n"


def test_a_partial_repair_is_judged_on_the_root_it_leaves(cli, root):
    """A note with a wrong Topic Key and an unknown Type: --fix sets the key, the Type is left for a hand."""
    key = "ops/broken"
    saved = cli("note", "save", "--topic-key", key, "--title", "T", "--type", "fact", "--scope", "ops", "--what", "x")
    assert saved.code == 0, saved.err
    path = root / "notes" / f"{key}.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("| Type | fact |", "| Type | opinion |").replace(key, "ops/other"), "utf-8")
    found = json.loads(cli("doctor", "--json").out)
    assert [(f["kind"], bool(f["fix"])) for f in found] == [("note_metadata", True)]  # its fix mends part
    res = cli("doctor", "--fix")
    assert (
        res.code == 1 and res.err == "memboard: 1 finding needs attention (after the repair, by hand): note_metadata\n"
    )


def test_exit_zero_prints_the_same_report_and_no_line(cli, mem, whole_tree):
    repairable(mem)
    before = whole_tree()
    plain, zero = cli("doctor"), cli("doctor", "--exit-zero")
    assert (zero.code, zero.err, zero.out) == (0, "", plain.out)
    plain, zero = cli("doctor", "--json"), cli("doctor", "--json", "--exit-zero")
    assert (zero.code, zero.err, zero.out) == (0, "", plain.out)
    dry = cli("doctor", "--fix", "--dry-run", "--exit-zero")
    assert dry.code == 0 and "dry run: nothing written" in dry.err and "need" not in dry.err
    assert whole_tree() == before
    mem.index(row_line(A), "| broken | row |")
    res = cli("doctor", "--fix", "--json", "--exit-zero")
    assert (res.code, res.err) == (0, "") and json.loads(res.out)["dry_run"] is False


def test_the_process_exits_1_and_0_with_exit_zero(cli_process, mem):
    repairable(mem)
    res = cli_process("doctor")
    assert res.code == 1 and res.err.startswith("memboard: 1 finding needs attention")
    assert (cli_process("doctor", "--exit-zero").code, cli_process("doctor", "--fix").code) == (0, 0)


def test_help_names_exit_zero(cli):
    res = cli("doctor", "--help", use_root=False)
    assert res.code == 0 and "--exit-zero" in res.out
