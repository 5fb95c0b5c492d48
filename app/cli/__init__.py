"""The command line: parser, commands, JSON and text output, the agents' hook, install, config, completion."""

from .entry import main

__all__ = ["main"]
