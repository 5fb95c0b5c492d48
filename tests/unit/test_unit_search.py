"""The in-process search API: typed hits, worker threads, snippets, and the cache and the scan agreeing."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.roots import generate
from bench.search import add_archived
from memboard.core.errors import UsageError
from memboard.core.files.root import MemoryRoot
from memboard.core.search.engine import Matcher, SearchFilters, SearchHit, make_snippet, run, search
from memboard.core.search.parse import sections
from tests.support.sizes import examples


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A generated root of 400 rows with snapshots and archived sessions, and texts to cut queries from."""
    root = tmp_path_factory.mktemp("search") / "root"
    generate(root, 400)
    add_archived(root, 30)
    texts = (root / "index.md").read_text(encoding="utf-8").splitlines()[6:80]
    texts += [p.read_text(encoding="utf-8") for p in sorted(root.glob("sessions/*.md"))[:10]]
    texts += [p.read_text(encoding="utf-8") for p in sorted(root.glob("archive/*/*.md"))[:6]]
    return root, texts


def test_hits_are_typed_and_a_worker_thread_can_search(corpus):
    root, _ = corpus
    found: list = []
    worker = threading.Thread(target=lambda: found.extend(search(root, "同步", SearchFilters(limit=5))))
    worker.start()
    worker.join(60)
    assert len(found) == 5
    assert all(isinstance(h, SearchHit) for h in found)
    hit = found[0]
    assert hit.kind == "session" and hit.session_id == hit.id and hit.state in ("live", "archived")
    assert hit.snippet[hit.spans[0][0] : hit.spans[0][1]] == "同步"
    assert "«同步»" in hit.marked() and "[同步]" in hit.marked("[", "]")


def test_parallel_searches_on_a_new_cache_all_answer_the_same(corpus, tmp_path, monkeypatch):
    root, _ = corpus
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(tmp_path / "fresh-state"))
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(lambda _: run(root, "obsidian", SearchFilters(limit=50)), range(4)))
    assert {o.backend for o in outcomes} <= {"cache", "scan"}
    assert any(o.built for o in outcomes)
    first = list(outcomes[0].hits)
    assert first and all(list(o.hits) == first for o in outcomes)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_cache_and_the_file_scan_give_the_same_results(corpus, monkeypatch, data):
    root, texts = corpus
    text = data.draw(st.sampled_from(texts))
    start = data.draw(st.integers(0, len(text) - 1))
    query = text[start : start + data.draw(st.integers(1, 12))].strip()
    if not query:
        return
    filters = data.draw(
        st.sampled_from(
            [
                SearchFilters(limit=30),
                SearchFilters(limit=5, state="live"),
                SearchFilters(section="Decisions"),
                SearchFilters(status="active", limit=10),
            ]
        )
    )
    monkeypatch.delenv("MEMBOARD_SEARCH_NO_FTS", raising=False)
    cached = run(root, query, filters)
    monkeypatch.setenv("MEMBOARD_SEARCH_NO_FTS", "1")
    scanned = run(root, query, filters)
    assert (cached.backend, scanned.backend) == ("cache", "scan")
    assert list(cached.hits) == list(scanned.hits), query


def test_check_files_false_answers_from_the_cache_as_it_is(tmp_path):
    root = tmp_path / "root"
    (root / "sessions").mkdir(parents=True)
    snap = root / "sessions" / "2026-05-30-0900-claude-code.md"
    snap.write_text("## Decisions\n\n- use a lockfile\n", encoding="utf-8")
    assert [h.section for h in search(root, "lockfile")] == ["Decisions"]
    snap.write_text("## Decisions\n\n- use a ticket queue\n", encoding="utf-8")
    assert [h.section for h in search(root, "lockfile", check_files=False)] == ["Decisions"]  # not looked at yet
    assert search(root, "lockfile") == []
    assert [h.id for h in search(root, "ticket queue", check_files=False)] == ["2026-05-30-0900-claude-code"]


def test_a_row_changed_deep_in_a_big_index_is_the_one_reindexed(tmp_path, monkeypatch):
    """index.md is read in many chunks here: the changed row is found past the first of them."""
    import memboard.core.search.cache as search_cache

    monkeypatch.setattr(search_cache, "CHUNK", 2048)
    root = tmp_path / "root"
    generate(root, 600)
    index = root / "index.md"
    text = index.read_text(encoding="utf-8")
    lines = text.split("\n")
    target = 6 + 450  # a table row far past the first chunks
    sid = lines[target].split("|")[1].strip()
    assert search(root, "zeppelin") == []
    cells = lines[target].split(" | ")  # | Session ID | Agent Name | Topic | ...
    cells[2] = "zeppelin topic"
    lines[target] = " | ".join(cells)
    index.write_text("\n".join(lines), encoding="utf-8")
    assert [(h.id, h.section) for h in search(root, "zeppelin")] == [(sid, "Topic")]
    con = sqlite3.connect(search_cache.cache_path(search_cache.MemoryRoot(root)))
    try:
        assert con.execute("SELECT count(*) FROM records WHERE source = 'row'").fetchone()[0] == 600
    finally:
        con.close()


def test_a_cache_file_shorter_than_its_header_says_is_not_used(tmp_path):
    from memboard.core.search.cache import _intact

    db = tmp_path / "c.sqlite3"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t(x)")
    con.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 200)
    con.commit()
    con.close()
    assert _intact(db)
    db.write_bytes(db.read_bytes()[:-4096])
    assert not _intact(db)
    assert not _intact(tmp_path / "missing.sqlite3")


def test_snippet_is_one_line_around_the_match_with_spans():
    text = "start " + "word " * 40 + "\n\n  the NEEDLE here\tand\nmore " + "tail " * 40
    snippet, spans = make_snippet(text, Matcher("needle"))
    assert snippet.startswith("…") and snippet.endswith("…")
    assert "\n" not in snippet and "\t" not in snippet and "  " not in snippet
    assert [snippet[a:b] for a, b in spans] == ["NEEDLE"]
    assert len(snippet) <= 170
    short, spans = make_snippet("ab ab", Matcher("AB"))
    assert short == "ab ab" and spans == ((0, 2), (3, 5))


def test_sections_ignore_headings_in_code_fences():
    text = "# Session: x\n\n## Decisions\n\n- a\n\n```\n## Not a section\n```\n\n## Next Actions\n\n- b\n"
    assert [name for name, _ in sections(text)] == ["(top)", "Decisions", "Next Actions"]


@pytest.mark.parametrize("query", ["", "  \n ", "x" * 1001, "a\x00b"])
def test_bad_queries_raise_usage_errors(corpus, query):
    root, _ = corpus
    with pytest.raises(UsageError):
        search(root, query)


@pytest.mark.parametrize(
    "filters",
    [
        SearchFilters(limit=0),
        SearchFilters(status="closed"),
        SearchFilters(state="gone"),
        SearchFilters(since="last week"),
        SearchFilters(limit=True),
    ],
)
def test_bad_filters_raise_usage_errors(corpus, filters):
    root, _ = corpus
    with pytest.raises(UsageError):
        search(root, "lock", filters)


CELL_PIECES = ["", " ", "x", " a b ", "-", "同步", "\u3000y\u3000", "\t", "\r", "\x85z", "e\u2028"]


@given(st.lists(st.sampled_from(CELL_PIECES), min_size=0, max_size=11), st.booleans(), st.sampled_from(["", " ", "\r"]))
@settings(max_examples=300, deadline=None)
def test_a_row_line_without_backslash_reads_as_the_careful_split_reads_it(cells, closed, tail):
    """The cache's build and the scan read a line with no backslash by a plain split: the same values as the
    escape-aware split_cells gives (spaces of every kind, a missing last pipe, cells missing or extra)."""
    from memboard.core.formats.index import COLUMNS
    from memboard.core.formats.text import line_body, split_cells, unescape
    from memboard.core.search.parse import _plan, row_values

    line = ("| " + " | ".join(cells) + (" |" if closed else "") + tail).encode()
    careful = split_cells(line_body(line.decode())) or []
    expected = [unescape(careful[pos]).strip() if pos < len(careful) else "" for pos in _plan(COLUMNS)]
    assert row_values(line, COLUMNS) == expected
    assert row_values(b"not a table line " + line, COLUMNS) == [""] * len(expected)


ESCAPED_PIECES = [*CELL_PIECES, "\\", "\\|", "a\\|b", " \\| ", "\\\\", "\\\\|", "\\\\\\|", "|", "\x00", "c\\"]


@given(
    st.lists(st.sampled_from(ESCAPED_PIECES), min_size=0, max_size=11), st.booleans(), st.sampled_from(["", " ", "\r"])
)
@settings(max_examples=500, deadline=None)
def test_a_row_line_with_backslashes_reads_as_the_careful_split_reads_it(cells, closed, tail):
    """A line whose backslashes each stand alone is split with its escaped pipes held aside: the same values as the
    escape-aware split_cells gives (escaped pipes at a cell's edges, runs of backslashes, a NUL, a trailing `\\`)."""
    from memboard.core.formats.index import COLUMNS
    from memboard.core.formats.text import line_body, split_cells, unescape
    from memboard.core.search.parse import _plan, row_values

    line = ("| " + " | ".join(cells) + (" |" if closed else "") + tail).encode()
    careful = split_cells(line_body(line.decode())) or []
    expected = [unescape(careful[pos]).strip() if pos < len(careful) else "" for pos in _plan(COLUMNS)]
    assert row_values(line, COLUMNS) == expected


@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from([*CELL_PIECES, "Field", "---", ":-:", "a\\|b"]), max_size=4), st.booleans()),
        max_size=6,
    )
)
@settings(max_examples=300, deadline=None)
def test_a_metadata_table_reads_as_the_careful_split_reads_it(rows):
    """Snapshots' and notes' `| Field | Value |` tables are read by a plain split where no backslash is: the same
    fields and values as split_cells gives line by line."""
    from memboard.core.formats.text import split_cells, unescape
    from memboard.core.search.parse import table_fields

    body = "\n".join(("| " + " | ".join(cells) + (" |" if closed else "")) for cells, closed in rows)
    expected: dict[str, str] = {}
    for line in body.splitlines():
        cells = split_cells(line)
        if cells and len(cells) >= 2 and cells[0] != "Field" and not set(cells[0]) <= set("-: "):
            expected.setdefault(unescape(cells[0]), unescape(cells[1]).strip())
    assert table_fields(body) == expected


SNAPSHOT_LINES = [
    "",
    " ",
    "text",
    "  indented",
    "## Decisions",
    "## ",
    "##",
    "   ## Spaced ##",
    "#### deep",
    "# Title",
    "##no space",
    "```",
    "~~~",
    " ```py",
    "    ```",
    "- item",
    "| Field | Value |",
    "同步 ## 記憶",
    "\tTabbed",
    "#",
]


@given(st.lists(st.sampled_from(SNAPSHOT_LINES), max_size=14), st.sampled_from(["", "\n", "\n\n"]))
@settings(max_examples=400, deadline=None)
def test_a_snapshot_of_plain_line_breaks_splits_as_read_line_by_line(lines, tail):
    """A text whose lines end in \\n alone is split into sections by slicing between its headings: the same
    names and bodies as the line-by-line reading (fences, headings of every level, blank lines, spaces)."""
    from memboard.core.search.parse import _sections_lines

    text = "\n".join(lines) + tail
    assert sections(text) == _sections_lines(text)
    assert sections(text + "\r\n") == _sections_lines(text + "\r\n")


def test_a_search_no_note_can_pass_lists_no_note_and_lists_the_rest_as_a_whole_listing_does(
    corpus, tmp_path, monkeypatch
):
    """--kind session, --archived and --agent take no note's stat (what they save: docs/how-it-is-built/speed.md),
    and the listing they take instead is the whole listing but its notes."""
    from memboard.core.search import cache, docs  # (the module whose notes' walk must not run)

    root = tmp_path / "root"
    shutil.copytree(corpus[0], root)
    (root / "notes" / "memory").mkdir(parents=True)
    (root / "notes" / "memory" / "x.md").write_text("# X\n", encoding="utf-8")
    whole = docs.listing(str(root))
    assert any(p.startswith("notes/") for p in whole)
    assert cache.others_listing(str(root)) == {p: s for p, s in whole.items() if not p.startswith("notes/")}
    expected = {f: [h.id for h in search(root, "同步", f)] for f in _no_note_filters()}

    def no_walk(*args: object) -> None:
        raise AssertionError("the notes were listed")

    monkeypatch.setattr(docs, "_note_files", no_walk)  # (the one walk of notes/: the cache's stats and listing())
    for filters, ids in expected.items():
        outcome = run(root, "同步", filters)
        assert outcome.backend == "cache"
        assert [h.id for h in outcome.hits] == ids
    with pytest.raises(AssertionError, match="the notes were listed"):
        run(root, "同步", SearchFilters(limit=5))


def _no_note_filters() -> list[SearchFilters]:
    """Filters that no note passes."""
    return [SearchFilters(kind="session"), SearchFilters(state="archived"), SearchFilters(agent="claude-code")]


def test_the_notes_listing_names_each_note_file_and_nothing_a_search_must_not_read(tmp_path):
    """docs.note_listing, the one walk of notes/ (taken through each folder's handle: docs/how-it-is-built/speed.md):
    every `*.md` file down to MAX_NOTE_DEPTH folders, nested, and in a folder named like a note; not a file that is
    no note, a folder itself, anything past that depth, a symlink (to a file or a folder), nor a notes folder that
    is a symlink; a FIFO named like a note is listed (its read then says it cannot be read); the stats are the
    files' own (size, mtime_ns)."""
    from memboard.core.search import docs

    root = tmp_path / "root"
    for rel in ["notes/x.md", "notes/a/b/c.md", "notes/a/readme.txt", "notes/odd.md/inner.md", "index.md"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n", encoding="utf-8")
    deep = root / "notes" / "/".join(f"d{i}" for i in range(docs.MAX_NOTE_DEPTH + 1))  # (one folder too deep)
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("# deep\n", encoding="utf-8")
    (deep.parent / "shallower.md").write_text("# shallower\n", encoding="utf-8")
    shallower = "notes/" + "/".join(f"d{i}" for i in range(docs.MAX_NOTE_DEPTH)) + "/shallower.md"
    expected = {"notes/x.md", "notes/a/b/c.md", "notes/odd.md/inner.md", shallower}
    gaps: dict[str, str] = {}
    listed = docs.note_listing(str(root), gaps)
    assert set(listed) == expected and gaps == {}
    st = (root / "notes" / "a" / "b" / "c.md").stat()
    assert listed["notes/a/b/c.md"] == (st.st_size, st.st_mtime_ns)
    (root / "notes" / "a" / "link.md").symlink_to(root / "notes" / "x.md")
    (root / "notes" / "a" / "linked").symlink_to(root / "notes" / "odd.md", target_is_directory=True)
    os.mkfifo(root / "notes" / "a" / "pipe.md")
    assert set(docs.note_listing(str(root), gaps)) == expected | {"notes/a/pipe.md"}
    assert gaps == {}
    shutil.rmtree(root / "notes")
    (root / "notes").symlink_to(tmp_path)
    assert docs.note_listing(str(root), gaps) == {} and gaps == {}


@pytest.mark.parametrize("odd", ["links and a fifo", "a name gone meanwhile"])
def test_the_note_listing_through_folder_handles_lists_what_the_walk_lists(tmp_path, monkeypatch, cli, root, odd):
    """store.note_stats through each folder's handle (the MCP server's and `note list`'s listing) gives the notes
    the scandir walk gives: links to files and folders left out, a FIFO listed (and named unreadable), folders past
    the depth looked into left out, names that are no note left out; anything failing (a name gone between the
    listing and its stat) is left to the walk."""
    from memboard.core.ops.notes import store

    for rel in ["notes/x.md", "notes/a/b/c.md", "notes/a/readme.txt", "notes/odd.md/inner.md"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n", encoding="utf-8")
    deep = root / "notes" / "/".join(f"d{i}" for i in range(store.MAX_DEPTH + 2))
    deep.mkdir(parents=True)
    (deep / "far.md").write_text("# far\n", encoding="utf-8")
    (root / "notes/link.md").symlink_to(root / "notes/x.md")
    (root / "notes/linked").symlink_to(root / "notes/a", target_is_directory=True)
    os.mkfifo(root / "notes/a/pipe.md")
    walked = []
    real_visit = store._visit_notes

    def visit(*args):
        walked.append(args[0])
        return real_visit(*args)

    monkeypatch.setattr(store, "_visit_notes", visit)
    if odd == "a name gone meanwhile":
        real_stat = os.stat
        monkeypatch.setattr(
            os, "stat", lambda name, *a, **k: real_stat("gone", *a, **k) if name == "x.md" else real_stat(name, *a, **k)
        )
    answers = {}
    for by_handle in (True, False):
        monkeypatch.setattr(store, "BY_HANDLE", by_handle)
        walked.clear()
        listed = cli("note", "list", "--json")
        answers[by_handle] = (listed.code, listed.out, sorted(rel for rel, _st in store.note_stats(MemoryRoot(root))))
        assert bool(walked) == (not by_handle or odd == "a name gone meanwhile")
    assert answers[True] == answers[False]
    assert "notes/a/pipe.md" in answers[True][2] and "notes/link.md" not in answers[True][2]
    assert "notes/a/b/c.md" in answers[True][2] and not any(rel.endswith("far.md") for rel in answers[True][2])


def test_note_list_and_search_both_see_what_the_one_walk_of_notes_sees(tmp_path, monkeypatch, cli, root):
    """files/notewalk.py is the one walk of notes/ (issue 29): `note list` (store.note_stats) and search's stats
    (docs.note_listing) each take it once, and each sees what it saw: every `*.md` file it walked, with its own
    lstat (search: (size, mtime_ns)), in the walk's order for search; `note list` the ones named like a note,
    sorted. Links, folders past each caller's depth, a FIFO and a file that is no note are handled as before."""
    from memboard.core.files import notewalk
    from memboard.core.formats.topic import note_id_of
    from memboard.core.ops.notes import store
    from memboard.core.search import docs

    for rel in ["notes/x.md", "notes/a/b/c.md", "notes/a/readme.txt", "notes/odd.md/inner.md", "notes/Bad Name.md"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n", encoding="utf-8")
    for depth in (docs.MAX_NOTE_DEPTH, store.MAX_DEPTH + 1, store.MAX_DEPTH + 2):  # (search's last, note list's)
        deep = root / "notes" / "/".join(f"d{i}" for i in range(depth))
        deep.mkdir(parents=True, exist_ok=True)
        (deep / f"at{depth}.md").write_text("# deep\n", encoding="utf-8")
    (root / "notes/link.md").symlink_to(root / "notes/x.md")
    (root / "notes/linked").symlink_to(root / "notes/a", target_is_directory=True)
    os.mkfifo(root / "notes/a/pipe.md")
    seen: list[tuple[int, dict[str, os.stat_result]]] = []
    real_walk = notewalk.walk_notes

    def walk(folder, rel, deepest, out, gaps=None, stamps=None):
        real_walk(folder, rel, deepest, out, gaps)  # (what the walk sees, as lstats)
        seen.append((deepest, dict(out)))
        if stamps is not None:
            real_walk(folder, rel, deepest, {}, gaps, stamps)

    monkeypatch.setattr(notewalk, "walk_notes", walk)
    monkeypatch.setattr(docs, "walk_notes", walk)
    gaps: dict[str, str] = {}
    listed = docs.note_listing(str(root), gaps)
    assert len(seen) == 1 and gaps == {}
    walked = seen[0][1]
    assert list(listed.items()) == [(rel, (st.st_size, st.st_mtime_ns)) for rel, st in walked.items()]
    assert "notes/a/pipe.md" in listed and "notes/link.md" not in listed and "notes/Bad Name.md" in listed
    assert any(rel.endswith(f"at{docs.MAX_NOTE_DEPTH}.md") for rel in listed)
    assert not any(rel.endswith(f"at{store.MAX_DEPTH + 1}.md") for rel in listed)
    seen.clear()
    stats = store.note_stats(MemoryRoot(root))
    assert len(seen) == 1
    walked = seen[0][1]
    assert stats == sorted((rel, st) for rel, st in walked.items() if note_id_of(rel) is not None)
    assert "notes/Bad Name.md" in walked and "notes/Bad Name.md" not in dict(stats) and "notes/x.md" in dict(stats)
    assert any(rel.endswith(f"at{store.MAX_DEPTH + 1}.md") for rel in walked)  # (one level deeper than search)
    assert not any(rel.endswith(f"at{store.MAX_DEPTH + 2}.md") for rel in walked)
    seen.clear()
    shown = cli("note", "list", "--json")
    assert len(seen) == 1 and shown.code == 0
    assert "notes/a/pipe.md" in shown.out and "notes/x.md" in shown.out and "link.md" not in shown.out
