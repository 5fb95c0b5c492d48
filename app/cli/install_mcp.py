"""`memboard install-mcp|uninstall-mcp claude|cursor|codex`: add or remove the memboard MCP server in an agent's config.

Each agent reads its MCP servers from the file its documentation names, the user's or a project's:

- Claude Code: `~/.claude.json` (user scope) or `<project>/.mcp.json`, an object `mcpServers`
  whose member `memboard` is `{"type": "stdio", "command": ..., "args": [...]}`;
- Cursor: `~/.cursor/mcp.json` or `<project>/.cursor/mcp.json`, the same `mcpServers` object
  (`{"command": ..., "args": [...]}`);
- Codex: `~/.codex/config.toml` or `<project>/.codex/config.toml` (a trusted project), a table
  `[mcp_servers.memboard]` with `command` and `args`.

The entry runs `mcp` (and `--root DIR` when given) with this memboard by absolute path in a user's
file, and with `memboard` from PATH in a project's file, which a team commits (`--command` chooses:
`memboard`, `uvx memboard`, a path; the preview says which). A project's file names no path of this
machine's either: its --root is relative to the project (see served_root). Install
adds it after the other entries in the file's own formatting (JSON through jsonedit, TOML through
the comment-keeping tomledit) or brings an existing `memboard` entry up to date, keeping its other
keys; a second install changes nothing. Uninstall removes that entry, and the `mcpServers` /
`mcp_servers` container when it held nothing else; a file left holding nothing is deleted (it
was created by install). Both preview the change as a diff and keep a backup, like install-hook.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core.config import ROOT_ENV, resolve_root, settings
from ..core.errors import MemboardError, Refused, UsageError
from ..core.files import tomledit
from . import jsonedit
from .install import command_choice, finish, memboard_words, read_config, removed, root_argument, say
from .server import server_cannot_start

SERVER = "memboard"


@dataclass(frozen=True)
class McpFile:
    """Where and how one agent keeps its MCP servers."""

    user: str  # the file under the home folder
    project: str  # the file under a project folder
    format: Literal["json", "toml"]
    container: str  # the object (JSON) or table (TOML) of servers
    extra: dict[str, str] = field(default_factory=dict)  # keys the agent's entries carry besides command and args


AGENTS: dict[str, McpFile] = {
    "claude": McpFile(".claude.json", ".mcp.json", "json", "mcpServers", {"type": "stdio"}),
    "cursor": McpFile(".cursor/mcp.json", ".cursor/mcp.json", "json", "mcpServers"),
    "codex": McpFile(".codex/config.toml", ".codex/config.toml", "toml", "mcp_servers"),
}


def mcp_file(tool: str, project: str | None) -> Path:
    """The agent's MCP config file: under the home folder, or under the project folder."""
    spec = AGENTS[tool]
    if project is None:
        return Path.home() / spec.user
    base = Path(project).expanduser()
    if not base.is_dir():
        raise UsageError(f"project folder {base} does not exist")
    return base / spec.project


def command_words(command: str | None) -> list[str]:
    """The words that start memboard: --command's (a path as it is, else split as a shell would), else this
    memboard by absolute path."""
    if command is None:
        return memboard_words()
    if os.path.isfile(command):
        return [command]
    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError as exc:
        raise UsageError(f"--command {command!r}: {exc}") from None
    if not words:
        raise UsageError("--command must not be empty")
    return words


def server_entry(tool: str, root: str | None, command: str | None = None) -> dict[str, Any]:
    """The server entry: how the agent starts `memboard mcp` (command: --command's, None: this memboard)."""
    words = command_words(command)
    args = [*words[1:], "mcp"]
    if root is not None:
        args += ["--root", root]
    return {**AGENTS[tool].extra, "command": words[0], "args": args}


def served_root(root: str | None, project: str | None = None, tool: str = "claude") -> tuple[str | None, str | None]:
    """The --root to write (None: the server finds the root itself) and the line saying which and why (see
    install.root_argument); Cursor names a project's folder as its `${workspaceFolder}`, Claude Code and Codex start
    a project's server in that folder."""
    return root_argument(root, project, "the entry", "${workspaceFolder}" if tool == "cursor" else None)


def _json_servers(obj: dict, path: Path, container: str) -> dict:
    """The file's servers object ({} when absent); another type is a refusal."""
    servers = obj.get(container, {})
    if not isinstance(servers, dict):
        raise Refused(f"{path}: {container} is not an object; nothing was written")
    return servers


def plan_install(
    tool: str, project: str | None, served: str | None, command: str | None = None
) -> tuple[Path, bytes | None, bytes | None]:
    """(path, before, after) for adding the server with --root served (see served_root); after is None when the
    entry is already there."""
    spec, path = AGENTS[tool], mcp_file(tool, project)
    entry = server_entry(tool, served, command)
    if spec.format == "toml":
        before = tomledit.read(path)
        after = tomledit.add_table(before, (spec.container, SERVER), entry, str(path))
        return path, before, after if after != before else None
    before, obj = read_config(path)
    current = _json_servers(obj, path, spec.container).get(SERVER)
    wanted = {**current, **entry} if isinstance(current, dict) else entry
    if current == wanted:
        return path, before, None
    bom = b"\xef\xbb\xbf" if before and before.startswith(b"\xef\xbb\xbf") else b""
    text = before[len(bom) :].decode("utf-8") if before and before.strip() else "{}\n"
    try:
        edited = jsonedit.put(text, (spec.container, SERVER), wanted)
    except jsonedit.CommentsInTheWay as exc:
        raise Refused(f"{path}: {exc}: comments must go from there first; nothing was written") from None
    if jsonedit.loads(edited) != {**obj, spec.container: {**_json_servers(obj, path, spec.container), SERVER: wanted}}:
        raise MemboardError(f"{path}: could not place the memboard entry; nothing was written")
    return path, before, bom + edited.encode("utf-8")


def plan_uninstall(tool: str, project: str | None) -> tuple[Path, bytes | None, bytes | None]:
    """(path, before, after) for removing the server; after is None when there is none, b"" when the file
    is left holding nothing (it is deleted)."""
    spec, path = AGENTS[tool], mcp_file(tool, project)
    if spec.format == "toml":
        before = tomledit.read(path)
        after = tomledit.remove_value(before, (spec.container, SERVER), str(path)) if before is not None else None
        return path, before, after
    before, obj = read_config(path)
    servers = _json_servers(obj, path, spec.container)
    if before is None or SERVER not in servers:
        return path, before, None
    bom = b"\xef\xbb\xbf" if before.startswith(b"\xef\xbb\xbf") else b""
    text = removed(path, before[len(bom) :].decode("utf-8"), [(spec.container, SERVER)])
    if len(servers) == 1 and not jsonedit.comments(jsonedit.value_text(text, (spec.container,))):
        text = removed(path, text, [(spec.container,)])  # the container install added goes too
    if jsonedit.loads(text) == {} and not jsonedit.comments(text):  # a comment left keeps the file
        return path, before, b""
    return path, before, bom + text.encode("utf-8")


def _root_note(project: str | None) -> None:
    """Say on stderr when the server will find no memory root by itself (no --root given). A project's server is
    started in the project folder, so its `memory/` there counts (and this folder's does not)."""
    try:
        if project is None:
            resolve_root(None)
        elif not (Path(project).expanduser() / "memory").is_dir() and not (os.environ.get(ROOT_ENV) or settings().root):
            raise UsageError("no root")
    except UsageError:
        print(
            "memboard: note: no memory root is configured; the server needs one: "
            "`memboard config set root DIR`, or install-mcp --root DIR"
            + (", or a memory/ folder in the project" if project is not None else ""),
            file=sys.stderr,
        )


def cmd_install_mcp(args: argparse.Namespace) -> int:
    """Preview the change as a diff; unless --dry-run, back up the old file and write the new one."""
    root = getattr(args, "root", None)
    command, why = command_choice(getattr(args, "command", None), args.project)
    mcp_file(args.tool, args.project)  # a missing project folder is told before the root
    served, where = served_root(root, args.project, args.tool)
    path, before, after = plan_install(args.tool, args.project, served, command)
    cannot = server_cannot_start()  # never point an agent at a server that cannot start
    if cannot is not None:
        raise MemboardError(f"{cannot}; nothing written to {path}")
    if root is None:
        _root_note(args.project)
    if after is not None:
        say(why)
        if where is not None:
            say(where)
    done = f"installed: {path} starts the memboard MCP server for {args.tool}"
    return finish(
        args,
        path,
        (before, after),
        f"nothing to change: {path} already starts the memboard MCP server",
        lambda saved: done + (f" (backup: {saved})" if saved else ""),
    )


def cmd_uninstall_mcp(args: argparse.Namespace) -> int:
    """Preview the removal as a diff; unless --dry-run, back up the file and remove memboard's entry."""
    path, before, after = plan_uninstall(args.tool, args.project)
    what = "deleted it, as it held only the memboard server" if after == b"" else "removed the memboard server"
    return finish(
        args,
        path,
        (before, after),
        f"nothing to remove: {path} has no memboard MCP server",
        lambda saved: f"uninstalled: {path}: {what} (backup: {saved})",
    )
