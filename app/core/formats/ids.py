"""Session IDs (`YYYY-MM-DD-HHMM-<agent-name>`) and agent names: validation and generation."""

from __future__ import annotations

import re
from collections.abc import Container
from datetime import datetime

from ..errors import UsageError

DEFAULT_AGENT = "cursor-main-agent"
MAX_ID_LENGTH = 120

# ASCII only: `\d` in a str pattern also takes fullwidth and other Unicode digits, and IDs
# end up in file names and in Referenced By
AGENT_RE = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,78}[a-z0-9])?", re.ASCII)
# a Session ID's shape, with the hour and minute ranges in the pattern: only the date is left to check
ID_SHAPE_RE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}-(?:[01][0-9]|2[0-3])[0-5][0-9]-[a-z0-9](?:[a-z0-9-]*[a-z0-9])?", re.ASCII
)
DAYS: dict[str, bool] = {}  # `YYYY-MM-DD` -> whether it is a day of the calendar, for the days checked so far
DAYS_KEPT = 4096


def _describe(value: str) -> str:
    """Show a hostile value safely in a one-line message."""
    shown = value if len(value) <= 60 else value[:57] + "..."
    return repr(shown)


def real_date(day: str) -> bool:
    """Whether `YYYY-MM-DD` (digits in place) names a day of the calendar (remembered: rows share days)."""
    known = DAYS.get(day)
    if known is None:
        try:
            datetime(int(day[:4]), int(day[5:7]), int(day[8:10]))
            known = True
        except ValueError:
            known = False
        if len(DAYS) < DAYS_KEPT:
            DAYS[day] = known
    return known


def is_valid_id(value: str) -> bool:
    """Tell whether value is a well-formed Session ID that is safe as a file name."""
    if not isinstance(value, str) or len(value) > MAX_ID_LENGTH or not value.isascii():
        return False
    return ID_SHAPE_RE.fullmatch(value) is not None and real_date(value[:10])


def check_id(value: str, what: str = "session ID") -> str:
    """Return value if it is a valid Session ID, else raise a one-line UsageError."""
    if not is_valid_id(value):
        raise UsageError(
            f"invalid {what} {_describe(value)}: expected YYYY-MM-DD-HHMM-agent-name "
            "(lowercase letters, digits and hyphens)"
        )
    return value


def check_agent(value: str) -> str:
    """Return value if it is a valid agent name, else raise a one-line UsageError."""
    if not isinstance(value, str) or not value.isascii() or not AGENT_RE.fullmatch(value):
        raise UsageError(
            f"invalid agent name {_describe(value)}: use lowercase letters, digits and hyphens, "
            "for example cursor-main-agent"
        )
    return value


def make_id(when: datetime, agent: str, taken: Container[str] = frozenset()) -> str:
    """Build a Session ID for agent at minute `when`, distinct from every ID in taken.

    The first registration of a minute gets `YYYY-MM-DD-HHMM-agent`; later ones in the same
    minute by the same agent get `-2`, `-3`, ... appended, so IDs stay unique and sortable.
    """
    check_agent(agent)
    base = f"{when:%Y-%m-%d-%H%M}-{agent}"
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"
