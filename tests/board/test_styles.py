"""Status colours come from the stylesheet: no colour is written in the board's Python code."""

from __future__ import annotations

import re
from pathlib import Path

from rich.color import Color

from memboard.board.app import MemboardApp
from memboard.widgets.board_status import BoardStatus

HERE = Path(__file__).resolve().parents[2]
SOURCES = [*HERE.glob("app/board/**/*.py"), *HERE.glob("widgets/*.py")]
COLOUR_NAME = re.compile(r"""["'](?:[^"']*\s)?(?:red|green|yellow|magenta|blue|cyan)["']""")


def test_no_colour_is_written_in_the_board_code():
    for path in SOURCES:
        assert not COLOUR_NAME.search(path.read_text(encoding="utf-8")), path


class Repainted(MemboardApp):
    """The board with the stylesheet's status colours changed."""

    CSS = """
    BoardStatus > .board-status--active { color: #123456; }
    SessionTable > .session-table--active { color: #654321; }
    """


async def test_the_counts_line_and_the_table_take_status_colours_from_the_stylesheet(demo_root):
    app = Repainted(demo_root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        line = app.query_one(BoardStatus).render()
        chip = next(span for span in line.spans if line.plain[span.start : span.end].startswith(" active "))
        assert chip.style.rich_style.color == Color.parse("#123456")
        active_row = next(
            i for i, row in enumerate(app.sessions.table.rows) if row.status == "active" and not row.problem
        )
        strip = app.sessions.table.render_line(active_row + 1 - int(app.sessions.table.scroll_offset.y))
        assert any(seg.style and seg.style.color == Color.parse("#654321") for seg in strip)
