"""The tools' annotations, by one rule an auto-approving client can rely on.

`readOnlyHint` only for a tool that writes nothing. `destructiveHint` for every tool that can
delete a line someone wrote or rewrite text in place (a row's Summary, a snapshot's sections, a
note's texts, current.md, a fact), even when the old text is kept elsewhere (a revision, history.md,
an archive): where the agent or the user reads it, it changed. Not destructive: a tool that only
adds (a new row, a new note, a line appended). `idempotentHint` for a tool whose second call with
the same arguments changes nothing more (the first moved, set or appended it); every tool that
stamps a time (Updated At) or registers something new is not. `openWorldHint` is false for all:
they touch the memory files on this machine, nothing beyond.
"""

from __future__ import annotations

from mcp_types import ToolAnnotations


def _hints(read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """The annotations of one kind of tool."""
    if read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return ToolAnnotations(
        read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent, open_world_hint=False
    )


READS = _hints(read_only=True)
ADDS = _hints(read_only=False)  # adds a row, a note, an entry, a reference: nothing is rewritten
APPENDS = _hints(read_only=False, idempotent=True)  # appends; the same block again is `nothing to change`
REWRITES = _hints(read_only=False, destructive=True)  # rewrites text in place (stamping a time, or more)
REMOVES = _hints(read_only=False, destructive=True, idempotent=True)  # removes, moves or sets; then nothing left to do
