"""The notes' stamps taken by GNU find at a search's start (files/notewalk.py: EarlyWalk) are walk_notes' own.

A warm search trusts its cache only while every note's (size, mtime_ns) is what the cache saw, so the child's
stamps must be exactly the Python walk's on any tree: odd names (a newline, bytes that are not UTF-8, `%`, a
backslash), symlinks to files and folders, folders below the depth limit, hidden folders, FIFOs, times to the
nanosecond; and where the child cannot say the same (a folder it cannot list, a time before 1970), it says
nothing and the walk answers.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.cli.entry import early_notes, main
from memboard.core.files import notewalk

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and os.path.exists(notewalk.FIND) and hasattr(os, "memfd_create")),
    reason="the early walk is GNU find's, on Linux",
)
DEPTH = notewalk.NOTES_DEPTH


@pytest.fixture(autouse=True)
def _no_walk_left() -> Iterator[None]:
    """Each test ends with no early walk waiting (a failed test's children reaped), so none leaks into the next."""
    yield
    while notewalk._EARLY:
        notewalk._EARLY.pop().stamps()


def python_walk(folder: Path, deepest: int = DEPTH) -> notewalk.Stamps:
    """walk_notes' stamps of folder, with gaps (as search takes them)."""
    out: notewalk.Stamps = {}
    notewalk.walk_notes(str(folder), "notes", deepest, {}, {}, out)
    return out


def find_walk(folder: Path, deepest: int = DEPTH) -> notewalk.Stamps | None:
    """The same stamps by the early walk (None: it declined)."""
    notewalk.start_early(str(folder), "notes", deepest)
    walk = notewalk.take_early(str(folder), "notes", deepest)
    assert walk is not None
    return walk.stamps()


NAME = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="/\0"), min_size=1, max_size=12),
    st.sampled_from(["a\nb", ".hidden", "%s%T@", "back\\0slash", "-name", "*", " lead", "x.md.md", ".md", "é"]),
).filter(lambda n: n not in (".", ".."))
FILE = st.tuples(NAME, st.sampled_from([".md", ".md", ".txt", ""]))
TREE = st.recursive(
    st.lists(FILE, max_size=4),
    lambda inner: st.lists(st.one_of(FILE, st.tuples(NAME, inner)), max_size=4),
    max_leaves=25,
)
TIMES = st.integers(min_value=0, max_value=2**62)


def build(folder: Path, tree: list, times: list[int], extra: bytes = b"") -> None:
    """Make tree under folder (a file: (name, suffix); a folder: (name, [its entries])), each file given the next
    mtime of times (to the nanosecond)."""
    folder.mkdir(exist_ok=True)
    for name, what in tree:
        path = folder / name
        if isinstance(what, list):
            if path.exists() or path.is_symlink():
                continue
            build(path, what, times, extra)
        elif not path.exists():
            path = folder / (name + what)
            if path.exists() or path.is_symlink():
                continue
            path.write_bytes(extra * (len(times) % 3))
            when = times[len(list(folder.iterdir())) % len(times)] if times else 0
            os.utime(path, ns=(when, when))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=TREE, times=st.lists(TIMES, min_size=1, max_size=5))
def test_find_gives_the_walks_stamps_on_any_tree(tmp_path: Path, tree: list, times: list[int]) -> None:
    """Names with newlines, `%`, backslashes, leading dashes and dots, any mtime from 1970 on: the same stamps."""
    folder = tmp_path / "notes"
    shutil.rmtree(folder, ignore_errors=True)
    build(folder, tree, times, b"xy")
    assert find_walk(folder) == python_walk(folder)


def test_symlinks_fifos_bytes_and_depth_are_walked_alike(tmp_path: Path) -> None:
    """Symlinks (to a file, a folder, nowhere) skipped, a FIFO named `*.md` kept, a name that is not UTF-8 kept as
    the walk spells it, a hidden folder walked, and the depth limit the same on both sides of it."""
    folder = tmp_path / "notes"
    deep = folder.joinpath(*[f"d{i}" for i in range(DEPTH + 2)])
    deep.mkdir(parents=True)
    for i in range(DEPTH + 3):
        part = folder.joinpath(*[f"d{j}" for j in range(i)])
        (part / f"at{i}.md").write_text("x", encoding="utf-8")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "h.md").write_text("h", encoding="utf-8")
    (folder / "real.md").write_text("r", encoding="utf-8")
    (folder / "link.md").symlink_to(folder / "real.md")
    (folder / "dangling.md").symlink_to(folder / "nowhere.md")
    (folder / "dirlink").symlink_to(folder / ".hidden")
    os.mkfifo(folder / "pipe.md")
    (folder / "dir.md").mkdir()
    (folder / "dir.md" / "in.md").write_text("i", encoding="utf-8")
    with open(os.path.join(os.fsencode(folder), b"bad\xff\xfe.md"), "wb") as f:
        f.write(b"b")
    walked = python_walk(folder)
    assert find_walk(folder) == walked
    assert "notes/real.md" in walked and "notes/pipe.md" in walked and "notes/.hidden/h.md" in walked
    assert "notes/link.md" not in walked and os.fsdecode(b"notes/bad\xff\xfe.md") in walked
    assert find_walk(folder, 3) == python_walk(folder, 3)


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists any folder")
def test_a_folder_find_cannot_list_is_left_to_the_walk(tmp_path: Path) -> None:
    """An unreadable folder: the child says nothing (the walk then names the folder as a gap)."""
    folder = tmp_path / "notes"
    (folder / "shut").mkdir(parents=True)
    (folder / "a.md").write_text("a", encoding="utf-8")
    (folder / "shut").chmod(0)
    try:
        assert find_walk(folder) is None
    finally:
        (folder / "shut").chmod(stat.S_IRWXU)


def test_a_time_before_1970_or_a_missing_folder_is_left_to_the_walk(tmp_path: Path) -> None:
    """A note dated before 1970 (find prints it otherwise) and a notes folder that is not there: declined."""
    folder = tmp_path / "notes"
    assert find_walk(folder) is None
    folder.mkdir()
    (folder / "old.md").write_text("o", encoding="utf-8")
    os.utime(folder / "old.md", ns=(-1, -1))
    assert find_walk(folder) is None
    os.utime(folder / "old.md", ns=(0, 0))
    assert find_walk(folder) == python_walk(folder) == {"notes/old.md": (1, 0)}


def test_take_early_takes_only_the_same_folder_rel_and_depth(tmp_path: Path) -> None:
    """The folder spelled otherwise (a doubled slash, a `./`) is the same folder; another rel or depth is not."""
    folder = tmp_path / "notes"
    folder.mkdir()
    notewalk.start_early(f"{tmp_path}//./notes/", "notes", DEPTH)
    assert notewalk.take_early(str(folder), "other", DEPTH) is None
    assert notewalk.take_early(str(folder), "notes", DEPTH - 1) is None
    walk = notewalk.take_early(str(folder), "notes", DEPTH)
    assert walk is not None and walk.stamps() == {}
    assert notewalk.take_early(str(folder), "notes", DEPTH) is None


def _note(root: Path, name: str, title: str) -> Path:
    """A typed note file under root/notes/bench/."""
    path = root / "notes" / "bench" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {title}\n\n- Type: fact\n- Scope: global\n\nBody {title}.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("order", ["after", "before"])
def test_a_search_takes_the_early_walk_and_sees_an_edit_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], order: str
) -> None:
    """`search Q --root R` (or `--root R search Q`) started the walk at its start: the search takes it, and a note
    edited in place to the same size, its time one nanosecond on and its folder's time put back, is found."""
    root = tmp_path / "root"
    (root / "sessions").mkdir(parents=True)
    (root / "index.md").write_text("", encoding="utf-8")
    path = _note(root, "n1", "alpha")
    when = (int(time.time()) - 7200) * 1_000_000_000 + 123_456_789  # (old: no settle wait, no racy stamp)
    os.utime(path, ns=(when, when))
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(tmp_path / "state"))

    def argv(query: str) -> list[str]:
        return ["search", query, "--root", str(root)] if order == "after" else ["--root", str(root), "search", query]

    assert main(argv("alpha")) == 0  # (the cache built)
    for before, after in (("alpha", "bravo"), ("bravo", "delta")):
        folder_times = os.stat(path.parent)
        path.write_text(path.read_text(encoding="utf-8").replace(before, after), encoding="utf-8")
        when += 1
        os.utime(path, ns=(when, when))
        os.utime(path.parent, ns=(folder_times.st_atime_ns, folder_times.st_mtime_ns))
        capsys.readouterr()
        early_notes(argv(after))
        assert len(notewalk._EARLY) == 1
        assert main(argv(after)) == 0
        assert notewalk._EARLY == []  # (taken by the search)
        assert "n1" in capsys.readouterr().out


def test_a_find_that_fails_or_is_not_gnu_is_left_to_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that exits non-zero, or prints what GNU find would not (another find, arguments echoed): declined."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("a", encoding="utf-8")
    for fake in ("/bin/false", "/bin/echo"):
        monkeypatch.setattr(notewalk, "FIND", fake)
        assert find_walk(folder) is None
    monkeypatch.setattr(notewalk, "FIND", "/nonexistent/find")
    notewalk.start_early(str(folder), "notes", DEPTH)
    assert notewalk.take_early(str(folder), "notes", DEPTH) is None


def test_a_search_no_note_can_pass_starts_no_walk(tmp_path: Path) -> None:
    """`--kind session`, `--archived`, `--agent`: nothing under notes/ can change the answer, no child is started;
    nor for another command, or without a root."""
    root = str(tmp_path)
    for raw in (
        ["search", "q", "--kind", "session", "--root", root],
        ["search", "q", "--archived", "--root", root],
        ["--root", root, "search", "q", "--agent", "x"],
        ["list", "--root", root],
    ):
        early_notes(raw)
        assert notewalk._EARLY == []
    early_notes(["note", "search", "q", "--root", root])
    assert len(notewalk._EARLY) == 1
    notewalk._EARLY.pop().stamps()


def test_the_whole_process_answers_as_before(tmp_path: Path) -> None:
    """The memboard process (whose start begins the walk) finds a note, then the note's edit in place."""
    root = tmp_path / "root"
    (root / "sessions").mkdir(parents=True)
    (root / "index.md").write_text("", encoding="utf-8")
    path = _note(root, "n2", "kilo")
    env = {**os.environ, "MEMBOARD_STATE_DIR": str(tmp_path / "state")}
    cmd = [sys.executable, "-c", "import sys; from memboard.cli import main; sys.exit(main())"]
    for word in ("kilo", "lima"):
        if word == "lima":
            old = os.stat(path)
            path.write_text(path.read_text(encoding="utf-8").replace("kilo", "lima"), encoding="utf-8")
            os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns + 2_000_000_000))
        done = subprocess.run([*cmd, "--root", str(root), "search", word], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "n2" in done.stdout
