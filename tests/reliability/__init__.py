"""Suites that try to break memboard: concurrency, crashes, hostile input, secrets."""
