"""`space add NAME SUBDIR`: one route more in a project's config.toml, every other byte kept (issue 24 §4 "add").

The route `"NAME" = "SUBDIR"` joins the `[spaces]` table (created at the end of the file when missing,
the whole file when there is none). A config whose routes are top-level keys (no entry in `[spaces]` or
`[routes]`: the skill then reads the top-level strings) gets the route as a top-level key instead, so
that its other routes are not hidden. The route is validated as reading validates it (resolve.py:
name trimmed, not empty, unique; folder relative, no `..`, unique once normalised, inside the project),
and the result is checked: the file's bytes are the old ones with the new line inserted, in the file's
line ends, and reading it gives the old routes plus this one.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import AoT, KeyType, SingleKey, Table

from ..errors import Refused
from .resolve import CONFIG_TABLES, ConfigProblem, Route, parse_routes

BOM = b"\xef\xbb\xbf"


def _line_end(text: str) -> str:
    """The file's line end: CRLF when every line ends so, else LF."""
    return "\r\n" if "\r\n" in text and not re.search(r"(?<!\r)\n", text) else "\n"


def _entry(name: str, subdir: str) -> str:
    """The route's line without its end: `"NAME" = "SUBDIR"` (TOML basic strings)."""
    return f"{json.dumps(name, ensure_ascii=False)} = {json.dumps(subdir, ensure_ascii=False)}"


def _top_level_routes(payload: dict[str, Any]) -> bool:
    """Whether the config's routes are its top-level strings (no entry in [spaces] or [routes])."""
    if any(isinstance(payload.get(t), dict) and payload[t] for t in CONFIG_TABLES):
        return False
    return any(isinstance(v, str) for k, v in payload.items() if k not in CONFIG_TABLES)


def _insert_after_plain(text: str, doc: Any, container: Any, key: str, value: str) -> str:
    """text with key = value added to container (a table, or the document's top level) right after its last
    plain key, in the file's line ends."""
    item = tomlkit.item(value)
    body = container.value.body if isinstance(container, Table) else container.body
    plain = [i for i, (k, v) in enumerate(body) if k is not None and not isinstance(v, (Table, AoT))]
    single = SingleKey(key, t=KeyType.Basic)
    if plain and plain[-1] + 1 < len(body):  # before the blank lines and comments that end the table
        (container.value if isinstance(container, Table) else container)._insert_at(plain[-1] + 1, single, item)
    else:
        container.add(single, item)
    out: str = tomlkit.dumps(doc)
    if _line_end(text) == "\r\n":
        out = re.sub(r"(?<!\r)\n", "\r\n", out)
    return out


def _inserted(old: str, new: str) -> bool:
    """Whether new is old with text inserted at one place (every other byte kept)."""
    if len(new) <= len(old):
        return False
    start = 0
    while start < len(old) and old[start] == new[start]:
        start += 1
    return new.endswith(old[start:])


def add_route(data: bytes | None, project: Path, config: Path, name: str, subdir: str) -> bytes:
    """The config.toml (bytes; None: absent) with the route name = subdir added; Refused in one line, naming
    the file, when the route is invalid, already there, or the file is not valid."""
    name = name.strip()
    if not name:
        raise Refused(f"invalid route for {config}: the name is empty; nothing written")
    if data is None:
        text, bom = "", b""
        old_routes: tuple[Route, ...] = ()
    else:
        bom = BOM if data.startswith(BOM) else b""
        try:
            text = data.removeprefix(BOM).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused(f"invalid config {config}: not UTF-8 (byte {exc.start}); nothing written") from None
        try:
            old_routes = parse_routes(project, config, text)
        except ConfigProblem as exc:
            raise Refused(f"{exc}; nothing written") from None
    nl = _line_end(text) if text else "\n"
    payload = tomllib.loads(text) if text else {}
    entry = _entry(name, subdir)
    if name in {route.name for route in old_routes}:
        raise Refused(f"cannot add {entry} to {config}: route name {name!r} appears twice; nothing written")
    try:
        out = _added(text, payload, config, name, subdir, entry, nl)
    except tomlkit.exceptions.TOMLKitError as exc:
        raise Refused(f"cannot add {entry} to {config}: {exc}; nothing written") from None
    try:
        new_routes = parse_routes(project, config, out)
    except ConfigProblem as exc:
        why = str(exc).removeprefix(f"invalid config {config}: ")
        raise Refused(f"cannot add {entry} to {config}: {why}; nothing written") from None
    old = {(r.name, r.path) for r in old_routes}
    added = {(r.name, r.path) for r in new_routes} - old
    if not old <= {(r.name, r.path) for r in new_routes} or len(added) != 1 or next(iter(added))[0] != name:
        raise Refused(f"{config}: adding {entry} would not add exactly that route; add it by hand; nothing written")
    if not _inserted(text, out):
        raise Refused(f"{config}: adding {entry} would change other bytes; add it by hand; nothing written")
    return bom + out.encode("utf-8")


def _added(text: str, payload: dict[str, Any], config: Path, name: str, subdir: str, entry: str, nl: str) -> str:
    """The config's text with the route's line added where its routes are (see the module)."""
    if not text.strip():
        return text + ("" if not text or text.endswith("\n") else nl) + f"[spaces]{nl}{entry}{nl}"
    if _top_level_routes(payload):
        doc = tomlkit.parse(text)
        return _insert_after_plain(text, doc, doc, name, subdir)
    if isinstance(payload.get("spaces"), dict):
        doc = tomlkit.parse(text)
        table = doc["spaces"]
        if isinstance(table, Table):
            return _insert_after_plain(text, doc, table, name, subdir)
        raise Refused(f"{config}: its [spaces] is not a plain table; add the route by hand; nothing written")
    if "spaces" in payload:
        raise Refused(f"invalid config {config}: spaces must be a table; nothing written")
    return text + ("" if text.endswith("\n") else nl) + nl + f"[spaces]{nl}{entry}{nl}"
