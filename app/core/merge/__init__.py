"""Merging two versions of memboard's own files (issue 26): what sync tools and git leave behind.

Pure functions from bytes to bytes, by the protocol's structure (index rows by Session ID, snapshots
and notes section by section, item by item); they read no root and no clock, so two machines merging
the same copies write the same bytes. A layer of the core between the operations and the files: it may
import core.formats and core.errors only.
"""
