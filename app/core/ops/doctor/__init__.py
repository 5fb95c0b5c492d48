"""Doctor: find inconsistencies in a root and plan repairs that lose no content.

Every state an interrupted memboard operation can leave has a fix, and one `doctor --fix`
reaches a root where doctor finds nothing more to fix (the checks see each other's planned
repairs: a row being archived is no link target, a snapshot being restored as a row is one).
What memboard cannot have left (hand edits, foreign files) is reported with what to do.
Each kind of finding has its own small check (leftovers.py, rows.py, sessions.py, links.py);
run.py runs them in order over one `Checkup`, which collects the findings and the repairs.
"""

from __future__ import annotations

from .checkup import LEAVABLE
from .readable import refuse_repairs
from .run import diagnose, findings_and_count, repair_plan

__all__ = ["LEAVABLE", "diagnose", "findings_and_count", "refuse_repairs", "repair_plan"]
