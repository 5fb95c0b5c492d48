"""Small input modals of the flows: pick a session, set organize's stale days."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from memboard.styles import FLOWS_TCSS
from memboard.widgets.key_bar import KeyBar

from ..actions import bindings

NEW_SESSION = "\x00new-session"


@dataclass(frozen=True)
class Choice:
    """One session a picker offers: its ID, a descriptive line, and what choosing it returns (its ID by default)."""

    session_id: str
    label: str
    key: str = ""

    @property
    def value(self) -> str:
        """What the picker returns for this choice."""
        return self.key or self.session_id

    def matches(self, needle: str) -> bool:
        """Whether the filter text occurs in the ID or the label (case-insensitive)."""
        needle = needle.casefold()
        return needle in self.session_id.casefold() or needle in self.label.casefold()


class SessionPicker(ModalScreen[str | None]):
    """A filterable list of sessions; returns the chosen one's value (or NEW_SESSION), None on escape."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("picker")

    def __init__(self, title: str, choices: list[Choice], *, new_label: str | None = None, hint: str = ""):
        """Offer choices under title; new_label adds a first option for a new session."""
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.new_label = new_label
        self.hint = hint

    def compose(self) -> ComposeResult:
        """Title, hint, filter input and the list."""
        with Vertical(id="picker-dialog"):
            yield Label(Text(self.title_text), id="picker-title")
            if self.hint:
                yield Static(Text(self.hint), id="picker-hint")
            yield Input(placeholder="type to filter by ID, agent or topic", id="picker-filter")
            yield OptionList(*self.options(""), id="picker-list")
        yield KeyBar("picker")

    def options(self, needle: str) -> list[Option]:
        """Options matching the filter, the new-session option first."""
        out = []
        if self.new_label is not None:
            out.append(Option(Text(self.new_label, style="italic"), id=NEW_SESSION))
        for choice in self.choices:
            if not needle or choice.matches(needle):
                out.append(Option(Text(f"{choice.session_id}  {choice.label}"), id=choice.value))
        return out

    def on_mount(self) -> None:
        """Focus the filter and highlight the first option."""
        listing = self.query_one(OptionList)
        if listing.option_count:
            listing.highlighted = 0
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Narrow the list to what matches; highlight the first match (not the new-session line) while filtering."""
        listing = self.query_one(OptionList)
        needle = event.value.strip()
        listing.clear_options()
        listing.add_options(self.options(needle))
        first = 1 if needle and self.new_label is not None else 0
        if listing.option_count > first:
            listing.highlighted = first
        elif listing.option_count:
            listing.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter chooses the highlighted option."""
        event.stop()
        listing = self.query_one(OptionList)
        if listing.highlighted is not None and listing.option_count:
            self.dismiss(listing.get_option_at_index(listing.highlighted).id)
        else:
            self.app.bell()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Clicking or entering on an option chooses it."""
        event.stop()
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        """Move the highlight while typing in the filter."""
        listing = self.query_one(OptionList)
        if step > 0:
            listing.action_cursor_down()
        else:
            listing.action_cursor_up()

    def action_cancel(self) -> None:
        """Choose nothing."""
        self.dismiss(None)


class StaleDaysScreen(ModalScreen[int | None]):
    """Ask how many days without an update make an active session stale (organize)."""

    CSS_PATH = FLOWS_TCSS
    BINDINGS = bindings("stale")

    def __init__(self, days: int):
        """Start from days (config stale_days or 14)."""
        super().__init__()
        self.days = days

    def compose(self) -> ComposeResult:
        """Explanation and one integer input."""
        with Vertical(id="stale-dialog"):
            yield Label("Organize memory", id="stale-title")
            yield Static(
                Text(
                    "Deletes idle rows (not referenced, no snapshot) and marks active rows stale when their "
                    "Updated At is older than this many days. Enter previews; nothing is written yet."
                ),
                id="stale-help",
            )
            yield Input(str(self.days), type="integer", id="stale-days")
        yield KeyBar("stale")

    def on_mount(self) -> None:
        """Focus the input."""
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Preview with the entered number of days."""
        event.stop()
        value = event.value.strip()
        if not value.isdigit():
            self.notify("stale days must be a whole number, 0 or more", severity="error")
            return
        self.dismiss(int(value))

    def action_cancel(self) -> None:
        """Organize nothing."""
        self.dismiss(None)
