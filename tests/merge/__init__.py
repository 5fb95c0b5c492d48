"""Tests of the core's merge layer: index.md, snapshots, archive files and notes merged from two or three versions."""
