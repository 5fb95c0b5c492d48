"""Watching doctor's pass from a board test: how often the board asks doctor about the copies (the banner reads
doctor's findings only while a copy is there, and again only when something changed)."""

from __future__ import annotations

from collections.abc import Callable

from memboard.core.ops import doctor
from memboard.core.results import Finding

SYNCTHING = "index.sync-conflict-20260531-101500-ABCDEF7.md"


def doctor_saying(monkeypatch, *findings: Finding) -> list[int]:
    """Count doctor's passes (and add these findings to what it finds); returns the list its calls are counted in."""
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
