"""Doctor's look at the files memboard reads: each must be a regular file inside the root that it can read.

- not_a_file: index.md, a snapshot, an archive's file or a note that is a FIFO, a socket or a device
  (memboard never opens one: a FIFO would block the read until some program writes to it);
- unreadable: one that resolves outside the root (a symlink), or that cannot be read (permission
  denied, an I/O error, held locked by another program, a placeholder whose download fails).

Either stops the pass there, as merge-conflict markers do: every other check reads these files,
and a check that took a failed read for an empty file would plan a repair on a guess. So doctor
reports them alone (the first file that fails mid-pass is found by the read itself), and
`doctor --fix` refuses to repair anything until they are readable.
"""

from __future__ import annotations

import os
import stat

from ...errors import MemboardError, OutsideRoot, Refused, Unreadable
from ...files.regular import kind_of
from ...files.root import MemoryRoot
from ...formats.layout import ARCHIVE, INDEX, NOTES, SESSIONS
from ...results import Finding

NOT_A_FILE, UNREADABLE = "not_a_file", "unreadable"
KINDS = (NOT_A_FILE, UNREADABLE)
MAX_NOTE_DEPTH = 12  # as deep as note_files looks (a topic key has at most 10 segments)
STOPS = "nothing else is checked or repaired until"


def unreadable(exc: Unreadable) -> Finding:
    """unreadable: a file that could not be read, or resolves outside the root."""
    return Finding(
        UNREADABLE,
        "",
        f"{exc.rel} cannot be read: {exc.reason}; {STOPS} memboard can read it",
        subject=exc.rel,
    )


def not_a_file(rel: str, what: str) -> Finding:
    """not_a_file: a FIFO, a socket or a device where memboard reads a file."""
    return Finding(
        NOT_A_FILE,
        "",
        f"{rel} is {what}, not a regular file: memboard never opens it, and {STOPS} it is moved out of the "
        "memory root (or replaced by the file it stands for)",
        subject=rel,
    )


def refuse_repairs(findings: list[Finding]) -> None:
    """Refuse (one line, nothing written) to repair a root that holds a file memboard cannot read."""
    stop = next((f for f in findings if f.kind in KINDS), None)
    if stop is not None:
        raise Refused(f"{stop.message}; nothing written", says_written=True)


class _Look:
    """One walk over the places memboard reads, collecting what is no readable file there."""

    def __init__(self, root: MemoryRoot):
        """Walk root."""
        self.root = root
        self.findings: list[Finding] = []

    def entry(self, rel: str, path: str, folder_ok: bool = False) -> bool:
        """Look at one path (its lstat; a symlink's target must lie inside the root); whether it is a folder
        to look into (folder_ok: a folder is expected there)."""
        try:
            st = os.lstat(path)
        except OSError:
            return False  # gone, or in a folder that cannot be listed: the read of it says why
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(self.root.abs(rel))
            except OutsideRoot as exc:
                self.findings.append(unreadable(exc))
                return False
            except (OSError, MemboardError):
                return False  # a dangling link reads as an absent file; a name memboard refuses is never read
        what = kind_of(st.st_mode)
        if what is not None:
            self.findings.append(not_a_file(rel, what))
            return False
        return folder_ok and stat.S_ISDIR(st.st_mode)

    def folder(self, rel: str) -> list[str]:
        """The names in a folder of the root (none when it is absent or cannot be listed)."""
        try:
            return sorted(os.listdir(os.path.join(self.root.path, rel)))
        except OSError:
            return []

    def notes(self, rel: str, depth: int) -> None:
        """The note files under notes/ (folders that are symlinks are not followed, as note_files does not)."""
        for name in self.folder(rel):
            path = os.path.join(self.root.path, rel, name)
            if os.path.islink(path):
                continue  # (never read as a note)
            if os.path.isdir(path):
                if depth < MAX_NOTE_DEPTH:
                    self.notes(f"{rel}/{name}", depth + 1)
            elif name.endswith(".md"):
                self.entry(f"{rel}/{name}", path)


def unreadable_files(root: MemoryRoot) -> list[Finding]:
    """not_a_file and unreadable findings for index.md, sessions/, archive/ and notes/ (see the module's notes)."""
    look = _Look(root)
    base = str(root.path)
    look.entry(INDEX, os.path.join(base, INDEX))
    for name in look.folder(SESSIONS):
        if name.endswith(".md"):
            look.entry(f"{SESSIONS}/{name}", os.path.join(base, SESSIONS, name))
    for name in look.folder(ARCHIVE):
        rel = f"{ARCHIVE}/{name}"
        if look.entry(rel, os.path.join(base, rel), folder_ok=True):
            for leaf in ("index.md", "session.md"):
                look.entry(f"{rel}/{leaf}", os.path.join(base, rel, leaf))
    if os.path.isdir(os.path.join(base, NOTES)) and not os.path.islink(os.path.join(base, NOTES)):
        look.notes(NOTES, 0)
    return look.findings
