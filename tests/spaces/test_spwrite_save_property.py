"""`space save`'s plan over random current.md edits (issue 24 §10 "nothing lost"): whatever the caller drops from
current.md reaches history.md as exactly one new entry (as memboard's entries parser and the skill's read it),
whose quoted lines unquote to the displaced lines; the old history.md stays a prefix of the new."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memboard.core.spaces import current, entries, templates
from memboard.core.spaces.resolve import Where
from memboard.service import spaces_write

_line = st.one_of(
    st.sampled_from(
        ["", "- ", "1. ", "- 当前采用的方案：", "### 2026-01-01 00:00 [context: x]", "```", "~~~", "## 下一步", "> q"]
    ),
    st.text(alphabet=st.sampled_from("ab -#>`~：中\t"), min_size=1, max_size=10),
)
_history = st.sampled_from(
    [
        templates.HISTORY,
        "# H\r\n\r\n### 2026-05-01 08:00 [context: x]\r\n- 触发原因：a",
        "\ufeff# H\n```\n### inside a fence\n```\n",
        "# H\n```\nan unclosed fence\n",
    ]
)


def _where(tmp: Path) -> Where:
    return Where(tmp, "auto", "git-root", tmp, tmp / ".session-memory", exists=True)


@given(
    st.lists(_line, max_size=20),
    st.lists(st.tuples(st.integers(0, 30), st.one_of(st.none(), _line)), max_size=10),
    st.sampled_from(["\n", "\r\n"]),
    _history,
)
def test_displaced_lines_reach_history_as_one_entry_that_unquotes_to_them(lines, edits, eol, history):
    old = "# 会话记忆" + eol + eol.join(lines)
    new_lines = list(lines)
    for at, replacement in edits:
        if new_lines:
            index = at % len(new_lines)
            if replacement is None:
                del new_lines[index]
            else:
                new_lines[index] = replacement
    files = {".session-memory/current.md": old.encode(), ".session-memory/history.md": history.encode()}
    where = _where(Path("/nowhere/p"))
    request = spaces_write.SaveRequest(current="# 会话记忆\n" + "\n".join(new_lines), context="c")
    plan = spaces_write.save_plan(where, request, read=files.get)
    written = dict(files)
    for change in plan.changes:
        assert change.after is not None
        written[change.path] = change.after
    assert not plan.failed_checks(written.get)
    old_history, new_history = files[".session-memory/history.md"], written[".session-memory/history.md"]
    assert new_history.startswith(old_history)
    displaced = plan.result["displaced"]
    ignore = templates.template_lines("current.md")
    gone = Counter(line for line in lines if line.strip() and line not in ignore)
    gone.subtract(Counter(new_lines))
    assert Counter(displaced) == +gone
    if not displaced:
        assert new_history == old_history
        return
    tail = new_history[len(old_history) :].decode()
    assert current.unquote(tail) == displaced
    before, after = entries.parse_bytes(old_history), entries.parse_bytes(new_history)
    if "unclosed" not in history:  # (inside an unclosed fence nothing after it is an entry, for any reader)
        assert len(after.entries) == len(before.entries) + 1
        assert after.entries[-1].heading == "2026-06-01 09:30 [context: c]"


def test_the_saves_checks_fail_on_files_that_lost_what_it_wrote():
    files = {".session-memory/current.md": b"## A\n- a1\n- a2\n", ".session-memory/history.md": b"# H\n"}
    plan = spaces_write.save_plan(
        _where(Path("/nowhere/p")), spaces_write.SaveRequest(current="## A\n"), read=files.get
    )
    written = {change.path: change.after for change in plan.changes}
    assert plan.failed_checks(written.get) == []
    cut = dict(
        written, **{".session-memory/history.md": written[".session-memory/history.md"].replace(b"> - a2\n", b"")}
    )
    assert plan.failed_checks(cut.get) == [
        "the entry's quoted lines in .session-memory/history.md unquote to the displaced lines"
    ]
    rewritten = dict(written, **{".session-memory/history.md": b"# h\n" + written[".session-memory/history.md"][4:]})
    assert "the old .session-memory/history.md is a prefix of the new" in plan.failed_checks(rewritten.get)
    other = dict(written, **{".session-memory/current.md": b"## A\n- theirs\n"})
    assert plan.failed_checks(other.get) == [".session-memory/current.md holds the planned bytes"]
