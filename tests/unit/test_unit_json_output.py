"""The streamed JSON of `list --json` is, byte for byte, what json.dumps(..., indent=2) printed.

cli/output.py lays out the indentation itself around json's C string encoder (json's own
indenting encoder is pure Python), and prints a listing one row at a time.
"""

from __future__ import annotations

import contextlib
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memboard.cli.output import dump, dump_array
from memboard.core.results import RowView
from memboard.service.output import indented, row_json, row_text
from tests.support.sizes import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)  # type: ignore[arg-type]
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), text),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)),
    max_leaves=12,
)
rows = st.builds(
    RowView,
    text,
    text,
    text,
    text,
    text,
    text,
    st.lists(text, max_size=3),
    text,
    text,
    st.one_of(st.none(), st.integers(1, 10**6)),
    st.one_of(st.none(), text),
    st.one_of(st.none(), st.booleans()),
    st.one_of(st.none(), text),
)


def printed(write) -> str:
    """What write() printed on stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        write()
    return out.getvalue()


@SETTINGS
@given(values)
def test_indented_is_json_dumps_with_indent_two(value):
    assert indented(value) == json.dumps(value, ensure_ascii=False, indent=2)


@SETTINGS
@given(st.lists(rows, max_size=4))
def test_a_streamed_listing_is_the_dumped_list(listed):
    want = printed(lambda: dump([row_json(r) for r in listed]))
    assert printed(lambda: dump_array(listed, row_text)) == want
    assert printed(lambda: dump_array(row_json(r) for r in listed)) == want
    assert printed(lambda: dump_array(iter(listed), row_text, chunk=1)) == want


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers(), st.booleans()), inner, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_json_is_laid_out_as_json_dumps_lays_it_out(value):
    """`--json` text is laid out without json's pure-Python indenting encoder, byte for byte as it lays it out."""
    from memboard.service import output

    assert output.dumps(value) == json.dumps(value, ensure_ascii=False, indent=2)
