"""Tests of the board: the App, its model and loader, the demo root."""
