"""Seed 003's session-memory spaces: a project's `.session-memory/` (current.md, history.md, research.md,
dream-notes.md, archive/) and the global home, read in the forms the skill's scripts write and written
only in those forms, through the trees engine (files/trees.py), while the skill's scripts keep working
on the same files. Pure formats (bytes to bytes) live beside the operations that plan writes with them.
"""
