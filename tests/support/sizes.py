"""How long the suite's long runs are: sized for the README's run of every test, full size under MEMBOARD_STRESS=1.

The README's test command runs every test, the property tests and the stress runs included, in
minutes. A property test names the examples and a stress run the seconds a full run gives it;
the README's run gives them a quarter of the examples (never fewer than 25, nor more than named)
and the shorter time the test names. `MEMBOARD_STRESS=1 python -m pytest -q` runs them all at full
size, and Hypothesis then keeps exploring new examples even where CI is set (see tests/conftest.py).
"""

from __future__ import annotations

import os

STRESS = os.environ.get("MEMBOARD_STRESS", "") not in ("", "0")
FEWEST = 25  # examples a property test gets in the README's run, at the least


def examples(full: int) -> int:
    """Hypothesis examples for a property test that a stress run gives `full`."""
    return full if STRESS else min(full, max(FEWEST, full // 4))


def seconds(full: float, short: float) -> float:
    """Seconds for a stress run: `full` under MEMBOARD_STRESS=1, else `short`."""
    return full if STRESS else short
