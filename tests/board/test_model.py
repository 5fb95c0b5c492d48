"""The board's model: rows from the index (unparseable ones included), counts, filters, sort."""

from __future__ import annotations

from datetime import datetime

from memboard.board.model import ALL, BoardModel
from memboard.core.formats.index import COLUMNS, IndexFile
from memboard.widgets.rows import fast_time

NOW = datetime(2026, 6, 1, 9, 30)
HEAD = "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"


def line(sid, status="active", topic="t", summary="s", keywords="k", refs="-", updated="2026-05-31 09:30"):
    return f"| {sid} | {sid[16:]} | {topic} | {summary} | {keywords} | {status} | {refs} | 2026-05-01 10:00 | {updated} |\n"


def model_of(body: str, snaps: set[str] | None = None) -> BoardModel:
    return BoardModel.from_index(IndexFile(("# Index\n\n" + HEAD + body).encode("utf-8")), snaps or set(), NOW)


SAMPLE = (
    line("2026-05-01-1000-alpha", "idle", topic="未設定", summary="sessionStart 自動註冊")
    + line(
        "2026-05-02-1000-beta",
        "active",
        topic="Hook latency",
        keywords="hooks, perf",
        refs="2026-05-03-1000-gamma, 2026-05-04-1000-delta",
    )
    + "| broken row | only three |\n"
    + line("2026-05-03-1000-gamma", "stale", topic="同步策略", summary="Git 同步", updated="2026-05-10 09:30")
    + line("2026-05-04-1000-delta", "active", topic="Board table", summary="virtualised [bold]rows[/bold]")
)


def test_every_row_is_kept_and_counted_including_unparseable_ones():
    model = model_of(SAMPLE)
    assert [r.id for r in model.rows][:2] == ["2026-05-01-1000-alpha", "2026-05-02-1000-beta"]
    assert len(model.rows) == 5
    bad = [r for r in model.rows if r.problem]
    assert len(bad) == 1 and "cells" in bad[0].problem and "broken row" in bad[0].id
    assert model.counts == {"idle": 1, "active": 2, "stale": 1, ALL: 5, "unparseable": 1, "duplicate": 0}


def test_status_filter_and_text_filter_over_id_agent_topic_summary_keywords():
    model = model_of(SAMPLE)
    assert [r.id for r in model.view(status="active")] == ["2026-05-02-1000-beta", "2026-05-04-1000-delta"]
    assert [r.id for r in model.view("HOOKS")] == ["2026-05-02-1000-beta"]  # keywords, any case
    assert [r.id for r in model.view("同步")] == ["2026-05-03-1000-gamma"]  # CJK topic/summary
    assert [r.id for r in model.view("gamma")] == ["2026-05-03-1000-gamma"]  # agent / ID
    assert [r.id for r in model.view("board rows")] == ["2026-05-04-1000-delta"]  # all words must match
    assert model.view("hooks", status="idle") == []
    assert len(model.view("")) == 5


def test_sort_by_any_column_both_ways():
    model = model_of(SAMPLE)
    good = lambda rows: [r.id for r in rows if not r.problem]
    assert good(model.view(column="refs", reverse=True))[0] == "2026-05-02-1000-beta"
    assert good(model.view(column="topic"))[0] == "2026-05-04-1000-delta"  # "Board table" < "Hook…"
    assert good(model.view(column="updated_at"))[0] == "2026-05-03-1000-gamma"
    assert [r.status for r in model.view(column="status") if not r.problem] == ["idle", "active", "active", "stale"]
    assert model.view(column="id") == model.view(column="id", reverse=True)[::-1]


def test_age_and_reference_count():
    model = model_of(SAMPLE)
    beta = model.by_id["2026-05-02-1000-beta"]
    gamma = model.by_id["2026-05-03-1000-gamma"]
    assert beta.ref_count == 2 and gamma.ref_count == 0
    assert beta.age(NOW) == "24h"
    assert gamma.age(NOW) == "22d"
    assert fast_time("2026-05-31T09:30") == datetime(2026, 5, 31, 9, 30)
    assert fast_time("yesterday") is None


def test_new_ids_only_after_a_complete_previous_read():
    first = model_of(SAMPLE)
    second = model_of(SAMPLE + line("2026-06-01-0900-eps"))
    assert second.new_ids(None) == set()
    assert second.new_ids(first) == {"2026-06-01-0900-eps"}


def test_typing_narrows_from_the_previous_result_and_stays_correct():
    model = model_of(SAMPLE)
    steps = [
        ("b", ALL, "line", False),
        ("bo", ALL, "line", False),
        ("b", ALL, "line", False),
        ("b", "active", "id", True),
        ("be", "active", "id", True),
        ("bet", ALL, "id", True),
        ("", ALL, "line", False),
        ("x", ALL, "line", False),
    ]
    for text, status, column, reverse in steps:
        fresh = model_of(SAMPLE)  # no previous query to narrow from
        assert [r.id for r in model.view(text, status, column, reverse)] == [
            r.id for r in fresh.view(text, status, column, reverse)
        ]
