"""Tests of the command line on temp roots, through the `cli` fixture (in-process; see tests/support/runner.py)."""
