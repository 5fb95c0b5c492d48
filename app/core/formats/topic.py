"""Topic keys and note IDs: the names of typed notes, validated before they become paths.

A topic key names what a note is about, path-like and stable: segments of lowercase ASCII
letters, digits, `.`, `_` and `-` joined by `/` (`project/ekyc/android-sdk`). A segment never
starts or ends with `.` (no `..`, no hidden files, no name Windows would trim), is never one of
Windows' device names (`con`, `nul`, `com1`, ...), and keys are bounded (segments of at most 64
characters, at most 10 of them, 160 in all), so a key is always a safe relative path.

A note's ID is its topic key while it is the topic's current note (`notes/<key>.md`). When a
newer note supersedes it on the same topic, the earlier one moves aside to `<key>~<n>` (the
smallest free n): `~` is never part of a key, so a moved note can never collide with a topic.

This module is light (no Markdown parser): the search cache names note files with it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from ..errors import UsageError
from .layout import NOTES

TYPES = ("preference", "fact", "decision", "gotcha", "episode", "pattern", "config", "bugfix")
SCOPES = ("global", "project", "tool", "ops")
MAX_SEGMENT = 64
MAX_SEGMENTS = 10
MAX_KEY = 160
MAX_SLUG = 48
SEGMENT_RE = re.compile(r"[a-z0-9_-](?:[a-z0-9._-]*[a-z0-9_-])?", re.ASCII)
NOTE_ID_RE = re.compile(r"(.+)~([1-9][0-9]{0,5})", re.ASCII)
SLUG_BREAK_RE = re.compile(r"[^a-z0-9]+", re.ASCII)
DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})


def _shown(value: object) -> str:
    """A hostile value, safe to show in a one-line message."""
    text = repr(value)
    return text if len(text) <= 70 else text[:67] + "..."


def _segment_ok(segment: str) -> bool:
    """Whether one segment of a key is allowed (see the module's docstring)."""
    if len(segment) > MAX_SEGMENT or not SEGMENT_RE.fullmatch(segment):
        return False
    return segment.split(".", 1)[0] not in DEVICE_NAMES


def is_topic_key(value: object) -> bool:
    """Whether value is a valid topic key."""
    if not isinstance(value, str) or not value or len(value) > MAX_KEY or not value.isascii():
        return False
    segments = value.split("/")
    return len(segments) <= MAX_SEGMENTS and all(_segment_ok(s) for s in segments)


def check_topic_key(value: object) -> str:
    """value when it is a valid topic key, else a one-line UsageError saying what keys look like."""
    if not is_topic_key(value):
        raise UsageError(
            f"invalid topic key {_shown(value)}: use segments of lowercase a-z, 0-9, '.', '_' and '-' joined by '/' "
            f"(no '..', no empty or hidden segment, at most {MAX_SEGMENTS} segments and {MAX_KEY} characters), "
            "for example project/ekyc/android-sdk"
        )
    return str(value)


def split_note_id(value: object) -> tuple[str, int] | None:
    """(topic key, n) of a note ID (n is 0 for a topic's current note); None when value is no note ID."""
    if not isinstance(value, str):
        return None
    m = NOTE_ID_RE.fullmatch(value)
    if m:
        return (m.group(1), int(m.group(2))) if is_topic_key(m.group(1)) else None
    return (value, 0) if is_topic_key(value) else None


def check_note_id(value: object) -> str:
    """value when it is a note ID (a topic key, or `<key>~<n>`), else a one-line UsageError."""
    if split_note_id(value) is None:
        raise UsageError(f"invalid note ID {_shown(value)}: a topic key such as project/ekyc/android-sdk, or <key>~<n>")
    return str(value)


def note_path(note_id: str) -> str:
    """The note's file, relative to the root (the ID is validated first)."""
    return f"{NOTES}/{check_note_id(note_id)}.md"


def note_id_of(path: str) -> str | None:
    """The note ID of a root-relative path `notes/<id>.md` (None when the path names no note)."""
    if not path.startswith(f"{NOTES}/") or not path.endswith(".md"):
        return None
    value = path[len(NOTES) + 1 : -3]
    return value if split_note_id(value) is not None else None


def moved_id(key: str, n: int) -> str:
    """The ID of a topic's n-th earlier note, moved aside when a newer one superseded it."""
    return f"{check_topic_key(key)}~{n}"


def check_choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    """value when it is one of allowed, else a one-line UsageError naming them."""
    if not isinstance(value, str) or value not in allowed:
        raise UsageError(f"unknown {what} {_shown(value)}: use one of {', '.join(allowed)}")
    return value


def _title_hash(title: str) -> str:
    """A short stable hash of a title (its characters NFC-normalized, case folded, white space collapsed)."""
    text = " ".join(unicodedata.normalize("NFC", title).casefold().split())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def slug(title: str) -> str:
    """A title as one key segment: ASCII letters and digits (accents dropped) joined by `-`.

    A title with letters or digits that are not ASCII (Chinese, Japanese, Cyrillic, ...) gets a
    short hash of the whole title appended, so two such titles with the same ASCII part stay
    apart; a title with no ASCII letter or digit at all is its hash alone.
    """
    decomposed = unicodedata.normalize("NFKD", title)
    ascii_text = "".join(ch for ch in decomposed if ch.isascii()).lower()
    base = SLUG_BREAK_RE.sub("-", ascii_text).strip("-")
    if len(base) > MAX_SLUG:
        cut = base[:MAX_SLUG]
        base = cut.rsplit("-", 1)[0] if "-" in cut else cut
    foreign = any(ch.isalnum() and not ch.isascii() for ch in decomposed if unicodedata.category(ch)[0] != "M")
    if not base or foreign or not _segment_ok(base):
        base = f"{base}-{_title_hash(title)}" if base else _title_hash(title)
    return base


def suggest_topic_key(scope: str, note_type: str, title: str) -> str:
    """The stable topic key derived from scope, type and title: `<scope>/<type>/<slug of title>`.

    The same three values always give the same key, so saving the same title again updates the
    same note. Raises UsageError for an unknown scope or type or an empty title.
    """
    check_choice(scope, SCOPES, "scope")
    check_choice(note_type, TYPES, "note type")
    if not isinstance(title, str) or not title.strip():
        raise UsageError("a note needs a title")
    return check_topic_key(f"{scope}/{note_type}/{slug(title)}")
