"""Plans: ordered file changes with exact bytes before and after, shown as unified diffs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .formats.index import decode


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
    # changes to memboard's local state for this root (paths relative to it, see localstate.py),
    # written under the same lock before the root's changes
    local: list[Change] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Whether the plan changes no file (in the root or in local state)."""
        return not self.changes and not self.local

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
        """The plan as a git patch (text; bytes that are not UTF-8 appear as lone surrogates)."""
        return "".join(diff_change(ch) for ch in self.changes)

    def patch(self) -> bytes:
        """The plan as a git patch in bytes: `git apply` of it writes exactly the plan's bytes."""
        return self.diff().encode("utf-8", "surrogateescape")


NO_EOL = "\\ No newline at end of file\n"
BOM_BYTES = b"\xef\xbb\xbf"


def _eol_style(data: bytes) -> str:
    """`CRLF`, `LF`, `mixed CRLF/LF`, or `` for a file without line ends."""
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    if crlf and lf:
        return "mixed CRLF/LF"
    return "CRLF" if crlf else "LF" if lf else ""


def encoding_notes(plan: "Plan") -> list[str]:
    """Changes a diff shows poorly, in words: a byte order mark or final newline added or
    removed, line endings switched (a `\\r` or U+FEFF is invisible in most terminals)."""
    out = []
    for ch in plan.changes:
        before, after = ch.before, ch.after
        if ch.kind not in ("modify", "move") or before is None or after is None or before == after:
            continue
        name = ch.dest or ch.path
        if before.startswith(BOM_BYTES) != after.startswith(BOM_BYTES):
            out.append(f"{name}: byte order mark (BOM) {'removed' if before.startswith(BOM_BYTES) else 'added'}")
        old_style, new_style = _eol_style(before), _eol_style(after)
        if old_style and new_style and old_style != new_style:
            out.append(f"{name}: line endings {old_style} → {new_style}")
        had, has = before.endswith(b"\n"), after.endswith(b"\n")
        if had != has:
            out.append(f"{name}: final newline {'removed' if had else 'added'}")
    return out


def _lines(data: bytes | None) -> list[str]:
    """Text lines for difflib: decoded losslessly, split at `\\n` only (a `\\r`, form feed,
    U+2028 and the like stay inside their line, as they do in the file), each ending with a
    newline; a last line without one carries git's marker."""
    if not data:
        return []
    parts = decode(data).split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1] + "\n" + NO_EOL)
    return lines


LARGE = 4000
CONTEXT = 3
GAP_CELLS = 250_000


def _positions_of_unique(lines: list[str]) -> dict[str, int]:
    """Each line's position where it occurs once, -1 where it repeats."""
    where: dict[str, int] = {}
    for i, line in enumerate(lines):
        where[line] = -1 if line in where else i
    return where


def _anchored_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """Matching blocks for large inputs: lines that occur once on each side, in order (the
    longest increasing run of them, as patience diff does), with difflib refining the small
    gaps between them. Linear-ish where difflib's own matcher is quadratic on scattered edits."""
    import difflib
    from bisect import bisect_left

    once_a, once_b = _positions_of_unique(a), _positions_of_unique(b)
    pairs = [(i, once_b[line]) for line, i in once_a.items() if i >= 0 and once_b.get(line, -1) >= 0]
    pairs.sort()
    tails: list[int] = []
    tail_at: list[int] = []
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        pos = bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[pos] = j
            tail_at[pos] = k
        back.append(tail_at[pos - 1] if pos else -1)
    chain: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    chain.reverse()
    blocks: list[tuple[int, int, int]] = []

    def add(i: int, j: int, size: int) -> None:
        if blocks and blocks[-1][0] + blocks[-1][2] == i and blocks[-1][1] + blocks[-1][2] == j:
            last = blocks.pop()
            blocks.append((last[0], last[1], last[2] + size))
        elif size:
            blocks.append((i, j, size))

    def gap(i1: int, i2: int, j1: int, j2: int) -> None:
        if i2 > i1 and j2 > j1 and (i2 - i1) * (j2 - j1) <= GAP_CELLS:
            matcher = difflib.SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
            for bi, bj, size in matcher.get_matching_blocks():
                add(i1 + bi, j1 + bj, size)

    pi = pj = 0
    for i, j in chain:
        gap(pi, i, pj, j)
        add(i, j, 1)
        pi, pj = i + 1, j + 1
    gap(pi, len(a), pj, len(b))
    blocks.append((len(a), len(b), 0))
    return blocks


def _range(start: int, stop: int) -> str:
    """A hunk range as unified diffs write it."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified_diff(a: list[str], b: list[str], from_name: str, to_name: str) -> str:
    """A unified diff of two line lists: difflib's own for ordinary files; for large ones,
    difflib's hunk grouping over patience-style matching blocks, so that an organize pass over
    a 100k-row index previews in about a second rather than minutes."""
    import difflib  # on use: plans applied without a preview (hooks) never diff

    if len(a) + len(b) <= LARGE:
        return "".join(difflib.unified_diff(a, b, from_name, to_name, n=CONTEXT))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    matcher.matching_blocks = [difflib.Match(*blk) for blk in _anchored_blocks(a, b)]
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        if not out:
            out += [f"--- {from_name}\n", f"+++ {to_name}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def quote_path(path: str) -> str:
    """A path as git writes it in patch headers: C-quoted when it holds a quote, a backslash or a
    control character, as is otherwise (a trailing tab marks names with spaces on ---/+++ lines)."""
    if not any(c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7F for c in path):
        return path
    escapes = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    body = "".join(escapes.get(c) or (f"\\{ord(c):03o}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in path)
    return f'"{body}"'


def _side(prefix: str, path: str) -> str:
    """One side's name on a ---/+++ line."""
    if path == "/dev/null":
        return path
    name = quote_path(prefix + path)
    return name + ("\t" if " " in name and not name.startswith('"') else "")


def diff_change(ch: Change) -> str:
    """One change as a git patch section: `git apply` of the whole plan's sections gives exactly
    the bytes the plan writes (CRLF, BOM, bytes that are not UTF-8 and missing final newlines
    included; decoded text keeps undecodable bytes as surrogates, see Plan.patch)."""
    dest = ch.dest if ch.kind == "move" and ch.dest else ch.path
    head = f"diff --git {quote_path('a/' + ch.path)} {quote_path('b/' + dest)}\n"
    old_name, new_name = _side("a/", ch.path), _side("b/", dest)
    if ch.kind == "move":
        head += f"rename from {quote_path(ch.path)}\nrename to {quote_path(dest)}\n"
        after = ch.after if ch.after is not None else ch.before
        return head + unified_diff(_lines(ch.before), _lines(after), old_name, new_name)
    if ch.kind == "create":
        head += "new file mode 100644\n"
        old_name = "/dev/null"
    elif ch.kind == "delete":
        head += "deleted file mode 100644\n"
        new_name = "/dev/null"
    body = unified_diff(_lines(ch.before), _lines(ch.after), old_name, new_name)
    if not body and ch.kind == "modify":
        return ""  # no byte changes: nothing for a patch to say
    return head + body
