"""Files and the lock: atomic writes, settled reads, the root's lock queue, applying plans, local state."""
