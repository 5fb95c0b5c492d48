"""Modal screens of the board's flows: preview, message, pickers, update editor, chain view."""

from .chain import ChainScreen
from .pickers import NEW_SESSION, Choice, SessionPicker, StaleDaysScreen
from .preview import DiffView, MessageScreen, PreviewScreen
from .update import UpdateForm, UpdateScreen

__all__ = [
    "NEW_SESSION",
    "ChainScreen",
    "Choice",
    "DiffView",
    "MessageScreen",
    "PreviewScreen",
    "SessionPicker",
    "StaleDaysScreen",
    "UpdateForm",
    "UpdateScreen",
]
