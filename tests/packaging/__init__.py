"""Tests of the package people install: metadata, sdist, version."""
