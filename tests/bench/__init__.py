"""Tests of the benchmark helpers (not timed)."""
