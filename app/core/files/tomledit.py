"""Comment-keeping edits of TOML files: the one editor for every TOML file memboard changes.

`plan_set(path, keys, value)` returns the file's exact bytes before and after setting one
dotted key (a table when the value is a mapping), for a preview; `apply(edit)` writes them
atomically, only if the file still holds the bytes the edit was planned from, and reads them
back. An existing file is edited with tomlkit, so its comments, blank lines, key order,
quoting and other tables stay byte for byte; a new file is written with tomli-w. The user
config (`config set`), the board's saved theme and agents' TOML files (such as
`~/.codex/config.toml`) all go through here.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w
import tomlkit
from tomlkit.items import AoT, Table

from ..errors import MemboardError, Refused
from .fs import ChangedUnderfoot, atomic_write

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class TomlEdit:
    """One planned edit of a TOML file: its path and exact bytes before (None: absent) and after."""

    path: Path
    before: bytes | None
    after: bytes

    @property
    def changed(self) -> bool:
        """Whether applying the edit changes the file."""
        return self.before != self.after


def _text(data: bytes, where: str) -> str:
    """The document as text (a leading BOM set aside); a broken file is a one-line refusal."""
    try:
        text = data.removeprefix(BOM).decode("utf-8")
        tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise Refused(f"{where} is not valid TOML ({exc}); fix it first, nothing was written") from None
    return text


def _nested(keys: Sequence[str], value: object) -> dict[str, Any]:
    """{k1: {k2: ... value}} for a new document."""
    out: dict[str, Any] = {keys[-1]: value}
    for key in reversed(keys[:-1]):
        out = {key: out}
    return out


def _assign(container: Any, key: str, value: object, where: str) -> None:
    """Set container[key] = value; a mapping updates an existing table in place (its comments stay)."""
    current: Any = container.get(key)
    if isinstance(value, Mapping) and isinstance(current, Mapping):
        for stale in [k for k in current if k not in value]:
            del current[stale]  # type: ignore[attr-defined]  # a tomlkit table
        for sub, sub_value in value.items():
            _assign(current, sub, sub_value, f"{where}.{sub}")
        return
    if current is not None and _plain(current) == value and type(_plain(current)) is type(value):
        return  # the same value already: keep its spelling and any comment beside it
    if current is None:
        _add(container, key, tomlkit.item(value))
    else:
        container[key] = tomlkit.item(value)


def _add(container: Any, key: str, item: Any) -> None:
    """Add a new key to a table right after its last plain key, so that the blank lines and the
    comments that end the table (often the next table's heading comment) stay below it."""
    body = container.value.body if isinstance(container, Table) else []
    plain = [i for i, (k, v) in enumerate(body) if k is not None and not isinstance(v, (Table, AoT))]
    if plain and plain[-1] + 1 < len(body) and not isinstance(item, (Table, AoT)):
        container.value._insert_at(plain[-1] + 1, key, item)
    else:
        container[key] = item


def _plain(item: object) -> object:
    """A tomlkit item as plain Python data."""
    unwrap = getattr(item, "unwrap", None)
    return unwrap() if unwrap else item


def edit_value(data: bytes | None, keys: Sequence[str], value: object, where: str = "the file") -> bytes:
    """The document with `keys` (a dotted key as its parts) set to value; new files via tomli-w."""
    if not keys or not all(isinstance(k, str) and k for k in keys):
        raise MemboardError("a TOML key needs one or more non-empty parts")
    if data is None:
        return tomli_w.dumps(_nested(keys, value)).encode("utf-8")
    doc = tomlkit.parse(_text(data, where))
    container: Any = doc
    for depth, key in enumerate(keys[:-1]):
        child = container.get(key)
        if child is None:
            container[key] = tomlkit.table()
            child = container[key]
        elif not isinstance(child, Mapping):
            raise Refused(f"{where}: {'.'.join(keys[: depth + 1])} is not a table; nothing was written")
        container = child
    _assign(container, keys[-1], value, where)
    out = tomlkit.dumps(doc).encode("utf-8")
    if b"\r\n" in data and not re.search(rb"(?<!\r)\n", data):
        out = re.sub(rb"(?<!\r)\n", b"\r\n", out)  # a CRLF file keeps CRLF on the lines we add
    return (BOM + out) if data.startswith(BOM) else out


def read(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise Refused(f"{path} is a folder, expected a TOML file; nothing was written") from None
    except OSError as exc:
        raise MemboardError(f"cannot read {path}: {exc.strerror or exc}") from None


def plan_set(path: Path, keys: Sequence[str], value: object) -> TomlEdit:
    """The edit that sets one key (or table) in the TOML file at path."""
    before = read(path)
    return TomlEdit(path, before, edit_value(before, keys, value, str(path)))


def apply(edit: TomlEdit) -> None:
    """Write the edit atomically if the file still holds `before`, then read it back."""
    if not edit.changed:
        return
    try:
        atomic_write(edit.path, edit.after, expect=edit.before)
    except ChangedUnderfoot:
        raise MemboardError(f"{edit.path} changed while memboard was writing it; nothing was written") from None
    except OSError as exc:
        raise MemboardError(f"cannot write {edit.path}: {exc.strerror or exc}; nothing was written") from None
    if read(edit.path) != edit.after:
        raise MemboardError(f"{edit.path} changed right after memboard wrote it; run the command again")
