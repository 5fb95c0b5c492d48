"""A yes/no question (quit with a change open, discard a draft) and the result log (`l`)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar
from memboard.widgets.line_view import LineView

from ..actions import bindings
from ..messages import LogEntry
from ..planview import ViewLine


@dataclass(frozen=True)
class Choice:
    """One answer of a question: what it returns, its button label, its key (shown on the button)."""

    value: str
    label: str
    key: str


YES = Choice("yes", "Yes", "y")
NO = Choice("no", "No", "esc / n")
KEEP = Choice("keep", "Close, keep the draft", "k")


class QuestionScreen(ModalScreen[str]):
    """A question with a few answers; returns the chosen answer's value (escape and n: the last one)."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("confirm")

    def __init__(self, title: str, text: str, choices: tuple[Choice, ...] = (YES, NO), *, footer: str = "confirm"):
        """Ask text under title; the last choice is what escape and n answer; footer names the key bar's place."""
        super().__init__()
        self.title_text = title
        self.text = text
        self.choices = choices
        self.footer = footer

    def compose(self) -> ComposeResult:
        """Title, question, a button per answer."""
        with Vertical(id="question-dialog"):
            yield Label(Text(self.title_text), id="question-title")
            yield Static(Text(self.text), id="question-text")
            # three answers do not fit side by side in the dialog (72 wide at most): one per line, whole
            with Horizontal(id="question-buttons", classes="-stacked" if len(self.choices) > 2 else ""):
                for number, choice in enumerate(self.choices):
                    yield Button(
                        f"{choice.label} ({choice.key})",
                        id=f"answer-{number}",
                        variant="primary" if number == 0 else "default",
                    )
        yield KeyBar(self.footer)

    def on_mount(self) -> None:
        """Focus the last (safe) answer."""
        self.query_one(f"#answer-{len(self.choices) - 1}").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the pressed button."""
        event.stop()
        self.dismiss(self.choices[int(str(event.button.id).rsplit("-", 1)[1])].value)

    def action_yes(self) -> None:
        """The first answer."""
        self.dismiss(self.choices[0].value)

    def action_no(self) -> None:
        """The last answer (the safe one)."""
        self.dismiss(self.choices[-1].value)

    def action_keep(self) -> None:
        """The `keep` answer, where the question has one."""
        if any(choice.value == KEEP.value for choice in self.choices):
            self.dismiss(KEEP.value)


def log_lines(entries: list[LogEntry]) -> list[ViewLine]:
    """The log, newest first: a line per flow, its details indented below."""
    if not entries:
        return [
            ViewLine(
                "Nothing yet: each change you preview in this run (applied, cancelled or refused) is listed here.",
                "muted",
            )
        ]
    out: list[ViewLine] = []
    for entry in reversed(entries):
        head = f"{entry.at:%H:%M:%S}  {entry.op:<9} {entry.outcome}"
        kind = {"error": "refusal", "warning": "note"}.get(entry.severity, "text")
        out.append(ViewLine(head, kind, ((0, 8, "muted"), (10, 10 + len(entry.op), "row"))))
        out += [ViewLine(f"          {line}", "muted") for line in entry.details]
    return out


def log_title(entries: list[LogEntry]) -> str:
    """`Result log: 1 change applied in this run; 3 flows ended without writing` (cancelled, refused, nothing to
    do: only what was written is a change)."""
    applied = sum(1 for entry in entries if entry.applied)
    title = f"Result log: {applied} {'change' if applied == 1 else 'changes'} applied in this run"
    rest = len(entries) - applied
    return f"{title}; {rest} {'flow' if rest == 1 else 'flows'} ended without writing" if rest else title


class LogScreen(ModalScreen[None]):
    """The result log: what each flow of this run did, in full (the toasts only say it briefly)."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("log")

    def __init__(self, entries: list[LogEntry]):
        """Show entries (oldest first)."""
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        """Title and the entries."""
        with Vertical(id="log-dialog"):
            yield Label(Text(log_title(self.entries)), id="log-title")
            yield LineView(log_lines(self.entries), id="log-body")
        yield KeyBar("log")

    def on_mount(self) -> None:
        """Focus the entries so the arrow keys scroll them."""
        self.query_one("#log-body").focus()

    def action_close(self) -> None:
        """Close the log."""
        self.dismiss(None)
