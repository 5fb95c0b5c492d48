"""Trees and local state: every local-state path from one module with one key, older locations still read."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import zlib
from pathlib import Path

import pytest

from memboard.core.errors import MemboardError
from memboard.core.files import execute, statepaths
from memboard.core.files.continues import record_path
from memboard.core.files.localstate import folder_of
from memboard.core.files.lock import lock_path
from memboard.core.files.root import MemoryRoot
from memboard.core.plan import Change, Plan
from memboard.core.search.cache import cache_path


def test_every_local_state_path_is_keyed_the_same_way(tmp_path):
    root = MemoryRoot(tmp_path)
    key = statepaths.key(root.real)
    import hashlib

    assert key == hashlib.sha256(str(root.real).encode()).hexdigest()[:20]
    state = statepaths.base()
    assert folder_of(root.real) == state / "roots" / key
    assert lock_path(root) == state / "locks" / f"{key}.lock"
    assert record_path(root) == state / "continues" / f"{key}.tsv"
    assert root.known.path == state / "settled" / f"{key}.tsv"
    assert cache_path(root) == state / "search" / f"{key}.sqlite3"


def test_an_older_search_cache_is_read_where_it_is_until_the_new_one_exists(tmp_path):
    root = MemoryRoot(tmp_path)
    raw = str(root.real).encode()
    old = statepaths.base() / "search" / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.sqlite3"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"old cache")
    assert cache_path(root) == old
    new = statepaths.base() / "search" / f"{statepaths.key(root.real)}.sqlite3"
    new.write_bytes(b"new cache")
    assert cache_path(root) == new
    assert old.read_bytes() == b"old cache"  # nothing lost


def test_migrated_prefers_the_new_path_when_neither_exists(tmp_path):
    assert statepaths.migrated(tmp_path / "new", tmp_path / "old") == Path(tmp_path / "new")


# -- new change kinds: an empty folder's removal, a move across file systems ----------------------------------


def _root_with(tmp_path: Path) -> MemoryRoot:
    (tmp_path / "index.md").write_bytes(b"# Index\n")
    return MemoryRoot(tmp_path)


def test_an_empty_folder_is_removed_and_verified(tmp_path):
    root = _root_with(tmp_path)
    (tmp_path / "spaces" / "old").mkdir(parents=True)
    plan = Plan("tidy", None, changes=[Change.remove_folder("spaces/old")])
    execute.execute(root, lambda r: plan)
    assert not (tmp_path / "spaces" / "old").exists() and (tmp_path / "spaces").is_dir()
    assert plan.diff() == "" and plan.patch() == b""  # a patch holds no folders


def test_a_folder_that_is_not_empty_when_the_step_runs_is_refused_and_nothing_is_written(tmp_path):
    root = _root_with(tmp_path)
    (tmp_path / "spaces" / "old").mkdir(parents=True)
    plan = Plan(
        "tidy",
        None,
        changes=[Change.write("notes.md", None, b"new\n"), Change.remove_folder("spaces/old")],
    )
    (tmp_path / "spaces" / "old" / "late.md").write_bytes(b"saved after the plan was built\n")
    with pytest.raises(MemboardError, match=r"not empty.*nothing written"):
        execute.execute(root, lambda r: plan)
    assert (tmp_path / "spaces" / "old" / "late.md").read_bytes() == b"saved after the plan was built\n"
    assert not (tmp_path / "notes.md").exists()


def test_a_folder_filled_between_the_check_and_the_step_is_refused_by_the_step(tmp_path, monkeypatch):
    root = _root_with(tmp_path)
    (tmp_path / "old").mkdir()
    monkeypatch.setattr(execute, "_require_empty", lambda *args: (tmp_path / "old" / "x").write_bytes(b"x"))
    plan = Plan("tidy", None, changes=[Change.remove_folder("old")])
    with pytest.raises(MemboardError, match="nothing written"):
        execute.execute(root, lambda r: plan)
    assert (tmp_path / "old" / "x").read_bytes() == b"x"


def _exdev_for_moves(monkeypatch):
    """Make every rename that is not a temp file's own (the move itself) fail as across file systems."""
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if not str(src).endswith(".memboard-tmp"):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


def test_a_move_across_file_systems_copies_compares_then_deletes(tmp_path, monkeypatch):
    root = _root_with(tmp_path)
    (tmp_path / "a.md").write_bytes(b"moved bytes\r\n")
    _exdev_for_moves(monkeypatch)
    plan = Plan("move", None, changes=[Change("move", "a.md", b"moved bytes\r\n", None, dest="far/a.md")])
    execute.execute(root, lambda r: plan)
    assert (tmp_path / "far" / "a.md").read_bytes() == b"moved bytes\r\n" and not (tmp_path / "a.md").exists()


def test_a_copy_that_does_not_verify_keeps_the_original(tmp_path, monkeypatch):
    root = _root_with(tmp_path)
    (tmp_path / "a.md").write_bytes(b"original\n")
    _exdev_for_moves(monkeypatch)
    real_read = Path.read_bytes

    def read_bytes(self):
        data = real_read(self)
        return b"torn" if self.name == "a.md" and self.parent.name == "far" else data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    plan = Plan("move", None, changes=[Change("move", "a.md", b"original\n", None, dest="far/a.md")])
    with pytest.raises(MemboardError, match="nothing written"):
        execute.execute(root, lambda r: plan)
    assert real_read(tmp_path / "a.md") == b"original\n" and not (tmp_path / "far" / "a.md").exists()


def test_a_real_move_to_another_file_system_when_one_is_at_hand(tmp_path):
    other = Path("/dev/shm")
    if not other.is_dir() or os.stat(other).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system (tmpfs) at hand")
    root = _root_with(tmp_path)
    source = tmp_path / "a.md"
    source.write_bytes(b"across\n")
    far = Path(tempfile.mkdtemp(dir=other)) / "a.md"
    try:
        execute._copy_then_delete(root, source, far, "far/a.md", b"across\n", 1)
        assert far.read_bytes() == b"across\n" and not source.exists()
    finally:
        shutil.rmtree(far.parent, ignore_errors=True)


def test_the_key_is_the_same_whether_or_not_hashlib_is_loaded(tmp_path, monkeypatch):
    import hashlib
    import sys

    want = hashlib.sha256(str(tmp_path).encode()).hexdigest()[:20]
    monkeypatch.delitem(sys.modules, "hashlib")
    assert statepaths.key(tmp_path) == want
