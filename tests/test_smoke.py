"""First end-to-end checks of the CLI on a temporary root."""

from __future__ import annotations


def test_register_appends_idle_row_and_reports_id(cli, root):
    res = cli("register")
    assert res.code == 0, res.err
    assert res.out.strip() == "Your Memory Session ID is: 2026-06-01-0930-cursor-main-agent"
    text = (root / "index.md").read_text(encoding="utf-8")
    assert (
        "| 2026-06-01-0930-cursor-main-agent | cursor-main-agent | 未設定 | sessionStart 自動註冊，尚未整理主題。 | sessionStart, cursor-agent | idle | - | 2026-06-01 09:30 | 2026-06-01 09:30 |"
        in text
    )
    assert not (root / "sessions").exists()


def test_bad_id_is_refused_with_one_line_and_exit_2(cli, root):
    res = cli("update", "../../etc/passwd", "--topic", "x")
    assert res.code == 2
    assert len(res.err.strip().splitlines()) == 1
    assert list(root.iterdir()) == []
