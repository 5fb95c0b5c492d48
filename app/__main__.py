"""Run memboard as a module: python -m memboard."""

from memboard.cli.entry import main

raise SystemExit(main())
