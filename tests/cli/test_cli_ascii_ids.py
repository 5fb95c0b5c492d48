"""Session IDs are ASCII: fullwidth and other Unicode digits (which a plain `\\d` accepts) are
refused as arguments, and rows that already hold such IDs are malformed: listed with a
problem, reported by doctor, left byte for byte by organize, never links."""

from __future__ import annotations

import json

import pytest

from tests.support.roots import idle_line, row_line, snapshot_text

A = "2026-05-01-0900-cursor-main-agent"
FULLWIDTH = "２０２６-０５-０１-０９００-cursor-main-agent"  # U+FF10.. digits
ARABIC_INDIC = "٢٠٢٦-٠٥-٠١-٠٩٠٠-cursor-main-agent"  # U+0660.. digits
DEVANAGARI = "२०२६-०५-०१-०९००-x"
HOSTILE = [FULLWIDTH, ARABIC_INDIC, DEVANAGARI]


@pytest.mark.parametrize("sid", HOSTILE)
def test_unicode_digit_ids_are_refused_as_arguments(cli, root, mem, whole_tree, sid):
    mem.index(row_line(A))
    mem.snapshot(A)
    before = whole_tree()
    for argv in (
        ["update", sid, "--summary", "s"],
        ["archive", sid],
        ["continue", A, "--as", sid],
        ["continue", sid, "--as", A],
        ["release", A, "--as", sid],
        ["show", sid],
    ):
        res = cli(*argv)
        assert res.code == 2, (argv, res.err)
        assert "invalid" in res.err and len(res.err.strip().splitlines()) == 1
    assert whole_tree() == before


def test_existing_rows_with_unicode_digit_ids_are_malformed_reported_and_left_alone(cli, root, mem):
    data = mem.index(
        idle_line(FULLWIDTH),
        row_line(ARABIC_INDIC, updated="2026-01-01 09:00"),
        idle_line(A),
        row_line("2026-05-02-0900-b", refs=FULLWIDTH),
    )
    rows = {r["id"]: r for r in json.loads(cli("list", "--json").out)}
    for sid in (FULLWIDTH, ARABIC_INDIC):
        assert rows[sid]["problem"] and "ASCII" in rows[sid]["problem"]
    assert rows[A]["problem"] is None
    doctor = cli("doctor", "--json")
    kinds = {(f["kind"], f["id"]) for f in json.loads(doctor.out)}
    assert ("malformed_row", FULLWIDTH) in kinds and ("malformed_row", ARABIC_INDIC) in kinds
    organize = cli("organize", "--json")
    assert organize.code == 0, organize.err
    report = json.loads(organize.out)
    assert report["deleted"] == [A]
    assert FULLWIDTH in report["malformed"] and ARABIC_INDIC in report["malformed"]
    after = (root / "index.md").read_bytes()
    for sid in (FULLWIDTH, ARABIC_INDIC):  # their lines are kept byte for byte
        line = next(
            l for l in data.splitlines(keepends=True) if sid.encode() in l and l.startswith(b"| " + sid.encode())
        )
        assert line in after


def test_a_unicode_digit_id_in_continues_from_is_not_a_link(cli, root, mem):
    mem.index(row_line(A))
    mem.snapshot(A, snapshot_text(A, continues=[FULLWIDTH]))
    info = json.loads(cli("chain", A, "--json").out)
    assert info["continues_from"] == []
    res = cli("doctor", "--fix")
    assert res.code == 0 and FULLWIDTH not in (root / "index.md").read_text(encoding="utf-8")
