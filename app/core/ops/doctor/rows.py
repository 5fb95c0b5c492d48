"""Doctor's checks of index.md itself: text it cannot write, missing columns, malformed and duplicate rows."""

from __future__ import annotations

from ...errors import Remedy, said
from ...formats.ids import is_valid_id
from ...formats.index import IndexFile, Row, laid_out
from .checkup import Checkup

NOT_TEXT = said(
    "index.md holds NUL bytes (saved as UTF-16, or not text at all), so every write refuses it: "
    "convert it to UTF-8 text (in most editors: save with encoding UTF-8) or remove the NUL bytes, then ",
    (Remedy.DOCTOR, "run `memboard doctor`"),
    " again",
)


def index_not_text(c: Checkup) -> bool:
    """index_not_text: an index no write can use (NUL bytes, UTF-16); True when it is text."""
    data = c.before or b""
    if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        c.add("index_not_text", "", NOT_TEXT, subject="index.md")
        return False
    return True


def index_table(c: Checkup) -> None:
    """index_table: rows Markdown reads in no table (a header without its separator line, rows without a header)
    get the one line that makes them a table; the other checks see the index as that line leaves it."""
    laid = laid_out(c.index)
    if laid is None:
        return
    c.add(
        "index_table",
        "",
        f"line {laid.line + 1}: {laid.what}, so Markdown reads no table and memboard no row",
        f"{laid.fix} (every other byte is kept)",
        subject="index.md",
    )
    c.lay_out(IndexFile(laid.data))


def index_columns(c: Checkup) -> bool:
    """index_columns: protocol columns the table lacks; True when rows can be repaired."""
    for problem in c.index.problems:
        c.add("index_columns", "", problem + " (add them to the header by hand)", subject="index.md")
    if c.index.missing_columns():  # no safe repair of rows until the table has the protocol's columns
        return False
    c.index_edit()
    return True


def malformed_row(c: Checkup, row: Row) -> None:
    """malformed_row: a row memboard cannot parse is kept as it is and skipped."""
    if row.problem:
        c.add(
            "malformed_row",
            row.id,
            f"line {row.line + 1}: {row.problem}; memboard keeps the line as it "
            "is and skips it: fix it by hand in index.md",
        )


def duplicate_id(c: Checkup, sid: str, rows: list[Row]) -> bool:
    """duplicate_id: identical copy lines are deleted; rows that differ are for a person to merge (True: the first row
    is the session's usable row)."""
    if len({r.raw_cells for r in rows}) == 1 and is_valid_id(sid):
        if not c.repairs("duplicate_id"):  # left out: the copies stay, so the session is no usable row yet
            c.add(
                "duplicate_id",
                sid,
                f"{len(rows)} rows share this Session ID",
                f"delete {len(rows) - 1} identical copy line(s)",
            )
            return False
        for extra in rows[1:]:
            c.index_edit().delete(extra)
        c.add(
            "duplicate_id",
            sid,
            f"{len(rows)} rows share this Session ID",
            f"delete {len(rows) - 1} identical copy line(s)",
        )
        return not rows[0].problem
    c.add(
        "duplicate_id",
        sid,
        f"{len(rows)} different rows share this Session ID: keep one by hand "
        "(merge what the others say into it), then run doctor again",
    )
    return False


def outside_row(c: Checkup, row: Row) -> None:
    """outside_row: a row appended below text under the table, where Markdown reads no row, is moved into it."""
    if row.id in c.index.ids():
        c.add(
            "outside_row",
            row.id,
            f"line {row.line + 1}: a row outside the table (after a line that ends it) repeats a Session ID of the "
            "table: merge it into that row by hand",
        )
        return
    c.add(
        "outside_row",
        row.id,
        f"line {row.line + 1}: a row outside the table (after a line that ends it), where Markdown reads no row",
        "move the line into the table, after its last row (every other byte is kept)",
    )


def check_rows(c: Checkup) -> None:
    """Malformed rows, rows outside the table and duplicate IDs; collect the usable rows. The rows outside the table
    that move in are rows of the table for every later check (a second doctor finds nothing they would have
    found)."""
    outside = c.index.outside
    for row in outside:
        outside_row(c, row)
    movable = [row for row in outside if row.id not in c.index.ids()]
    if movable and c.repairs("outside_row"):
        moving = c.index.edit()
        for row in movable:
            moving.move_in(row)
        c.lay_out(IndexFile(moving.to_bytes()))
    # the table's first row of each Session ID, in the order of those rows: the live rows once those of IDs that are
    # no usable row (malformed, or shared by rows a person must merge) are taken out (one dict of 1M rows, not two)
    live, dups, unusable = c.live, c.dups, c.unusable
    for row in c.index.rows:
        first = live.setdefault(row.id, row)
        if first is not row:
            same = dups.get(row.id)
            if same is None:
                dups[row.id] = [first, row]
            else:
                same.append(row)
        elif row.problem:
            unusable.add(row.id)
        if row.problem:
            malformed_row(c, row)
    for sid, rows in sorted(dups.items(), key=lambda item: item[1][0].line):  # (in the order of their first rows)
        if duplicate_id(c, sid, rows):
            unusable.discard(sid)
        else:
            unusable.add(sid)
    for sid in unusable:
        del live[sid]
