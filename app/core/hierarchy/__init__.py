"""Seed 004's agent memory hierarchy: a workspace's hot MEMORY.md, warm memory/facts.yaml,
memory/lookup-index.md and memory/project-<name>.md, cold daily logs. memboard reads any valid
facts.yaml and never re-serialises it: edits replace one scalar's characters or whole lines, and are
verified by parsing again. Pure formats live beside the operations that plan writes with them.
"""
