"""Tests of session-memory spaces (issue 24): entries, resolution, reads, writes, dream and archive."""
