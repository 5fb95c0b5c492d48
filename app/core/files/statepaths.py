"""Every path of memboard's local state, built in one place with one key scheme.

Local state is per machine and never inside a memory root (see localstate.py): a root's lock, its
record of settled files, its record of snapshots' Continues From, its search cache, its state folder
(revisions, the hooks' conversation map, the hook log). Each is keyed by `key` of the root's real
path: the first 20 hex digits of its SHA-256. An older memboard named the search cache by two
32-bit checksums instead; that file is still read where it is until the new one exists
(`migrated`: the old location is used when the new is absent, so nothing it holds is lost).

This module is imported on the hook's path: it imports nothing but the config's folder.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from .. import config


def _sha256(data: bytes) -> str:
    """The SHA-256 of data in hex."""
    import hashlib  # lazy: the space reads import this module for a path that needs no key (hashlib: 2 ms)

    return hashlib.sha256(data).hexdigest()


ROOTS = "roots"  # <state>/roots/<key>/: a root's state folder
LOCKS = "locks"  # <state>/locks/<key>.lock (and <key>.queue/, the fair queue)
SETTLED = "settled"  # <state>/settled/<key>.tsv: files memboard wrote or saw settled
CONTINUES = "continues"  # <state>/continues/<key>.tsv: the snapshots' Continues From, by stamp
SEARCH = "search"  # <state>/search/<key>.sqlite3: the search cache
SPACES = "spaces"  # <state>/spaces/known.tsv: the session-memory spaces memboard resolved on this machine


def base() -> Path:
    """The local state folder itself (see config.state_dir)."""
    return config.state_dir()


def key(real: Path) -> str:
    """The key of a tree's local files (its lock, its state folder, its records): a hash of its real path."""
    return _sha256(str(real).encode("utf-8", "surrogateescape"))[:20]


def root_folder(real: Path) -> Path:
    """The state folder of the root whose real path is real."""
    return base() / ROOTS / key(real)


def lock_file(real: Path) -> Path:
    """The lock file of the tree whose real path is real."""
    return base() / LOCKS / f"{key(real)}.lock"


def settled_record(real: Path) -> Path:
    """The record of the files memboard wrote or saw settled in the tree whose real path is real."""
    return base() / SETTLED / f"{key(real)}.tsv"


def continues_record(real: Path) -> Path:
    """The record of a root's snapshots and the IDs they list under Continues From."""
    return base() / CONTINUES / f"{key(real)}.tsv"


def known_spaces() -> Path:
    """The record of the session-memory spaces memboard commands resolved on this machine (never in a project)."""
    return base() / SPACES / "known.tsv"


def _old_search_name(real: Path) -> str:
    """The search cache's name in an older memboard: two 32-bit checksums of the real path."""
    raw = str(real).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.sqlite3"


def search_cache(real: Path) -> Path:
    """The search cache of a root (its older location while that is the one that exists)."""
    folder = base() / SEARCH
    return migrated(folder / f"{key(real)}.sqlite3", folder / _old_search_name(real))


def migrated(new: Path, old: Path) -> Path:
    """new, unless it is absent and old exists: a file an older memboard kept at old is read (and kept) there."""
    if not os.path.lexists(new) and os.path.lexists(old):
        return old
    return new
