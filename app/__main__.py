"""Run memboard as a module: python -m memboard."""

from memboard.cli import main

raise SystemExit(main())
