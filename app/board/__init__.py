"""The Textual board: the App and its screens."""
