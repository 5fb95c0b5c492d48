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
from ..messages import JumpToSession, LogEntry
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


def log_lines(entries: list[LogEntry], cursor: int | None = None) -> tuple[list[ViewLine], list[int]]:
    """The log, newest first: a line per flow, its details indented below (the entry at cursor, counted newest
    first, drawn as the cursor), and the number of each entry's first line."""
    if not entries:
        text = "Nothing yet: each change you preview in this run (applied, cancelled or refused) is listed here."
        return [ViewLine(text, "muted")], []
    out: list[ViewLine] = []
    heads: list[int] = []
    for number, entry in enumerate(reversed(entries)):
        head = f"{entry.at:%H:%M:%S}  {entry.op:<9} {entry.outcome}"
        kind = {"error": "refusal", "warning": "note"}.get(entry.severity, "text")
        heads.append(len(out))
        if number == cursor:
            out.append(ViewLine(head, "cursor"))
        else:
            out.append(ViewLine(head, kind, ((0, 8, "muted"), (10, 10 + len(entry.op), "row"))))
        out += [ViewLine(f"          {line}", "muted") for line in entry.details]
    return out, heads


def log_title(entries: list[LogEntry]) -> str:
    """`Result log: 1 change applied in this run; 3 flows ended without writing` (cancelled, refused, nothing to
    do: only what was written is a change)."""
    applied = sum(1 for entry in entries if entry.applied)
    title = f"Result log: {applied} {'change' if applied == 1 else 'changes'} applied in this run"
    rest = len(entries) - applied
    return f"{title}; {rest} {'flow' if rest == 1 else 'flows'} ended without writing" if rest else title


LOG_HINT = "↑↓ choose a line · enter: what that change wrote (its files, d: the exact diff), or the session it is about"


class LogScreen(ModalScreen[None]):
    """The result log: what each flow of this run did, in full (the toasts only say it briefly); enter on a line
    opens what that change wrote, or goes to the session a flow that wrote nothing was about."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("log")

    def __init__(self, entries: list[LogEntry]):
        """Show entries (oldest first), the newest under the cursor."""
        super().__init__()
        self.entries = entries
        self.cursor = 0  # counted newest first, as they are listed

    def compose(self) -> ComposeResult:
        """Title and the entries."""
        with Vertical(id="log-dialog"):
            yield Label(Text(log_title(self.entries)), id="log-title")
            if self.entries:
                yield Static(Text(LOG_HINT), id="log-hint")
            yield LineView(log_lines(self.entries, self.cursor)[0], id="log-body")
        yield KeyBar("log")

    def on_mount(self) -> None:
        """Focus the entries so the page keys scroll them."""
        self.query_one("#log-body").focus()

    @property
    def entry(self) -> LogEntry | None:
        """The entry under the cursor (None when the log is empty)."""
        return self.entries[len(self.entries) - 1 - self.cursor] if self.entries else None

    def action_move(self, step: int) -> None:
        """Move the cursor to the next (or previous) line, scrolling it into view."""
        if not self.entries:
            self.app.bell()
            return
        self.cursor = min(max(self.cursor + step, 0), len(self.entries) - 1)
        lines, heads = log_lines(self.entries, self.cursor)
        body = self.query_one("#log-body", LineView)
        top = body.top_line
        body.set_lines(lines, top=False)
        head = heads[self.cursor]
        end = heads[self.cursor + 1] if self.cursor + 1 < len(heads) else len(lines)
        if head < top or end > top + body.size.height:
            body.scroll_to_line(head)

    def action_open(self) -> None:
        """Open the line under the cursor: what its change wrote, or the session it is about; else the bell."""
        entry = self.entry
        if entry is not None and entry.written is not None and entry.applied:
            # lazy: the applied change's view loads when first opened
            from .applied import AppliedScreen

            self.app.push_screen(AppliedScreen(entry))
        elif entry is not None and entry.session_id:
            self.dismiss(None)
            self.app.post_message(JumpToSession(entry.session_id))
        else:
            self.app.bell()
            self.notify("Nothing to open: that flow wrote nothing and was about no one session.", timeout=3)

    def action_close(self) -> None:
        """Close the log."""
        self.dismiss(None)
