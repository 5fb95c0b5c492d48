"""Property tests: any Markdown put in a snapshot section survives every merge, as GitHub reads it.

Hypothesis writes sections full of Markdown that looks like structure (code fences of both
kinds and lengths, indented and unclosed fences, indented code, HTML blocks, block quotes,
nested and numbered lists, tables, `#`/`|`/`-`/`>` lines, headings inside code, the
template's own sentences) and merges it in through the real commands, run in-process:
`register --manual --snapshot`, `update --snapshot`, `update --summary`, `continue`,
`release`. The oracle is cmark-gfm (tests/reliability/gfm.py), never memboard's parser: the
sections GitHub sees before a merge are still there after it (plus the ones the merge adds),
every earlier item keeps its text and its block structure, and every new item is there with
its own.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memboard.cli import main
from memboard.core.formats.snapshot import render_template
from tests.support.sizes import examples

from . import gfm

SETTINGS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEMPLATE_SECTIONS = [
    "Current Context",
    "Decisions",
    "Files / Artifacts",
    "Open Questions",
    "Next Actions",
    "Superseded / Resolved",
]
INSTRUCTIONS = [
    "Summarize what has happened in this agent session so far.",
    "- List decisions already made.",
    "- List files, folders, hooks, skills, or wiki pages created or changed.",
    "- List unresolved questions, or write `None`.",
    "- List likely next steps, or write `None`.",
]
PLACEHOLDER_TEXTS = {"None", "- None", *INSTRUCTIONS}
NOW = "2026-06-01 09:30"

words = st.lists(
    st.sampled_from(
        [
            "alpha",
            "beta",
            "`code`",
            "**b**",
            "x|y",
            "中文",
            "List",
            "None",
            "->",
            "#tag",
            "~~s~~",
            "_u_",
            "[l](u)",
            "a\\",
            "*",
        ]
    ),
    min_size=1,
    max_size=3,
).map(" ".join)
syntax_line = st.sampled_from(
    [
        "## inside",
        "# h1",
        "### h3",
        "```",
        "~~~",
        "````",
        "- x",
        "1. y",
        "> q",
        "| a | b |",
        "|---|---|",
        "    four",
        "",
        "<div>",
        "</div>",
        "-->",
        "---",
        "***",
        "===",
        "  two",
        "\tTab",
        "Summarize what has happened in this agent session so far.",
        "- List decisions already made.",
        "\u3000",
        "#\u3000x",
        "-\u3000x",
        "\x0c",
        "\u00a0<div>",
    ]
)


@st.composite
def fence(draw, tag: str, indent: str = "") -> str:
    """A fenced code block (sometimes never closed) full of lines that look like structure."""
    char = draw(st.sampled_from("`~"))
    opener = char * draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "py", " sh", "x y"]))
    body = draw(st.lists(syntax_line, max_size=3)) + [f"code {tag}"]
    closer = draw(st.sampled_from([opener, opener + char, " " + opener, opener + "  ", None, opener]))
    lines = [opener + info, *body] + ([closer] if closer is not None else [])
    return "\n".join(indent + line if line else line for line in lines)


@st.composite
def list_item(draw, tag: str, depth: int = 0, marker: str | None = None) -> str:
    """One list item: bullet or numbered, maybe nested, maybe holding a fence or a second paragraph."""
    mark = marker or draw(st.sampled_from(["-", "*", "+", "1.", "2)", "10."]))
    pad = " " * (len(mark) + 1)
    lines = [f"{mark} {draw(words)} {tag}"]
    extra = draw(st.sampled_from(["", "", "nested", "fence", "para", "lazy", "code"]))
    if extra == "nested" and depth < 2:
        lines += [pad + line for line in draw(list_item(tag + "n", depth + 1)).split("\n")]
    elif extra == "fence":
        lines += [pad + line if line else "" for line in draw(fence(tag + "f")).split("\n")]
    elif extra == "para":
        lines += ["", pad + f"{draw(words)} {tag}p"]
    elif extra == "lazy":
        lines += [f"{draw(words)} {tag}z"]
    elif extra == "code":
        lines += ["", pad + f"    indented {tag}c"]
    return "\n".join(lines)


@st.composite
def block(draw, tag: str) -> str:
    """One Markdown block of a kind that resembles structure; tag makes its first line unique."""
    kind = draw(
        st.sampled_from(
            [
                "para",
                "fence",
                "fence",
                "indented",
                "html",
                "quote",
                "list",
                "list",
                "table",
                "heading",
                "hr",
                "setext",
                "lookalike",
                "placeholder",
                "pipes",
                "def",
                "soup",
            ]
        )
    )
    if kind == "para":
        rest = draw(st.lists(syntax_line.filter(lambda s: s.strip() not in ("---", "===", "***", "")), max_size=2))
        return "\n".join([f"{draw(words)} {tag}", *(f"{line} {tag}" for line in rest)])
    if kind == "fence":
        return draw(fence(tag, indent=draw(st.sampled_from(["", "", " ", "   "]))))
    if kind == "indented":
        return "\n".join(["    " + f"{line} {tag}" for line in draw(st.lists(syntax_line, min_size=1, max_size=3))])
    if kind == "html":
        return draw(
            st.sampled_from(
                [
                    f"<div>\n{tag} x\n</div>",
                    f"<!-- {tag}\n## c\n-->",
                    f"<pre>\n## x {tag}\n\n</pre>",
                    f"<details>\n<summary>{tag}</summary>\n\nbody {tag}\n\n</details>",
                ]
            )
        )
    if kind == "quote":
        inner = draw(
            st.one_of(
                list_item(tag),
                fence(tag),
                st.just(f"q {tag}\n## in quote {tag}"),
                st.just(f"> nested {tag}\n>\n>     code {tag}"),
                st.just(f"q {tag}\nlazy {tag}"),
            )
        )
        return "\n".join("> " + line if line else ">" for line in inner.split("\n"))
    if kind == "list":
        marker = draw(st.sampled_from(["-", "*", "1.", "3)"]))
        items = [draw(list_item(f"{tag}i{i}", marker=marker)) for i in range(draw(st.integers(1, 3)))]
        return ("\n\n" if draw(st.booleans()) else "\n").join(items)
    if kind == "table":
        return f"| a | b |\n|---|---|\n| {draw(words)} {tag} | c |" + draw(st.sampled_from(["", f"\nrow {tag}"]))
    if kind == "heading":
        return draw(st.sampled_from([f"### sub {tag}", f"#nospace {tag}", f"#### x {tag} ####", f"# h1 {tag}"]))
    if kind == "hr":
        return draw(st.sampled_from(["---", "***", "___", "- - -"]))
    if kind == "setext":
        return f"{draw(words)} {tag}\n==="
    if kind == "lookalike":
        return draw(
            st.sampled_from(
                [
                    f"Summarize what has happened in this agent session so far. Found {tag}.",
                    f"- List decisions already made: use {tag}",
                    f"- List files {tag}",
                    f"None {tag}",
                ]
            )
        )
    if kind == "placeholder":
        return draw(st.sampled_from(sorted(PLACEHOLDER_TEXTS)))
    if kind == "pipes":
        return f"| just {tag} | pipes"
    if kind == "soup":  # lines that each look like the start of something
        return "\n".join(draw(st.lists(syntax_line, min_size=1, max_size=4))).strip("\n") or f"soup {tag}"
    return f"[ref{tag}]: https://example.com/{tag}"


@st.composite
def sections(draw, prefix: str) -> dict[str, str]:
    """Section name -> a body of Markdown blocks."""
    names = draw(st.lists(st.sampled_from(TEMPLATE_SECTIONS + ["Extra Notes"]), min_size=1, max_size=3, unique=True))
    out = {}
    for s, name in enumerate(names):
        blocks = [draw(block(f"{prefix}{s}b{b}")) for b in range(draw(st.integers(1, 4)))]
        out[name] = "\n\n".join(blocks)
    return out


# -- running the commands ---------------------------------------------------------------


def run(root: Path, *args: str) -> tuple[int, str, str]:
    """`memboard ARGS --root root` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--root", str(root)])
    return code, out.getvalue(), err.getvalue()


def fresh_root(tmp: str) -> Path:
    """An empty memory root inside tmp (input files go beside it)."""
    root = Path(tmp) / "memory"
    root.mkdir()
    return root


def register(root: Path, *args: str) -> str:
    """A manually registered session's ID."""
    code, out, err = run(root, "register", "--manual", *args)
    assert code == 0 and "Traceback" not in err, err
    found = re.search(r"Session ID is: (\S+)", out)
    assert found, out
    return found.group(1)


def write_snapshot(root: Path, sid: str, bodies: dict[str, str], eol: str = "\n") -> str:
    """Overwrite a session's snapshot (as a hand edit would) with the template holding bodies."""
    text = render_template(sid, "cursor-main-agent", "T", NOW, NOW)
    for name, body in bodies.items():
        if f"## {name}\n\n" in text:
            default = (
                "Summarize what has happened in this agent session so far." if name == "Current Context" else "- None"
            )
            text = text.replace(f"## {name}\n\n{default}\n", f"## {name}\n\n{body}\n", 1)
        else:
            text += f"\n## {name}\n\n{body}\n"
    text = text.replace("\n", eol)
    (root / "sessions" / f"{sid}.md").write_bytes(text.encode("utf-8"))
    return text


def snapshot(root: Path, sid: str) -> str:
    """A session's snapshot text (line endings as written)."""
    return (root / "sessions" / f"{sid}.md").read_bytes().decode("utf-8")


# -- the oracle -------------------------------------------------------------------------


def normalized(unit: gfm.Unit) -> str:
    """A unit's source text as memboard may move it: each line's text without the spaces around
    it (where a block starts is its structure, which the rendering compares), without a last line
    of white space that says nothing (the merge takes such an item as the one it repeats). Code is compared by
    its rendering only (a fence left open gets its closing line, an indented block may be written
    fenced, a fence may get longer)."""
    if unit.kind == "pre":
        return ""
    lines = [line.strip(" \t") for line in unit.text.split("\n")]
    while len(lines) > 1 and not lines[-1].strip(" \t\f\v\r"):
        lines.pop()  # a last line of white space only (a form feed, say), which cmark trims: it says nothing
    return "\n".join(lines)


def covers(have: gfm.Unit, want: gfm.Unit) -> bool:
    """Whether have is want as it was, or want with lines added (the merge policy takes a new
    wording of an item that keeps every line of the old one and says more)."""
    if (have.kind, have.html, normalized(have)) == (want.kind, want.html, normalized(want)):
        return True
    old_lines = [line.strip() for line in want.text.split("\n") if line.strip()]
    new_lines = [line.strip() for line in have.text.split("\n") if line.strip()]
    return have.kind == want.kind and old_lines[:1] == new_lines[:1] and all(line in new_lines for line in old_lines)


def is_placeholder(unit: gfm.Unit) -> bool:
    """Whether a unit is exactly the template's text."""
    return unit.text.strip() in PLACEHOLDER_TEXTS or unit.text.strip() in ("- `None`", "`None`")


def assert_kept(before: str, after: str, added: str, context: str) -> None:
    """The merge kept every section and unit of before and added every unit of the snapshot
    input added (sections of Markdown), as cmark-gfm reads them."""
    old_names, new_names = gfm.section_names(before), gfm.section_names(after)
    it = iter(new_names)
    assert all(name in it for name in old_names), f"sections lost: {old_names} -> {new_names}\n{context}"
    input_sections = gfm.read(added)[1][1:]
    assert set(new_names) <= set(old_names) | {s.name for s in input_sections}, (
        f"unexpected sections: {new_names}\n{context}"
    )
    after_all = gfm.read(after)[1][1:]
    after_sections = {}
    for sec in reversed(after_all):  # a name's first section (the one new items go to)
        after_sections[sec.name] = sec.units
    later = iter(after_all)
    for sec in gfm.read(before)[1][1:]:
        units = iter(next(s for s in later if s.name == sec.name).units)  # sections pair up in order
        for unit in sec.units:
            if not is_placeholder(unit):
                assert any(covers(have, unit) for have in units), (
                    f"{sec.name}: earlier item {unit} changed or lost\n{context}"
                )
    for sec in input_sections:
        if sec.name == "Metadata":
            continue
        have = {(u.kind, u.html, normalized(u)) for u in after_sections.get(sec.name, [])}
        for unit in sec.units:
            if not is_placeholder(unit):
                assert (unit.kind, unit.html, normalized(unit)) in have, (
                    f"{sec.name}: new item {unit} missing\n{context}"
                )


def report(before: str, given_text: str, after: str) -> str:
    """What a failing example wrote, for the assertion message."""
    return f"--- before\n{before}\n--- input\n{given_text}\n--- after\n{after}"


def merged_input(bodies: dict[str, str]) -> str:
    """Snapshot input text of sections."""
    return "".join(f"## {name}\n\n{body}\n\n" for name, body in bodies.items())


@given(sections("o"), sections("n"), st.booleans(), st.sampled_from(["\n", "\n", "\r\n"]))
@example(  # two old items of one key (`-\u3000x` is a paragraph, `- x` a list item): the repeat was doubled
    old_bodies={"Current Context": "alpha o0b0", "Decisions": "- x\n\n-\u3000x\n\nalpha o1b2"},
    new_bodies={"Next Actions": "[refn0b0]: https://example.com/n0b0"},
    repeat=True,
    eol="\n",
)
@SETTINGS
def test_update_snapshot_keeps_every_item_and_section(old_bodies, new_bodies, repeat, eol):
    """`update --snapshot` of Markdown-heavy sections into a Markdown-heavy snapshot."""
    check_update_snapshot(old_bodies, new_bodies, repeat, eol)


def test_update_snapshot_repeating_an_item_beside_its_lookalike_doubles_nothing():
    """The shrunk failure: Decisions holds `- x` and the paragraph `-\u3000x` (one key), the new
    text repeats them, and `- x` was written a second time."""
    check_update_snapshot(
        {"Current Context": "alpha o0b0", "Decisions": "- x\n\n-\u3000x\n\nalpha o1b2"},
        {"Next Actions": "[refn0b0]: https://example.com/n0b0"},
        True,
        "\n",
    )


OTHER_SPACES = ["\u00a0", "\u2000", "\u2005", "\u200a", "\u3000", "\x0c"]


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize(
    "body",
    [
        *(f"- x\n\n-{sp}x" for sp in OTHER_SPACES),  # a paragraph: no space after the dash, for GitHub
        *(f"-{sp}x\n\n- x" for sp in OTHER_SPACES),
        *(f"- x\n\n{sp}- x" for sp in OTHER_SPACES),  # a paragraph: that space does not indent
        *(f"- a b\n\n- a{sp}b" for sp in OTHER_SPACES),  # two texts, as GitHub renders them
        *(f"1. x\n\n1.{sp}x" for sp in OTHER_SPACES),
        "- x\n\n-\tx",  # both list items
        "- x\n\nx",  # a list item and a paragraph of one text
        "x\n\n- x",
        "- x\n\n-x",
        "* x\n\n+ x",
    ],
)
def test_update_snapshot_repeating_items_of_one_key_doubles_nothing(body, eol):
    """Items that white space GitHub does not read as white space (or a list mark) tells apart,
    or that share their first words, are each kept once when the new text repeats them."""
    check_update_snapshot({"Decisions": body}, {}, True, eol)


@pytest.mark.parametrize("space", OTHER_SPACES)
@pytest.mark.parametrize(
    "old,new",
    [
        ("| a b |\n|---|", "| a{sp}b |\n|---|"),
        ("<div>\na b\n</div>", "<div>\na{sp}b\n</div>"),
        ("[r]: https://example.com/a", "[r]:{sp}https://example.com/a"),
        ("- a b", "- a{sp}b [done]"),
        ("- x", "- x\n{sp}"),  # a line of it says something (GitHub renders it)
        ("x", "x\n{sp}"),
    ],
)
def test_update_snapshot_keeps_a_new_item_that_differs_by_other_white_space(old, new, space):
    """A new table, HTML block, definition, marked item or item with one more line that differs
    from an old one only by a character GitHub reads as text (not as white space) is written."""
    check_update_snapshot({"Decisions": old}, {"Decisions": new.replace("{sp}", space)}, False, "\n")


def check_update_snapshot(old_bodies, new_bodies, repeat, eol):
    """`update --snapshot` of new_bodies (after old_bodies when repeat) into a snapshot of old_bodies:
    every section and item kept, every new item there, and (repeat) no earlier item written twice."""
    new_bodies = dict(new_bodies)
    if repeat:  # the new text repeats what the snapshot says, as agents do: nothing is doubled
        for name, body in old_bodies.items():
            new_bodies[name] = body + ("\n\n" + new_bodies[name] if name in new_bodies else "")
    with tempfile.TemporaryDirectory() as tmp:
        root = fresh_root(tmp)
        sid = register(root, "--topic", "T", "--summary", "S")
        before = write_snapshot(root, sid, old_bodies, eol)
        proposal = merged_input(new_bodies)
        (Path(tmp) / "in.md").write_text(proposal, encoding="utf-8")
        code, _, err = run(root, "update", sid, "--snapshot", str(Path(tmp) / "in.md"))
        after = snapshot(root, sid)
        context = report(before, proposal, after)
        assert code == 0 and err == "", f"exit {code}: {err}\n{context}"
        assert after.count("\r\n") == (after.count("\n") if eol == "\r\n" else 0), f"mixed line endings\n{context}"
        assert_kept(before, after, proposal, context)
        if repeat:
            firsts = {}
            for sec in reversed(gfm.read(before)[1][1:]):
                firsts[sec.name] = sec  # new items go to the first section of a name
            for sec in firsts.values():
                count = dict.fromkeys(sec.units, 0)
                for unit in gfm.units_of(after, sec.name):
                    if unit in count:
                        count[unit] += 1
                doubled = [u for u, n in count.items() if n > sec.units.count(u) and u.kind != "hr"]
                assert not doubled, f"{sec.name}: repeated items written twice: {doubled}\n{context}"


@given(sections("n"))
@SETTINGS
def test_register_manual_snapshot_keeps_the_template_and_the_input(bodies):
    """`register --manual --snapshot`: the template's sections and every input item, as GitHub reads them."""
    with tempfile.TemporaryDirectory() as tmp:
        root = fresh_root(tmp)
        proposal = merged_input(bodies)
        (Path(tmp) / "in.md").write_text(proposal, encoding="utf-8")
        sid = register(root, "--topic", "T", "--summary", "S", "--snapshot", str(Path(tmp) / "in.md"))
        after = snapshot(root, sid)
        template = render_template(sid, "cursor-main-agent", "T", NOW, NOW, context="S")
        assert_kept(template, after, proposal, report(template, proposal, after))


one_liners = st.one_of(
    st.sampled_from(
        [
            "```python x",
            "~~~",
            "````",
            "   ```js",
            "# Title",
            "## Decisions",
            "> quote",
            "- item",
            "+ x",
            "* x",
            "1. first",
            "2) second",
            "| a | b |",
            "<div>",
            "<!-- note",
            "<pre>",
            "---",
            "***",
            "___",
            "===",
            "[x]: https://example.com",
            "Summarize what has happened in this agent session so far.",
            "Summarize what has happened in this agent session so far. Found the bug.",
            "None",
            "- None",
            "List decisions already made: use X",
            "    indented",
            "\\ backslash",
            "`code` first",
        ]
    ),
    st.builds(
        lambda a, b: f"{a} {b}", st.sampled_from(["```", "#", ">", "-", "1.", "|", "<div>", "~~~", "<!--"]), words
    ),
)


def paragraph_html(value: str) -> str:
    """How GitHub renders value as the text of a paragraph (its inline content, whatever its start)."""
    node = next(n for n in gfm.tree("Z " + value).children if n.tag == "p")
    first = node.children[0]
    first.text = first.text[2:]
    if not first.text.strip():
        node.children.pop(0)
    return node.html()


def written_as(value: str) -> str:
    """The paragraph a one-line value must be written as: itself when GitHub reads it alone as a
    paragraph, else with its first mark taken literally (a backslash before it, or before the
    `.`/`)` of a list number), as the README says."""
    value = " ".join(value.split())
    alone = gfm.read(value)[1][0].units
    if len(alone) == 1 and alone[0].kind == "p" and alone[0].text == value:
        return paragraph_html(value)
    number = re.match(r"\d{1,9}(?=[.)])", value)
    return paragraph_html(value[: number.end()] + "\\" + value[number.end() :] if number else "\\" + value)


@given(one_liners, one_liners)
@SETTINGS
def test_summaries_and_continue_keep_the_sections(first, second):
    """A Summary of any text is one paragraph of Current Context (register --manual, update
    --summary), and continue / release still find Continues From after it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = fresh_root(tmp)
        source = register(root, "--topic", "Source")
        sid = register(root, "--topic", "T", f"--summary={first}")
        after = snapshot(root, sid)
        names = gfm.section_names(after)
        assert names == ["Metadata", *TEMPLATE_SECTIONS[:5], "Continues From", "Superseded / Resolved"], after
        context_units = gfm.units_of(after, "Current Context")
        assert [u.html for u in context_units] == [written_as(first)], after
        code, _, err = run(root, "update", sid, f"--summary={second}")
        updated = snapshot(root, sid)
        assert code == 0 and err == "", err
        assert_kept(after, updated, "", updated)
        units = [u.html for u in gfm.units_of(updated, "Current Context")]
        assert written_as(second) in units, updated
        assert units[0] == written_as(first if not is_placeholder(context_units[0]) else second), updated
        code, _, err = run(root, "continue", source, "--as", sid)
        assert code == 0 and err == "", f"{err}\n{snapshot(root, sid)}"
        linked = snapshot(root, sid)
        assert [u.text for u in gfm.units_of(linked, "Continues From")] == [f"- {source}"], linked
        assert_kept(updated, linked, f"## Continues From\n\n- {source}\n", linked)
        code, _, err = run(root, "release", source, "--as", sid)
        assert code == 0 and err == "", err
        released = snapshot(root, sid)
        assert [u.text for u in gfm.units_of(released, "Continues From")] == ["- None"], released
        assert gfm.section_names(released) == names


@given(sections("o"))
@SETTINGS
def test_continue_and_release_keep_a_markdown_heavy_snapshot(bodies):
    """continue --as adds the source under Continues From (as GitHub reads the file) and release
    takes it away, whatever the other sections hold; nothing else changes."""
    with tempfile.TemporaryDirectory() as tmp:
        root = fresh_root(tmp)
        source = register(root, "--topic", "Source")
        sid = register(root, "--topic", "T", "--summary", "S")
        before = write_snapshot(root, sid, bodies)
        code, _, err = run(root, "continue", source, "--as", sid)
        linked = snapshot(root, sid)
        assert code == 0 and err == "", f"exit {code}: {err}\n{linked}"
        assert any(u.text == f"- {source}" for u in gfm.units_of(linked, "Continues From")), linked
        assert_kept(before, linked, f"## Continues From\n\n- {source}\n", report(before, "", linked))
        assert run(root, "doctor")[1] == "no problems found\n"
        code, _, err = run(root, "release", source, "--as", sid)
        released = snapshot(root, sid)
        assert code == 0 and err == "", f"exit {code}: {err}\n{released}"
        assert not any(source in u.text for u in gfm.units_of(released, "Continues From")), released
        assert gfm.section_names(released) == gfm.section_names(linked)


@given(sections("o"), st.sampled_from(["\n", "\r\n"]))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sections_and_items_are_read_as_github_reads_them(bodies, eol):
    """memboard's reading of a snapshot (its sections and items) agrees with cmark-gfm's."""
    from memboard.core.formats.snapshot import Snapshot

    text = render_template("2026-06-01-0930-a", "a", "T", NOW, NOW)
    text += "".join(f"\n## {name}\n\n{body}\n" for name, body in bodies.items())
    text = text.replace("\n", eol)
    snap = Snapshot(text)
    theirs = gfm.read(text)[1][1:]
    shown = [" ".join(gfm.section_names(f"## {s.name}")[0].split()) for s in snap.sections]  # as a heading renders
    assert shown == [" ".join(s.name.split()) for s in theirs], text
    for mine, sec in zip(snap.sections, theirs, strict=True):
        items = [it.text.replace("\r\n", "\n").rstrip("\n") for it in mine.items]
        assert items == [u.text for u in sec.units], f"{sec.name}\n{text}"


@given(
    st.lists(
        st.tuples(st.sampled_from(["para", "-", "*", "1.", "7)"]), st.booleans(), st.booleans()), min_size=1, max_size=6
    ),
    st.booleans(),
    st.sampled_from(["[done]", "[superseded]", "[resolved]"]),
)
@SETTINGS
def test_marking_items_keeps_their_form_and_their_lists(items, loose, marker):
    """Items marked in a new text (as written, or as a list item for a paragraph and the other way
    round) are marked where they stand, in their own form: every list stays the list it was."""
    blocks: list[str] = []
    for i, (form, _, _) in enumerate(items):
        line = f"item {i}" if form == "para" else f"{form} item {i}"
        same_list = blocks and form != "para" and items[i - 1][0] == form
        blocks.append(("\n\n" if loose or not same_list else "\n") + line if blocks else line)
    old_body = "".join(blocks)
    marked = [(i, form, switch) for i, (form, mark, switch) in enumerate(items) if mark]
    new_body = "\n\n".join(
        (f"- item {i} {marker}" if form == "para" else f"item {i} {marker}")
        if switch
        else (f"item {i} {marker}" if form == "para" else f"{form} item {i} {marker}")
        for i, form, switch in marked
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = fresh_root(tmp)
        sid = register(root, "--topic", "T", "--summary", "S")
        before = write_snapshot(root, sid, {"Decisions": old_body})
        proposal = f"## Decisions\n\n{new_body}\n" if marked else "## Decisions\n\n- None\n"
        (Path(tmp) / "in.md").write_text(proposal, encoding="utf-8")
        code, _, err = run(root, "update", sid, "--snapshot", str(Path(tmp) / "in.md"))
        after = snapshot(root, sid)
        context = report(before, proposal, after)
        assert code == 0 and err == "", f"exit {code}: {err}\n{context}"
        done = {i for i, _, _ in marked}
        want = [
            (u.kind, u.text + (f" {marker}" if int(re.search(r"item (\d+)", u.text).group(1)) in done else ""))
            for u in gfm.units_of(before, "Decisions")
        ]
        assert [(u.kind, u.text) for u in gfm.units_of(after, "Decisions")] == want, context
        assert gfm.section_names(after) == gfm.section_names(before), context
