"""The live view in a real terminal (issue 27 §1): the board runs as a user runs it, `python -m memboard` in a
detached tmux session at 80×24 with its file watcher on and the default settle window, while this test saves
files the way editors, synced drives and agents do. What the terminal shows is read with `tmux capture-pane`,
polled under deadlines (never a sleep and a hope): a machine under load only makes the waits longer.

Skipped, with the reason, where tmux is not installed; CI installs it (.ci/run)."""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.board.test_board_live import ADDED, ANCHOR
from tests.support.roots import table_line

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed: the real-terminal checks need it")
WIDTH, HEIGHT = 80, 24
START_LIMIT = 60.0  # seconds for the board's first screen on a loaded machine
LIMIT = 20.0  # seconds for anything after that
EMPTY_HASH = "e3b0c44298fc"  # the name part of an empty file's revision (sha256 of b"")
_sockets = itertools.count()


class Terminal:
    """One board in a detached tmux session of its own server (its own socket: no other tmux is touched)."""

    def __init__(self, root: Path, state: Path):
        """Start the board on root with local state in state."""
        self.socket = f"memboard-test-{os.getpid()}-{next(_sockets)}"
        self.state = state
        env = {
            "MEMBOARD_STATE_DIR": str(state),
            "MEMBOARD_CONFIG": str(state / "config.toml"),
            "MEMBOARD_NOW": os.environ.get("MEMBOARD_NOW", "2026-06-01 09:30"),  # the suite's fixed clock
            "MEMBOARD_SETTLE_SECONDS": "0.5",  # the default window: what a user's board waits
            "TERM": "xterm-256color",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH")])),
        }
        board = " ".join(shlex.quote(part) for part in (sys.executable, "-m", "memboard", "--root", str(root)))
        assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = f"env -u MEMBOARD_ROOT {assigns} {board}; echo BOARD-EXITED $?; sleep 600"
        self.tmux("new-session", "-d", "-s", "board", "-x", str(WIDTH), "-y", str(HEIGHT), command)

    def tmux(self, *args: str) -> str:
        """Run one tmux command on this terminal's server; its output."""
        done = subprocess.run(
            [TMUX or "tmux", "-L", self.socket, "-f", os.devnull, *args], capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def screen(self) -> str:
        """What the terminal shows now."""
        return self.tmux("capture-pane", "-p", "-t", "board")

    def keys(self, *keys: str, literal: bool = False) -> None:
        """Press keys (tmux key names, or literal text)."""
        self.tmux("send-keys", "-t", "board", *(["-l"] if literal else []), *keys)

    def wait(
        self, what: str, ok: Callable[[str], bool], limit: float = LIMIT, never: Callable[[str], str] | None = None
    ) -> str:
        """Poll the screen until ok(screen); the screen. never(screen) names what must not show meanwhile."""
        deadline = time.monotonic() + limit
        while True:
            text = self.screen()
            if never is not None and (bad := never(text)):
                raise AssertionError(f"the terminal showed {bad}:\n{text}")
            if "BOARD-EXITED" in text:
                raise AssertionError(f"the board exited:\n{text}")
            if ok(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed {what} within {limit:g} s:\n{text}")
            time.sleep(0.05)

    def watch(self, seconds: float, never: Callable[[str], str]) -> list[str]:
        """Poll the screen for seconds, failing as soon as never(screen) names something; the screens seen."""
        seen, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            text = self.screen()
            if bad := never(text):
                raise AssertionError(f"the terminal showed {bad}:\n{text}")
            seen.append(text)
            time.sleep(0.05)
        return seen

    def close(self) -> None:
        """Stop the board and this terminal's tmux server."""
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def terminal(tmp_path) -> Iterator[Callable[[Path], Terminal]]:
    """Open the board on a root in a real terminal (closed after the test)."""
    opened: list[Terminal] = []

    def open_board(root: Path) -> Terminal:
        term = Terminal(root, tmp_path / "board-state")
        opened.append(term)
        term.wait("the board's first screen", lambda s: "memboard" in s and "Session ID" in s, START_LIMIT)
        return term

    yield open_board
    for term in opened:
        term.close()


def revision_files(state: Path, sid: str) -> list[Path]:
    """The revisions the board kept of a session, oldest first."""
    return sorted(state.glob(f"roots/*/revisions/{sid}/*.md"))


def recorded(state: Path, sid: str, want: list[bytes]) -> list[Path]:
    """The revisions kept of a session once they hold want's bytes, or when LIMIT has passed (what was kept then).

    The pane shows a settled, whole file as the newest revision at once; the reload worker's poll writes it into
    local state a moment later, so a test reading local state right after the screen changed races that poll."""
    deadline = time.monotonic() + LIMIT
    while True:
        files = revision_files(state, sid)
        if [f.read_bytes() for f in files] == want or time.monotonic() > deadline:
            return files
        time.sleep(0.05)


def test_an_editor_save_of_a_snapshot_is_one_revision_in_the_terminal(terminal, demo_root, ids):
    sid = ids["hook"]
    path = demo_root / "sessions" / f"{sid}.md"
    original = path.read_bytes()
    saved = original.replace(ANCHOR.encode(), (ANCHOR + ADDED).encode())
    term = terminal(demo_root)
    term.keys("/")
    term.keys(sid, literal=True)
    term.keys("Enter")  # keep the filter
    for _ in range(10):  # enter on the table opens the (folded, at 80×24) pane full width; in the box it keeps again
        term.keys("Enter")
        try:
            term.wait("the snapshot's first revision", lambda s: "Revision 1/1" in s and sid in s, limit=3)
            break
        except AssertionError:
            continue
    term.wait("the snapshot's first revision", lambda s: "Revision 1/1" in s and sid in s)
    state = term.state
    deadline = time.monotonic() + LIMIT
    while not revision_files(state, sid) and time.monotonic() < deadline:  # (the first pass records it)
        time.sleep(0.05)
    for saves in (1, 2):  # twice: a second save of the same bytes is no revision either
        path.write_bytes(b"")  # the editor truncates...
        term.watch(0.6, lambda s, bad=f"Revision {saves + 1}": (bad in s and "the empty read as a revision") or "")
        path.write_bytes(saved)  # ...and writes the file back with one Decision added
        screen = term.wait("the saved revision", lambda s: "Revision 2/2" in s and "+" + ADDED.strip() in s)
        assert "+" + ANCHOR.strip() not in screen, "every line shown as added"
        assert "✓ no item dropped without a marker" in screen
        files = recorded(state, sid, [original, saved])  # (the pane shows the settled file before the poll records it)
        assert not [f for f in files if f.stat().st_size == 0 or EMPTY_HASH in f.name], "an empty revision"
        assert [f.read_bytes() for f in files] == [original, saved]
        term.watch(0.6, lambda s: ("Revision 3" in s and "a third revision") or "")


ROWS = [f"2026-05-0{i}-1000-agent{i}" for i in range(1, 6)]


def test_a_slow_save_of_the_index_keeps_marks_and_cursor_in_the_terminal(terminal, write_index, make_row, root):
    path = write_index([make_row(sid, topic=f"work {i}") for i, sid in enumerate(ROWS)])
    data = path.read_bytes()
    term = terminal(root)
    term.wait("the rows", lambda s: all(sid in s for sid in ROWS))
    term.keys("Down", "Space")  # mark the second row (space moves on: the cursor is on the third)
    term.wait("the mark", lambda s: "1 marked" in s and f"● {ROWS[1]}" in s)

    def lost(screen: str) -> str:
        if "holds no session row" in screen:
            return "an empty memory"
        if "1 marked" not in screen:
            return "the marks gone"
        return "" if all(sid in screen for sid in ROWS) else "rows gone"

    path.write_bytes(b"")  # truncate, a synced drive's second of pause...
    seen = term.watch(1.0, lost)
    assert any("index.md is being saved…" in s for s in seen)
    path.write_bytes(data)  # ...and the same bytes written back
    term.wait("the saved index", lambda s: "being saved" not in s, never=lost)
    screen = term.screen()
    assert f"● {ROWS[1]}" in screen and "1 marked" in screen
    term.keys("Enter")  # the pane of the cursor's row, full width
    pane = term.wait("the cursor row's pane", lambda s: "Agent" in s and "Started" in s)
    assert ROWS[2] in "".join(pane.splitlines()[:3]), "the cursor moved"


def test_a_row_an_agent_appends_below_text_under_the_table_shows_in_the_terminal(terminal, write_index, make_row, root):
    path = write_index([make_row(sid) for sid in ROWS[:3]], extra="\nRows are appended by hooks.\n")
    term = terminal(root)
    term.wait("the rows", lambda s: all(sid in s for sid in ROWS[:3]))
    sid = "2026-06-01-0925-below"
    with open(path, "a", encoding="utf-8") as f:
        f.write(table_line(make_row(sid)) + "\n")  # "append only the new row": after the text
    screen = term.wait("the appended row", lambda s: sid in s)
    line = next(line for line in screen.splitlines() if sid in line)
    assert line.lstrip().startswith("!"), "shown unmarked"
    assert "all 4" in screen
