"""The archive's metadata file (`archive/<id>/index.md`): the seed's template for an archived row."""

from __future__ import annotations

from .text import escape

ARCHIVE_TEMPLATE = """# Archived Session: {id}

## Metadata

| Field | Value |
|---|---|
| Session ID | {id} |
| Agent Name | {agent} |
| Topic | {topic} |
| Summary | {summary} |
| Keywords | {keywords} |
| Original Status | {status} |
| Referenced By | {referenced_by} |
| Started At | {started_at} |
| Updated At | {updated_at} |
| Archived At | {archived_at} |

## Files

- Session: ./session.md
"""


def render_archive_index(values: dict[str, str], archived_at: str) -> str:
    """The archive `index.md` for a row, exactly in the seed's template."""
    return ARCHIVE_TEMPLATE.format(
        id=values.get("id", ""),
        agent=escape(values.get("agent", "")),
        topic=escape(values.get("topic", "")),
        summary=escape(values.get("summary", "")),
        keywords=escape(values.get("keywords", "")),
        status=escape(values.get("status", "")),
        referenced_by=escape(values.get("referenced_by", "") or "-"),
        started_at=escape(values.get("started_at", "")),
        updated_at=escape(values.get("updated_at", "")),
        archived_at=archived_at,
    )
