"""The skill's templates for a new space (issue 24 §3), verbatim.

The session-memory skill's `init` writes `references/current-template.md`, `history-template.md` and
`research-template.md` (upstream commit 6b8859a) unchanged into a new space; memboard writes the same
bytes, so a space either tool created looks the same to both. Each template is kept line by line (some
lines end in a space: `- `, `1. `). A test compares these with the skill's files when the peers folder
is present.
"""

from __future__ import annotations

CURRENT = "".join(
    (
        "# 会话记忆\n",
        "\n",
        "## 关键词 / 标签\n",
        "- \n",
        "\n",
        "## 当前目标\n",
        "- \n",
        "\n",
        "## 当前思路\n",
        "- 当前采用的方案：\n",
        "- 为什么现在采用这个方案：\n",
        "- 当前约束：\n",
        "\n",
        "## 思路变化\n",
        "| 日期 | 从 | 到 | 原因 |\n",
        "| --- | --- | --- | --- |\n",
        "\n",
        "## 已完成工作\n",
        "- \n",
        "\n",
        "## 研究记录\n",
        "| 主题 | 检查了什么 | 结果 | 结论 | 证据 |\n",
        "| --- | --- | --- | --- | --- |\n",
        "\n",
        "## 分支研究\n",
        "| 日期 | 工作上下文 | 分支研究 | 研究主题 | 当前结论 | 是否有效 | 是否并入主线 | 下一步 |\n",
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n",
        "\n",
        "## 关键文件与路径\n",
        "- \n",
        "\n",
        "## 有效做法\n",
        "- \n",
        "\n",
        "## 无效或放弃的做法\n",
        "- \n",
        "\n",
        "## 未决问题\n",
        "- \n",
        "\n",
        "## 下一步\n",
        "1. \n",
        "\n",
        "## 恢复提示\n",
        "- 当前目标：\n",
        "- 从哪里继续：\n",
        "- 需要避免：\n",
        "- 需要检查：\n",
        "- 下一步先做什么：\n",
    )
)

HISTORY = "".join(
    (
        "# 会话记忆历史\n",
        "\n",
        "每次有重要变化时追加一条简短记录。\n",
        "\n",
        "## 条目模板\n",
        "\n",
        "### YYYY-MM-DD HH:MM [context: main]\n",
        "- 触发原因：\n",
        "- 分支研究：\n",
        "- 发生了什么变化：\n",
        "- 研究主题：\n",
        "- 研究结果：\n",
        "- 是否有效：\n",
        "- 是否并入主线：\n",
        "- 为什么变：\n",
        "- 证据：\n",
        "- 关键词 / 标签：\n",
        "- 关键文件与路径：\n",
        "- 下一步：\n",
    )
)

RESEARCH = "".join(
    (
        "# 研究记录\n",
        "\n",
        "用于保存同一项目下不同工作上下文的研究进展。每次 `研究保存` 只追加一条，不覆盖已有研究记录。\n",
        "\n",
        "## 条目模板\n",
        "\n",
        "### YYYY-MM-DD HH:MM [context: fork-1]\n",
        "- 研究主题：\n",
        "- 当前结论：\n",
        "- 是否有效：unknown\n",
        "- 是否并入主线：no\n",
        "- 关键证据：\n",
        "- 关键文件与路径：\n",
        "- 下一步：\n",
        "- 关键词 / 标签：\n",
    )
)

TEMPLATES: dict[str, str] = {"current.md": CURRENT, "history.md": HISTORY, "research.md": RESEARCH}
"""Each file a new space holds, by name, with its template text."""


def template_lines(name: str) -> frozenset[str]:
    """The lines of one template (line ends removed): lines byte-equal to these are not content."""
    return frozenset(TEMPLATES[name].splitlines())
