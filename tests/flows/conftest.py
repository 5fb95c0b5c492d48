"""Fixtures of the flow tests: async tests without a plugin, and the sample root."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from .sample import make_root


def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests in a fresh event loop (Pilot tests need one; no plugin needed)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames
        asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
        return True
    return None


@pytest.fixture
def sample_root(root):
    """The sample memory root (a reference pair, a placeholder, an overdue session)."""
    return make_root(root)
