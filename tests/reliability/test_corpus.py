"""Every command on every hostile root either works or refuses with one line, and loses no byte.

For each root of tests/corpus and each command (run on a fresh copy): no traceback; exit 0,
1 or 2; a refusal is one line and writes nothing; nothing outside the root changes (symlink
targets included); a file that disappears reappears byte for byte elsewhere (a move); in
index.md no line is lost except rows the command is about; snapshot items are never lost.
"""

from __future__ import annotations

import difflib
import shutil
from collections import Counter
from types import SimpleNamespace

import pytest

from memboard.cli import main
from memboard.core.formats.text import split_cells
from tests.corpus import ROOTS, A, B, I
from tests.support.doctor import went_through
from tests.support.roots import item_lines
from tests.support.tree import tree

COMMANDS = [
    ["list"],
    ["list", "--json"],
    ["show", A],
    ["show", B, "--json"],
    ["chain", A],
    ["chain", B, "--json"],
    ["doctor"],
    ["doctor", "--json"],
    ["doctor", "--fix", "--dry-run"],
    ["doctor", "--fix"],
    ["register"],
    ["register", "--manual", "--topic", "T", "--summary", "S"],
    ["update", A, "--summary", "new"],
    ["update", I, "--summary", "promoted", "--keywords", "k2"],
    ["continue", A, "--as", I],
    ["continue", A],
    ["release", A, "--as", B],
    ["organize"],
    ["organize", "--dry-run"],
    ["archive", B],
    ["archive", I],
    ["archive", A, "--dry-run"],
]
READ_ONLY = {"list", "show", "chain"}


def outside(tmp, root) -> dict[str, bytes]:
    """Every file under tmp that is not inside root (where escapes would land)."""
    return {k: v for k, v in tree(tmp, links=False).items() if not k.startswith(root.name + "/")}


def row_id(line: str) -> str | None:
    """The first cell of a table line, or None for a line that is not a table row."""
    cells = split_cells(line.rstrip("\r\n"))
    return cells[0] if cells else None


def lines_of(data: bytes) -> list[str]:
    """The lines of data without their endings (bytes decoded losslessly)."""
    return [line.rstrip("\r\n") for line in data.decode("utf-8", "surrogateescape").split("\n")]


def lost_lines(old: bytes, new: bytes) -> list[str]:
    """Lines of old that are not in new (difflib over lines, bytes decoded losslessly)."""
    a, b = lines_of(old), lines_of(new)
    out = []
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("delete", "replace"):
            out += a[i1:i2]
    return out


def check_no_byte_lost(argv, before: dict[str, bytes], after: dict[str, bytes]) -> None:
    """Assert that a successful command only changed what it is about."""
    op = argv[0]
    named = {a for a in argv[1:] if a.startswith("2026-")}
    moved_to = set(after.values())
    for rel, data in before.items():
        if rel.startswith(".memboard/") or after.get(rel) == data:
            continue
        if rel not in after:
            assert data in moved_to or rel.endswith(".memboard-tmp"), f"{argv}: {rel} vanished"
            continue
        if rel == "index.md":
            had, kept = (Counter(lines_of(d)) for d in (data, after[rel]))
            for line in lost_lines(data, after[rel]):
                if op == "doctor" and kept[line] >= had[line]:
                    continue  # moved, not lost: doctor moves rows found outside the table into it (outside_row)
                sid = row_id(line)
                assert sid is not None, f"{argv}: non-table line lost from index.md: {line!r}"
                if op in ("organize", "doctor"):
                    continue  # organize deletes idle rows / marks stale; doctor repairs rows
                # a row may change when it is named, or when it references a named session (archive and
                # continue/release edit the source's Referenced By)
                assert sid in named or any(n in line for n in named) or op == "register", (
                    f"{argv}: row line of {sid} changed"
                )
        elif rel.startswith("sessions/"):
            lost = item_lines(data) - item_lines(after[rel])
            if op == "release":
                lost = {line for line in lost if A not in line}
            assert not lost, f"{argv}: {rel} lost {sorted(lost)[:3]}"


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_every_command_on_every_hostile_root(tmp_path, capsysbinary, name):
    template = tmp_path / "template" / "memory"
    template.mkdir(parents=True)
    ROOTS[name](template)
    failures = []
    for n, argv in enumerate(COMMANDS):
        base = tmp_path / f"run{n}"
        root = base / "memory"
        shutil.copytree(template.parent, base, symlinks=True)
        before, before_out = tree(root, links=False), outside(base, root)
        try:
            code = main([*argv, "--root", str(root)])
        except SystemExit as exc:  # argparse
            code = exc.code
        except Exception as exc:  # a traceback is a failure, whatever the root holds
            failures.append(f"{argv}: {type(exc).__name__}: {exc}")
            continue
        captured = capsysbinary.readouterr()  # a dry run's patch is bytes (the root's own, UTF-8 or not)
        after = tree(root, links=False)
        if code not in (0, 1, 2):
            failures.append(f"{argv}: exit {code}")
        checked = SimpleNamespace(code=code, err=captured.err)  # doctor's exit 1: findings need attention, no refusal
        if code != 0 and not went_through(checked, argv):
            lines = captured.err.decode("utf-8", "replace").strip().splitlines()
            if len(lines) != 1:
                failures.append(f"{argv}: refusal is not one line: {captured.err!r}")
            if {k: v for k, v in after.items() if not k.startswith(".memboard/")} != {
                k: v for k, v in before.items() if not k.startswith(".memboard/")
            }:
                failures.append(f"{argv}: refused (exit {code}) but wrote")
        elif argv[0] in READ_ONLY or "--dry-run" in argv or argv in (["doctor"], ["doctor", "--json"]):
            if after != before:
                failures.append(f"{argv}: a read-only command wrote")
        else:
            try:
                check_no_byte_lost(argv, before, after)
            except AssertionError as exc:
                failures.append(str(exc))
        if outside(base, root) != before_out:
            failures.append(f"{argv}: wrote outside the root")
        shutil.rmtree(base)
    assert not failures, "\n".join(failures)
