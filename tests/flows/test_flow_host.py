"""The flows' typed contract with the board (FlowHost), and the refresh after a flow, off the UI thread."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import SimpleNamespace

import memboard.board.sessions as board_sessions
from memboard.board.flows import BoardFlows, FlowHost
from memboard.board.messages import AskScreen, FlowFinished
from memboard.board.screens import PreviewScreen
from memboard.core.files.root import MemoryRoot

from .driving import live_ids, make_app, open_on, ready, wait_for_flow
from .sample import FOLLOWER, LONER


@dataclass
class StandInHost:
    """A FlowHost that is no Textual App: it answers every modal with yes and records what it was told."""

    memory_root: MemoryRoot
    agent_name: str = "codex"
    current_session_id: str | None = LONER
    marked_session_ids: list[str] = field(default_factory=list)
    told: list[object] = field(default_factory=list)

    def modal_open(self) -> bool:
        """No modal is ever open here."""
        return False

    def bell(self) -> None:
        """Record the bell."""
        self.told.append("bell")

    def notify(self, message: str, *, severity: str = "information") -> None:
        """Record a toast."""
        self.told.append(message)

    def post_message(self, message) -> bool:
        """Report a flow's end as shown at once; a screen not waited on is dismissed at once."""
        self.told.append(message)
        if isinstance(message, AskScreen):
            message.answer(None)
        elif isinstance(message, FlowFinished):
            message.shown.set_result(None)
        return True

    def ask(self, screen):
        """Answer a modal with yes."""
        self.told.append(screen)
        return True

    def wait(self, future):
        """Wait for future (nothing here closes under a flow)."""
        return future.result(30)

    def run_worker(self, work, **options):
        """Run the flow in a plain thread to its end."""
        thread = threading.Thread(target=work)
        thread.start()
        thread.join(30)
        return SimpleNamespace(is_finished=not thread.is_alive(), options=options)


def test_flows_need_nothing_but_the_flow_host(sample_root):
    host = StandInHost(MemoryRoot(sample_root))
    assert isinstance(host, FlowHost)
    flows = BoardFlows(host)
    flows.archive()
    asked, finished = host.told
    assert isinstance(asked, PreviewScreen)
    assert isinstance(finished, FlowFinished) and finished.applied and finished.clear_marks
    assert flows.worker.options == {
        "name": "archive",
        "group": "flow",
        "exclusive": True,
        "thread": True,
        "exit_on_error": False,
    }
    assert (sample_root / "archive" / LONER / "index.md").exists()
    assert LONER not in (sample_root / "index.md").read_text(encoding="utf-8")


def test_a_flow_cannot_start_while_one_runs_or_without_a_selection(sample_root):
    host = StandInHost(MemoryRoot(sample_root), current_session_id=None)
    flows = BoardFlows(host)
    flows.update()
    assert host.told == ["Select a session to update"]
    flows.worker = SimpleNamespace(is_finished=False)
    flows.doctor()
    assert host.told[-1] == "bell"


async def test_the_board_is_the_flows_host(sample_root):
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert isinstance(app, FlowHost) and app.flows.host is app


async def test_the_refresh_after_a_flow_reads_off_the_ui_thread(sample_root, monkeypatch):
    reads: list[int] = []
    real_read_model = board_sessions.read_model

    def recorded(*args, **kwargs):
        reads.append(threading.get_ident())
        return real_read_model(*args, **kwargs)

    monkeypatch.setattr(board_sessions, "read_model", recorded)
    app = make_app(sample_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        ui_thread = threading.get_ident()
        await open_on(pilot, LONER, "a", PreviewScreen)
        reads.clear()
        await pilot.press("enter")
        await wait_for_flow(pilot)
        assert reads and ui_thread not in reads
        assert LONER not in live_ids(app) and FOLLOWER in live_ids(app)  # the flow ended with its result shown
