"""Full-text search over rows, snapshots and the archive (SQLite FTS5 cache, or a scan of the files)."""
