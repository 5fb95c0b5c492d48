"""The builders of the changing operations, as both faces call them: each returns a function of the root that plans.

A builder takes the operation's arguments (already checked for their form), fixes the clock,
and returns `root -> Plan` for `execute` to run under the root's lock (and again if the files
changed). Each imports its own operation lazily: `organize` does not load doctor's checks of
typed notes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import config
from ..core.errors import UsageError
from ..core.files.root import MemoryRoot
from ..core.formats import clock
from ..core.plan import Plan

Builder = Callable[[MemoryRoot], Plan[Any]]


def register_plan(
    agent: str,
    manual: bool = False,
    topic: str | None = None,
    summary: str | None = None,
    snapshot: str | None = None,
    allow_secrets: bool = False,
) -> Builder:
    """The builder of a registration: SessionStart (an idle row) or, with manual, a snapshot and an active row."""
    when = clock.now()
    if manual:
        from ..core.ops.manual import plan_manual  # lazy: a command loads only its own operation

        return lambda root: plan_manual(root, when, agent, topic, summary, snapshot, allow_secrets=allow_secrets)
    if topic or summary or snapshot:
        raise UsageError("--topic, --summary and --snapshot go with --manual (SessionStart rows use the defaults)")
    from ..core.ops.register import plan_register  # lazy: a command loads only its own operation

    return lambda root: plan_register(root, when, agent, allow_secrets)


def update_plan(
    session_id: str,
    topic: str | None = None,
    summary: str | None = None,
    keywords: str | None = None,
    snapshot: str | None = None,
    allow_secrets: bool = False,
) -> Builder:
    """The builder of a session update (the snapshot merged by the merge policy, then the row)."""
    from ..core.ops.update import plan_update  # lazy: a command loads only its own operation

    when = clock.now()
    return lambda root: plan_update(
        root, session_id, when, topic, summary, keywords, snapshot, allow_secrets=allow_secrets
    )


def continue_plan(source_id: str, as_id: str | None, agent: str, allow_secrets: bool = False) -> Builder:
    """The builder of a continuation from source_id (as as_id, or as a new manually registered session)."""
    from ..core.ops.continue_from import plan_continue  # lazy: a command loads only its own operation

    when = clock.now()
    return lambda root: plan_continue(root, source_id, when, as_id, agent, allow_secrets=allow_secrets)


def release_plan(source_id: str, as_id: str) -> Builder:
    """The builder of a released reference."""
    from ..core.ops.release import plan_release  # lazy: a command loads only its own operation

    return lambda root: plan_release(root, source_id, as_id)


def organize_plan(stale_days: int | None = None) -> Builder:
    """The builder of the organize pass (stale_days: the config's, or the protocol's 14, when None)."""
    from ..core.ops.organize import plan_organize  # lazy: a command loads only its own operation

    days = config.stale_days() if stale_days is None else stale_days
    when = clock.now()
    return lambda root: plan_organize(root, when, days, beside=True)  # (one short process: see continues.Beside)


def archive_plan(session_id: str) -> Builder:
    """The builder of a single-session archive."""
    from ..core.ops.archive import plan_archive  # lazy: a command loads only its own operation

    when = clock.now()
    return lambda root: plan_archive(root, session_id, when)
