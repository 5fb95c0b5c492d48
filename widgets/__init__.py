"""Widgets of the memboard board."""
