"""What every editor of the board shares (the update editor, the note editor): enter in an input or the
Preview button previews, the other button closes; each editor says what previewing and closing do."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen
from textual.widgets import Button, Input

Result = TypeVar("Result")


class FormScreen(ModalScreen[Result]):
    """A modal editor whose inputs preview on enter and whose buttons are `#preview` and another (close)."""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in an input previews."""
        event.stop()
        self.action_preview()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Preview, or close, from the buttons."""
        event.stop()
        if event.button.id == "preview":
            self.action_preview()
        else:
            self.action_cancel()

    def action_preview(self) -> None:
        """Hand what was edited to the flow, which previews it."""
        raise NotImplementedError

    def action_cancel(self) -> None:
        """Close the editor."""
        raise NotImplementedError
