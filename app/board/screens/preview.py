"""The preview modal (a plan as coloured unified diffs, confirm or cancel) and a message modal."""

from __future__ import annotations

import difflib
import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Label, Static

from memboard.styles import FLOWS_TCSS

from ...core.plan import Plan, encoding_notes
from ..actions import bindings

MAX_SHOWN_LINES = 2000
HEADER_STARTS = ("diff --git", "--- ", "+++ ", "rename from", "rename to", "new file mode", "deleted file mode")
# characters a terminal would not show (or would take for a line break), drawn as visible marks
MARKS = {"\r": "␍", "\ufeff": "⟨BOM⟩", "\t": "\t"}


def readable(lines: list[str]) -> list[str]:
    """The patch's lines without those only `git apply` needs (`new file mode`, and the
    `diff --git` line of a file whose ---/+++ lines name it anyway); renames keep theirs."""
    out = []
    for number, line in enumerate(lines):
        if line.startswith(("new file mode", "deleted file mode")):
            continue
        if line.startswith("diff --git") and not (
            number + 1 < len(lines) and lines[number + 1].startswith("rename from")
        ):
            continue
        out.append(line)
    return out


def visible(line: str) -> str:
    """A diff line with its invisible characters drawn: `␍` for a CR (so a CRLF → LF change shows),
    `⟨BOM⟩`, `⟨U+2028⟩`-style marks for other control and separator characters, `⟨\\xe9⟩` for a
    byte that is not UTF-8."""
    if line.isprintable():  # every character this draws is unprintable: a printable line stays as it is
        return line
    out = []
    for ch in line:
        code = ord(ch)
        if ch in MARKS:
            out.append(MARKS[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, kept by surrogateescape
            out.append(f"⟨\\x{code - 0xDC00:02x}⟩")
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or ch in "\u2028\u2029" or 0xD800 <= code <= 0xDFFF:
            out.append(f"⟨U+{code:04X}⟩")
        else:
            out.append(ch)
    return "".join(out)


class DiffView(Widget):
    """Unified diff text, each line coloured by its kind, changed words of paired lines emphasised."""

    COMPONENT_CLASSES = {
        "diff--added",
        "diff--removed",
        "diff--hunk",
        "diff--header",
        "diff--context",
        "diff--changed",
    }

    def __init__(self, diff: str, *, empty: str = "No file changes.", id: str | None = None):
        """Show diff (or the empty message when there is none), at most MAX_SHOWN_LINES of it."""
        super().__init__(id=id)
        self.diff = diff
        self.empty = empty
        lines = readable(diff.split("\n"))  # `\n` only: U+2028 or \f is inside a line
        if lines and lines[-1] == "":
            lines.pop()
        self.hidden = max(0, len(lines) - MAX_SHOWN_LINES)
        self.lines = [visible(line) for line in lines[:MAX_SHOWN_LINES]]  # (an organize at 100k: 150k lines)
        self.kinds = [self.style_of(line) for line in self.lines]
        self.emphasis = changed_spans(self.lines, self.kinds)

    @staticmethod
    def style_of(line: str) -> str:
        """The component class for one diff line."""
        if line.startswith(HEADER_STARTS):
            return "diff--header"
        if line.startswith(("@@", "\\ ")):
            return "diff--hunk"
        if line.startswith("+"):
            return "diff--added"
        if line.startswith("-"):
            return "diff--removed"
        return "diff--context"

    def render(self) -> Text:
        """The diff as one Text; lines wrap so a whole index row stays in view."""
        if not self.lines:
            return Text(self.empty, style=self.get_component_rich_style("diff--context"))
        changed = self.get_component_rich_style("diff--changed")
        text = Text()
        for number, (line, kind) in enumerate(zip(self.lines, self.kinds)):
            start = len(text)
            text.append(line, style=self.get_component_rich_style(kind))
            for lo, hi in self.emphasis.get(number, ()):
                text.stylize(changed, start + lo, start + hi)
            if number < len(self.lines) - 1:
                text.append("\n")
        if self.hidden:
            text.append(
                f"\n… {self.hidden} more diff lines not shown here; they are part of the plan and are applied "
                "too (the command line's --dry-run prints them all)",
                style=self.get_component_rich_style("diff--hunk"),
            )
        return text


WORD = re.compile(r"\s+|\||[^\s|]+")


def differing_words(line: str, other: str) -> list[tuple[int, int]]:
    """Character spans of line (after its +/- mark) whose words are not in other."""
    mine = [(m.start(), m.end()) for m in WORD.finditer(line, 1)]
    theirs = [m.group() for m in WORD.finditer(other, 1)]
    words = [line[a:b] for a, b in mine]
    matcher = difflib.SequenceMatcher(None, words, theirs, autojunk=False)
    out = []
    for op, lo, hi, _, _ in matcher.get_opcodes():
        if op != "equal" and hi > lo:
            out.append((mine[lo][0], mine[hi - 1][1]))
    return out


def changed_spans(lines: list[str], kinds: list[str]) -> dict[int, list[tuple[int, int]]]:
    """For runs of removed lines followed by as many added lines, the spans that differ."""
    spans: dict[int, list[tuple[int, int]]] = {}
    number = 0
    while number < len(lines):
        if kinds[number] != "diff--removed":
            number += 1
            continue
        removed_end = number
        while removed_end < len(lines) and kinds[removed_end] == "diff--removed":
            removed_end += 1
        added_end = removed_end
        while added_end < len(lines) and kinds[added_end] == "diff--added":
            added_end += 1
        if removed_end - number == added_end - removed_end:
            for old, new in zip(range(number, removed_end), range(removed_end, added_end)):
                for line, other, where in ((lines[old], lines[new], old), (lines[new], lines[old], new)):
                    found = differing_words(line, other)
                    if found:
                        spans[where] = found
        number = added_end
    return spans


def plan_summary(plan: Plan) -> str:
    """One line: how many file steps and which."""
    if plan.empty:
        return "No file changes: nothing will be written."
    steps = "; ".join(ch.describe() for ch in plan.changes)
    noun = "change" if len(plan.changes) == 1 else "changes"
    return f"{len(plan.changes)} file {noun}, in this order: {steps}"


class PreviewScreen(ModalScreen[bool]):
    """Every change of a plan as a diff, its report and any refusals; True applies it."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("preview")

    def __init__(
        self,
        title: str,
        plan: Plan,
        *,
        report: list[str] | None = None,
        notes: list[str] | None = None,
        refusals: list[str] | None = None,
        diff: str | None = None,
    ):
        """Preview plan under title; report defaults to the plan's own report lines.

        diff is the plan's unified diff when the caller computed it already (off the UI thread).
        """
        super().__init__()
        self.diff = plan.diff() if diff is None else diff
        self.title_text = title
        self.plan = plan
        self.report = plan.report if report is None else report
        self.notes = [*(notes or []), *encoding_notes(plan)]  # BOM and line-ending changes, in words
        self.refusals = refusals or []

    def compose(self) -> ComposeResult:
        """Title, notes, refusals, report, the diff and the two buttons."""
        with Vertical(id="preview-dialog"):
            yield Label(Text(self.title_text), id="preview-title")
            for note in self.notes:
                yield Static(Text(note), classes="preview-note")
            for refusal in self.refusals:
                yield Static(Text(refusal), classes="preview-refusal")
            if self.report:
                yield Static(Text("\n".join(self.report)), id="preview-report")
            yield Static(Text(plan_summary(self.plan)), id="preview-summary")
            with VerticalScroll(id="preview-diff"):
                yield DiffView(self.diff, id="preview-diff-text")
            with Horizontal(id="preview-buttons"):
                label = "Close (enter)" if self.plan.empty else "Apply (enter / y)"
                yield Button(label, variant="success", id="confirm")
                yield Button("Cancel (esc / n)", variant="error", id="cancel")

    def on_mount(self) -> None:
        """Focus the diff so the arrow keys scroll it."""
        self.query_one("#preview-diff").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Confirm or cancel from the buttons."""
        event.stop()
        self.dismiss(event.button.id == "confirm")

    def action_confirm(self) -> None:
        """Apply this plan."""
        self.dismiss(True)

    def action_cancel(self) -> None:
        """Write nothing."""
        self.dismiss(False)


class MessageScreen(ModalScreen[None]):
    """A short explanation (a refusal, a failure, or nothing to do) with one OK button."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("message")

    def __init__(self, title: str, message: str, *, footnote: str = "Nothing was written.", error: bool = True):
        """Say message under title; error styles it as a refusal."""
        super().__init__()
        self.title_text = title
        self.message = message
        self.footnote = footnote
        self.error = error

    def compose(self) -> ComposeResult:
        """Title, message, OK."""
        with Vertical(id="message-dialog", classes="-error" if self.error else ""):
            yield Label(Text(self.title_text), id="message-title")
            yield Static(Text(self.message), id="message-text")
            if self.footnote:
                yield Static(Text(self.footnote), id="message-footnote")
            with Horizontal(id="message-buttons"):
                yield Button("OK (enter)", id="ok")

    def on_mount(self) -> None:
        """Focus the OK button."""
        self.query_one("#ok").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Close."""
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)
