"""Textual CSS files of the board."""
