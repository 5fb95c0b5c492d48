"""A command parses its arguments with a parser of that command alone (parser.command_parser: argparse spends
40-70 ms building all 66): the same parse, the same usage errors and the same help as the whole parser's."""

from __future__ import annotations

import argparse

import pytest

from memboard.cli import parser as parsers

COMMANDS = sorted(next(a for a in parsers.build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices)


def _whole(monkeypatch) -> None:
    """Make every parse use the whole parser (as before command_parser)."""
    monkeypatch.setattr(parsers, "command_parser", lambda _name: None)


@pytest.mark.parametrize("name", COMMANDS)
def test_one_command_parser_errs_and_helps_as_the_whole_one(cli, monkeypatch, name) -> None:
    """An unknown option, the command's own help: the same exit code and words either way; and the one-command
    parser holds that command alone."""
    one = parsers.command_parser(name)
    assert one is not None
    subs = next(a for a in one._actions if isinstance(a, argparse._SubParsersAction))
    assert list(subs.choices) == [name]
    runs = []
    for whole in (False, True):
        if whole:
            _whole(monkeypatch)
        bad, helped = cli(name, "--no-such-option"), cli(name, "--help")
        runs.append((bad.code, bad.out, bad.err, helped.code, helped.out, helped.err))
    assert runs[0] == runs[1]
    assert runs[0][0] == (0 if name == "hook" else 2)  # (the hook fails open)


def test_parsed_arguments_are_the_same(monkeypatch) -> None:
    """A command's arguments parse to the same namespace with the one-command parser as with the whole one."""
    from memboard.cli.entry import parse

    argv = [
        ["update", "2026-05-01-0900-a", "--summary", "x", "--dry-run", "--root", "r"],
        ["--root", "r", "list", "--json", "--status", "idle"],
        ["note", "list", "--json"],
        ["doctor", "--json"],
    ]
    ones = [vars(parse(a)) for a in argv]
    _whole(monkeypatch)
    assert ones == [vars(parse(a)) for a in argv]
    assert parsers.command_parser("no-such-command") is None
