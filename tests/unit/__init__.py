"""Unit tests of the core's formats, plans and files."""
