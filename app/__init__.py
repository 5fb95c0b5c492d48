"""memboard: a terminal dashboard and command line for agents' shared Markdown memory."""

__version__ = "0.1.0"
