"""Tests of the command line, run as a subprocess on temp roots."""
