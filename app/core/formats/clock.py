"""Timestamps: the protocol writes `YYYY-MM-DD HH:MM` local time and reads ISO 8601 forms too."""

from __future__ import annotations

import os
from datetime import datetime

FORMAT = "%Y-%m-%d %H:%M"
NOW_ENV = "MEMBOARD_NOW"


def now() -> datetime:
    """The current local time to the minute; MEMBOARD_NOW (a timestamp) fixes it for tests."""
    fixed = os.environ.get(NOW_ENV)
    if fixed:
        parsed = parse(fixed)
        if parsed is not None:
            return parsed
    return datetime.now().replace(second=0, microsecond=0)


def now_to_the_second() -> datetime:
    """The current local time to the second (a log's time; the protocol's times are to the minute);
    MEMBOARD_NOW fixes it for tests."""
    fixed = os.environ.get(NOW_ENV)
    if fixed:
        parsed = parse(fixed)
        if parsed is not None:
            return parsed
    return datetime.now().replace(microsecond=0)


def format_ts(when: datetime) -> str:
    """Format a time the way the protocol writes it."""
    return when.strftime(FORMAT)


def parse(text: str) -> datetime | None:
    """Read `YYYY-MM-DD HH:MM` or an ISO 8601 form; None when it is not a time.

    datetime.fromisoformat reads the protocol's form (every row holds it, 100k rows) in C; a text it
    refuses is read as before: strptime's looser `YYYY-MM-DD HH:MM`, then ISO 8601 with a `Z`.
    Where both read a text they read the same time.
    """
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        try:
            return datetime.strptime(text, FORMAT)
        except ValueError:
            pass
        candidate = text[:-1] + "+00:00" if text.endswith("Z") else text
        try:
            value = datetime.fromisoformat(candidate)
        except ValueError:
            return None
    if value.tzinfo is not None:
        value = value.astimezone().replace(tzinfo=None)
    return value


FUTURE_SLACK_MINUTES = 5  # a time this far ahead of the clock is a clock a little off, not the future


def in_the_future(then: datetime, now: datetime) -> bool:
    """Whether then lies more than FUTURE_SLACK_MINUTES after now (one of the two clocks is off)."""
    return (then - now).total_seconds() > FUTURE_SLACK_MINUTES * 60


def minutes_label(minutes: int | None) -> str:
    """An age in whole minutes as `12m`, `5h`, `3d` (a slightly negative age as `0m`, a time more than
    FUTURE_SLACK_MINUTES ahead as `future`; `-` when unknown): the spaces' ages, which their reads give in minutes."""
    if minutes is None:
        return "-"
    if minutes < -FUTURE_SLACK_MINUTES:
        return "future"
    if minutes < 60:
        return f"{max(minutes, 0)}m"
    if minutes < 48 * 60:
        return f"{minutes // 60}h"
    return f"{minutes // (24 * 60)}d"


def age_label(then: datetime | None, at: datetime) -> str:
    """A short readable age such as `5m`, `3h`, `2d`, `6w`; `?` when unknown."""
    if then is None:
        return "?"
    seconds = (at - then).total_seconds()
    if seconds < 0:
        return "0m"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if days < 60:
        return f"{days}d"
    return f"{days // 7}w"
