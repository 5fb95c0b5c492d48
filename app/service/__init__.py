"""The layer both faces stand on: what the command line and the MCP server share, and neither owns.

The builders of changing operations (builders.py), the JSON presentation of results (output.py)
and the search answer (search.py). The command line (memboard.cli) and the MCP server
(memboard.mcp) import this package and never each other; it imports neither face, nor Textual
or Rich (import contracts in pyproject.toml). This file imports nothing: `memboard search`
loads only search.py.
"""
