"""Rebase a planned file change onto bytes that changed underneath it (a line-level 3-way merge).

When a writer that skips the lock (a hand edit in an editor, a sync tool) saves index.md
while memboard is in the middle of a multi-file plan, the remaining step must neither
overwrite that edit nor be dropped. The plan's change is a set of line hunks from `before`
to `after`; if the other writer's hunks from `before` to `fresh` touch different lines, both
apply cleanly. Hunks that share a line, or insert at the same point, conflict: nothing is merged,
with one exception: when both sides only add whole table rows at the end of the table (an agent
registering while a person appends a row by hand), both sets of rows are kept, theirs first,
unless a Session ID is in both.
"""

from __future__ import annotations

from collections import Counter


def _split_lf(data: bytes) -> list[bytes]:
    """Split after `\\n` only, so a lone `\\r` stays inside its line."""
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _hunks(base: list[bytes], other: list[bytes]) -> list[tuple[int, int, list[bytes]]]:
    """Changed regions of base as (start, end, replacement lines)."""
    import difflib  # lazy: only a write that finds its file changed underneath merges (the hook's path loads it never)

    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, other[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _touch(a: tuple[int, int, list[bytes]], b: tuple[int, int, list[bytes]]) -> bool:
    """Whether two hunks conflict: they share a line, or insert at the same point or inside each other."""
    a_ins, b_ins = a[0] == a[1], b[0] == b[1]
    if a_ins and b_ins:
        return a[0] == b[0]
    if a_ins:
        return b[0] < a[0] < b[1]
    if b_ins:
        return a[0] < b[0] < a[1]
    return a[0] < b[1] and b[0] < a[1]


def _row(line: bytes) -> bool:
    """Whether line is a whole table line (starts with `|`, ends at a line end)."""
    return line.lstrip(b" \t").startswith(b"|") and line.endswith(b"\n")


def _row_id(line: bytes) -> bytes:
    """A table line's first cell."""
    return line.lstrip(b" \t")[1:].split(b"|", 1)[0].strip()


def _rows_at_table_end(base: list[bytes], a: tuple[int, int, list[bytes]], b: tuple[int, int, list[bytes]]) -> bool:
    """Whether two insertions at one point both add only whole rows right after the table's last line,
    with no Session ID in both."""
    at = a[0]
    if not (a[0] == a[1] == b[0] == b[1] and at > 0 and a[2] and b[2]):
        return False
    if not base[at - 1].lstrip(b" \t").startswith(b"|") or (
        at < len(base) and base[at].lstrip(b" \t").startswith(b"|")
    ):
        return False
    if not all(_row(line) for line in a[2] + b[2]):
        return False
    return not {_row_id(line) for line in a[2]} & {_row_id(line) for line in b[2]}


def _closed(before: bytes, after: bytes, fresh: bytes) -> bytes:
    """before with the line end that both sides added after its unterminated last line (else before itself)."""
    if not before or before.endswith(b"\n"):
        return before
    for eol in (b"\r\n", b"\n"):
        if after.startswith(before + eol) and fresh.startswith(before + eol):
            return before + eol
    return before


def rebase(before: bytes, after: bytes, fresh: bytes) -> bytes | None:
    """`fresh` with the change before->after applied, or None when the two changes conflict."""
    base = _split_lf(_closed(before, after, fresh))
    ours = _hunks(base, _split_lf(after))
    theirs = _hunks(base, _split_lf(fresh))
    for o in ours:
        for t in theirs:
            if _touch(o, t) and not (o[2] == t[2] and o[:2] == t[:2]) and not _rows_at_table_end(base, o, t):
                return None
    if not (_anchored(base, ours) and _anchored(base, theirs)):
        return None
    # at one point: their rows first (saved first), then ours; a hunk both sides made once
    hunks = {(h[0], h[1], tuple(h[2])): 0 for h in theirs}
    for h in ours:
        hunks.setdefault((h[0], h[1], tuple(h[2])), 1)
    merged: list[bytes] = []
    pos = 0
    for start, end, lines in sorted(hunks, key=lambda h: (h[0], h[1], hunks[h])):
        merged += base[pos:start]
        merged += lines
        pos = end
    merged += base[pos:]
    return b"".join(merged)


def _anchored(base: list[bytes], hunks: list[tuple[int, int, list[bytes]]]) -> bool:
    """Whether every hunk is pinned by unique lines (a repeated line makes its place ambiguous)."""
    counts = Counter(base)
    for start, end, _lines in hunks:
        if start < end:
            if any(counts[line] > 1 for line in base[start:end]):
                return False
        elif start > 0 and counts[base[start - 1]] > 1:
            return False
    return True


def contains_change(before: bytes, after: bytes, current: bytes) -> bool:
    """Whether `current` still shows the change before->after (added lines there, removed ones gone).

    Used by verification: a concurrent hand edit that lands right after memboard's rename
    changes the bytes but not memboard's rows, and must not turn a good write into a failure.
    """
    old, new, now = Counter(_split_lf(before)), Counter(_split_lf(after)), Counter(_split_lf(current))
    added, removed = new - old, old - new
    return all(now[line] >= n + old[line] for line, n in added.items()) and all(
        now[line] <= new[line] for line in removed
    )
