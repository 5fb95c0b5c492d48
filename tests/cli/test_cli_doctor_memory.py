"""doctor on a large root (issue 29: 74k findings at 100k rows, 2 GB at 1M): a one-shot command runs with the cyclic
garbage collector off, so what its pass leaves in a reference cycle stays in memory until the process ends; and
`doctor --json` lays out its findings itself, as json's own indenting encoder would."""

from __future__ import annotations

import gc
import json

from tests.support.roots import row_line


def active_rows(mem, count: int) -> None:
    """An index of count active rows, none with a snapshot: each a missing_snapshot finding with a repair."""
    mem.index(*(row_line(f"2026-05-{1 + n // 24:02d}-{n % 24:02d}00-claude-code") for n in range(count)))


def left_in_cycles(cli, mem, count: int) -> int:
    """How many objects a `doctor --json` run over count rows leaves to the cyclic collector."""
    active_rows(mem, count)
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    try:
        res = cli("doctor", "--json", "--exit-zero")
        assert res.code == 0 and len(json.loads(res.out)) == count
        return gc.collect()
    finally:
        if collecting:
            gc.enable()


def test_a_doctor_pass_leaves_nothing_in_cycles_however_many_rows_it_reads(cli, mem):
    few = left_in_cycles(cli, mem, 24)
    many = left_in_cycles(cli, mem, 600)
    assert many - few < 100, (few, many)  # (each row and finding left in a cycle: thousands more)


def test_doctor_json_is_laid_out_as_json_indents_it(cli, mem):
    active_rows(mem, 3)
    mem.index(row_line("2026-05-01-0000-claude-code"), "| not-an-id | a | b | c | d | active | - | x | y |")
    res = cli("doctor", "--json", "--exit-zero")
    found = json.loads(res.out)
    assert {f["kind"] for f in found} >= {"missing_snapshot"} and any(f["fix"] is None for f in found)
    assert res.out == json.dumps(found, ensure_ascii=False, indent=2) + "\n"
