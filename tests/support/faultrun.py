"""Run the memboard command line with a fault installed: `python -m tests.support.faultrun ARGS...`.

The fault comes from FAULT_AFTER_STEP, FAULT_MODE and FAULT_SIGNAL (see faults.py); only
this launcher reads them, memboard itself reads no fault switch.
"""

from __future__ import annotations

import os
import sys

from memboard.cli import main
from memboard.core.files import probe
from tests.support.faults import Faults

if __name__ == "__main__":
    fault = Faults.from_env(dict(os.environ))
    if fault is not None:
        probe.install(fault)
    sys.exit(main(sys.argv[1:]))
