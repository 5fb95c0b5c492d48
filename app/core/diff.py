"""Plans as git patches: unified diffs of exact bytes that `git apply` turns back into those bytes.

Small files are diffed by difflib itself; large ones by difflib's hunk grouping over
patience-style matching blocks, so that an organize pass over a 100k-row index previews in
about a second rather than minutes. Bytes that are not UTF-8 travel as lone surrogates.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from .formats.index import AROUND
from .formats.text import decode, encode, split_lines

if TYPE_CHECKING:
    import difflib

    from .formats.index import Rewrite

Line = TypeVar("Line", str, bytes)  # a line of text, or the same line's bytes (see byte_lines)

NO_EOL = "\\ No newline at end of file\n"
NEEDS_QUOTING = re.compile(r'["\\\x00-\x1f\x7f]')  # what git C-quotes in a patch header's path


def eol_style(data: bytes) -> str:
    """`CRLF`, `LF`, `mixed CRLF/LF`, or `` for a file without line ends."""
    crlf = data.count(b"\r\n") if b"\r" in data else 0  # (counting a pair is slow: most files hold no CR)
    lf = data.count(b"\n") - crlf
    if crlf and lf:
        return "mixed CRLF/LF"
    return "CRLF" if crlf else "LF" if lf else ""


def diff_lines(data: bytes | None) -> list[str]:
    """Text lines for difflib: decoded losslessly, split at `\\n` only (a `\\r`, form feed,
    U+2028 and the like stay inside their line, as they do in the file), each ending with a
    newline; a last line without one carries git's marker."""
    if not data:
        return []
    lines = split_lines(decode(data))
    if not lines[-1].endswith("\n"):
        lines[-1] += "\n" + NO_EOL
    return lines


def byte_lines(data: bytes | None) -> list[bytes]:
    """diff_lines in bytes, without decoding: the same lines encoded (a `\\n` is one byte in UTF-8 and in
    no other character, and decoding with surrogateescape maps different bytes to different text)."""
    if not data:
        return []
    lines = data.splitlines(keepends=True)
    # bytes.splitlines also splits at a lone \r: equal counts mean it split at \n (or \r\n) only
    if len(lines) != data.count(b"\n") + (0 if data.endswith(b"\n") else 1):
        parts = data.split(b"\n")
        lines = [part + b"\n" for part in parts[:-1]]
        if parts[-1]:
            lines.append(parts[-1])
    if not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n" + NO_EOL.encode("ascii")
    return lines


LARGE = 4000
CONTEXT = 3
GAP_CELLS = 250_000
Block = tuple[int, int, int]  # a matching block: a[i:i+size] == b[j:j+size], as (i, j, size)


def _positions_of_unique(lines: Sequence[Line]) -> dict[Line, int]:
    """Each line's position where it occurs once, -1 where it repeats."""
    where: dict[Line, int] = {}
    for i, line in enumerate(lines):
        where[line] = -1 if line in where else i
    return where


def _appended_blocks(a: Sequence[Line], b: Sequence[Line]) -> list[Block] | None:
    """The matching blocks of an append (b is a with lines added after it, its last line perhaps changed: a
    file without a final newline gets one first), found without indexing either side; None for any other
    edit. They are the blocks the anchored matching finds for such an edit (every line a and b share in
    that prefix is matched in place, the rest is difflib's), only without its cost on a 1 MB history.md."""
    import difflib  # lazy: as _anchored_blocks

    keep = len(a) - 1
    if keep < 0 or len(b) < len(a) or a[:keep] != b[:keep]:
        return None
    blocks: list[Block] = [(0, 0, keep)] if keep else []
    tail = difflib.SequenceMatcher(None, a[keep:], b[keep:], autojunk=False)
    for i, j, size in tail.get_matching_blocks():
        if size and blocks and blocks[-1][0] + blocks[-1][2] == keep + i and blocks[-1][1] + blocks[-1][2] == keep + j:
            blocks[-1] = (blocks[-1][0], blocks[-1][1], blocks[-1][2] + size)
        elif size:
            blocks.append((keep + i, keep + j, size))
    blocks.append((len(a), len(b), 0))
    return blocks


def _anchored_blocks(a: Sequence[Line], b: Sequence[Line]) -> list[Block]:
    """Matching blocks for large inputs: lines that occur once on each side, in order (the
    longest increasing run of them, as patience diff does), with difflib refining the small
    gaps between them. Linear-ish where difflib's own matcher is quadratic on scattered edits."""
    appended = _appended_blocks(a, b)
    if appended is not None:
        return appended
    local = _local_blocks(a, b)
    if local is not None:
        return local
    return _patience_blocks(a, b)


def _kept_ends(a: Sequence[Line], b: Sequence[Line]) -> tuple[int, int]:
    """How many lines a and b share at their start, and then at their end (not overlapping)."""
    n = min(len(a), len(b))
    head = 0
    for x, y in zip(a, b):
        if x != y:
            break
        head += 1
    tail = 0
    while tail < n - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    return head, tail


def _local_blocks(a: Sequence[Line], b: Sequence[Line]) -> list[Block] | None:
    """The anchored blocks of an edit confined to a small middle of a large file (archive deletes one row of
    100k, and updates its source's): found from the middle alone, the same as from the whole files; None when
    the edit is not confined so (or the middle's ends do not make it the same).

    Why the same: the kept start and end are equal on both sides, so each of their lines that occurs once on
    each side is an anchor in place; when the last kept line before the middle and the first one after it occur
    once in each file, every anchor of the start and end is in the chain (no anchor of the middle can come
    before or after them), and those two bound the middle's gaps. The middle's anchors are then its lines that
    occur once on each side and nowhere in the kept ends (checked here); difflib matches the kept ends whole."""
    head, tail = _kept_ends(a, b)
    if head + tail < len(a) // 2 or not head or not tail:
        return None
    end_a, end_b = len(a) - tail, len(b) - tail
    kept = set(a[:head])
    kept.update(a[end_a:])
    for line in (a[head - 1], a[end_a]):  # each must occur once in a (so once in b: the ends are the same)
        if a[:head].count(line) + a[end_a:].count(line) != 1 or line in a[head:end_a] or line in b[head:end_b]:
            return None
    blocks: list[Block] = [(0, 0, head)]
    for i, j, size in _patience_blocks(a[head:end_a], b[head:end_b], kept):
        last = blocks[-1]
        if size and last[0] + last[2] == head + i and last[1] + last[2] == head + j:
            blocks[-1] = (last[0], last[1], last[2] + size)
        elif size:
            blocks.append((head + i, head + j, size))
    last = blocks[-1]
    if last[0] + last[2] == end_a and last[1] + last[2] == end_b:
        blocks[-1] = (last[0], last[1], last[2] + tail)
    else:
        blocks.append((end_a, end_b, tail))
    blocks.append((len(a), len(b), 0))
    return blocks


def _patience_blocks(a: Sequence[Line], b: Sequence[Line], elsewhere: set[Line] | None = None) -> list[Block]:
    """_anchored_blocks' matching over the whole of a and b (elsewhere: lines found outside them, never an
    anchor)."""
    import difflib  # lazy (0.8 ms): plans applied without a preview, such as the hooks', never diff

    once_a, once_b = _positions_of_unique(a), _positions_of_unique(b)
    if elsewhere:
        for line in elsewhere.intersection(once_a):
            once_a[line] = -1
    if len(once_b) < len(once_a):  # the same pairs, found from the side with fewer lines (organize: the new side)
        pairs = [(once_a[line], j) for line, j in once_b.items() if j >= 0 and once_a.get(line, -1) >= 0]
    else:
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
    blocks: list[Block] = []

    def add(i: int, j: int, size: int) -> None:
        if blocks and blocks[-1][0] + blocks[-1][2] == i and blocks[-1][1] + blocks[-1][2] == j:
            last = blocks.pop()
            blocks.append((last[0], last[1], last[2] + size))
        elif size:
            blocks.append((i, j, size))

    def gap(i1: int, i2: int, j1: int, j2: int) -> None:
        if i2 > i1 and j2 > j1 and (i2 - i1) * (j2 - j1) <= GAP_CELLS:
            if set(a[i1:i2]).isdisjoint(b[j1:j2]):
                return  # no line in common: difflib would match nothing (most gaps: rows rewritten or deleted)
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


def rewritten(a: list[bytes], rewrite: Rewrite) -> tuple[list[bytes], list[Block]] | None:
    """The lines of a file rewritten as `rewrite` says (byte_lines of its new bytes, from a = byte_lines of its
    old ones) and the matching blocks _anchored_blocks finds for them, made from the rewrite alone: organize
    rewrites 40k of 100k rows, and indexing both files' lines to find it out again costs 60 ms. None when
    the inputs are small (difflib's own matcher then) or the lines around the region could match otherwise.

    Why these are the same blocks: the caller vouches that the region's lines, old and new, are pairwise
    distinct and found nowhere else in either file. Then every kept line of the region occurs once on each
    side, in order, so patience anchors every one of them and every line outside the region that occurs
    once; what lies between two anchors is either rewritten region lines only (no line in common: nothing
    matches) or repeated lines outside it, the same on both sides (difflib matches them whole, being at most
    AROUND lines) — as long as a rewritten line at either end of the region has a line found once beside it,
    so that no stretch mixes the two. The blocks are therefore the runs of kept lines."""
    lo, hi, lines = rewrite.lo, rewrite.hi, rewrite.lines
    outside = len(a) - (hi - lo)
    if outside > AROUND or outside * outside > GAP_CELLS:  # (difflib must compare any stretch of them whole)
        return None
    around = Counter(a[:lo] + a[hi:])
    # a rewritten first (last) line of the region must have a line found once just before (after) it
    if (lo in lines and lo > 0 and around[a[lo - 1]] != 1) or (hi - 1 in lines and hi < len(a) and around[a[hi]] != 1):
        return None
    b: list[bytes] = []
    blocks: list[Block] = []
    done = 0  # a's lines before this are placed
    for at in sorted(lines):
        if not lo <= at < hi:
            return None
        if at > done:
            blocks.append((done, len(b), at - done))
            b += a[done:at]
        new = rewrite.new_line(at)
        if new is not None:
            b.append(new if new.endswith(b"\n") else new + b"\n" + NO_EOL.encode("ascii"))
        done = at + 1
    if len(a) > done:
        blocks.append((done, len(b), len(a) - done))
        b += a[done:]
    if len(a) + len(b) <= LARGE:
        return None
    blocks.append((len(a), len(b), 0))
    return b, blocks


class _Starts:
    """Where the lines of a file start, found from those a Rewrite knows (its changed lines') by walking a few lines
    from the nearest one, or from either end of the file (its lines outside the region: AROUND at most)."""

    def __init__(self, data: bytes, known: dict[int, int | None], count: int, lo: int, hi: int):
        """Over data, of count lines (byte_lines'), knowing where the lines of known start; the lines before lo and
        from hi on (outside the region) are found at once, walking from either end."""
        self.data, self.known, self.count = data, known, count
        found: dict[int, int] = {}
        at = 0
        for k in range(lo):
            found[k] = at
            at = data.find(b"\n", at) + 1
        found[lo] = at
        self.found = found
        found[count] = len(data)
        if hi < count:
            self._back(hi, len(data), count - hi)
            for k in range(hi + 1, count):
                found[k] = data.find(b"\n", found[k - 1]) + 1

    def start(self, k: int) -> int:
        """Where line k starts (the file's size for the line after the last)."""
        got = self.known.get(k)
        if got is None:
            got = self.found.get(k)
            if got is None:
                got = self._near(k)
        return got

    def _near(self, k: int) -> int:
        """Where line k starts, walked to from the nearest line known."""
        for d in range(1, 2 * CONTEXT + 2):  # (a context line lies next to a changed one)
            before = self.known.get(k - d)
            if before is not None:
                return self._walk(k, before, d)
            after = self.known.get(k + d)
            if after is not None:
                return self._back(k, after, d)
        return self._back(k, len(self.data), self.count - k)  # (not reached for a rewrite's context lines)

    def _walk(self, k: int, at: int, steps: int) -> int:
        """Line k's start, steps lines after the line that starts at at."""
        find = self.data.find
        for _ in range(steps):
            at = find(b"\n", at) + 1
        self.found[k] = at
        return at

    def _back(self, k: int, at: int, steps: int) -> int:
        """Line k's start, steps lines before the line that starts at at (at: the file's size, the line after the
        last)."""
        rfind, data = self.data.rfind, self.data
        end = at
        if at == len(data) and data and not data.endswith(b"\n"):
            end = rfind(b"\n") + 1  # the last line, which has no ending, starts after the last newline
            steps -= 1
        for _ in range(steps):
            end = rfind(b"\n", 0, end - 1) + 1
        self.found[k] = end
        return end

    def run(self, i1: int, i2: int, mark: bytes) -> bytes:
        """Lines i1 to i2 (not included) joined by mark, as `mark.join` of their byte_lines: cut from data in one
        piece, a mark put after each newline but the last."""
        data = self.data
        start, end = self.start(i1), self.start(i2)
        if end == len(data) and not data.endswith(b"\n"):  # (the file's last line, which has no ending: git's marker)
            return mark.join([self.line(k) for k in range(i1, i2)])
        return data[start : end - 1].replace(b"\n", b"\n" + mark) + b"\n"

    def line(self, k: int) -> bytes:
        """Line k as byte_lines has it (the last one, without an ending, with git's marker)."""
        data = self.data
        start = self.start(k)
        nl = data.find(b"\n", start)
        if nl < 0:
            return data[start:] + b"\n" + NO_EOL.encode("ascii")
        return data[start : nl + 1]


def rewrite_pieces(data: bytes, rewrite: Rewrite, from_name: str, to_name: str) -> Iterator[bytes] | None:
    """unified_diff_pieces of the file data and its rewrite, made from the rewrite and data without a list of the
    file's lines (1M rows: 250 MB) or of the new file's: the blocks rewritten finds, laid out by difflib's own
    grouping, each line read from data where the rewrite says its changed lines start. None where rewritten would
    give None, or the rewrite does not say where its lines start (then the patch is made from the lines)."""
    import difflib  # lazy (0.8 ms): plans applied without a preview, such as the hooks', never diff

    lo, hi, lines, known = rewrite.lo, rewrite.hi, rewrite.lines, rewrite.starts
    if known is None or not data:
        return None
    count = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)  # (byte_lines' number of lines)
    outside = count - (hi - lo)
    if outside > AROUND or outside * outside > GAP_CELLS:
        return None
    starts = _Starts(data, known, count, lo, hi)
    around = Counter([starts.line(k) for k in range(lo)] + [starts.line(k) for k in range(hi, count)])
    if (lo in lines and lo > 0 and around[starts.line(lo - 1)] != 1) or (
        hi - 1 in lines and hi < count and around[starts.line(hi)] != 1
    ):
        return None
    # the opcodes difflib's get_opcodes makes of the blocks rewritten finds (each run of lines the rewrite keeps is
    # a block), made here in one pass: no list of blocks nor a Match of each (80k of them at 100k rows)
    codes: list[tuple[str, int, int, int, int]] = []
    code = codes.append
    done = j = 0  # the old line and the new line after the last block
    i1 = j1 = -1  # where the run of changed lines under way starts (-1: none is)
    for at in sorted(lines):
        start = known.get(at)
        if start is None or not lo <= at < hi or (start and data[start - 1] != 0x0A):  # (a start that is no line's)
            return None
        if at > done:
            if i1 >= 0:
                code(("replace" if j > j1 else "delete", i1, done, j1, j))
            code(("equal", done, at, j, j + at - done))
            j += at - done
            i1, j1 = at, j
        elif i1 < 0:
            i1, j1 = at, j
        j += 1 if lines[at] else 0
        done = at + 1
    if i1 >= 0:
        code(("replace" if j > j1 else "delete", i1, done, j1, j))
    if count > done:
        code(("equal", done, count, j, j + count - done))
        j += count - done
    if count + j <= LARGE:
        return None
    matcher: difflib.SequenceMatcher[bytes] = difflib.SequenceMatcher(None, [], [], autojunk=False)
    matcher.opcodes = codes  # type: ignore[attr-defined]
    return _rewrite_hunks(matcher, starts, rewrite, from_name, to_name)


def _rewrite_hunks(
    matcher: difflib.SequenceMatcher[bytes], starts: _Starts, rewrite: Rewrite, from_name: str, to_name: str
) -> Iterator[bytes]:
    """The hunks of rewrite_pieces, as unified_diff_pieces writes them: old lines cut from the file, new ones the
    rewrite's lines of the region (in order)."""
    lines = rewrite.lines

    def new(i1: int, i2: int, _j1: int, _j2: int) -> bytes:
        """The rewrite's new lines of old lines i1 to i2, joined by `+`."""
        made = [lines[k] for k in range(i1, i2)]
        return "+".join([n if n.endswith("\n") else n + "\n" + NO_EOL for n in made if n]).encode(
            "utf-8", "surrogateescape"
        )

    return _hunks(matcher, starts.run, new, from_name, to_name)


def _hunks(
    matcher: difflib.SequenceMatcher[bytes],
    old: Callable[[int, int, bytes], bytes],
    new: Callable[[int, int, int, int], bytes],
    from_name: str,
    to_name: str,
) -> Iterator[bytes]:
    """A unified diff's headers and hunks from matcher's groups, in pieces (each mark on its own, no copy of a
    run): old(i1, i2, mark) gives old lines i1 to i2 joined by mark, new(i1, i2, j1, j2) the new lines of that
    region joined by `+`."""
    started = False
    for group in matcher.get_grouped_opcodes(CONTEXT):
        if not started:
            started = True
            yield encode(f"--- {from_name}\n")
            yield encode(f"+++ {to_name}\n")
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n".encode("ascii")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                if i2 > i1:
                    yield b" "
                    yield old(i1, i2, b" ")
                continue
            if tag != "insert" and i2 > i1:  # replace or delete
                yield b"-"
                yield old(i1, i2, b"-")
            if tag != "delete" and j2 > j1:  # replace or insert
                yield b"+"
                yield new(i1, i2, j1, j2)


def changed_line_numbers(a: Sequence[Line], b: Sequence[Line]) -> tuple[list[int], list[int]]:
    """The positions of a's lines that a diff to b removes and of b's it adds, matched as unified_diff
    matches them: difflib's own matcher for ordinary inputs, the patience-style blocks for large ones."""
    gone: list[int] = []
    came: list[int] = []
    i = j = 0
    for bi, bj, size in _matcher(a, b).get_matching_blocks():  # between them: what is removed and what is added
        gone += range(i, bi)
        came += range(j, bj)
        i, j = bi + size, bj + size
    return gone, came


def _range(start: int, stop: int) -> str:
    """A hunk range as unified diffs write it."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _matcher(a: Sequence[Line], b: Sequence[Line], blocks: list[Block] | None = None) -> difflib.SequenceMatcher[Line]:
    """The matcher the exact diff uses: difflib's own as difflib.unified_diff sets it up (its most common
    lines of 200 or more are junk) for ordinary inputs; for large ones, difflib's over patience-style
    matching blocks (see _anchored_blocks; blocks: those already found, see rewritten)."""
    import difflib  # lazy (0.8 ms): plans applied without a preview, such as the hooks', never diff

    if len(a) + len(b) <= LARGE and blocks is None:
        return difflib.SequenceMatcher(None, a, b)
    matcher: difflib.SequenceMatcher[Line] = difflib.SequenceMatcher(None, [], [], autojunk=False)
    # the sequences as set_seqs would set them, without indexing every line of b: the blocks come from below
    matcher.a, matcher.b = a, b  # type: ignore[attr-defined]
    # difflib's grouping reads the matching blocks it caches here (patience-style anchors, see above)
    found = _anchored_blocks(a, b) if blocks is None else blocks
    matcher.matching_blocks = [difflib.Match(*blk) for blk in found]  # type: ignore[attr-defined]
    return matcher


def unified_diff(a: list[str], b: list[str], from_name: str, to_name: str) -> str:
    """A unified diff of two line lists: difflib's own for ordinary files; for large ones,
    difflib's hunk grouping over patience-style matching blocks, so that an organize pass over
    a 100k-row index previews in about a second rather than minutes."""
    import difflib  # lazy (0.8 ms): plans applied without a preview, such as the hooks', never diff

    if len(a) + len(b) <= LARGE:
        return "".join(difflib.unified_diff(a, b, from_name, to_name, n=CONTEXT))
    out: list[str] = []
    for group in _matcher(a, b).get_grouped_opcodes(CONTEXT):
        if not out:
            out += [f"--- {from_name}\n", f"+++ {to_name}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        # every line ends with a newline (diff_lines), so joining a run with its mark puts the mark at the
        # start of each of its lines
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal" and i2 > i1:
                out.append(" " + " ".join(a[i1:i2]))
                continue
            if tag in ("replace", "delete") and i2 > i1:
                out.append("-" + "-".join(a[i1:i2]))
            if tag in ("replace", "insert") and j2 > j1:
                out.append("+" + "+".join(b[j1:j2]))
    return "".join(out)


def unified_diff_bytes(
    a: list[bytes], b: list[bytes], from_name: str, to_name: str, blocks: list[Block] | None = None
) -> bytes:
    """unified_diff of byte_lines, encoded: the same bytes, without decoding a large file's lines
    (and encoding its patch) to get them (blocks: the large inputs' matching blocks, when known)."""
    return b"".join(unified_diff_pieces(a, b, from_name, to_name, blocks))


def unified_diff_pieces(
    a: list[bytes], b: list[bytes], from_name: str, to_name: str, blocks: list[Block] | None = None
) -> Iterator[bytes]:
    """unified_diff_bytes in pieces, made as they are asked for: a dry run writes a 1M-row organize's patch
    (300 MB) without holding it whole, let alone twice."""
    if len(a) + len(b) <= LARGE and blocks is None:
        yield encode(unified_diff([decode(line) for line in a], [decode(line) for line in b], from_name, to_name))
        return
    yield from _hunks(
        _matcher(a, b, blocks),
        lambda i1, i2, mark: mark.join(a[i1:i2]),
        lambda _i1, _i2, j1, j2: b"+".join(b[j1:j2]),
        from_name,
        to_name,
    )


def quote_path(path: str) -> str:
    """A path as git writes it in patch headers: C-quoted when it holds a quote, a backslash or a
    control character, as is otherwise (a trailing tab marks names with spaces on ---/+++ lines)."""
    if not NEEDS_QUOTING.search(path):  # (a regular expression: a character test per character took seconds
        return path  # over a doctor plan's 57k patch headers)
    escapes = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    body = "".join(escapes.get(c) or (f"\\{ord(c):03o}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in path)
    return f'"{body}"'


def _side(prefix: str, path: str) -> str:
    """One side's name on a ---/+++ line."""
    if path == "/dev/null":
        return path
    name = quote_path(prefix + path)
    return name + ("\t" if " " in name and not name.startswith('"') else "")


def _sides(
    kind: str, path: str, before: bytes | None, after: bytes | None, dest: str | None
) -> tuple[str, str, str, bytes | None]:
    """A change's patch header, the names on its ---/+++ lines, and the bytes its diff ends with."""
    target = dest if kind == "move" and dest else path
    head = f"diff --git {quote_path('a/' + path)} {quote_path('b/' + target)}\n"
    old_name, new_name = _side("a/", path), _side("b/", target)
    if kind == "move":
        head += f"rename from {quote_path(path)}\nrename to {quote_path(target)}\n"
        return head, old_name, new_name, after if after is not None else before
    if kind == "create":
        head += "new file mode 100644\n"
        old_name = "/dev/null"
    elif kind == "delete":
        head += "deleted file mode 100644\n"
        new_name = "/dev/null"
    return head, old_name, new_name, after


def file_patch(kind: str, path: str, before: bytes | None, after: bytes | None, dest: str | None = None) -> str:
    """One file change as a git patch section: `git apply` of a whole plan's sections gives exactly
    the bytes the plan writes (CRLF, BOM, bytes that are not UTF-8 and missing final newlines
    included; decoded text keeps undecodable bytes as surrogates, see Plan.patch)."""
    head, old_name, new_name, final = _sides(kind, path, before, after, dest)
    body = unified_diff(diff_lines(before), diff_lines(final), old_name, new_name)
    if not body and kind == "modify":
        return ""  # no byte changes: nothing for a patch to say
    return head + body


def file_patch_bytes(
    kind: str,
    path: str,
    before: bytes | None,
    after: bytes | None,
    dest: str | None = None,
    rewrite: Rewrite | None = None,
) -> bytes:
    """file_patch encoded (its very bytes), made from the files' bytes without decoding them (rewrite: how
    after comes from before line by line, when the change knows it: see rewritten)."""
    return b"".join(file_patch_pieces(kind, path, before, after, dest, rewrite))


def file_patch_pieces(
    kind: str,
    path: str,
    before: bytes | None,
    after: bytes | None,
    dest: str | None = None,
    rewrite: Rewrite | None = None,
) -> Iterator[bytes]:
    """file_patch_bytes in pieces, made as they are asked for (see unified_diff_pieces)."""
    head, old_name, new_name, final = _sides(kind, path, before, after, dest)
    if kind == "modify" and rewrite is None and before and after:
        hunk = _deletion_hunk(before, after)
        if hunk is not None:
            yield encode(head) + encode(f"--- {old_name}\n") + encode(f"+++ {new_name}\n")
            yield hunk
            return
    if rewrite is not None and kind == "modify" and before:
        direct = rewrite_pieces(before, rewrite, old_name, new_name)
        if direct is not None:
            first = next(direct, b"")
            if first:
                yield encode(head)
                yield first
                yield from direct
            return
    a = byte_lines(before)
    known = rewritten(a, rewrite) if rewrite is not None and kind == "modify" else None
    b, blocks = known if known is not None else (byte_lines(final), None)
    body = unified_diff_pieces(a, b, old_name, new_name, blocks)
    first = next(body, b"")
    if not first and kind == "modify":
        return  # no byte changes: nothing for a patch to say
    yield encode(head)
    yield first
    yield from body


PIECE = 1 << 16  # bytes compared in one step when looking for where two large files part


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many bytes a and b share at their start (compared a piece at a time: a memcmp each)."""
    n = min(len(a), len(b))
    at = 0
    while at < n and a[at : at + PIECE] == b[at : at + PIECE]:
        at += PIECE
    if at >= n:
        return n
    lo, hi = at, min(at + PIECE, n)  # a[:lo] == b[:lo]; they differ before hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo if a[lo] != b[lo] else hi


def _deletion_hunk(before: bytes, after: bytes) -> bytes | None:
    """unified_diff_bytes' hunks (one) for after = before with a run of whole lines removed from its middle, in
    a large file (archive deletes one row of 100k): made from the bytes around the run, without splitting
    either file into lines; None for any other change, or where _local_blocks would not match the kept ends
    whole (the exact diff is then found from the lines).

    Why the same hunk: the lines _kept_ends keeps at the start are those wholly in the bytes both files share
    at their start; when the rest of after is the end of before from a line start on, _kept_ends keeps all of
    it at the end (as many lines as its limit allows), after's middle is empty, and _local_blocks' blocks are
    the kept start and the kept end when the last kept line before the run and the first one after it occur once in a and not
    in its middle, which a single occurrence of their bytes anywhere in before vouches for."""
    if len(after) >= len(before) or len(before) + len(after) <= LARGE:  # (fewer bytes than LARGE: fewer lines)
        return None
    cut = before.rfind(b"\n", 0, _common_prefix(before, after)) + 1  # after the last line end both share
    q = cut + len(before) - len(after)  # where the run ends, if after is before without it
    if before[q - 1] != 0x0A or not before.endswith(after[cut:]):
        return None  # (not a removal of whole lines)
    run = before[cut:q]
    head = before.count(b"\n", 0, cut)
    tail = before.count(b"\n", q) + (0 if before.endswith(b"\n") else 1)
    total = head + run.count(b"\n") + tail  # (a's lines; b's are head + tail)
    if not head or not tail or head + tail < total // 2 or total + head + tail <= LARGE:
        return None
    stop = q
    for _ in range(CONTEXT):  # the CONTEXT lines after the run (or all of them)
        stop = before.find(b"\n", stop) + 1 or len(before)
        if stop == len(before):
            break
    trail = byte_lines(before[q:stop])
    start = cut
    for _ in range(CONTEXT):  # the CONTEXT lines before the run (or all of them)
        if start == 0:
            break
        start = before.rfind(b"\n", 0, start - 1) + 1
    lead = byte_lines(before[start:cut])
    last_kept, first_kept = lead[-1], before[q : before.find(b"\n", q) + 1]  # (b"": the last line has no end)
    if not first_kept or before.count(last_kept) != 1 or before.count(first_kept) != 1:
        return None
    removed = byte_lines(run)
    first = head - len(lead)
    ranges = f"@@ -{_range(first, head + len(removed) + len(trail))} +{_range(first, head + len(trail))} @@\n"
    return b"".join((ranges.encode("ascii"), b" ", b" ".join(lead), b"-", b"-".join(removed), b" ", b" ".join(trail)))
