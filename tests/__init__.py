"""The test suite (a package, so that tests import shared helpers from tests.support)."""
