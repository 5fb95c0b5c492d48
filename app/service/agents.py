"""Who an operation is for, as both faces tell it: an agent name given, else the config's, else the seed's default.

It imports only the config and the ID rules: the command line's argument helpers (loaded by
`memboard search` too) use it.
"""

from __future__ import annotations

from ..core import config
from ..core.formats.ids import DEFAULT_AGENT, check_agent


def agent_name(name: str | None) -> str:
    """The agent name: name when given, else the config's agent_name, else the seed's default."""
    if name:
        return check_agent(name)
    configured = config.settings().agent_name
    return check_agent(configured) if configured else DEFAULT_AGENT
