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


class Incomplete(MemboardError):
    """Some file steps were written, but the operation did not finish or verify."""


class StalePlan(MemboardError):
    """The files changed since the plan was built; a fresh plan is attached."""

    def __init__(self, message: str, fresh_plan: Any = None):
        """message: why; fresh_plan: the plan built again from the files as they are now."""
        super().__init__(message)
        self.fresh_plan = fresh_plan
