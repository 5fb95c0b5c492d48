"""`memboard mcp`: the memory served to agents over the Model Context Protocol (stdio), on the same engine.

Only this package imports the `mcp` SDK (a dependency since issue 28; wire.py not even that); the command line
loads it for `memboard mcp` alone, and the board and the hook never do.
"""
