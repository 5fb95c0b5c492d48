"""Comment-keeping edits of TOML files: the one editor for every TOML file memboard changes.

`plan_set(path, keys, value)` returns the file's exact bytes before and after setting one
dotted key (a table when the value is a mapping), for a preview; `apply(edit)` writes them
through the engine that writes the memory root (the user's config is a tree of its own, see
filetree.py), only if the file still holds the bytes the edit was planned from. An existing file is edited with tomlkit, so its comments, blank lines, key order,
quoting and other tables stay byte for byte; a new file is written with tomli-w. The user
config (`config set`), the board's saved theme and agents' TOML files (such as
`~/.codex/config.toml`) all go through here.

`add_table` and `remove_value` are the pair an installer needs: a table added at the end of
the file and removed again, leaving the file as it was. Both check their result with the
TOML reader (tomllib): an edit whose document is not the intended one is not made.
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

BOM = b"\xef\xbb\xbf"
BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


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
    """Write the edit to the user's config through the engine (its tree's lock, a settled read of the file, the
    write read back: see filetree.py), only if the file still holds `before`."""
    if not edit.changed:
        return
    from .filetree import write_edit  # lazy: a preview or `config show` never writes
    from .trees import USER_CONFIG  # lazy: as filetree

    write_edit(edit.path, USER_CONFIG, edit.before, edit.after, op="config set")


def _parsed(text: str) -> dict[str, Any] | None:
    """The document's data, or None when text is not valid TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _with(data: dict[str, Any], keys: Sequence[str], value: object) -> dict[str, Any]:
    """A copy of the data with keys set to value (the tables on the way made as needed)."""
    out = dict(data)
    inner = out.get(keys[0])
    out[keys[0]] = value if len(keys) == 1 else _with(inner if isinstance(inner, dict) else {}, keys[1:], value)
    return out


def _without(data: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """A copy of the data without keys, and without the tables on the way that this leaves empty."""
    out = dict(data)
    if len(keys) == 1:
        out.pop(keys[0], None)
        return out
    inner = out.get(keys[0])
    if isinstance(inner, dict):
        rest = _without(inner, keys[1:])
        if rest:
            out[keys[0]] = rest
        else:
            del out[keys[0]]
    return out


def _lookup(data: dict[str, Any], keys: Sequence[str]) -> object:
    """The value at keys, or None when it is absent."""
    value: object = data
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _newline(text: str) -> str:
    """The document's line ending."""
    return "\r\n" if "\r\n" in text and not re.search(r"(?<!\r)\n", text) else "\n"


def add_table(data: bytes | None, keys: Sequence[str], mapping: Mapping[str, object], where: str = "the file") -> bytes:
    """The document with the table at keys holding mapping's keys.

    A missing table is appended at the end of the file after a blank line, so that removing it
    again (`remove_value`) gives back the file's bytes (tomlkit would slip a new table in among
    the others, after the comments that head the next one). An existing table gets each key
    set in place (its other keys and its comments stay).
    """
    if data is None:
        return tomli_w.dumps(_nested(keys, dict(mapping))).encode("utf-8")
    text = _text(data, where)
    current = _lookup(tomllib.loads(text), keys)
    if current is not None:
        for key, value in mapping.items():
            data = edit_value(data, [*keys, key], value, where)
        return data
    newline = _newline(text)
    block = tomli_w.dumps(_nested(keys, dict(mapping))).replace("\n", newline)
    if not text.strip():
        out = text + block
    else:
        out = text + ("" if text.endswith("\n") else newline) + newline + block
    if _parsed(out) != _with(tomllib.loads(text), keys, dict(mapping)):  # a table of inline or dotted keys: tomlkit
        try:
            out = edit_value(data, keys, dict(mapping), where).removeprefix(BOM).decode("utf-8")
        except ValueError as exc:  # tomlkit: an inline table cannot hold a table
            raise Refused(
                f"{where}: cannot add {'.'.join(keys)} ({exc}); add it by hand; nothing was written"
            ) from None
    return (BOM if data.startswith(BOM) else b"") + out.encode("utf-8")


def _header(keys: Sequence[str]) -> re.Pattern[str]:
    """A table header line naming keys or a table inside it (bare or quoted keys, spaces around the dots),
    with an optional comment."""
    parts = [f"(?:{re.escape(k)}|\"{re.escape(k)}\"|'{re.escape(k)}')" for k in keys]
    return re.compile(r"[ \t]*\[[ \t]*" + r"[ \t]*\.[ \t]*".join(parts) + r"(?:[ \t]*\.[^\]]*)?[ \t]*\][ \t]*(?:#.*)?")


TABLE_START = re.compile(r"[ \t]*\[")
COMMENT_OR_BLANK = re.compile(r"[ \t]*(?:#.*)?")


def _cut_table(text: str, keys: Sequence[str]) -> str | None:
    """text without the table whose header names keys (and the tables inside it): their headers and
    key lines go, and the blank line before the first header; comment and blank lines inside them
    stay (someone wrote them). None when no header line names keys."""
    lines = text.splitlines(keepends=True)
    header = _header(keys)
    out: list[str] = []
    inside = found = False
    for line in lines:
        if TABLE_START.match(line):
            inside = header.fullmatch(line.rstrip("\r\n")) is not None
            if inside and not found and out and not out[-1].strip():
                out.pop()  # the blank line add_table put before the header
            found = found or inside
            if inside:
                continue
        if not inside or COMMENT_OR_BLANK.fullmatch(line.rstrip("\r\n")):
            out.append(line)
    return "".join(out) if found else None


def _comments(text: str) -> list[str]:
    """The document's comment lines, sorted (to compare which ones an edit kept)."""
    return sorted(line.strip() for line in text.splitlines() if line.strip().startswith("#"))


def _tomlkit_without(text: str, keys: Sequence[str]) -> str:
    """text without keys through tomlkit, the tables on the way that this leaves empty removed too."""
    doc = tomlkit.parse(text)
    path: list[Any] = [doc]
    for key in keys[:-1]:
        path.append(path[-1][key])
    del path[-1][keys[-1]]
    for depth in range(len(keys) - 1, 0, -1):
        if len(path[depth]) == 0:  # a comment it held is caught by the caller's check
            del path[depth - 1][keys[depth - 1]]
    return tomlkit.dumps(doc)


def remove_value(data: bytes, keys: Sequence[str], where: str = "the file") -> bytes | None:
    """The document without the key or table at keys and the tables it leaves empty; None when keys are absent.

    A table is cut out by its lines (see `_cut_table`), so that a table `add_table` appended
    goes with the blank line before it and the file is as it was; where that cannot say it
    (an inline table, dotted keys), tomlkit removes it, unless that would drop a comment.
    b"" when nothing but blank lines is left (the caller deletes the file).
    """
    text = _text(data, where)
    parsed = tomllib.loads(text)
    if _lookup(parsed, keys) is None:
        return None
    wanted = _without(parsed, keys)
    out = _cut_table(text, keys)
    if (
        out is None
        or (found := _parsed(out)) is None
        or _lookup(found, keys) is not None
        or _without(found, keys) != wanted
    ):
        out = _tomlkit_without(text, keys)
        if _parsed(out) != wanted or _comments(out) != _comments(text):
            raise Refused(
                f"{where}: cannot remove {'.'.join(keys)} and keep every comment; remove it by hand; nothing was written"
            )
    if not out.strip():
        return b""
    return (BOM if data.startswith(BOM) else b"") + out.encode("utf-8")
