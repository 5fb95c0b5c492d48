"""Typed refusals (memboard.core.errors): what was written, the remedy and its subject, worded by each face."""

from __future__ import annotations

from memboard.core.errors import (
    COMMAND_LINE,
    INCOMPLETE,
    NOTHING,
    REMEDY_HERE,
    Incomplete,
    MemboardError,
    Refused,
    Remedy,
)


def test_a_refusal_names_its_remedy_in_the_command_lines_words_and_in_a_faces_own():
    exc = Refused(
        f"S is still referenced by F; release those references first {REMEDY_HERE}", remedy=Remedy.RELEASE, subject="S"
    )
    assert str(exc) == "S is still referenced by F; release those references first (memboard release S --as <id>)"
    assert (
        exc.worded({Remedy.RELEASE: "[r on {subject}]"})
        == "S is still referenced by F; release those references first [r on S]"
    )
    assert (exc.written, exc.remedy, exc.subject) == (NOTHING, Remedy.RELEASE, "S")


def test_every_remedy_a_refusal_names_has_command_line_words():
    assert set(COMMAND_LINE) == {
        Remedy.RELEASE,
        Remedy.UPDATE,
        Remedy.DOCTOR,
        Remedy.DOCTOR_FIX,
        Remedy.SPACE_CHECK,
        Remedy.HIERARCHY_LINT,
    }


def test_an_incomplete_write_says_so_and_is_fixed_by_doctor_even_when_its_line_does_not_name_it():
    exc = Incomplete("archive incomplete: verification failed: x")
    assert (exc.written, exc.remedy, str(exc)) == (
        INCOMPLETE,
        Remedy.DOCTOR,
        "archive incomplete: verification failed: x",
    )
    assert Incomplete(f"archive incomplete: y; {REMEDY_HERE}").args == ("archive incomplete: y; run `memboard doctor`",)


def test_a_plain_error_has_no_remedy_and_its_words_are_its_line():
    exc = MemboardError("memory root is locked")
    assert (exc.remedy, exc.subject, exc.says_written, str(exc)) == (None, None, False, "memory root is locked")
    assert exc.worded({Remedy.DOCTOR: "press d"}) == "memory root is locked"
