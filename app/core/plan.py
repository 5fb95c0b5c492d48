"""Plans: ordered file changes with exact bytes before and after, shown as unified diffs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .index import decode


@dataclass(frozen=True)
class Change:
    """One file step: create, modify, delete or move, with the exact bytes involved."""

    kind: str
    path: str
    before: bytes | None
    after: bytes | None
    dest: str | None = None

    def describe(self) -> str:
        """A short line such as `modify index.md`."""
        if self.kind == "move":
            return f"move {self.path} -> {self.dest}"
        return f"{self.kind} {self.path}"


@dataclass
class Check:
    """Something to verify after writing, as a predicate over a reader."""

    description: str
    holds: Callable[[object], bool]


@dataclass
class Plan:
    """An operation's plan: what it changes, what to verify, what to report."""

    op: str
    changes: list[Change] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    report: list[str] = field(default_factory=list)
    result: dict = field(default_factory=dict)
    success: str | None = None

    @property
    def empty(self) -> bool:
        """Whether the plan changes no file."""
        return not self.changes

    def paths(self) -> list[str]:
        """Every path the plan reads or writes, in order, without repeats."""
        out: list[str] = []
        for ch in self.changes:
            for p in (ch.path, ch.dest):
                if p and p not in out:
                    out.append(p)
        return out

    def expected_before(self) -> dict[str, bytes | None]:
        """The bytes each path held when the plan was built (first mention wins)."""
        seen: dict[str, bytes | None] = {}
        for ch in self.changes:
            if ch.path not in seen:
                seen[ch.path] = ch.before
            if ch.dest and ch.dest not in seen:
                seen[ch.dest] = None
        return seen

    def diff(self) -> str:
        """The plan as unified diffs (moves as rename lines)."""
        return "".join(diff_change(ch) for ch in self.changes)


def _lines(data: bytes | None) -> list[str]:
    """Text lines for difflib, each ending with a newline."""
    if not data:
        return []
    text = decode(data)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return [l.replace("\r\n", "\n") if l.endswith("\r\n") else l for l in lines]


def diff_change(ch: Change) -> str:
    """One change as a unified diff in git's style."""
    import difflib  # on use: plans applied without a preview (hooks) never diff

    if ch.kind == "move":
        head = f"diff --git a/{ch.path} b/{ch.dest}\nrename from {ch.path}\nrename to {ch.dest}\n"
        if ch.before != ch.after and ch.after is not None:
            body = difflib.unified_diff(_lines(ch.before), _lines(ch.after), f"a/{ch.path}", f"b/{ch.dest}")
            return head + "".join(body)
        return head
    old_name = "/dev/null" if ch.kind == "create" else f"a/{ch.path}"
    new_name = "/dev/null" if ch.kind == "delete" else f"b/{ch.path}"
    body = "".join(difflib.unified_diff(_lines(ch.before), _lines(ch.after), old_name, new_name))
    if not body:
        return f"--- {old_name}\n+++ {new_name}\n"
    return body
