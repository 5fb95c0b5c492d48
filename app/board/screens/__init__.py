"""Modal screens of the board's flows: preview, message, pickers, update editor, chain view, questions,
planning and progress, the result log."""

from ..messages import LogEntry
from .chain import ChainScreen
from .confirm import LogScreen, QuestionScreen
from .kinds import Kind, KindsScreen
from .pickers import NEW_SESSION, Choice, SessionPicker, StaleDaysScreen
from .preview import LEAVE_OUT, MessageScreen, PreviewScreen
from .resolve import ResolveScreen
from .update import EditorResult, UpdateForm, UpdateScreen
from .waiting import PlanningScreen, ProgressScreen, Tally

__all__ = [
    "LEAVE_OUT",
    "NEW_SESSION",
    "ChainScreen",
    "Choice",
    "EditorResult",
    "Kind",
    "KindsScreen",
    "LogEntry",
    "LogScreen",
    "MessageScreen",
    "PlanningScreen",
    "PreviewScreen",
    "ProgressScreen",
    "QuestionScreen",
    "ResolveScreen",
    "SessionPicker",
    "StaleDaysScreen",
    "Tally",
    "UpdateForm",
    "UpdateScreen",
]
