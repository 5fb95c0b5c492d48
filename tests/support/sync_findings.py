"""Doctor's findings about sync-conflict copies, written by hand: a stand-in for what the merge of a copy finds
(issue 26), so that the board's banner and resolve flow can be driven without a real merge."""

from __future__ import annotations

from collections.abc import Callable

from memboard.core.ops import doctor
from memboard.core.results import Finding

SYNCTHING = "index.sync-conflict-20260531-101500-ABCDEF7.md"


def copy_finding(path: str, fix: str | None, of: str = "index.md") -> Finding:
    """doctor's sync_conflict_copy finding, with its `doctor --json` keys."""
    extra = (("path", path), ("of", of), ("tool", "syncthing"), ("device", "ABCDEF7"))
    return Finding("sync_conflict_copy", "", f"{path} is a sync-conflict copy of {of}", fix, of, extra)


def cell_finding(sid: str, column: str, path: str = SYNCTHING) -> Finding:
    """doctor's conflict_cell finding: a cell the merge of path could not decide."""
    message = f"{column} differs: 'ours' here, 'theirs' in {path}"
    return Finding("conflict_cell", sid, message, None, None, (("path", path), ("column", column)))


def doctor_saying(monkeypatch, *findings: Finding) -> list[int]:
    """Make doctor's pass return these findings besides what it finds; returns the list its calls are counted in."""
    real = doctor.diagnose
    calls: list[int] = []

    def diagnose(root, when=None):
        calls.append(1)
        found, plan = real(root, when)
        return [*found, *findings], plan

    monkeypatch.setattr(doctor, "diagnose", diagnose)
    return calls


def says(monkeypatch) -> Callable[..., list[int]]:
    """doctor_saying, bound to a test's monkeypatch (the `doctor_says` fixture)."""
    return lambda *findings: doctor_saying(monkeypatch, *findings)
