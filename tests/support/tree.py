"""The one snapshot of a folder's files for tests: what changed, what stayed byte for byte."""

from __future__ import annotations

from pathlib import Path


def tree(path: Path, *, folders: bool = False, links: bool = True, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under path as relative POSIX name -> bytes.

    folders: folders too, as `name/` -> b""; links=False leaves symlinks out (else their
    targets' bytes are read); a path with a part named in skip is left out.
    """
    out: dict[str, bytes] = {}
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path)
        if skip and set(skip) & set(rel.parts):
            continue
        if not links and p.is_symlink():
            continue
        if p.is_dir():
            if folders:
                out[rel.as_posix() + "/"] = b""
        elif p.is_file():
            out[rel.as_posix()] = p.read_bytes()
    return out


def content_changes(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """Paths added, removed or changed between two trees, ignoring memboard's own state folder."""
    keys = set(before) | set(after)
    return {k for k in keys if before.get(k) != after.get(k) and not k.startswith(".memboard/")}
