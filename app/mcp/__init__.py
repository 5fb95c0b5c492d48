"""`memboard mcp`: the memory served to agents over the Model Context Protocol (stdio), on the same engine.

Only this package imports the `mcp` SDK (the optional extra `memboard[mcp]`); the command line
loads it for `memboard mcp` alone, and the board and the hook never do.
"""
