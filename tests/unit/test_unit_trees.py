"""Trees and local state: every local-state path from one module with one key, older locations still read."""

from __future__ import annotations

import zlib
from pathlib import Path

from memboard.core.files import statepaths
from memboard.core.files.continues import record_path
from memboard.core.files.localstate import folder_of
from memboard.core.files.lock import lock_path
from memboard.core.files.root import MemoryRoot
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
