"""What a tool answers: a JSON result (the command line's `--json`, from service/output.py) or one clear error line.

A change answers its plan as `--json` shows it, with the report and, after a verified write,
the success line (such as "Your Memory Session ID is: ..."); a dry run answers the exact patch
`--dry-run` prints instead, and writes nothing. Errors are tool results with `is_error` set,
one line saying why and whether anything was written.
"""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from ..core.errors import INCOMPLETE, MemboardError
from ..core.plan import Plan
from ..core.secrets import SecretFound
from ..service.output import change_json, dumps
from .surface import structured

JSON = dict[str, Any]


def ok(value: object) -> CallToolResult:
    """A result: the JSON as text, as `--json` prints it, and the same value as structured content (the tool's
    outputSchema says its shape; a list is `{"result": [...]}`), as the protocol asks of a tool with an
    outputSchema. A client passes the model one or the other; listings have a limit argument to stay small."""
    return CallToolResult(content=[TextContent(type="text", text=dumps(value))], structured_content=structured(value))


def failure(message: str) -> CallToolResult:
    """A tool error: one line, `is_error` set."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def change(plan: Plan[Any], dry_run: bool) -> CallToolResult:
    """A change's answer: its result, the file changes, the report; the patch when it was a dry run."""
    return ok(change_json(plan, dry_run))


def error_line(exc: MemboardError) -> str:
    """A refusal as one line that says whether anything was written, from its type: `written` (an incomplete
    write says so itself), or a line that already says it (`says_written`); else `; nothing written` is added."""
    if isinstance(exc, SecretFound):  # the command line's hint (--allow-secrets) is not an agent's to take
        return exc.refusal("leave it out of the text; nothing written")
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if exc.written == INCOMPLETE or exc.says_written or text.endswith("nothing written"):  # migrate's say it
        return text
    return f"{text}; nothing written"


def bad_arguments(tool: str, exc: ValidationError) -> str:
    """The arguments a tool rejected, one line: each field and why."""
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{field}: {error['msg']}")
    return f"{tool}: bad arguments: {'; '.join(problems)}; nothing written"
