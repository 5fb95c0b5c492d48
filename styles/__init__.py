"""Textual CSS files of the board: board.tcss (the App and its status colours), flows.tcss
(its modal flows, read when the first of them opens), views.tcss (search, the archive and a
read-only session), notes.tcss (the notes view and its modals) and spaces.tcss (the Spaces and
Hierarchy screens)."""

from pathlib import Path

BOARD_TCSS = Path(__file__).parent / "board.tcss"
FLOWS_TCSS = Path(__file__).parent / "flows.tcss"
VIEWS_TCSS = Path(__file__).parent / "views.tcss"
NOTES_TCSS = Path(__file__).parent / "notes.tcss"
SPACES_TCSS = Path(__file__).parent / "spaces.tcss"
