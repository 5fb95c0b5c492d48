"""The MCP server says whether anything was written from a refusal's type, not from its words."""

from __future__ import annotations

from memboard.core.errors import Incomplete, MemboardError, Refused
from memboard.mcp.answers import error_line


def test_a_refusal_gets_nothing_written_added_whatever_its_words_say():
    # the words "nothing was written" in a reason do not stand for the type: only says_written does
    assert error_line(Refused("the reason quotes 'nothing was written'")) == (
        "the reason quotes 'nothing was written'; nothing written"
    )
    assert error_line(MemboardError("memory root is locked")) == "memory root is locked; nothing written"


def test_a_line_that_says_what_was_written_is_answered_as_it_is():
    assert error_line(Refused("said in its own words, try again", says_written=True)) == (
        "said in its own words, try again"
    )


def test_an_incomplete_write_is_never_said_to_have_written_nothing():
    assert error_line(Incomplete("archive stopped half-way")) == "archive stopped half-way"
