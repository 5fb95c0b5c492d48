"""current.md, the history entry a save appends and the research entry (issue 24 §3, §4): the pure formats."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memboard.core.spaces import current, research, templates
from memboard.core.spaces.text import append_block, fenced_flags
from tests.support.peers import skill

# --- templates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("current.md", "current-template.md"),
        ("history.md", "history-template.md"),
        ("research.md", "research-template.md"),
    ],
)
def test_templates_are_the_skills_references_verbatim(name, reference):
    path = skill().parent / "upstream" / "references" / reference
    assert templates.TEMPLATES[name].encode("utf-8") == path.read_bytes()


def test_the_init_script_writes_those_three_references():
    source = (skill().parent / "upstream" / "scripts" / "init_session_memory.py").read_text(encoding="utf-8")
    for reference in ("current-template.md", "history-template.md", "research-template.md"):
        assert f'refs_dir / "{reference}"' in source


def test_current_template_has_the_issues_sections():
    assert current.section_names(templates.CURRENT) == [
        "关键词 / 标签",
        "当前目标",
        "当前思路",
        "思路变化",
        "已完成工作",
        "研究记录",
        "分支研究",
        "关键文件与路径",
        "有效做法",
        "无效或放弃的做法",
        "未决问题",
        "下一步",
        "恢复提示",
    ]


# --- sections --------------------------------------------------------------------------------------------


def test_sections_ignore_headings_inside_fences():
    text = "# T\n\n## A\n```\n## not\n```\n## B\n~~~~\n## no\n~~~\nx\n"
    assert current.section_names(text) == ["A", "B"]
    assert [(s.label, s.start, s.end) for s in current.sections(text)] == [("开头", 0, 2), ("A", 2, 6), ("B", 6, 11)]


def test_a_fence_closes_only_on_its_own_character_at_least_as_long():
    flags = fenced_flags(["````", "```", "~~~~", "````", "after"])
    assert flags == [True, True, True, True, False]


# --- Last Updated ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "- Last Updated: 2026-01-02 03:04",
        "Last updated：2026-01-02 03:04",
        "> 最后更新: 2026-01-02",
        "# Last Updated:2026-01-02T03:04:05Z",
        "- 最后更新：YYYY-MM-DD HH:MM",
    ],
)
def test_last_updated_forms_are_recognised_and_only_the_time_rewritten(line):
    text = f"\ufeff# Memory\r\n{line} (kept)\r\nbody\r\n"
    out = current.set_last_updated(text, "2026-06-01 09:30")
    prefix = line[: current.find_last_updated(text).start]
    assert out == f"\ufeff# Memory\r\n{prefix}2026-06-01 09:30 (kept)\r\nbody\r\n"


def test_last_updated_past_line_ten_or_in_another_form_is_not_recognised():
    late = "".join(f"l{i}\n" for i in range(10)) + "- Last Updated: 2026-01-02 03:04\n"
    assert current.find_last_updated(late) is None
    assert current.find_last_updated("* Last Updated: 2026-01-02 03:04\n") is None
    assert current.find_last_updated("- Last Updated: soon\n") is None


def test_last_updated_is_inserted_after_the_first_heading_keeping_bom_and_crlf():
    assert current.set_last_updated("\ufeffintro\r\n# T\r\nx", "2026-06-01 09:30") == (
        "\ufeffintro\r\n# T\r\n- Last Updated: 2026-06-01 09:30\r\n\r\nx"
    )
    assert current.set_last_updated("# T", "2026-06-01 09:30") == "# T\n- Last Updated: 2026-06-01 09:30\n\n"


def test_an_inserted_last_updated_reuses_a_blank_line_after_the_heading():
    assert (
        current.set_last_updated("# T\n\n## A\n", "2026-06-01 09:30")
        == "# T\n- Last Updated: 2026-06-01 09:30\n\n## A\n"
    )


def test_last_updated_goes_on_top_without_a_heading():
    assert current.set_last_updated("## A\r\n- x\r\n", "2026-06-01 09:30") == (
        "- Last Updated: 2026-06-01 09:30\r\n\r\n## A\r\n- x\r\n"
    )


def test_equal_ignoring_last_updated():
    old = "# T\n- Last Updated: 2026-01-01 00:00\n\n## A\n- x\n"
    assert current.same_ignoring_last_updated(old, "# T\n\n## A\n- x\n")  # a text without the line
    assert current.same_ignoring_last_updated(old, "# T\n## A\n- x\n") is False
    assert current.same_ignoring_last_updated(old, "# T\n- Last Updated: 2020-05-05 05:05\n\n## A\n- x\n")
    assert current.same_ignoring_last_updated(old, "# T\n- Last Updated: 2026-01-01 00:00\n\n## A\n- y\n") is False


# --- displaced lines and the history entry ----------------------------------------------------------------


def test_displaced_lines_ignore_blank_template_and_last_updated_lines_and_count_as_a_multiset():
    old = "# 会话记忆\n- Last Updated: 2026-01-01 00:00\n\n## 当前思路\n- 当前采用的方案：\n- 当前采用的方案：FTS5\n- a\n- a\n\n## 下一步\n1. \n- b\n"
    new = "# 会话记忆\n\n## 当前思路\n- a\n"
    assert [(d.line, current.sections(old)[d.section].label) for d in current.displaced_lines(old, new)] == [
        ("- 当前采用的方案：FTS5", "当前思路"),
        ("- a", "当前思路"),
        ("- b", "下一步"),
    ]


def test_history_entry_quotes_each_old_sections_lines():
    old = "intro line\n## A\n- a1\n### fake heading\n\n## B\n- b1\n"
    displaced = current.displaced_lines(old, "## A\n")
    entry = current.history_entry(old, displaced, stamp="2026-06-01 09:30", context="main@p", eol="\r\n")
    assert entry == (
        "### 2026-06-01 09:30 [context: main@p]\r\n"
        "- 触发原因：memboard space save\r\n"
        "- 发生了什么变化：current.md 的「开头」「A」「B」已更新（5 行移入此处）\r\n"
        "- 移出 current.md 的内容（开头）：\r\n"
        "> intro line\r\n"
        "- 移出 current.md 的内容（「A」）：\r\n"
        "> - a1\r\n"
        "> ### fake heading\r\n"
        "- 移出 current.md 的内容（「B」）：\r\n"
        "> ## B\r\n"
        "> - b1\r\n"
    )
    assert current.unquote(entry) == ["intro line", "- a1", "### fake heading", "## B", "- b1"]


def test_the_callers_entry_comes_first_verbatim_and_lines_it_holds_are_not_quoted_again():
    old = "## A\n- a1\n- a2\n"
    displaced = current.displaced_lines(old, "## A\n")
    caller = "- 触发原因：refactor\r\n- a1\n"
    entry = current.history_entry(old, displaced, stamp="S", context="c", reason="ignored", caller_entry=caller)
    assert entry == (
        "### S [context: c]\n- 触发原因：refactor\n- a1\n"
        "- 发生了什么变化：current.md 的「A」已更新（1 行移入此处）\n- 移出 current.md 的内容（「A」）：\n> - a2\n"
    )
    full = current.history_entry(old, displaced, stamp="S", context="c", caller_entry="### mine\n- a1\n- a2")
    assert full == "### mine\n- a1\n- a2\n"
    assert current.history_entry(old, [], stamp="S", context="c") is None


def test_replace_sections_keeps_separators_line_ends_and_a_missing_final_newline():
    text = "\ufeff# T\r\n\r\n## A\r\n- old\r\n\r\n## B\r\n- b"
    out = current.replace_sections(text, {"A": "- new\n- two", "B": "- nb\n"})
    assert out == "\ufeff# T\r\n\r\n## A\r\n- new\r\n- two\r\n\r\n## B\r\n- nb"
    with pytest.raises(KeyError):
        current.replace_sections(text, {"C": "x"})


_line = st.one_of(
    st.sampled_from(["", "- ", "1. ", "- 当前采用的方案：", "### 2026-01-01 00:00 [context: x]", "```", "## S", "> q"]),
    st.text(alphabet=st.sampled_from("ab -#>`：中\t"), min_size=1, max_size=12),
)


@given(
    st.lists(_line, max_size=25),
    st.lists(st.tuples(st.integers(0, 30), st.one_of(st.none(), _line)), max_size=12),
    st.sampled_from(["\n", "\r\n"]),
)
def test_every_displaced_line_is_in_the_entry_and_unquotes_back(lines, edits, eol):
    old = eol.join(lines)
    new_lines = list(lines)
    for at, replacement in edits:  # delete (None) or replace a line
        if new_lines:
            index = at % len(new_lines)
            if replacement is None:
                del new_lines[index]
            else:
                new_lines[index] = replacement
    new = eol.join(new_lines)
    displaced = current.displaced_lines(old, new)
    entry = current.history_entry(old, displaced, stamp="2026-06-01 09:30", context="c", eol=eol)
    if not displaced:
        assert entry is None
        return
    assert entry is not None
    assert current.unquote(entry) == [d.line for d in displaced]
    entry_lines = entry.split(eol)[:-1]
    headings = [line for line in entry_lines if line.startswith("### ")]
    assert headings == [entry_lines[0]]  # a displaced `### ` line never starts an entry
    assert not any(fenced_flags(entry_lines))  # nor does a displaced fence open one
    from collections import Counter

    gone = Counter(line for line in lines if line.strip() and line not in templates.template_lines("current.md"))
    gone.subtract(Counter(new_lines))
    assert Counter(d.line for d in displaced) == +gone


# --- research entry ------------------------------------------------------------------------------------


def test_research_entry_is_the_skills_layout():
    entry = research.research_entry(
        stamp="2026-11-30 14:05",
        context=" main@当前路线 ",
        topic=" t ",
        conclusion="c",
        evidence=["e1", " ", " e2 "],
        key_paths=[],
        tags=["x"],
        eol="\r\n",
    )
    assert entry == (
        "### 2026-11-30 14:05 [context: main@当前路线]\r\n- 研究主题：t\r\n- 当前结论：c\r\n- 是否有效：unknown\r\n"
        "- 是否并入主线：no\r\n- 关键证据：e1; e2\r\n- 关键文件与路径：\r\n- 下一步：\r\n- 关键词 / 标签：x\r\n"
    )


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        ("", "E\n"),
        (" \n", " \nE\n"),
        ("# R", "# R\n\nE\n"),
        ("# R\r\n", "# R\r\n\r\nE\r\n"),
        ("\ufeff", "\ufeff\n\nE\n"),
    ],
)
def test_append_rule(existing, expected):
    assert research.append_entry(existing, "E\n") == expected
    assert append_block(existing, "E\n" if "\r" not in existing else "E\r\n") == expected


def test_default_context_rule(tmp_path: Path):
    assert research.default_context("main", "proj") == "main@proj"
    assert research.default_context("proj", "proj") == "proj"
    assert research.default_context(None, "proj") == "proj"
    p = Path("/p")
    assert research.context_name(space_name=" inner ", context_root=p / "r", project_root=p, workspace=p) == "inner"
    assert research.context_name(space_name=None, context_root=p / "r", project_root=p, workspace=p / "w") == "r"
    assert research.context_name(space_name="", context_root=p, project_root=p, workspace=p / "w") == "w"
    assert research.git_branch(tmp_path) is None
    subprocess.run(["git", "init", "-q", "-b", "feat", str(tmp_path)], check=True)
    assert research.git_branch(tmp_path) is None  # no commit yet: HEAD names no revision
    subprocess.run(
        [
            "git",
            "-C",
            str(tmp_path),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    assert research.git_branch(tmp_path) == "feat"
    subprocess.run(["git", "-C", str(tmp_path), "checkout", "-q", "--detach"], check=True)
    assert research.git_branch(tmp_path) is None
