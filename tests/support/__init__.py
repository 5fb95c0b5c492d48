"""Helpers shared by every test folder: memory roots and rows, tree snapshots, hook payloads, faults."""
