"""tests/RULES.md stays honest: every test it names exists, and every Common Mistake has a row."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
RULES = (TESTS / "RULES.md").read_text(encoding="utf-8")


def test_every_named_test_exists():
    refs = re.findall(r"([\w/]+\.py)::(test_\w+)", RULES)
    assert len(refs) > 100
    missing = [
        f"{path}::{name}"
        for path, name in refs
        if not re.search(rf"^(?:async )?def {name}\(", (TESTS / path).read_text(encoding="utf-8"), re.M)
    ]
    assert missing == []


def test_every_common_mistake_has_a_row():
    section = RULES.split("## Common Mistakes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| Do not")]
    assert len(rows) == 22  # the seed lists 22 common mistakes
    assert all("::test_" in row for row in rows)
