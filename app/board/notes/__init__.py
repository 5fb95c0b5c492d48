"""The board's notes view: typed notes (seed 001) beside the sessions, their changes and supersede chains."""
