"""doctor's exit status as the tests expect it, written out here rather than imported from memboard.

`doctor` exits like a checker: 1 when a finding needs attention (every finding but information with nothing to
do: `link_to_archived`, `link_to_missing`, `preserved_copies`), with one line on stderr naming how many (a JSON
object under --json); 0 when nothing does, with no such line. After `--fix` (not a dry run) only what the repair
leaves counts (doctor checks the root again). The helpers check a result against the findings it printed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

INFORMATION = frozenset({"link_to_archived", "link_to_missing", "preserved_copies"})


def attention(found: list[dict]) -> list[dict]:
    """The findings that make doctor exit 1 (when it repaired nothing)."""
    return [f for f in found if f["fix"] or f["kind"] not in INFORMATION]


def expect_status(res: Any, found: list[dict], as_json: bool = False) -> None:
    """Assert res's exit status and stderr line follow from found (what doctor printed, repairing nothing)."""
    left = attention(found)
    lines = [line for line in res.err.splitlines() if "need attention" in line or "needs attention" in line]
    if not left:
        assert res.code == 0 and not lines, (res.code, res.err)
        return
    assert res.code == 1 and len(lines) == 1 and lines[0] == res.err.splitlines()[-1], (res.code, res.err)
    noun = "finding needs" if len(left) == 1 else "findings need"
    if as_json:
        error = json.loads(lines[0])
        assert error["exit_code"] == 1 and error["error"].startswith(f"memboard: {len(left)} {noun} attention"), error
    else:
        assert lines[0].startswith(f"memboard: {len(left)} {noun} attention"), lines[0]


def doctor_findings(res: Any) -> list[dict]:
    """The findings of a `doctor --json` result, its exit status and stderr line checked against them."""
    found: list[dict] = json.loads(res.out)
    expect_status(res, found, as_json=True)
    return found


def fix_report(res: Any) -> dict:
    """The report of a `doctor --fix --json [--dry-run]` result, its exit status checked: a dry run's against its
    findings (it repairs nothing); a repair's for its form (doctor checks the root again: a fix may mend part of
    a finding, so what is left is not always the findings printed without a fix)."""
    report: dict = json.loads(res.out)
    if report["dry_run"]:
        expect_status(res, report["findings"], as_json=True)
    else:
        needing(res)
    return report


ATTENTION = re.compile(r"memboard: ([0-9,]+) findings? needs? attention")


def text_of(err: str | bytes) -> str:
    """stderr as text."""
    return err.decode("utf-8", "replace") if isinstance(err, bytes) else err


def needing(res: Any) -> int:
    """How many findings a doctor result says need attention: 0 (exit 0, no such line on stderr) or the count its
    one line names (exit 1, that line last on stderr, plain or the JSON error object)."""
    err = text_of(res.err)
    said = list(ATTENTION.finditer(err))
    if res.code == 0:
        assert not said, err
        return 0
    assert res.code == 1 and len(said) == 1 and said[0].group(0) in err.splitlines()[-1], (res.code, err)
    return int(said[0].group(1).replace(",", ""))


def went_through(res: Any, argv: Sequence[str]) -> bool:
    """A command ran to its end: exit 0, or for doctor a checker's exit 1 (findings need attention, said in its one
    line on stderr; a refusal's exit 1 is not)."""
    if argv and argv[0] == "doctor" and res.code == 1 and ATTENTION.search(text_of(res.err)):
        return needing(res) > 0
    return bool(res.code == 0)
