"""A command writing many files shows a progress bar on a terminal's stderr, and nothing elsewhere."""

from __future__ import annotations

import io
import sys

import pytest

from memboard.cli import main
from memboard.cli import progress as progress_module
from tests.support.roots import row_line

IDS = [f"2026-05-{day:02d}-0900-cursor-main-agent" for day in range(1, 6)]


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def doctor_fix(root, monkeypatch, stderr: io.StringIO) -> tuple[int, str]:
    """`memboard doctor --fix` in this process with stderr as given; its exit status and stdout."""
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", stderr)
    try:
        code = main(["doctor", "--fix", "--root", str(root)])
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, out.getvalue()


@pytest.fixture
def five_missing(mem, monkeypatch):
    """Five rows without snapshots (doctor --fix writes five files); a bar from one file step on."""
    mem.index(*(row_line(i, summary=f"S{n}.") for n, i in enumerate(IDS)))
    monkeypatch.setattr(progress_module, "SHOWN_FROM", 1)


def test_doctor_fix_on_a_terminal_draws_a_bar_and_leaves_stdout_alone(root, mem, monkeypatch, five_missing):
    err = Terminal()
    code, out = doctor_fix(root, monkeypatch, err)
    assert code == 0
    assert out.endswith("\nrepaired: 5 file change(s)\n") and out.count("missing_snapshot\t") == 5
    assert "memboard doctor --fix" in err.getvalue() and "5/5" in err.getvalue()
    assert "checking what was written" in err.getvalue()
    assert all(mem.snap(i).startswith(f"# Session: {i}\n") for i in IDS)


def test_doctor_fix_into_a_pipe_prints_no_bar(root, mem, monkeypatch, five_missing):
    err = io.StringIO()
    code, out = doctor_fix(root, monkeypatch, err)
    assert code == 0 and out.endswith("\nrepaired: 5 file change(s)\n")
    assert err.getvalue() == ""


def test_a_small_plan_draws_no_bar_even_on_a_terminal(root, mem, monkeypatch, five_missing):
    monkeypatch.setattr(progress_module, "SHOWN_FROM", 6)
    err = Terminal()
    code, _out = doctor_fix(root, monkeypatch, err)
    assert code == 0 and err.getvalue() == ""


def test_archive_on_a_terminal_names_its_command_in_the_bar(root, mem, monkeypatch):
    mem.index(row_line(IDS[0]))
    mem.snapshot(IDS[0])
    monkeypatch.setattr(progress_module, "SHOWN_FROM", 1)
    err, out = Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["archive", IDS[0], "--root", str(root)]) in (0, None)
    assert "memboard archive" in err.getvalue()
    assert not (root / "sessions" / f"{IDS[0]}.md").exists()
