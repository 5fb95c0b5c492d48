"""Lint calibration (issue 25 §9): the precision and recall of `fact_in_hot` on the migration corpus that
docs/hierarchy-lint.md publishes are the ones bench/lint_calibration.py recomputes from the hand labels, and
the labels agree with the corpus's filled plans (every labelled line goes to facts, no other line does)."""

from __future__ import annotations

import json
from pathlib import Path

from ruamel.yaml import YAML

from bench import lint_calibration

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus" / "hierarchy"


def test_the_published_figures_are_the_computed_ones(capsys):
    assert lint_calibration.main(["--check", str(REPO / "docs" / "hierarchy-lint.md")]) == 0
    assert lint_calibration.main(["--check", str(REPO / "docs" / "benchmarks.md")]) == 0
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "hierarchy-lint.md" in nav and "benchmarks.md" in nav


def test_the_figures_count_lines_as_labelled():
    c = lint_calibration.counts()["all"]
    assert c["items"] >= 20
    f = lint_calibration.figures(c)
    assert 0 < f["precision"] <= 1 and 0 < f["recall"] <= 1
    assert c["tp"] + c["fn"] == sum(
        len(json.loads(p.read_text(encoding="utf-8"))["facts"]) for p in CORPUS.glob("*/labels.json")
    )


def test_the_hand_labels_are_the_plans_facts_lines():
    for folder in sorted(p.parent for p in CORPUS.glob("*/labels.json")):
        labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))["facts"]
        plan = YAML(typ="safe", pure=True).load((folder / "plan.yaml").read_text(encoding="utf-8"))
        assert [i["n"] for i in plan["lines"] if i["to"] == "facts"] == labels, folder.name
