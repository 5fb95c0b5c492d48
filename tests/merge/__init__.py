"""Merging two or three versions of memboard's own files (issue 26)."""
