"""Benchmarks of memboard: `python bench/run.py` prints every speed figure beside its baseline."""
