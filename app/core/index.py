"""The board file `index.md`: a line-based reader and a byte-preserving editor.

Only the lines of rows that change are rewritten. Text around the table, blank lines,
malformed rows, unknown columns, CRLF endings, a UTF-8 BOM and bytes that are not valid
UTF-8 all survive unchanged. (mistletoe is not used here: a line scan is many times faster
on a large index and keeps the hook path free of heavy imports.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ids import is_valid_id

BOM = "\ufeff"
COLUMNS = (
    "Session ID",
    "Agent Name",
    "Topic",
    "Summary",
    "Keywords",
    "Status",
    "Referenced By",
    "Started At",
    "Updated At",
)
FIELDS = (
    "id",
    "agent",
    "topic",
    "summary",
    "keywords",
    "status",
    "referenced_by",
    "started_at",
    "updated_at",
)
FIELD_OF_COLUMN = dict(zip(COLUMNS, FIELDS))
COLUMN_OF_FIELD = dict(zip(FIELDS, COLUMNS))
STATUSES = ("idle", "active", "stale")
NO_REFS = "-"


def decode(data: bytes) -> str:
    """Decode file bytes losslessly (invalid UTF-8 bytes survive a round trip)."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    """Encode text produced by `decode` back to the exact original bytes."""
    return text.encode("utf-8", "surrogateescape")


def split_lines(text: str) -> list[str]:
    """Split on `\\n` only, keeping each line's ending (a `\\r` stays part of its line)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_body(line: str) -> str:
    """A line without its `\\n` / `\\r\\n` ending."""
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line


def line_ending(line: str) -> str:
    """The ending of a line: `\\r\\n`, `\\n` or `` for a last line without one."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return ""


def split_cells(body: str) -> list[str] | None:
    """Split a table line into raw cell texts (stripped); None if it is not a table line.

    A backslash escapes the character after it, so `\\|` stays inside a cell.
    """
    s = body.strip()
    if not s.startswith("|"):
        return None
    s = s[1:]
    if "\\" not in s:
        cells = s.split("|")
        if cells and cells[-1].strip() == "" and s.endswith("|"):
            cells.pop()
        elif len(cells) > 1 and cells[-1].strip() == "":
            cells.pop()
        return [c.strip() for c in cells]
    cells: list[str] = []
    buf: list[str] = []
    i, n = 0, len(s)
    ended_with_pipe = False
    while i < n:
        ch = s[i]
        if ch == "\\" and i + 1 < n:
            buf.append(s[i : i + 2])
            i += 2
            ended_with_pipe = False
            continue
        if ch == "|":
            cells.append("".join(buf).strip())
            buf = []
            ended_with_pipe = True
        else:
            buf.append(ch)
            if not ch.isspace():
                ended_with_pipe = False
        i += 1
    rest = "".join(buf).strip()
    if rest or not ended_with_pipe:
        cells.append(rest)
    return cells


def unescape(raw: str) -> str:
    """The value of a raw cell: `\\|` becomes `|`."""
    return raw.replace("\\|", "|") if "\\|" in raw else raw


def escape(value: str) -> str:
    """The raw cell text for a value: one line, pipes escaped so they stay in the cell."""
    value = " ".join(value.replace("\r", " ").replace("\n", " ").split(" ")).strip()
    out: list[str] = []
    for ch in value:
        if ch == "|":
            if out and out[-1].endswith("\\"):
                out.append(" ")
            out.append("\\|")
        else:
            out.append(ch)
    text = "".join(out)
    if text.endswith("\\"):
        text += " "
    return text


def is_separator(cells: list[str]) -> bool:
    """Whether cells form a header separator row such as `|---|:---:|`."""
    return bool(cells) and all(c and set(c) <= set("-: ") and "-" in c for c in cells)


def parse_refs(value: str) -> list[str]:
    """Referenced By as a list of IDs (`-` or empty means none)."""
    value = value.strip()
    if value in ("", NO_REFS):
        return []
    return [part.strip() for part in value.split(",") if part.strip()]


def format_refs(ids: list[str]) -> str:
    """Referenced By text for a list of IDs."""
    return ", ".join(ids) if ids else NO_REFS


@dataclass(frozen=True)
class Row:
    """One table line of the index: where it is, its raw cells and its known fields."""

    line: int
    raw_cells: tuple[str, ...]
    values: dict = field(compare=False)
    problem: str | None = None

    @property
    def id(self) -> str:
        """The Session ID cell."""
        return self.values.get("id", "")

    @property
    def status(self) -> str:
        """The Status cell."""
        return self.values.get("status", "")

    @property
    def refs(self) -> list[str]:
        """Referenced By as a list."""
        return parse_refs(self.values.get("referenced_by", ""))

    def get(self, name: str, default: str = "") -> str:
        """A known field's value."""
        return self.values.get(name, default)


class IndexFile:
    """A parsed `index.md`: the original lines plus the board table's rows."""

    def __init__(self, data: bytes):
        """Parse index bytes; never fails, problems are recorded on rows."""
        self.data = data
        text = decode(data)
        self.bom = text.startswith(BOM)
        if self.bom:
            text = text[1:]
        self.lines = split_lines(text)
        self.header_line: int | None = None
        self.columns: list[str] = []
        self.rows: list[Row] = []
        self.table_end = len(self.lines)
        self.problems: list[str] = []
        self._parse()

    @classmethod
    def empty(cls) -> "IndexFile":
        """An index file that does not exist yet."""
        return cls(b"")

    def _parse(self) -> None:
        """Find the board table (outside code fences) and read its rows."""
        fence: str | None = None
        lines = self.lines
        n = len(lines)
        i = 0
        while i < n:
            body = line_body(lines[i])
            stripped = body.lstrip()
            if fence:
                if stripped.startswith(fence):
                    fence = None
                i += 1
                continue
            if stripped.startswith("```") or stripped.startswith("~~~"):
                fence = stripped[:3]
                i += 1
                continue
            if stripped.startswith("|") and i + 1 < n:
                cells = split_cells(body)
                if cells and "Session ID" in [unescape(c) for c in cells]:
                    sep = split_cells(line_body(lines[i + 1]))
                    if sep is not None and is_separator(sep):
                        self.header_line = i
                        self.columns = [unescape(c) for c in cells]
                        self._read_rows(i + 2)
                        return
            i += 1
        self.table_end = n

    def _read_rows(self, start: int) -> None:
        """Read table rows from line `start` until the table ends."""
        cols = self.columns
        width = len(cols)
        positions = [(pos, FIELD_OF_COLUMN[c]) for pos, c in enumerate(cols) if c in FIELD_OF_COLUMN]
        missing = [c for c in COLUMNS if c not in cols]
        if missing:
            self.problems.append("index table lacks column(s): " + ", ".join(missing))
        lines = self.lines
        i = start
        n = len(lines)
        rows = self.rows
        while i < n:
            body = line_body(lines[i])
            cells = split_cells(body)
            if cells is None:
                break
            problem = None
            if len(cells) != width:
                problem = f"has {len(cells)} cells, the header has {width}"
            values = {}
            for pos, name in positions:
                if pos < len(cells):
                    raw = cells[pos]
                    values[name] = unescape(raw) if "\\" in raw else raw
            if problem is None:
                sid = values.get("id", "")
                if not is_valid_id(sid):
                    problem = "Session ID is not of the form YYYY-MM-DD-HHMM-agent-name"
                elif values.get("status") not in STATUSES:
                    problem = f"Status {values.get('status')!r} is not idle, active or stale"
            rows.append(Row(i, tuple(cells), values, problem))
            i += 1
        self.table_end = i

    # -- queries -----------------------------------------------------------------------

    @property
    def has_table(self) -> bool:
        """Whether the file holds the board table."""
        return self.header_line is not None

    def find(self, session_id: str) -> list[Row]:
        """All rows whose Session ID cell equals session_id."""
        return [r for r in self.rows if r.values.get("id") == session_id]

    def ids(self) -> set[str]:
        """Every Session ID in the table (including those of malformed rows)."""
        return {r.values.get("id", "") for r in self.rows}

    def eol(self) -> str:
        """The line ending new lines should use: the table's own, else the file's first."""
        candidates = []
        if self.has_table:
            candidates = [self.lines[self.table_end - 1], self.lines[self.header_line]]
        candidates += self.lines[:1]
        for line in candidates:
            ending = line_ending(line)
            if ending:
                return ending
        return "\n"

    def missing_columns(self) -> list[str]:
        """Protocol columns the board table lacks (none when there is no table yet)."""
        return [c for c in COLUMNS if c not in self.columns] if self.has_table else []

    def edit(self) -> "IndexEdit":
        """Start an edit of this file; refused when the table lacks protocol columns."""
        missing = self.missing_columns()
        if missing:
            from .errors import Refused

            raise Refused(
                f"index.md's table lacks the column(s) {', '.join(missing)}; add them to its header before changing it"
            )
        return IndexEdit(self)


class IndexEdit:
    """Accumulates row replacements, deletions and appends, then renders the new bytes."""

    def __init__(self, index: IndexFile):
        """Begin an edit of index."""
        self.index = index
        self.replace: dict[int, str] = {}
        self.appended: list[str] = []
        self.cells: dict[int, list[str]] = {}  # pending cells of rows already changed in this edit

    def _render(self, raw_cells: list[str], ending: str) -> str:
        """A table line from raw cells."""
        return "| " + " | ".join(raw_cells) + " |" + ending

    def set_fields(self, row: Row, changes: dict[str, str]) -> "IndexEdit":
        """Rewrite row's line with the given field changes; other cells keep their raw text."""
        cols = self.index.columns
        if self.replace.get(row.line) == "":  # deleted in this edit: nothing to set
            return self
        cells = list(self.cells.get(row.line, row.raw_cells))
        changed = False
        for name, value in changes.items():
            col = COLUMN_OF_FIELD[name]
            pos = cols.index(col)
            if unescape(cells[pos]) != value:
                cells[pos] = escape(value)
                changed = True
        if not changed:  # a no-op keeps the line's own spacing
            return self
        self.cells[row.line] = cells
        original = self.index.lines[row.line]
        new = self._render(cells, line_ending(original) or "")
        if line_body(new) != line_body(original):
            self.replace[row.line] = new
        else:
            self.replace.pop(row.line, None)
        return self

    def delete(self, row: Row) -> "IndexEdit":
        """Remove row's line."""
        self.replace[row.line] = ""
        return self

    def append(self, values: dict[str, str]) -> "IndexEdit":
        """Add a new row after the last table line; unknown columns get empty cells."""
        cols = self.index.columns or list(COLUMNS)
        cells = [escape(values.get(FIELD_OF_COLUMN.get(c, ""), "")) if c in FIELD_OF_COLUMN else "" for c in cols]
        self.appended.append(self._render(cells, ""))
        return self

    def to_text(self) -> str:
        """The new file text (without BOM)."""
        index = self.index
        eol = index.eol()
        lines = list(index.lines)
        for pos, new in self.replace.items():
            lines[pos] = new
        if not self.appended:
            return "".join(lines)
        new_lines = [line + eol for line in self.appended]
        if index.has_table:
            at = index.table_end
            if at > 0 and not line_ending(lines[at - 1]) and lines[at - 1] != "":
                lines[at - 1] += eol
            elif at > 0 and lines[at - 1] == "":
                # the last table row was deleted and had no ending: find the previous line
                k = at - 1
                while k > 0 and lines[k] == "":
                    k -= 1
                if not line_ending(lines[k]):
                    lines[k] += eol
            lines[at:at] = new_lines
            return "".join(lines)
        # no table yet: add one at the end of the file
        header = "| " + " | ".join(COLUMNS) + " |" + eol
        sep = "|" + "|".join("---" for _ in COLUMNS) + "|" + eol
        text = "".join(lines)
        if text and not text.endswith("\n"):
            text += eol
        if text and not text.endswith(eol + eol) and text.strip():
            text += eol
        return text + header + sep + "".join(new_lines)

    def to_bytes(self) -> bytes:
        """The new file bytes, with the BOM kept when the original had one."""
        text = self.to_text()
        return encode((BOM if self.index.bom else "") + text)
