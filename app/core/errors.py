"""Errors the core raises; each carries a one-line message for the user."""

from __future__ import annotations

from typing import Any


class MemboardError(Exception):
    """A refusal or failure with a one-line reason; nothing was written."""

    exit_code = 1


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
    """Some file steps were written, but the operation did not finish or verify."""


class StalePlan(MemboardError):
    """The files changed since the plan was built; a fresh plan is attached."""

    def __init__(self, message: str, fresh_plan: Any = None):
        """message: why; fresh_plan: the plan built again from the files as they are now."""
        super().__init__(message)
        self.fresh_plan = fresh_plan
