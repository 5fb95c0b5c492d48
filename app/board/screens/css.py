"""Where the flows' stylesheet lives (shipped in memboard.styles)."""

from __future__ import annotations

from pathlib import Path

import memboard.styles

FLOWS_TCSS = Path(memboard.styles.__file__).parent / "flows.tcss"
