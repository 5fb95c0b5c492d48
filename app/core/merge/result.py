"""What a merge of two versions of one file returns, shared by every file kind (index, snapshots, notes,
archive files) and by both callers: `doctor --fix` (two versions: the original and a sync tool's copy)
and `memboard merge-driver` (three: git's common ancestor, ours and theirs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Prefer = Literal["ours", "theirs"]


@dataclass(frozen=True)
class OpenCell:
    """A cell no rule decides: the same field changed on both sides to different values (issue 26 §2).

    id is the Session ID (index rows, snapshots, archive files) or the note ID; column names the field
    (`Summary`, `Title`, ...); ours and theirs are the two values as written. ours_line and theirs_line,
    when the field is a cell of a table row, are the whole rows as written (the git driver's conflict
    block shows them)."""

    id: str
    column: str
    ours: str
    theirs: str
    ours_line: str = ""
    theirs_line: str = ""


@dataclass(frozen=True)
class Merged:
    """The merged file and what its merge could not decide.

    data is the merged original: every row, item and statement of either version, ours' value in each
    open cell (or, when the merge was asked for conflict blocks, the blocks git's driver leaves). added
    counts rows, items or statements that only theirs held and data now holds; cells counts cells of
    ours that data changes; collisions lists Session IDs whose two rows name different Agent Names or
    Started At (both lines kept, never merged); outside lists text outside the table that differed
    (ours' kept); held_back lists, by Session ID, theirs' rows not brought back because the session is
    archived (`archive/<id>/` exists), as (Session ID, the row's line). unparsed is True when a version
    could not be read as its kind: data is then ours unchanged and nothing was merged."""

    data: bytes
    open: tuple[OpenCell, ...] = ()
    added: int = 0
    cells: int = 0
    collisions: tuple[str, ...] = ()
    outside: tuple[str, ...] = ()
    held_back: tuple[tuple[str, str], ...] = ()
    unparsed: bool = False


def conflict_block(ours: list[str], theirs: list[str], eol: str = "\n", size: int = 7) -> str:
    """A standard conflict block (`<<<<<<< ours`, `=======`, `>>>>>>> theirs`) holding both versions' lines."""
    mark = "<" * size, "=" * size, ">" * size
    lines = [f"{mark[0]} ours", *ours, mark[1], *theirs, f"{mark[2]} theirs"]
    return "".join(line + eol for line in lines)
