"""Lint calibration (issue 25 §9): `python bench/lint_calibration.py [--json] [--check DOC]`.

Recomputes the precision and recall of `fact_in_hot` on the migration corpus (tests/corpus/hierarchy/):
each item's labels.json names, by hand, the lines of its MEMORY.md that hold facts; a line is predicted
when lint reports at least one `fact_in_hot` match on it (hot.line_facts, the matcher lint and the
migration proposal share). Counted over non-blank lines that are not headings or pointer lines. `--check
DOC` exits 1 when the figures in DOC (docs/hierarchy-lint.md) are not the ones computed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from memboard.core.hierarchy import hot

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "hierarchy"


def counts(names: list[str] | None = None) -> dict[str, dict[str, int]]:
    """True/false positives and false negatives over the corpus, in all and by language (en, zh, mix)."""
    out: dict[str, dict[str, int]] = {}
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "labels.json").is_file()):
        if names is not None and folder.name not in names:
            continue
        labels = set(json.loads((folder / "labels.json").read_text(encoding="utf-8"))["facts"])
        lines = hot.lines_of((folder / "MEMORY.md").read_bytes().decode("utf-8"))
        heads = {i for i, _level, _text in hot.headings(lines)}
        for group in ("all", folder.name.split("-", 1)[0]):
            c = out.setdefault(group, {"lines": 0, "tp": 0, "fp": 0, "fn": 0, "items": 0})
            c["items"] += 1
            for i, line in enumerate(lines):
                if not line.strip() or i in heads or hot.pointer_of(line) is not None:
                    continue
                c["lines"] += 1
                predicted, actual = bool(hot.line_facts(line)), (i + 1) in labels
                c["tp"] += predicted and actual
                c["fp"] += predicted and not actual
                c["fn"] += actual and not predicted
    return out


def figures(c: dict[str, int]) -> dict[str, float]:
    """Precision and recall (3 decimals) of one group's counts."""
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
    return {"precision": round(p, 3), "recall": round(r, 3)}


def table(all_counts: dict[str, dict[str, int]]) -> str:
    """The Markdown table docs/hierarchy-lint.md publishes."""
    rows = [
        "| corpus | files | lines | facts (labelled) | flagged | precision | recall |",
        "|---|---|---|---|---|---|---|",
    ]
    for group in ("all", "en", "zh", "mix"):
        c = all_counts.get(group)
        if c is None:
            continue
        f = figures(c)
        rows.append(
            f"| {group} | {c['items']} | {c['lines']} | {c['tp'] + c['fn']} | {c['tp'] + c['fp']} "
            f"| {f['precision']:.3f} | {f['recall']:.3f} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the figures (or check a document holds them)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the counts and figures as JSON")
    ap.add_argument("--check", metavar="DOC", help="exit 1 unless DOC holds the computed table")
    args = ap.parse_args(argv)
    c = counts()
    if args.check:
        doc = Path(args.check).read_text(encoding="utf-8")
        if table(c) not in doc:
            print(f"{args.check} does not hold the computed table:\n{table(c)}", file=sys.stderr)
            return 1
        print(f"{args.check} holds the computed figures")
        return 0
    if args.json:
        print(json.dumps({g: {**v, **figures(v)} for g, v in c.items()}, indent=2))
    else:
        sys.stdout.write(table(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
