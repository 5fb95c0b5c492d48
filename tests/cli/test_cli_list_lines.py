"""`list --json` makes a usual row's JSON from its line's text (service/listing.py): every other row is listed
through its RowView, and the two give the same bytes whatever a line holds."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from memboard.cli.output import dump_array
from memboard.core.files.root import MemoryRoot
from memboard.core.ops.query import iter_row_views
from memboard.service.output import row_text
from tests.support.roots import HEADER, PREAMBLE, SEPARATOR

ODD = [
    "| 2026-05-01-0900-a | agent | plain | usual row | k | active | - | 2026-05-01 09:00 | 2026-05-01 09:00 |",
    '| 2026-05-01-0901-a | agent | "quoted" | C:\\path and a \\| pipe | k | idle | - | 2026-05-01 09:01 | x |',
    "| 2026-05-01-0902-a | agent | two \\\\| backslashes | s | k | stale | - | 2026-05-01 09:02 | x |",
    "| 2026-05-01-0903-a | agent | a\ttab | s | k | active | - | 2026-05-01 09:03 | x |",
    "|\u00a02026-05-01-0904-a\u3000| agent | 全形空白 | s | k | active | 2026-05-01-0900-a,  2026-05-01-0901-a | a | b |",
    "| 2026-05-01-0905-a | agent | too | few | cells |",
    "| 2026-05-01-0906-A | agent | bad id | s | k | active | - | a | b |",
    "| 2026-05-01-0907-a | agent | bad status | s | k | busy | - | a | b |",
    "| 2026-05-01-0908-a\\| | agent | pipe in id | s | k | active | - | a | b |",
    "| 2026-05-01-0909-a | agent | u0000 and \\| | s | k | active | -\\|x | a | b |",
    "| 2026-05-01-0910-a | agent | ends \\ | s \\ | k | active | , ,2026-05-01-0900-a, | a | b |\r",
    "||| empty cells | | | active | | | |",
    "| 2026-05-01-0911-a | agent | \x01 control | s | k | active | - | a | b |",
    '| 2026-05-01-0912-a | agent | no last pipe | s \\| t | k | active | "x", y\\|z | a | b\r',
    "| 2026-05-01-0913-a | agent | a lone \r inside | s | k | active | - | a | b |",
    "| 2026-05-01-0914-a | agent | one cell | too many | s | k | active | - | a | b |",
    "| ２０２６-05-01-0915-a | agent | fullwidth digits | s | k | active | - | a | b |",
    "| 2026-05-01-0916-a | agent | \\u0000 written out | s | k | idle | - | a | b |",
    "| 2026-05-01-0917-a | agent |\tedge tabs\t| \x1f | k\x0b | active | - | a | b |",
]
OUTSIDE = "\ntext\n\n| 2026-05-01-0999-a | agent | t | s | k | active | - | a | b |\n"


def _same_as_row_views(cli, root: Path, status: str | None) -> str:
    """`list --json` (with status) on root: checked to be the bytes the row views' JSON makes; its output."""
    listed = cli(*(["list", "--json"] + (["--status", status] if status else [])))
    expected = io.StringIO()
    with redirect_stdout(expected):
        dump_array(iter_row_views(MemoryRoot(root), status), row_text)
    assert listed.code == 0
    assert listed.out == expected.getvalue()
    return str(listed.out)


@pytest.mark.parametrize("status", [None, "active", "idle"])
def test_list_json_from_lines_is_the_row_views_json(root, cli, status) -> None:
    """Escaped pipes and backslashes, quotes, tabs, wide spaces, control characters, bad IDs and statuses, short
    and long rows, CRLF, no last pipe and a row outside the table: the same bytes as the row views' JSON."""
    (root / "sessions").mkdir()
    (root / "sessions" / "2026-05-01-0900-a.md").write_text("# Session\n", encoding="utf-8")
    rows = "".join(line + "\n" for line in ODD)
    (root / "index.md").write_bytes((PREAMBLE + HEADER + SEPARATOR + rows + OUTSIDE).encode("utf-8"))
    out = _same_as_row_views(cli, root, status)
    if status != "idle":
        assert '"summary": "s | t"' in out and '"u0000 and |"' in out
        assert '"referenced_by": [\n      "\\"x\\"",\n      "y|z"\n    ]' in out
    if status != "active":
        assert '"C:\\\\path and a | pipe"' in out and '"\\\\u0000 written out"' in out


def test_list_json_from_lines_crlf_and_bytes_not_utf8(root, cli) -> None:
    """A CRLF index with a byte that is not UTF-8 in one row and an unknown column: the same bytes as the row
    views' JSON (the stand-in U+FFFD where the byte was)."""
    header = "| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At | Extra |"
    lines = [
        PREAMBLE.rstrip("\n"),
        "",
        header,
        "|---|---|---|---|---|---|---|---|---|---|",
        "| 2026-05-01-0900-a | agent | t | s | k | active | - | a | b | x |",
        "| 2026-05-01-0901-a | agent | t | s \\| u | k | stale | - | a | b | \\| |",
    ]
    data = (
        "\r\n".join(lines).encode("utf-8")
        + b"\r\n| 2026-05-01-0902-a | agent | \xff | s | k | idle | - | a | b | x |\r\n"
    )
    (root / "index.md").write_bytes(data)
    out = _same_as_row_views(cli, root, None)
    assert '"topic": "\ufffd"' in out and '"summary": "s | u"' in out and '"line": 6' in out
