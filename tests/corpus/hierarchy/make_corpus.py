"""Writes the migration corpus (tests/corpus/hierarchy/<name>/): MEMORY.md, its filled plan.yaml, labels.json.

Each source below is a prose MEMORY.md whose lines carry a hand-made mark before `|`: `K` keep, `R` a rule
kept, `F` a fact (to facts; `F:key` names its key; `F:key=value` its value too), `P:name` to the project
file, `D` to the daily log; unmarked lines (blank lines, headings) are kept. The marks are the hand labels:
`F` lines are the ones that hold facts (lint calibration, bench/lint_calibration.py), and the decisions
the filled plan records. The plan starts as memboard proposes it and takes the decision of each mark.
Run: `python tests/corpus/hierarchy/make_corpus.py` (rewrites the corpus; the tests read the files).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from memboard.core.hierarchy import hot, migrate  # noqa: E402

DATE = "2026-06-01"
# name, line end, BOM, final newline, source
SOURCES: list[tuple[str, str, bool, bool, str]] = [
    (
        "en-01-assistant",
        "\n",
        False,
        True,
        """
# Who I am
K|I am Kim's writing assistant and I keep things short.
F|- Email: kim.lee@example.com
F:paths.reading_list=~/books/list.md|- Reading list lives in ~/books/list.md

## Rules
R|- Always ask before spending more than $50.
R|- Never post on social media for Kim.

## People
K|- Sam feels like the one who got skipped.
P:book|- The book is about three siblings and a lighthouse.
F|- Book status: in progress.
""",
    ),
    (
        "en-02-devops",
        "\r\n",
        False,
        True,
        """
# Identity
K|I am the ops agent for the Acme platform team.
F|- Repo: https://github.com/acme/platform
F|- Staging host: /srv/staging/app
F|- On-call handle: ops@acme.example

## Boundaries
R|- Do not restart production without a human.
R|- Deploys happen Tuesdays and Thursdays.

## Notes
D|- 2026-05-30 rotated the staging certificates.
K|- The team prefers terse status messages.
F|- Migration status: blocked on the DBA review.
""",
    ),
    (
        "en-03-researcher",
        "\n",
        True,
        True,
        """
# Research assistant
K|I help Dana with her thesis on coastal erosion.

## Facts about Dana
F|- University: Oregon State, student ID 48291733
F|- Advisor email: prof.hale@osu.example
F:misc.defense_date=2026-09-14|- Defense date: 2026-09-14

## Projects
P:thesis|- Chapter 3 needs the 2019 survey data re-run.
P:thesis|- The survey data is messy; clean before plotting.
F|- Thesis status: paused until the field trip.

## Rules
R|- Always cite sources with DOI links.
""",
    ),
    (
        "en-04-family",
        "\r\n",
        False,
        False,
        """
# Family helper
K|I keep track of the Lee household.
F|- Home address note: see ~/docs/house.md
F:misc.rent=$1,850|- Rent: $1,850 due on the 1st.
K|- Mia loves dinosaurs and hates loud noises.
K|- Grandpa visits every other Sunday.

## Permissions
R|- May book restaurants under $80 without asking.
R|- Should check the calendar before promising anything.
F|- TODO: renew the car insurance
""",
    ),
    (
        "en-05-startup",
        "\n",
        False,
        True,
        """
# Founder's copilot
K|I help Priya run a small startup.
F|- Company site: https://priya.example.com
F|- Stripe account id: acct_1234567890ab
F:misc.burn=$42k|- Burn: $42k a month.

## Projects
P:launch|- Launch plan: soft launch to 50 users first.
P:launch|- Marketing copy is owned by Leo.
F|- Launch status: in progress.
D|- Yesterday we decided to drop the freemium tier.

## Rules
R|- Never share investor names outside the team.
""",
    ),
    (
        "en-06-minimal",
        "\n",
        False,
        True,
        """
# Me
K|I am a helpful assistant for Ana.
K|- Ana likes clear bullet points.
F|- Phone: +1 415 555 0199
F|- Email: ana@example.org
""",
    ),
    (
        "en-07-long-narrative",
        "\n",
        False,
        True,
        """
# Story so far
K|We started working together in spring.
K|Ana wanted help organising her recipes.
K|It grew into planning her bakery.
K|She is careful with money and dislikes surprises.
P:bakery|The bakery will open on Elm Street if the lease works out.
P:bakery|Her sister Rosa will run the morning shift.
F|- Lease document: ~/bakery/lease-draft.pdf
F|- Landlord contact: landlord@elm.example
D|- Met the contractor on Monday; quote pending.

## Rules
R|- Must keep the budget spreadsheet private.
""",
    ),
    (
        "en-08-crlf-bom",
        "\r\n",
        True,
        False,
        """
# Assistant for Omar
K|I help Omar with his freelance design work.
F|- Portfolio: https://omar.design.example
F|- Invoice folder: C:\\Users\\omar\\invoices
F:misc.day_rate=€450|- Day rate: €450.

## Clients
P:clients|- Northwind wants a logo refresh by autumn.
P:clients|- Contoso pays late but pays.
F|- Northwind status: in progress.
""",
    ),
    (
        "en-09-todos",
        "\n",
        False,
        True,
        """
# Tasks
K|I keep Jo's week on track.
F:todos=call the plumber|- [ ] call the plumber
F:todos=send the tax forms|- [ ] send the tax forms
F|- TODO: book flights
K|- Jo works best in the morning.

## Rules
R|- Don't schedule anything before 9.
""",
    ),
    (
        "en-10-ids",
        "\r\n",
        False,
        True,
        """
# Lab bot
K|I watch the lab's experiment runs.
F|- Run id: 550e8400-e29b-41d4-a716-446655440000
F|- Build commit: 3f9a2c1b7d4e5f60
F|- Data dir: /data/runs/current
K|- The lab lead gets nervous about GPU costs.
D|- Run 17 failed overnight because the disk filled.

## Rules
R|- Should ask before deleting any run folder.
""",
    ),
    (
        "en-11-dates",
        "\n",
        False,
        True,
        """
# Calendar helper
K|I keep track of important dates for Lin.
F:misc.anniversary=June 12, 2019|- Anniversary: June 12, 2019.
F:misc.moved_in=5 March 2024|- Moved in: 5 March 2024.
K|- Lin forgets birthdays but cares a lot about them.
P:trip|- The trip to Kyoto is being planned for autumn.
P:trip|- Budget is flexible but hotels must be quiet.
""",
    ),
    (
        "en-12-mixed",
        "\r\n",
        False,
        True,
        """
# Ops notes
K|I help the support desk answer tickets.
F|- Help center: www.support.example/help
F|- Escalation email: escalate@support.example
K|- Customers appreciate apologies that are short.
R|- Never promise refunds.
R|- Always link the status page.
F|- Queue status: paused for the holiday.
K|- The desk moved to a new office in May.
""",
    ),
    (
        "zh-01-assistant",
        "\n",
        False,
        True,
        """
# 我是谁
K|我是小王的写作助手。
F|- 邮箱：wang@example.cn
F:paths.笔记=~/notes/book.md|- 笔记：~/notes/book.md

## 规则
R|- 不要在周末打扰小王。
R|- 花钱超过 100 元必须先问。

## 项目
P:novel|- 小说写到第五章，节奏有点慢。
F|- 小说状态：进行中
""",
    ),
    (
        "zh-02-family",
        "\r\n",
        False,
        True,
        """
# 家庭助手
K|我帮助李家安排日常生活。
F|- 地址文件：~/family/address.md
F:misc.房租=3500元|- 房租：3500元
K|- 奶奶喜欢安静，不喜欢太吵。
F|- 待办：给猫打疫苗

## 权限
R|- 可以预订 200 元以内的餐厅。
""",
    ),
    (
        "zh-03-research",
        "\n",
        True,
        True,
        """
# 研究助手
K|我协助陈博士整理论文资料。
F|- 导师邮箱：prof.zhang@uni.example
F:misc.答辩日期=2026年9月14日|- 答辩日期：2026年9月14日
P:thesis|- 第三章的数据需要重新清洗。
P:thesis|- 图表风格统一用蓝色系。
F|- 论文状态：进行中
D|- 昨天和导师确认了实验方案。
""",
    ),
    (
        "zh-04-startup",
        "\r\n",
        True,
        False,
        """
# 创业助手
K|我帮助小林管理一家小公司。
F|- 官网：https://lin.example.cn
F:misc.月支出=¥80000|- 月支出：¥80000
K|- 小林做决定很快，但讨厌反复。

## 规则
R|- 禁止对外透露投资人信息。
R|- 务必在周五前提交周报。
P:launch|- 产品发布先邀请五十位种子用户。
""",
    ),
    (
        "zh-05-minimal",
        "\n",
        False,
        False,
        """
# 我
K|我是小美的生活助手。
K|- 小美喜欢简洁的回答。
F|- 电话：13800138000
""",
    ),
    (
        "zh-06-ops",
        "\n",
        False,
        True,
        """
# 运维助手
K|我负责监控平台服务。
F|- 代码仓库：https://git.example.cn/ops/platform
F|- 日志目录：/var/log/platform
F|- 迁移状态：已暂停
D|- 今天凌晨重启了缓存服务。
K|- 团队喜欢简短的汇报。

## 规则
R|- 不要在工作时间重启数据库。
""",
    ),
    (
        "zh-07-todos",
        "\r\n",
        False,
        True,
        """
# 待办助手
K|我帮小周记住要做的事。
F:todos=交电费|- [ ] 交电费
F:todos=预约体检|- [ ] 预约体检
K|- 小周下午精力最好。
R|- 总是在早上提醒一次。
""",
    ),
    (
        "zh-08-mixed",
        "\n",
        False,
        True,
        """
# 旅行助手
K|我帮阿杰规划旅行。
F|- 护照文件：~/docs/passport.pdf
F:misc.预算=5000美元|- 预算：5000美元
P:japan|- 日本行程先去京都再去大阪。
P:japan|- 酒店要安静，靠近车站。
K|- 阿杰不喜欢早起赶飞机。
D|- 上周订好了往返机票。
""",
    ),
    (
        "mix-01-bilingual",
        "\r\n",
        False,
        True,
        """
# Assistant / 助手
K|I help Mei in English and 中文.
F|- Email: mei@example.com
F|- 博客：https://mei.blog.example
K|- Mei switches languages mid-sentence; follow her lead.
R|- 不要 translate her poems unless asked.
P:poems|- The poem collection is called 潮汐 (Tides).
""",
    ),
    (
        "en-13-already-pointers",
        "\n",
        False,
        True,
        """
# Identity
K|I am Rob's coding assistant.
F|- Work email: rob@corp.example
F|- Main repo: ~/src/monorepo
K|# Structured facts → memory/facts.yaml
K|# Find anything → memory/lookup-index.md
""",
    ),
]


def parse(source: str) -> tuple[list[str], list[tuple[str, str | None, str | None]]]:
    """The lines and each line's mark (kind, key, value)."""
    lines: list[str] = []
    marks: list[tuple[str, str | None, str | None]] = []
    for raw in source.strip("\n").split("\n"):
        head, sep, text = raw.partition("|")
        if sep and head and (head in ("K", "R", "F", "D") or head.startswith(("F:", "P:"))):
            kind, _, rest = head.partition(":")
            key, _, value = rest.partition("=")
            if kind == "P":
                marks.append(("P", rest, None))
            else:
                marks.append((kind, key or None, value or None))
            lines.append(text)
        else:
            marks.append(("K", None, None))
            lines.append(raw)
    return lines, marks


def filled(data: bytes, marks: list[tuple[str, str | None, str | None]]) -> dict:
    """memboard's proposal with each line's hand decision."""
    plan = migrate.propose(data, DATE)
    for item in plan["lines"]:
        kind, key, value = marks[item["n"] - 1]
        why = item.get("why") if item.get("to") == "keep" else None
        for k in ("to", "key", "value", "why"):
            item.pop(k, None)
        if kind in ("K", "R"):
            item["to"] = "keep"
            item["why"] = why or ("rule" if kind == "R" else "narrative")
        elif kind == "D":
            item["to"] = "daily"
        elif kind == "P":
            item["to"] = f"project:{key}"
        else:
            proposed = migrate.propose_line(item["text"], False)
            key = key or proposed.get("key") or f"misc.line_{item['n']}"
            if value is None:
                value = proposed.get("value")
            if value is None:
                matches = hot.fact_matches(item["text"])
                value = matches[0].text if matches else item["text"].lstrip("- ")
            item["to"], item["key"], item["value"] = "facts", key, value
    return plan


def main() -> None:
    """Write every corpus item."""
    for name, eol, bom, final, source in SOURCES:
        lines, marks = parse(source)
        text = eol.join(lines) + (eol if final else "")
        data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        (folder / "MEMORY.md").write_bytes(data)
        plan = filled(data, marks)
        (folder / "plan.yaml").write_text(migrate.dump_yaml(plan), encoding="utf-8", newline="\n")
        labels = {"facts": [i + 1 for i, m in enumerate(marks) if m[0] == "F"]}
        (folder / "labels.json").write_text(json.dumps(labels) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
