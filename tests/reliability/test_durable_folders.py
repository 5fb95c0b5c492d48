"""A folder memboard makes for a file is synced in its parent before the file that lands in it is reported written.

POSIX makes a new folder's entry durable only once its parent folder is synced (fsync on the parent's
descriptor), as it does for a renamed file's entry. The commands run in this process (the command
line's own entry point, `memboard.cli.entry.main`), with os.mkdir, os.fsync, os.replace and stdout
recording what happens in the root, in order: only a process shows it (no file tells whether a folder
was synced).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from memboard.cli.entry import main

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Windows has no fsync of a folder (memboard skips it there)")

SID = "2026-06-01-0930-cursor-main-agent"


class Recorder:
    """What happens in a root from its start on, in order: folders made, folders synced, files landed, text printed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path):
        """Record through os.mkdir, os.fsync, os.replace and sys.stdout from now on."""
        self.root = root.resolve()
        self.events: list[tuple[str, object]] = []
        real_mkdir, real_fsync, real_replace = os.mkdir, os.fsync, os.replace
        events = self.events

        def mkdir(path, *args, **kwargs):
            real_mkdir(path, *args, **kwargs)
            events.append(("mkdir", Path(path)))

        def fsync(fd):
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):  # (a folder's descriptor; files are synced too, before their rename)
                events.append(("fsync", (st.st_dev, st.st_ino)))
            return real_fsync(fd)

        def replace(src, dst, *args, **kwargs):
            real_replace(src, dst, *args, **kwargs)
            events.append(("replace", Path(dst)))

        class Out:
            """stdout, noting what is printed."""

            def write(self, text: str) -> int:
                events.append(("out", text))
                return len(text)

            def flush(self) -> None:
                pass

        monkeypatch.setattr(os, "mkdir", mkdir)
        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(sys, "stdout", Out())

    def seen(self) -> list[tuple[str, str]]:
        """The events in the root: ("mkdir", folder), ("fsync", folder), ("replace", file) relative to the root ("."
        for itself), and ("out", text)."""
        real = self.root
        folders = {(s.st_dev, s.st_ino): p for p in [real, *real.rglob("*")] if p.is_dir() and (s := p.stat())}
        out = []
        for kind, what in self.events:
            if kind == "out":
                out.append((kind, str(what)))
                continue
            path = folders.get(what) if kind == "fsync" else Path(os.path.realpath(what))  # type: ignore[call-overload]
            if path is not None and (path == real or real in path.parents):
                out.append((kind, path.relative_to(real).as_posix()))
        return out


def run(root: Path, *argv: str) -> int:
    """`memboard ARGV --root root` in this process."""
    return main([*argv, "--root", str(root)])


def test_a_new_archive_folder_is_synced_in_its_parent_before_the_archive_is_reported(root, monkeypatch):
    snapshot = root.parent / "snapshot.md"
    snapshot.write_text("## Decisions\n\n- Keep the archive.\n", encoding="utf-8")
    assert run(root, "register", "--manual", "--summary", "Real work.", "--snapshot", str(snapshot)) == 0
    recorder = Recorder(monkeypatch, root)
    assert run(root, "archive", SID) == 0
    seen = recorder.seen()
    made = seen.index(("mkdir", "archive"))
    assert seen[made : made + 6] == [
        ("mkdir", "archive"),
        ("fsync", "."),  # archive/ in the root
        ("mkdir", f"archive/{SID}"),
        ("fsync", "archive"),  # archive/<id>/ in archive/
        ("replace", f"archive/{SID}/index.md"),
        ("fsync", f"archive/{SID}"),  # the file's own entry
    ], seen
    assert seen.index(("replace", f"archive/{SID}/session.md")) > made
    printed = next(i for i, (kind, _) in enumerate(seen) if kind == "out")
    assert printed > seen.index(("replace", "index.md")) > made
    assert [kind for kind, _ in seen].count("mkdir") == 2  # one fsync per new folder, no more folders


def test_new_note_folders_are_synced_in_their_parents_in_order_before_the_save_is_reported(root, monkeypatch):
    recorder = Recorder(monkeypatch, root)
    argv = ["note", "save", "--topic-key", "a/b/c", "--title", "Keep folders durable", "--type", "fact"]
    assert run(root, *argv, "--scope", "project", "--what", "- New folders are synced in their parents.") == 0
    seen = recorder.seen()
    made = seen.index(("mkdir", "notes"))
    assert seen[made : made + 8] == [
        ("mkdir", "notes"),
        ("fsync", "."),
        ("mkdir", "notes/a"),
        ("fsync", "notes"),
        ("mkdir", "notes/a/b"),
        ("fsync", "notes/a"),
        ("replace", "notes/a/b/c.md"),
        ("fsync", "notes/a/b"),
    ], seen
    printed = [i for i, (kind, text) in enumerate(seen) if kind == "out" and "saved note a/b/c" in text]
    assert printed and printed[0] > made + 7


def test_folders_that_exist_are_not_synced_again(root, monkeypatch):
    (root / "notes" / "a" / "b").mkdir(parents=True)
    recorder = Recorder(monkeypatch, root)
    argv = ["note", "save", "--topic-key", "a/b/c", "--title", "Keep folders durable", "--type", "fact"]
    assert run(root, *argv, "--scope", "project", "--what", "- Nothing new to sync.") == 0
    seen = [e for e in recorder.seen() if e[0] != "out"]
    landed = seen.index(("replace", "notes/a/b/c.md"))
    assert seen[landed:] == [("replace", "notes/a/b/c.md"), ("fsync", "notes/a/b")], seen
    assert not [e for e in seen[:landed] if e[0] == "mkdir" or e == ("fsync", "notes/a")], seen
