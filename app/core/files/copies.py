"""Sync-conflict copies: the second version of a file that a sync tool kept beside the original.

Sync tools that see two machines change one file keep both, the second as a conflict copy
beside the original. A name alone proves nothing (`…-claude-agent.md` ends like a OneDrive
`-COMPUTER` copy), so a copy counts only when its content is the original's: a copy of
`index.md` holds the index table, a copy of `sessions/<id>.md` names that session in its
title or Metadata, a copy of a note `notes/<key>.md` names that topic key in its Metadata (and
not the one its own name would be). Only the standard library and the core's index reader are used.

Most tools keep the `.md` (`index.sync-conflict-….md`, `index (… conflicted copy …).md`, unison's
`index (conflict_on_2026-12-01).md`, rclone's `index.conflict1.md`); rclone bisync may also put its
suffix after the whole name (`index.md..path1`, `index.md..path2`, `index.md.conflict1`), and renames
both versions, so a copy may stand where its original is missing: it is a copy all the same (`missing`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from ..errors import MemboardError
from ..formats.ids import is_valid_id
from ..formats.index import IndexFile
from ..formats.layout import ARCHIVE, INDEX, NOTES, SESSIONS
from ..formats.topic import split_note_id

# one parenthesised suffix that a sync tool adds: Dropbox `(Host's conflicted copy 2026-05-31)` and its
# translations, Nextcloud `(conflicted copy 2026-05-31 101500)`, Obsidian Sync `(Conflicted copy DEVICE 202605311015)`
CONFLICT_WORDS = r"conflict|konflikt|conflit|conflitto|conflicto|conflito|конфликт|競合|冲突|衝突|충돌"
PAREN_RE = re.compile(r"^(?P<stem>.+?) \((?P<note>[^()]*(?:\([^()]*\)[^()]*)?)\)$")
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
WORD_RE = re.compile(CONFLICT_WORDS, re.IGNORECASE)
SYNCTHING_RE = re.compile(r"^(?P<stem>.+)\.sync-conflict-\d{8}-\d{6}(?:-(?P<device>[A-Za-z0-9]+))?$")
OWNCLOUD_RE = re.compile(r"^(?P<stem>.+)_conflict-\d{8}-\d{6}$")
GOOGLE_RE = re.compile(r"^(?P<stem>.+) \((?P<n>\d{1,3})\)$")
ICLOUD_RE = re.compile(r"^(?P<stem>.+) (?P<n>\d{1,3})$")
# rclone bisync: the newer version `<stem>.conflict1<ext>` (its --suffix-keep-extension), and after the whole name
# `<name>.conflict1` or, in older versions, both sides `<name>..path1` and `<name>..path2`
RCLONE_STEM_RE = re.compile(r"^(?P<stem>.+)\.conflict\d{1,4}$")
RCLONE_TAIL_RE = re.compile(r"^(?P<name>.+\.md)(?:\.\.path[12]|\.conflict\d{1,4})$")
# unison -copyonconflict: `<stem> (conflict_on_2026-12-01)<ext>`, `(conflict #1_on_…)`, `(conflict on …)`, `…_was_deleted`
UNISON_RE = re.compile(r"conflict(?: #\d+)?(?:_was_deleted)?[ _]on[ _]\d{4}-\d{2}-\d{2}(?:_was_deleted)?")
HOST_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,62}")
# the ID in a title line (`# Session: <id>`), or in a Metadata `Session ID` row: each lies within one line and
# no line can be both, so one pass over the text finds what a pass for each would
NAMED_ID_RE = re.compile(
    rb"^(?:[ \t]{0,3}#{1,6}[ \t]+(?:Archived )?Session:[ \t]*(\S+)[ \t]*\r?$"
    rb"|[ \t]*\|[ \t]*Session ID[ \t]*\|[ \t]*([^|\s]+)[ \t]*\|)",
    re.MULTILINE,
)

# a note's `Topic Key` metadata row (the first one: a note's table comes before its sections)
TOPIC_KEY_RE = re.compile(rb"^[ \t]*\|[ \t]*Topic Key[ \t]*\|[ \t]*([^|\s]+)[ \t]*\|", re.MULTILINE)


# what doctor --json names each tool (`tool`), by the name its messages use
TOOL_IDS = {
    "Syncthing": "syncthing",
    "Dropbox": "dropbox",
    "OneDrive": "onedrive",
    "iCloud": "icloud",
    "Google Drive": "gdrive",
    "Nextcloud": "nextcloud",
    "ownCloud": "owncloud",
    "Obsidian Sync": "obsidian",
    "rclone": "rclone",
    "unison": "unison",
}


class Reader(Protocol):
    """What the search for copies reads: a memory root (files/root.py)."""

    def read(self, rel: str) -> bytes | None:
        """A file's bytes (None when absent)."""

    def listdir(self, rel: str) -> list[str]:
        """The names in a folder (empty when absent)."""


@dataclass(frozen=True)
class ConflictCopy:
    """A sync tool's conflict copy of a memory file, confirmed by its content."""

    path: str  # the copy, relative to the root
    original: str  # the file it copies, relative to the root
    tool: str  # whose naming it follows (as messages name it: a key of TOOL_IDS)
    session: str = ""  # the Session ID of the file it copies ("" for index.md)
    missing: bool = False  # the original is not there (rclone bisync renames both versions)

    @property
    def tool_id(self) -> str:
        """The tool as `doctor --json` names it (`syncthing`, `dropbox`, …)."""
        return TOOL_IDS.get(self.tool, self.tool.lower())

    @property
    def device(self) -> str | None:
        """A Syncthing copy's device ID in its name (the device whose version replaced this one), else None."""
        if self.tool != "Syncthing":
            return None
        leaf = self.path.rpartition("/")[2]
        m = SYNCTHING_RE.match(leaf[:-3] if leaf.endswith(".md") else leaf)
        return m["device"] if m else None

    def extra(self) -> tuple[tuple[str, str | None], ...]:
        """The keys `doctor --json` adds to its finding: path, of, tool, device (None unless Syncthing's)."""
        return (("path", self.path), ("of", self.original), ("tool", self.tool_id), ("device", self.device))

    def describe(self) -> str:
        """One line naming the copy and its original (and that the original is missing, when it is)."""
        said = f"{self.path} is a sync-conflict copy of {self.original} ({self.tool} naming)"
        return said + (f"; {self.original} itself is missing" if self.missing else "")


def _paren_tool(note: str) -> str | None:
    """Which tool writes a parenthesised conflict note such as `Host's conflicted copy 2026-05-31`."""
    if not WORD_RE.search(note) and not DATE_RE.search(note):
        return None
    if UNISON_RE.fullmatch(note):
        return "unison"
    if note.startswith("Conflicted copy"):
        return "Obsidian Sync"
    if re.fullmatch(r"conflicted copy \d{4}-\d{2}-\d{2} \d{6}", note):
        return "Nextcloud"
    return "Dropbox"


def original_stems(stem: str) -> list[tuple[str, str]]:
    """(original stem, tool) pairs a conflict copy named `stem` could come from, most specific first."""
    out: list[tuple[str, str]] = []
    for pattern, tool in ((SYNCTHING_RE, "Syncthing"), (OWNCLOUD_RE, "ownCloud")):
        m = pattern.match(stem)
        if m:
            out.append((m["stem"], tool))
    m = RCLONE_STEM_RE.match(stem)
    if m:
        out.append((m["stem"], "rclone"))
    m = GOOGLE_RE.match(stem)
    if m:
        out.append((m["stem"], "Google Drive"))
    m = PAREN_RE.match(stem)
    if m:
        named = _paren_tool(m["note"])
        if named:
            out.append((m["stem"], named))
    m = ICLOUD_RE.match(stem)
    if m:
        out.append((m["stem"], "iCloud"))
    for at in range(len(stem) - 1, 0, -1):  # OneDrive: `<stem>-<COMPUTERNAME>`, the name may hold hyphens
        if stem[at] == "-" and HOST_RE.fullmatch(stem[at + 1 :]):
            out.append((stem[:at], "OneDrive"))
    return out


def original_names(name: str) -> list[tuple[str, str]]:
    """(original file name, tool) pairs a conflict copy's file name could come from, most specific first:
    `<stem>….md` as original_stems says (`<stem>.md`), and rclone's `<name>.md..path1`, `<name>.md.conflict1`."""
    out = [(f"{stem}.md", tool) for stem, tool in original_stems(name[:-3])] if name.endswith(".md") else []
    m = RCLONE_TAIL_RE.match(name)
    if m:
        out.append((m["name"], "rclone"))
    return out


def named_ids(data: bytes) -> set[str]:
    """Session IDs a file names in its title (`# Session: …`) or its Metadata `Session ID` row."""
    head = data[:8192]
    return {(title or row).decode("utf-8", "replace") for title, row in NAMED_ID_RE.findall(head)}


def _read(root: Reader, rel: str) -> bytes | None:
    """A file's bytes, None when it cannot be read (or resolves outside the root)."""
    try:
        return root.read(rel)
    except MemboardError:
        return None


def _listdir(root: Reader, rel: str) -> list[str]:
    """The names in a folder, none when it cannot be listed here (a symlink out of the root: doctor names it)."""
    try:
        return root.listdir(rel)
    except (MemboardError, OSError):  # (permission denied: the commands that read it say why)
        return []


def _snapshot_candidates(stem: str, names: set[str], thorough: bool) -> list[tuple[str, str]]:
    """(original Session ID, tool) pairs a file `sessions/<stem>.md` may copy, before reading it.

    A stem that is itself a valid Session ID can only be a OneDrive `<id>-<COMPUTER>` copy,
    and so can every ordinary session with a hyphen in its agent name: it is read only
    beside its original, unless `thorough`.
    """
    if not is_valid_id(stem):
        return [(original, tool) for original, tool in original_stems(stem) if is_valid_id(original)]
    out = []
    for at in range(len(stem) - 1, 15, -1):
        if stem[at] == "-" and (f"{stem[:at]}.md" in names or (thorough and is_valid_id(stem[:at]))):
            out.append((stem[:at], "OneDrive"))
    return out


def _confirmed(stem: str, data: bytes, candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The candidate (original, tool) whose ID the content names, unless it names its own file's stem."""
    ids = named_ids(data)
    if stem in ids:
        return None
    return next((c for c in candidates if c[0] in ids), None)


def copied_session(stem: str, data: bytes) -> str | None:
    """The Session ID that the snapshot file `sessions/<stem>.md` with these bytes is a conflict copy of, else None."""
    candidates = _snapshot_candidates(stem, set(), True)
    found = _confirmed(stem, data, candidates) if candidates else None  # (most names copy nothing: no title read)
    return found[0] if found else None


def _snapshot_copy(root: Reader, stem: str, names: set[str], thorough: bool) -> ConflictCopy | None:
    """A copy of sessions/<id>.md named `stem` (its content names that ID, not its own name), else None."""
    candidates = _snapshot_candidates(stem, names, thorough)
    data = _read(root, f"{SESSIONS}/{stem}.md") if candidates else None
    found = _confirmed(stem, data, candidates) if data is not None else None
    if not found:
        return None
    return ConflictCopy(
        f"{SESSIONS}/{stem}.md", f"{SESSIONS}/{found[0]}.md", found[1], found[0], f"{found[0]}.md" not in names
    )


def _tail_copy(root: Reader, name: str, names: set[str]) -> ConflictCopy | None:
    """A copy of sessions/<id>.md whose sync tool put its suffix after the whole name (rclone's `<id>.md..path1`,
    `<id>.md.conflict1`; its content names that ID), else None."""
    m = RCLONE_TAIL_RE.match(name)
    sid = m["name"][:-3] if m else ""
    if not is_valid_id(sid):
        return None
    data = _read(root, f"{SESSIONS}/{name}")
    if data is None or sid not in named_ids(data):
        return None
    return ConflictCopy(f"{SESSIONS}/{name}", f"{SESSIONS}/{sid}.md", "rclone", sid, f"{sid}.md" not in names)


def snapshot_copies(root: Reader, thorough: bool = False, names: list[str] | None = None) -> list[ConflictCopy]:
    """Conflict copies among the snapshots in sessions/.

    A OneDrive-style name that is also a valid Session ID is read only when its original
    is beside it, unless `thorough` (doctor reads every such file).
    """
    names = _listdir(root, SESSIONS) if names is None else names
    present = set(names)
    out = []
    for name in names:
        copy = (
            _snapshot_copy(root, name[:-3], present, thorough)
            if name.endswith(".md")
            else _tail_copy(root, name, present)
        )
        if copy:
            out.append(copy)
    return out


def index_copies(root: Reader) -> list[ConflictCopy]:
    """Conflict copies of index.md at the top of the root (each holds an index table)."""
    out = []
    names = _listdir(root, ".")
    missing = INDEX not in names
    for name in names:
        if name == INDEX:
            continue
        for original, tool in original_names(name):
            if original != INDEX:
                continue
            data = _read(root, name)
            if data is not None and IndexFile(data).has_table:
                out.append(ConflictCopy(name, INDEX, tool, missing=missing))
            break
    return out


def _archive_copies(root: Reader) -> list[ConflictCopy]:
    """Conflict copies of archive/<id>/index.md and session.md (each names that session)."""
    out = []
    for sid in _listdir(root, ARCHIVE):
        if not is_valid_id(sid):
            continue
        rel = f"{ARCHIVE}/{sid}"
        names = _listdir(root, rel)
        for name in names:
            if name in ("index.md", "session.md"):
                continue
            for original, tool in original_names(name):
                if original not in ("index.md", "session.md"):
                    continue
                data = _read(root, f"{rel}/{name}")
                if data is not None and sid in named_ids(data):
                    out.append(ConflictCopy(f"{rel}/{name}", f"{rel}/{original}", tool, sid, original not in names))
                break
    return out


def copied_note(name: str, topic_key: str) -> tuple[str, str] | None:
    """(original note ID, tool) when the file `notes/<name>.md`, whose Metadata names topic_key, is a sync tool's
    conflict copy of that note, else None: its name is the original's as a sync tool renames it (`<key>.sync-conflict-…`,
    `<key> (… conflicted copy …)`, `<key>-<COMPUTER>`, …) and it names the original's topic key, not its own name's.
    A copy named like a note of its own (`…_conflict-…`, `…-laptop`) is no note either: listings leave it out."""
    own = split_note_id(name)
    if not topic_key or (own is not None and own[0] == topic_key):
        return None
    folder, _, leaf = name.rpartition("/")
    for stem, tool in original_stems(leaf):
        original = f"{folder}/{stem}" if folder else stem
        key = split_note_id(original)
        if key is not None and key[0] == topic_key:
            return original, tool
    return None


def note_topic_key(data: bytes) -> str:
    """The topic key a note file's Metadata names ("" when none)."""
    m = TOPIC_KEY_RE.search(data, 0, 16384)
    return m.group(1).decode("utf-8", "replace") if m else ""


def is_tail_name(name: str) -> bool:
    """Whether a file name ends in a suffix a sync tool put after the whole name (rclone's `<name>.md..path1`)."""
    return RCLONE_TAIL_RE.match(name) is not None


def note_copy(rel: str, data: bytes) -> ConflictCopy | None:
    """The conflict copy that the file rel (`notes/….md`, or rclone's `notes/….md..path1`) with these bytes is,
    else None."""
    key = note_topic_key(data)
    if rel.endswith(".md"):
        found = copied_note(rel[len(NOTES) + 1 : -3], key)
        return ConflictCopy(rel, f"{NOTES}/{found[0]}.md", found[1]) if found else None
    m = RCLONE_TAIL_RE.match(rel)
    original = m["name"][len(NOTES) + 1 : -3] if m else ""
    named = split_note_id(original) if original else None
    if named is None or not key or named[0] != key:
        return None
    return ConflictCopy(rel, f"{NOTES}/{original}.md", "rclone")


def find_copies(root: Reader, thorough: bool = False) -> list[ConflictCopy]:
    """Every confirmed conflict copy of index.md, a snapshot or an archive file, sorted by path."""
    copies = index_copies(root) + snapshot_copies(root, thorough) + _archive_copies(root)
    return sorted(copies, key=lambda c: c.path)


def copy_advice(copy: ConflictCopy) -> str:
    """A copy's finding message: `doctor --fix` merges it (its fix says how: see ops/doctor/merging.py)."""
    return f"{copy.describe()}; `memboard doctor --fix` merges it into {copy.original}"
