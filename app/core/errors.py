"""Errors the core raises: each a one-line message, and typed: what was written, what fixes it, and on what.

A refusal says what was written (`written`: NOTHING, or INCOMPLETE for a write that stopped
half-way), the remedy that fixes it (`remedy`: one of the Remedy constants, or None) and its
subject (`subject`: the session ID, the file the remedy acts on). The faces choose by the type,
never by the message's text: the board offers the remedy's flow, the MCP server says whether
anything was written. Where the message names its remedy, the raise marks the place
(`REMEDY_HERE`); `str(exc)` says it in the command line's words (`COMMAND_LINE`, the words the
CLI prints and the MCP server answers) and `worded(words)` in a face's own (the board's keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NOTHING = "nothing"  # what a refusal wrote: nothing at all
INCOMPLETE = "incomplete"  # some steps were written, but the operation did not finish or verify


class Remedy:
    """What fixes a refusal: a set of constants (plain strings: the hook's path builds no Enum)."""

    RELEASE = "release"  # release the references to the subject (the session that is still referenced)
    UPDATE = "update"  # update the subject (write its snapshot)
    DOCTOR = "doctor"  # run doctor (it finds and repairs what memboard left or found inconsistent)
    DOCTOR_FIX = "doctor-fix"  # run doctor's repairs first (it merges the sync-conflict copies a refusal names)
    # named by doctor's findings (a Said text), with their arguments
    CONTINUE_LINK = "continue-link"  # continue SOURCE as REF: record a link on REF's side
    RELEASE_LINK = "release-link"  # release SOURCE as REF: drop the link
    UPDATE_SUMMARY = "update-summary"  # update SESSION --summary: change the row's Summary and Keywords
    ARCHIVE = "archive"  # archive the session
    SPACE_CHECK = "space-check"  # a space write stopped half-way: `space check` names what it left
    HIERARCHY_LINT = "hierarchy-lint"  # a hierarchy write stopped half-way: `hierarchy lint` names what it left


REMEDY_HERE = "\x00"  # where a message names its remedy (a NUL: never in a message's own text)
COMMAND_LINE: Mapping[str, str] = {  # each remedy in the command line's words ({subject}: the error's subject)
    Remedy.RELEASE: "(memboard release {subject} --as <id>)",
    Remedy.UPDATE: "run `memboard update {subject}` to write its snapshot",
    Remedy.DOCTOR: "run `memboard doctor`",
    Remedy.DOCTOR_FIX: "run `memboard doctor --fix` first",
    Remedy.SPACE_CHECK: "run `memboard space check` (it names what is left; the next write finishes it)",
    Remedy.HIERARCHY_LINT: "run `memboard hierarchy lint` (it names what is left)",
}


class Said(str):
    """A text that names commands (doctor's findings): as a str, the command line's words, as written by the core;
    `worded(words)` says each named command in a face's words instead. Made by `said`."""

    parts: tuple[str | tuple[str, ...], ...] = ()

    def worded(self, words: Mapping[str, str]) -> str:
        """The text with each command in these words (a Remedy constant to a text whose `{0}`, `{1}` are the
        command's arguments); a command without words keeps the command line's."""
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                remedy, command_line, *args = part
                said = words.get(remedy)
                out.append(command_line if said is None else said.format(*args))
        return "".join(out)


def said(*parts: str | tuple[str, ...]) -> Said:
    """Text and named commands in order: each command a tuple (a Remedy constant, its command line words, then its
    arguments for a face's words)."""
    text = Said("".join(part if isinstance(part, str) else part[1] for part in parts))
    text.parts = parts
    return text


class MemboardError(Exception):
    """A refusal or failure with a one-line reason; nothing was written (unless its `written` says otherwise)."""

    exit_code = 1
    written = NOTHING
    remedy: str | None = None  # a class's default remedy (Incomplete: doctor)

    def __init__(
        self,
        message: str = "",
        *,
        remedy: str | None = None,
        subject: str | None = None,
        says_written: bool = False,
    ):
        """message: the line, with REMEDY_HERE where it names its remedy; remedy: a Remedy constant; subject: what
        the remedy acts on; says_written: the line itself says what was written (`...; nothing written`)."""
        self.template = message
        if remedy is not None:
            self.remedy = remedy
        self.subject = subject
        self.says_written = says_written
        super().__init__(self.worded(COMMAND_LINE))

    def remedied(self, remedy: str) -> None:
        """Name another remedy (a caller that knows better what fixes it): the message says it where it names one."""
        self.remedy = remedy
        self.args = (self.worded(COMMAND_LINE),)

    def worded(self, words: Mapping[str, str]) -> str:
        """The message with its remedy in these words (a Remedy constant to a text; `{subject}` is replaced)."""
        before, marked, after = self.template.partition(REMEDY_HERE)
        if not marked:
            return before
        said = words.get(self.remedy or "", "") if self.remedy else ""
        return before + said.replace("{subject}", self.subject or "") + after


class UsageError(MemboardError):
    """The request itself is malformed (bad ID, bad argument)."""

    exit_code = 2


class Refused(MemboardError):
    """The protocol forbids this change (for example: archive while referenced)."""


class Unreadable(MemboardError):
    """A file memboard could not read, and why: permission denied, an I/O error, a file that is no regular file
    (a FIFO, a socket, a device), a symlink out of the root. A read that fails is never taken for an empty file:
    each operation refuses with this line, or keeps what the file might protect and names it (organize)."""

    def __init__(self, rel: str, reason: str, message: str | None = None):
        """rel: the file, relative to the root; reason: why, in words; message: the line when it is not
        `cannot read <rel>: <reason>`."""
        super().__init__(message or f"cannot read {rel}: {reason}")
        self.rel, self.reason = rel, reason


class OutsideRoot(Unreadable):
    """A path that resolves outside the memory root (a symlink): memboard neither reads nor writes it."""

    def __init__(self, rel: str):
        """rel: the path as asked for."""
        reason = "it resolves outside the memory root"
        super().__init__(rel, reason, f"refusing {rel}: {reason} (symlink?)")


class Incomplete(MemboardError):
    """Some file steps were written, but the operation did not finish or verify: doctor repairs what it left."""

    written = INCOMPLETE
    remedy = Remedy.DOCTOR


class StalePlan(MemboardError):
    """The files changed since the plan was built; a fresh plan is attached."""

    def __init__(self, message: str, fresh_plan: Any = None):
        """message: why; fresh_plan: the plan built again from the files as they are now."""
        super().__init__(message)
        self.fresh_plan = fresh_plan
