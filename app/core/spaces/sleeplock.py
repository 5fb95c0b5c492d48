"""The skill's `sleep.lock` in the global home, read only: a live dreaming process refuses dream, archive, migrate.

The skill's background dream writes `sleep.lock` (JSON with its `pid`) while it rewrites dream-notes.md,
history.md and research.md; memboard never writes or removes it, and stops with one line while the process
it names is alive.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import Refused

SLEEP_LOCK = "sleep.lock"


def dreaming_pid(home: Path) -> int | None:
    """The pid a sleep.lock in the global home names when that process is alive; None otherwise."""
    try:
        data = json.loads((home / SLEEP_LOCK).read_text(encoding="utf-8"))
        pid = int(data.get("pid") or 0) if isinstance(data, dict) else 0
    except (OSError, ValueError, TypeError):
        return None
    if pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid  # alive, someone else's
    except OSError:
        return None
    return pid


def refuse_while_dreaming(home: Path) -> None:
    """Refused (one line, nothing written) while the skill's dream named by sleep.lock runs."""
    pid = dreaming_pid(home)
    if pid is not None:
        raise Refused(f"the session-memory skill is dreaming (pid {pid}); try again")
