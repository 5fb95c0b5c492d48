"""JSON text edits that keep every other byte (`memboard.cli.jsonedit`): set a member, remove it again."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from memboard.cli import jsonedit

ENTRY = {"type": "stdio", "command": "/bin/memboard", "args": ["mcp", "--root", "/m é"]}
KEYS = st.text(alphabet='abé "\\{}:,[]\n\u2028', max_size=6)
SCALARS = st.none() | st.booleans() | st.integers() | KEYS
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8
)
DOCS = st.dictionaries(KEYS.filter(lambda k: k != "mcpServers"), VALUES, max_size=4)
SERVERS = st.dictionaries(KEYS.filter(lambda k: k != "memboard"), VALUES, max_size=3)


@settings(deadline=None)  # a busy 2-core machine is no failure: speed is benched, not timed here
@given(doc=DOCS, others=st.none() | SERVERS, indent=st.sampled_from([None, 2, 4, "\t"]), crlf=st.booleans())
def test_put_then_remove_gives_back_the_text(doc, others, indent, crlf):
    if others is not None:
        doc = {**doc, "mcpServers": others}
    text = json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    edited = jsonedit.put(text, ("mcpServers", "memboard"), ENTRY)
    assert json.loads(edited) == {**doc, "mcpServers": {**(others or {}), "memboard": ENTRY}}
    assert edited.startswith(text[: text.index("{") + 1])
    if crlf:
        assert "\n" not in edited.replace("\r\n", "")
    where = ("mcpServers",) if others is None else ("mcpServers", "memboard")
    assert jsonedit.remove(edited, [where]) == text


def commented(text: str) -> str:
    """JSONC: a comment at the end of every line of indented JSON, a block comment above the first member."""
    lines = text.split("\n")
    out = [line + f" // c{i} /* x */" if line.strip() else line for i, line in enumerate(lines)]
    return "/* head */\n" + "\n".join(out)


@settings(deadline=None)  # a busy 2-core machine is no failure: speed is benched, not timed here
@given(doc=DOCS, others=st.none() | SERVERS, indent=st.sampled_from([2, "\t"]))
def test_jsonc_put_keeps_every_comment_and_remove_gives_back_the_text(doc, others, indent):
    if others is not None:
        doc = {**doc, "mcpServers": others}
    text = commented(json.dumps(doc, indent=indent, ensure_ascii=False) + "\n")
    edited = jsonedit.put(text, ("mcpServers", "memboard"), ENTRY)
    assert jsonedit.loads(edited) == {**doc, "mcpServers": {**(others or {}), "memboard": ENTRY}}
    assert jsonedit.comments(edited) == jsonedit.comments(text)
    where = ("mcpServers",) if others is None else ("mcpServers", "memboard")
    assert jsonedit.remove(edited, [where]) == text


def test_put_replaces_an_existing_value_where_it_stands():
    text = '{\n  "mcpServers": {\n    "memboard": {"command": "old"},\n    "z": 1\n  },\n  "k": 2\n}\n'
    edited = jsonedit.put(text, ("mcpServers", "memboard"), {"command": "new"})
    assert edited == text.replace('"old"', '"new"')


def test_a_comma_before_comments_that_mention_comment_marks_is_not_taken_for_a_trailing_one():
    text = '{\n  "a": 1, // c1 /* x */\n  "b": "//" /* y */\n} // c3 /* x */\n'
    assert jsonedit.loads(text) == {"a": 1, "b": "//"}


def test_jsonc_with_crlf_gets_a_member_without_a_lone_carriage_return():
    text = '{\r\n  "a": 1 // one\r\n}\r\n'
    edited = jsonedit.put(text, ("mcpServers", "memboard"), {"command": "m"})
    assert "\r\r" not in edited and "\n" not in edited.replace("\r\n", "")
    assert jsonedit.remove(edited, [("mcpServers",)]) == text


def test_long_runs_of_whitespace_after_commas_do_not_hang_an_edit():
    # A comma then a long run of spaces (a deeply indented settings file): the trailing-comma look-ahead tried every
    # split of the run, 2**n steps (0.7 s at 24 spaces). At 48 it never ended; the edit runs in a process of its own
    # so that a hang fails here rather than stalls the suite.
    pad = " " * 48
    text = "{" + f'\n{pad}"a": [1,{pad}2,{pad}3],{pad}"b": {{"c": 1}}\n' + "}\n"
    code = (
        "import sys; from memboard.cli import jsonedit; t = sys.stdin.read(); "
        "e = jsonedit.put(t, ('mcpServers', 'memboard'), {'command': 'x'}); "
        "assert jsonedit.remove(e, [('mcpServers',)]) == t; print(len(jsonedit.comments(e)))"
    )
    done = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "0", done.stderr
