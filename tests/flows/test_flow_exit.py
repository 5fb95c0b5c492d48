"""Closing the board while a flow's modal is open ends the flow instead of hanging the process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from memboard.board.app import MemboardApp
    from memboard.core.formats.clock import now
    from memboard.core.ops.demo import build_demo

    root = build_demo(Path(sys.argv[1]), now())

    async def main():
        app = MemboardApp(root, watch=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("o")
            for _ in range(250):
                await pilot.pause(0.02)
                if type(app.screen).__name__ != "Screen" and app.screen is not app.screen_stack[0]:
                    break
            print("modal:", type(app.screen).__name__, flush=True)
        print("board closed", flush=True)

    asyncio.run(main())
    print("process done", flush=True)
    """
)


def test_closing_the_board_with_a_flow_modal_open_exits(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "memory")],
        capture_output=True,
        timeout=90,
        env=dict(os.environ),
    )
    out = proc.stdout.decode()
    assert "modal: StaleDaysScreen" in out, (out, proc.stderr.decode()[-2000:])
    assert proc.returncode == 0 and "process done" in out, proc.stderr.decode()[-2000:]
