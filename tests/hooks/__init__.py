"""Tests of the agents' integration: the hook, install-hook, config, completion."""
