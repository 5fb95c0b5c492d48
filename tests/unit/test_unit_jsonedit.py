"""JSON text edits that keep every other byte (`memboard.cli.jsonedit`): set a member, remove it again."""

from __future__ import annotations

import json

from hypothesis import given
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


def test_put_replaces_an_existing_value_where_it_stands():
    text = '{\n  "mcpServers": {\n    "memboard": {"command": "old"},\n    "z": 1\n  },\n  "k": 2\n}\n'
    edited = jsonedit.put(text, ("mcpServers", "memboard"), {"command": "new"})
    assert edited == text.replace('"old"', '"new"')
