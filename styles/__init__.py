"""Textual CSS files of the board: board.tcss (the App and its status colours), flows.tcss
(its modal flows, read when the first of them opens) and views.tcss (search, the archive and a
read-only session)."""

from pathlib import Path

BOARD_TCSS = Path(__file__).parent / "board.tcss"
FLOWS_TCSS = Path(__file__).parent / "flows.tcss"
VIEWS_TCSS = Path(__file__).parent / "views.tcss"
