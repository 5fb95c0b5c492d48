"""When a new text of a typed note still makes an earlier statement (seed 001: decisions are never overwritten silently).

A note's statements are the top-level blocks of What, Why, Where and Learned, each list item on
its own (note.py reads them). Each is compared in its `normal` form: its first line without its
list mark or task box, white space folded to single spaces, case folded, and the punctuation at
either end (`.,;:!?` and their CJK forms) left out.

An earlier statement S is *kept* by a new text when one of the new text's statements T, both in
normal form:

- equals S, or
- begins with S and goes on only with a clarification: the rest starts a new word — with a
  space, or with punctuation that is not followed by an ASCII letter or digit (so `15` is not
  kept by `15.5`, `15/16` or `15-beta`, while `，因为…` clarifies) — and holds no word of
  reversal: none of `REVERSAL_WORDS` as a whole word (English, any case), no word ending in
  `n't`, and none of `REVERSAL_CJK` anywhere in it (Chinese has no spaces between words).

Anything else drops S: a negation put before it (`Do not use …`), a reversal appended to it
(`…; use MySQL 8 instead`, `… — no longer`, `… (replaced by Kafka)`, `…，改用 Kafka`), the statement
inside a longer one that does not begin with it, or a changed word. The rule is mechanical and
errs on the side of asking: a clarification that happens to hold one of those words (`… rather
than MySQL`, `… (no extensions)`) counts as a change, which for a decision is a conflict the
person settles. It does not read meaning: a new statement of its own that says the earlier one
no longer holds (`- The line above is wrong.`) leaves the earlier one kept.

Kept is transitive: if T keeps S and U keeps T, U keeps S. The rest U adds after S is T's rest
then U's, joined where U's rest starts a new word, so no word (and no run of CJK characters)
spans the join, and each reversal word or CJK mark lies in one of the two rests, which hold
none. A chain of saves that each keep the statements of the note before them therefore keeps
the statements of the first note: checking each save against the note as it is checks it
against every earlier state since the last one a person chose.

The check is linear in the statements, n log n with the sort: the new statements' normal forms
go in a set (equal statements) and a sorted list, where the statements that begin with S sit
together right after where S would be sorted in.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable

from .snapshot import LIST_MARK_RE

ENDS = " .,;:!?。，；：！？"
REVERSAL_WORDS = frozenset(  # whole words, in normal form (case folded)
    """
    not no nor never none neither cannot without instead rather or but however except unless until
    anymore formerly previously replace replaced replaces replacing replacement supersede superseded
    supersedes deprecate deprecated obsolete outdated revert reverted reverts undo undone drop dropped
    remove removed cancel cancelled canceled abandon abandoned retire retired revoke revoked stop
    stopped avoid switch switched migrate migrated moved wrong incorrect false invalid
    """.split()  # noqa: SIM905 (words read best as words)
)
REVERSAL_CJK = tuple(  # anywhere (不 covers 不再 不用 不要 不是 而不是 ...)
    """
    不 没 沒 勿 而非 并非 並非 别用 別用 禁止 改用 改为 改為 改成 改回 换成 換成 换用 換用 取代 替代
    代替 替换 替換 弃用 棄用 废弃 廢棄 停用 放弃 放棄 撤销 撤銷 作废 作廢 过时 過時 曾 或 但 除了 除非
    """.split()  # noqa: SIM905 (words read best as words)
)
WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
CJK_RE = re.compile("|".join(map(re.escape, REVERSAL_CJK)))


def normal(text: str) -> str:
    """A statement as it is compared: no list mark, white space folded, case folded, no punctuation at either end."""
    first, _, rest = text.strip().partition("\n")
    return " ".join((LIST_MARK_RE.sub("", first) + " " + rest).split()).casefold().strip(ENDS)


def _starts_a_word(rest: str) -> bool:
    """Whether rest, what follows an earlier statement, starts a new word: a space, or punctuation
    not followed by an ASCII letter or digit."""
    if rest[0] == " ":
        return True
    at = 0
    while at < len(rest) and unicodedata.category(rest[at]).startswith("P"):
        at += 1
    return at > 0 and (at == len(rest) or not (rest[at].isascii() and rest[at].isalnum()))


def reverses(rest: str) -> bool:
    """Whether rest (normal form) holds a word of reversal: one of REVERSAL_WORDS, a word ending in n't,
    or one of REVERSAL_CJK."""
    if CJK_RE.search(rest):
        return True
    return any(w in REVERSAL_WORDS or w.endswith(("n't", "n’t")) for w in WORD_RE.findall(rest))


def clarifies(rest: str) -> bool:
    """Whether rest, what a new statement says after an earlier one, only clarifies it (see the module)."""
    return _starts_a_word(rest) and not reverses(rest)


class Statements:
    """The normal forms of a text's statements, for asking which earlier statements it keeps."""

    def __init__(self, texts: Iterable[str]):
        """Index texts (statements as written)."""
        self.exact = {normal(t) for t in texts}
        self.sorted = sorted(self.exact)

    def keeps(self, statement: str) -> bool:
        """Whether one of these statements equals statement or begins with it and only clarifies it."""
        needle = normal(statement)
        if needle in self.exact:
            return True
        if not needle:
            return False
        at = bisect_left(self.sorted, needle)
        while at < len(self.sorted) and self.sorted[at].startswith(needle):
            if clarifies(self.sorted[at][len(needle) :]):
                return True
            at += 1
        return False

    def says(self, statement: str) -> bool:
        """Whether one of these statements is statement (in normal form)."""
        return normal(statement) in self.exact


def dropped(old: list[str], new: list[str]) -> list[str]:
    """The statements of old that new does not keep."""
    kept = Statements(new)
    return [s for s in old if not kept.keeps(s)]


def added(old: list[str] | None, new: list[str]) -> list[str]:
    """The statements of new that old does not say (every one when there is no old)."""
    if old is None:
        return list(new)
    said = Statements(old)
    return [s for s in new if not said.says(s)]
