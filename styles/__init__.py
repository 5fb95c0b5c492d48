"""Textual CSS files of the board: board.tcss (the App and its status colours) and flows.tcss
(its modal flows, read when the first of them opens)."""

from pathlib import Path

BOARD_TCSS = Path(__file__).parent / "board.tcss"
FLOWS_TCSS = Path(__file__).parent / "flows.tcss"
