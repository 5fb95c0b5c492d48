"""The formats of a memory root: index.md, snapshots, the archive template, IDs and times."""
