"""`list --json` made from the index's lines: a row in the usual shape goes from its line's text to its JSON object.

Building a Row and a RowView for each of 100k rows, then their JSON, was most of `list --json` (this path takes
35-38% off its CPU at 100k rows: bench/list_lines.py). A line is encoded as JSON text whole (json's C
encoder), then split at its pipes: with no control character in the line, each stripped piece is the JSON text of its stripped cell (the encoder escapes only `"`, `\\` and
control characters, none of them white space that strip would remove, and no pipe). Any other row (escaped
backslashes, control characters, bytes that are not UTF-8, a problem, cells that do not line up) is listed
as `list --json` always lists it (its RowView's row_text): the output is the same bytes either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from json.encoder import encode_basestring as encode_string  # json's C string encoder
from operator import itemgetter

from ..core.files.root import MemoryRoot
from ..core.formats.ids import DAYS, ID_SHAPE_RE, MAX_ID_LENGTH, real_date
from ..core.formats.index import STATUSES, IndexFile
from ..core.ops.query import iter_row_views, listed_index, row_view
from .output import ROW_TEXT, SCALARS, row_text

# what the encoder escapes besides `"` and `\` (the `\r` of a CRLF ending is taken off the line first)
CONTROL_RE = re.compile(r"[\x00-\x1f]")
CONTROL_BYTES = bytes(range(0x0A)) + bytes(range(0x0B, 0x20))  # (as bytes: each such byte is that character)
CHUNK = 1 << 20  # bytes looked at in one step for control characters (a 1M-row index is 200 MB)
# ROW_TEXT with each string's quotes in place and no problem: what a usual row's cells (their JSON text) go into
QUOTED = ROW_TEXT % (*['"%s"'] * 6, "%s", '"%s"', '"%s"', "%d", "null", "%s")
PICKED = ("agent", "topic", "summary", "keywords", "started_at", "updated_at", "referenced_by")


def listing_texts(root: MemoryRoot, status: str | None = None, warnings: list[str] | None = None) -> Iterator[str]:
    """The JSON text of each listed row (optionally of one status), in file order, as row_text writes it;
    bad usage is refused and warnings collected before the first row comes."""
    index = listed_index(root, status)
    if index is None:
        return (row_text(view) for view in iter_row_views(root, status, warnings))
    return _texts(index, root.session_ids_on_disk(), status)


def _texts(index: IndexFile, snaps: frozenset[str] | set[str], status: str | None) -> Iterator[str]:
    """listing_texts over an index that listed_index took: each line's text, or its RowView's where the line
    is not in the usual shape."""
    fields, reader = index.line_reader()
    data = index.data
    pos, end = index.row_span()
    number = (index.header_line or 0) + 2
    controls = _has_controls(data, pos, end)  # (most files: none, and no line is searched for them)
    for stop, text in _line_texts(data, pos, end, fields, len(index.columns) + 1, controls, snaps, status, number):
        if text is None:
            row = next(reader(data, pos, stop, number))
            if status is None or row.status == status:
                yield row_text(row_view(row, row.id in snaps))
        elif text:
            yield text
        pos, number = stop, number + 1
    for row in index.outside:
        if status is None or row.status == status:
            yield row_text(row_view(row, row.id in snaps))


def _has_controls(data: bytes, pos: int, end: int) -> bool:
    """Whether data[pos:end] holds a control character other than a line's `\n` or `\r\n` ending (a pass of
    bytes.translate over each chunk: a regular expression's search took 10 times longer)."""
    for at in range(pos, end, CHUNK):
        piece = data[at : min(at + CHUNK, end)]
        if len(piece.translate(None, CONTROL_BYTES)) != len(piece):
            return True
    return data.count(b"\r", pos, end) != data.count(b"\r\n", pos, end)


def _line_texts(
    data: bytes,
    pos: int,
    end: int,
    fields: dict[str, int],
    width: int,
    controls: bool,
    snaps: frozenset[str] | set[str],
    status: str | None,
    number: int,
) -> Iterator[tuple[int, str | None]]:
    """For each row line of data[pos:end] (the first one line `number`): where it stops, and its JSON text, ""
    for a usual row of another status than status, None for a line its RowView must list. width: the pieces
    a row line splits into at its pipes (its cells and the two ends)."""
    a_id, a_status = fields["id"] + 1, fields["status"] + 1  # (the first piece is before the row's first pipe)
    picked = itemgetter(*(fields[name] + 1 for name in PICKED))
    strip, encode, statuses, bools = str.strip, encode_string, STATUSES, SCALARS
    id_match, day = ID_SHAPE_RE.fullmatch, DAYS.get  # (is_valid_id's checks, inline: ID_SHAPE_RE is ASCII only)
    while pos < end:
        nl = data.find(b"\n", pos, end)
        stop = end if nl < 0 else nl + 1
        try:
            line = data[pos:stop].decode("utf-8")
        except UnicodeDecodeError:  # (a byte that is not UTF-8: its RowView shows U+FFFD for it)
            yield stop, None
            pos, number = stop, number + 1
            continue
        line = line.rstrip("\r\n")  # (white space strip takes off a cell's end: a CR there is no control)
        parts: list[str] = []
        escaped = "\\" in line
        if controls and CONTROL_RE.search(line):
            pass
        elif not escaped:
            parts = encode(line)[1:-1].split("|")
        elif "\\\\" not in line and "u0000" not in line:  # (each `\|` an escaped pipe, as the reader has it)
            parts = encode(line.replace("\\|", "\0")).replace("\\u0000", "\0")[1:-1].split("|")
        if parts and not strip(parts[-1]):
            parts.pop()
        text: str | None = None
        if len(parts) == width:
            sid, state = strip(parts[a_id]), strip(parts[a_status])
            if (
                state in statuses
                and len(sid) <= MAX_ID_LENGTH
                and id_match(sid) is not None
                and (day(sid[:10]) or real_date(sid[:10]))
            ):
                text = ""
                if status is None or state == status:
                    agent, topic, summary, keywords, started, updated, refs = map(strip, picked(parts))
                    text = QUOTED % (
                        sid,
                        agent,
                        topic,
                        summary,
                        keywords,
                        state,
                        _refs(refs),
                        started,
                        updated,
                        number + 1,
                        bools[sid in snaps],
                    )
                    if escaped:  # (the escaped pipes' stand-ins: in cells only, the ID and status hold none)
                        text = text.replace("\0", "|")
        yield stop, text
        pos, number = stop, number + 1


def _refs(cell: str) -> str:
    """A Referenced By cell's JSON text, from the cell's JSON text (parse_refs' split at commas and strip see
    the same pieces there: the encoder leaves commas and white space as they are)."""
    if cell == "-":
        return "[]"
    ids = [part.strip() for part in cell.split(",") if part.strip()]
    return "[\n      " + ",\n      ".join('"' + ref + '"' for ref in ids) + "\n    ]" if ids else "[]"
