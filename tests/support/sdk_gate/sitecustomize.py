"""Holds the MCP SDK's loading back until a file exists (tests/mcp/test_mcp_wire.py): on PYTHONPATH, with
MEMBOARD_TEST_SDK_GATE naming the file, importing pydantic_core (which the SDK's types need, and nothing of memboard's
own start does) waits for it, so a test sees what the server answers while the SDK cannot have loaded."""

import os
import sys
import time

GATE = os.environ.get("MEMBOARD_TEST_SDK_GATE")


class Gate:
    """A meta path finder that finds nothing: it only waits, once, before pydantic_core is looked for."""

    opened = False

    def find_spec(self, name, path=None, target=None):
        """Wait for the gate file before the first lookup of pydantic_core; then let the real finders find it."""
        if name == "pydantic_core" and not Gate.opened:
            deadline = time.monotonic() + 120
            while not os.path.exists(GATE) and time.monotonic() < deadline:
                time.sleep(0.02)
            Gate.opened = True
        return None


if GATE:
    sys.meta_path.insert(0, Gate())
