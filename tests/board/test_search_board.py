"""Search (`f`) and the archive (`A`) on the board, driven through Pilot: results as you type, enter on
live and archived results, literal queries, stale answers, the read-only views and their empty states."""

from __future__ import annotations

import asyncio
import threading

from textual.widgets import DataTable, Input, Label, OptionList, Static

from memboard.board.app import MemboardApp
from memboard.board.screens import search as search_screen
from memboard.board.screens.archive import ArchiveScreen
from memboard.board.screens.search import SearchScreen
from memboard.board.screens.session import SessionScreen
from memboard.core.files.root import MemoryRoot
from memboard.core.ops.query import list_archived
from memboard.core.search import cache as search_cache
from memboard.core.search.engine import SearchFilters, SearchHit, SearchOutcome, search
from memboard.widgets.key_bar import KeyBar
from tests.support.tree import tree

SIZE = (120, 40)
PATIENCE = 30.0


async def ready(pilot) -> None:
    """Let the board finish its first read."""
    await pilot.pause()
    await asyncio.wait_for(pilot.app.workers.wait_for_complete(), PATIENCE)
    await pilot.pause()


async def until(pilot, condition, what: str) -> None:
    """Let the app run until condition() holds (bounded)."""
    for _ in range(1500):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"never happened: {what}")


async def open_search(pilot) -> SearchScreen:
    """Press f on the board and return the search screen."""
    await ready(pilot)
    await pilot.press("f")
    await until(pilot, lambda: isinstance(pilot.app.screen, SearchScreen), "search opened")
    return pilot.app.screen


async def search_for(pilot, screen: SearchScreen, text: str, keys: bool = False) -> list:
    """Add text to the search box (typed key by key when keys, else at once as a paste does) and wait
    until the answer to the whole box is shown."""
    box = screen.query_one(Input)
    if keys:
        await pilot.press(*text)
    else:
        box.insert_text_at_cursor(text)
    await until(
        pilot,
        lambda: screen.query_text == box.value.strip() and not status(screen).startswith("searching"),
        f"the answer to {box.value!r}",
    )
    return screen.hits


def status(screen) -> str:
    """The status line of a search or archive screen."""
    found = screen.query("#search-status") or screen.query("#archive-status")
    return str(found.first(Static).render())


def shown_ids(screen: SearchScreen) -> list[str]:
    """The IDs of the results on screen, in order (read from the rendered list)."""
    listing = screen.query_one(OptionList)
    return [str(listing.get_option_at_index(i).prompt).split()[0] for i in range(listing.option_count)]


async def test_typing_updates_the_results_as_the_core_ranks_them(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "syn", keys=True)
        expected = [h.id for h in search(demo_root, "syn", limit_filters())]
        assert [h.id for h in hits] == expected and shown_ids(screen) == expected
        assert ids["archived3"] in expected and ids["sync3"] in expected
        hits = await search_for(pilot, screen, "c work", keys=True)  # the query is now "sync work"
        assert [h.id for h in hits] == [ids["sync3"]] == shown_ids(screen)
        assert "1 result for «sync work»" in status(screen)
        rendered = str(screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert "live active" in rendered and "snapshot › Current Context" in rendered and "session" in rendered


def limit_filters() -> SearchFilters:
    """The filters the board searches with."""
    return SearchFilters(limit=search_screen.LIMIT)


async def test_enter_on_a_live_result_closes_search_and_selects_its_row(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        assert app.current_session_id != ids["review"]
        hits = await search_for(pilot, screen, "1252-cursor-review")  # a piece of a Session ID
        assert [h.id for h in hits] == [ids["review"]]
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, SearchScreen), "search closed")
        assert app.current_session_id == ids["review"]
        assert app.focused is app.sessions.table


async def test_enter_on_a_live_row_hidden_by_the_filter_clears_the_filter(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("2")  # idle rows only: the review session is active
        screen = await open_search(pilot)
        await search_for(pilot, screen, "1252-cursor-review")
        await pilot.press("enter")
        await until(pilot, lambda: app.current_session_id == ids["review"], "the row selected")


async def test_enter_on_an_archived_result_opens_it_read_only(demo_root, ids):
    before = tree(demo_root, folders=True)
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "Lock file")
        assert [(h.id, h.state) for h in hits] == [(ids["archived3"], "archived")]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen), "the session view")
        view = app.screen
        await until(pilot, lambda: view.view is not None, "the session read")
        meta = str(view.query_one("#session-meta", Static).render())
        assert ids["archived3"] in meta and "archived" in meta and "Lock file location" in meta
        assert "Archived" in meta and "Original status" in meta
        await until(pilot, lambda: bool(view.query("#session-snapshot")), "the snapshot shown")
        await pilot.press("pagedown", "escape")  # escape closes it (q quits, as everywhere)
        await until(pilot, lambda: app.screen is screen, "back in search")
        await pilot.press("escape")
        await until(pilot, lambda: len(app.screen_stack) == 1, "back on the board")
    assert tree(demo_root, folders=True) == before  # nothing in these views writes


async def test_a_two_character_cjk_word_and_an_id_piece_are_found(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "同步", keys=True)
        assert {ids["sync1"], ids["sync2"]} <= {h.id for h in hits}
        assert all(h.snippet[a:b] == "同步" for h in hits for a, b in h.spans)
        screen.query_one(Input).value = ""
        hits = await search_for(pilot, screen, "0930-codex")
        assert [h.id for h in hits] == [ids["archived3"]]
        assert hits[0].snippet[hits[0].spans[0][0] : hits[0].spans[0][1]] == "0930-codex"


async def test_fts_operators_are_searched_literally(write_index, make_row, root):
    topic = 'release "a" AND -b* (literal)'
    write_index([make_row("2026-05-01-1000-alpha", topic=topic), make_row("2026-05-02-1000-beta", topic="a and b")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, '"a" AND -b*')
        assert [h.id for h in hits] == ["2026-05-01-1000-alpha"]
        assert not screen.query_one("#search-status").has_class("-error")
        assert '1 result for «"a" AND -b*»' in status(screen)
        screen.query_one(Input).value = ""
        hits = await search_for(pilot, screen, "NEAR(a b)")
        assert hits == [] and "No matches for «NEAR(a b)»" in status(screen)
        assert not screen.query_one("#search-status").has_class("-error")


async def test_text_that_looks_like_markup_is_shown_as_written(write_index, make_row, root):
    write_index([make_row("2026-05-01-1000-alpha", topic="[bold red]alarm[/] $x [link=y]z[/link]")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "[bold red]alarm")
        assert [h.id for h in hits] == ["2026-05-01-1000-alpha"]
        prompt = screen.query_one(OptionList).get_option_at_index(0).prompt
        assert "row › Topic: [bold red]alarm[/] $x [link=y]z[/link]" in str(prompt)
        assert "«[bold red]alarm»" in status(screen)


async def test_the_footer_shows_search_keys_from_the_action_table(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        footer = screen.query_one(KeyBar).text.split()
        assert footer[:6] == ["↓↑", "move", "⏎", "open", "esc", "close"]
        assert footer[-4:] == ["f1", "help", "ctrl+q", "quit"]  # the query box takes letters


async def test_an_answer_to_an_older_query_never_replaces_a_newer_one(demo_root, monkeypatch):
    release = threading.Event()
    asked: list[str] = []

    def fake_run(root, query, filters=None, progress=None, check_files=True):
        asked.append(query)
        if query == "slow":
            if progress:
                progress("search cache: 1,000 documents…")
            release.wait(PATIENCE)
            return SearchOutcome([fake_hit("2026-01-01-0000-slow")], "cache")
        return SearchOutcome([fake_hit("2026-01-01-0000-fast")], "cache")

    monkeypatch.setattr(search_screen, "run", fake_run)
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        screen.query_one(Input).value = "slow"
        await until(pilot, lambda: asked == ["slow"], "the slow search started")
        progress = screen.query_one("#search-progress", Static)
        await until(pilot, lambda: progress.display and "1,000 documents" in str(progress.render()), "progress shown")
        assert status(screen).startswith("searching for «slow»…")
        await until(pilot, lambda: status(screen).endswith(" s"), "the seconds counted while it takes long")
        screen.query_one(Input).value = "fast"  # the UI answers while the slow search still runs
        await until(pilot, lambda: screen.hits and screen.hits[0].id.endswith("fast"), "the fast answer")
        release.set()
        await asyncio.wait_for(app.workers.wait_for_complete(), PATIENCE)
        await pilot.pause()
        await pilot.pause()
        assert [h.id for h in screen.hits] == ["2026-01-01-0000-fast"] == shown_ids(screen)
        assert screen.query_text == "fast" and "«fast»" in status(screen)
        assert not progress.display  # the build that reported progress has ended


def fake_hit(sid: str) -> SearchHit:
    """A live session hit whose snippet is its ID."""
    return SearchHit(
        "session",
        sid,
        "live",
        "active",
        "x",
        "t",
        "2026-01-01 00:00",
        "row",
        "Session ID",
        "index.md",
        sid,
        ((0, 4),),
        5001,
        1,
    )


async def test_empty_and_too_long_queries_say_why_without_searching(demo_root, monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(search_screen, "run", lambda root, query, *a, **k: asked.append(query))
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        assert status(screen).startswith("Type to search")
        screen.query_one(Input).value = "x" * 1001
        await pilot.pause(search_screen.DEBOUNCE * 3)
        assert status(screen) == "search query too long (1,001 characters; at most 1,000)"
        assert screen.query_one("#search-status").has_class("-error")
        screen.query_one(Input).value = "   "
        await pilot.pause(search_screen.DEBOUNCE * 3)
        assert status(screen).startswith("Type to search")
        assert asked == []


async def test_no_match_is_explained(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        assert await search_for(pilot, screen, "qqqzzz") == []
        assert status(screen) == "No matches for «qqqzzz» in the index, the snapshots or the archive."
        await pilot.press("enter")  # nothing to open: the screen stays
        assert app.screen is screen


async def test_up_and_down_move_while_the_box_keeps_the_focus(demo_root, ids):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "sync")
        assert len(hits) >= 3
        listing = screen.query_one(OptionList)
        await pilot.press("down", "down", "up")
        assert listing.highlighted == 1 and isinstance(app.focused, Input)
        archived = next(i for i, h in enumerate(hits) if h.state == "archived")
        listing.highlighted = archived
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen), "the archived session")
        assert app.screen.session_id == hits[archived].id


async def test_the_archive_lists_filters_and_opens_read_only(demo_root, ids):
    before = tree(demo_root, folders=True)
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, ArchiveScreen) and app.screen.rows is not None, "archive")
        screen = app.screen
        table = screen.query_one(DataTable)
        listed = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert listed == [ids["archived3"], ids["archived2"], ids["archived1"]]  # last archived first
        assert status(screen) == "3 archived sessions, last archived first."
        await pilot.press(*"記憶")
        assert [str(table.get_row_at(i)[0]) for i in range(table.row_count)] == [ids["archived2"]]
        assert status(screen) == "1 of 3 archived sessions matches «記憶»; last archived first."  # not "match"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.view is not None, "view")
        assert app.screen.view.id == ids["archived2"] and app.screen.view.archived
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back in the archive")
        for _ in range(2):
            await pilot.press("backspace")
        await pilot.press(*"zzz")
        assert table.row_count == 0 and status(screen) == "No archived session matches «zzz» (3 in the archive)."
        await pilot.press("escape")
        await until(pilot, lambda: len(app.screen_stack) == 1, "back on the board")
    assert tree(demo_root, folders=True) == before


async def test_an_empty_archive_says_how_sessions_get_there(write_index, make_row, root):
    write_index([make_row("2026-05-01-1000-alpha")])
    app = MemboardApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("A")
        await until(pilot, lambda: isinstance(app.screen, ArchiveScreen) and app.screen.rows is not None, "archive")
        assert status(app.screen).startswith("No archived sessions yet.")


async def test_the_board_keys_do_nothing_under_search(demo_root):
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        await pilot.press(*"a2A")  # archive, idle filter and archive view on the board; text here
        assert screen.query_one(Input).value == "a2A" and app.screen is screen
        assert app.sessions.status_filter == "all"


def test_list_archived_names_a_folder_without_metadata(root):
    (root / "archive" / "2026-05-01-1000-alpha").mkdir(parents=True)
    (root / "archive" / "not-an-id").mkdir()
    (root / "archive" / "2026-05-02-1000-beta" / "index.md").mkdir(parents=True)  # a folder where a file belongs
    rows = list_archived(MemoryRoot(root))
    assert [r.id for r in rows] == ["2026-05-02-1000-beta", "2026-05-01-1000-alpha"]
    assert rows[0].problem and "archive/2026-05-02-1000-beta/index.md" in rows[0].problem
    assert rows[1].problem == "no archive/2026-05-01-1000-alpha/index.md"


async def test_enter_on_a_note_result_shows_it_in_the_notes_view(demo_root):
    # lazy: the notes modules are only needed by this test
    from memboard.board.notes.screen import NotesScreen
    from memboard.core.files.execute import execute
    from memboard.core.formats import clock
    from memboard.core.formats.note import NoteDraft
    from memboard.core.ops.notes.save import plan_note_save

    draft = NoteDraft("Retry renames under Obsidian", "gotcha", "tool", "- Retry a refused rename.")
    saved = execute(MemoryRoot(demo_root), lambda r: plan_note_save(r, draft, clock.now()))
    note_id = saved.result.note_id
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "Retry renames under")
        assert [(h.kind, h.id) for h in hits] == [("note", note_id)]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, NotesScreen), "the notes view")
        notes = app.screen
        assert isinstance(notes, NotesScreen)
        assert notes.filter_text == note_id


async def test_a_note_result_clears_the_notes_type_and_status_filters_that_would_hide_it(demo_root):
    # lazy: the notes modules are only needed by this test
    from memboard.board.notes.screen import NotesScreen
    from memboard.core.files.execute import execute
    from memboard.core.formats import clock
    from memboard.core.formats.note import NoteDraft
    from memboard.core.ops.notes.save import plan_note_save

    root = MemoryRoot(demo_root)
    for title, kind in (("Retry renames under Obsidian", "gotcha"), ("Prefer short commits", "preference")):
        draft = NoteDraft(title, kind, "tool", "- A line.")
        execute(root, lambda r, d=draft: plan_note_save(r, d, clock.now()))
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NotesScreen) and app.screen.model.complete, "the notes")
        notes = app.screen
        assert isinstance(notes, NotesScreen)
        while notes.type_filter != "preference":
            await pilot.press("t")
        await pilot.press("3", "n")  # a type and a status that hide the gotcha
        await until(pilot, lambda: app.screen is app.screen_stack[0], "the session table")
        screen = await open_search(pilot)
        hits = await search_for(pilot, screen, "Retry renames under")
        assert [h.kind for h in hits] == ["note"]
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is notes, "the notes view")
        assert (notes.type_filter, notes.status_filter) == ("all", "all")
        assert [r.id for r in notes.table.rows] == [hits[0].id]


async def test_space_and_hierarchy_hits_are_marked_p_and_h_and_a_p_hit_opens_on_the_spaces_screen(
    demo_root, tmp_path, monkeypatch
):
    import subprocess

    from memboard.board.spaces import SpacesScreen
    from memboard.service import spaces_read

    monkeypatch.setenv("SESSION_MEMORY_HOME", str(tmp_path / "smhome"))
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".session-memory").mkdir()
    (project / ".session-memory" / "current.md").write_text("# T\n\n## 下一步\n\n- feed the zebra\n", encoding="utf-8")
    spaces_read.where(str(project))  # a command resolved it: a known space
    first = tmp_path / "aaa"  # listed before it, so the cursor starts elsewhere
    (first / ".session-memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(first)], check=True)
    (first / ".session-memory" / "current.md").write_text("# A\n\n## 下一步\n\n- rest\n", encoding="utf-8")
    spaces_read.where(str(first))
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Me\n\n## Pets\n- a zebra called Z\n", encoding="utf-8")
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(ws))
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        found = await search_for(pilot, screen, "zebra")
        assert [(h.kind, h.path) for h in found] == [
            ("space", str(project / ".session-memory" / "current.md")),
            ("hierarchy", "MEMORY.md"),
        ]
        assert shown_ids(screen) == ["P", "H"]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SpacesScreen), "the Spaces screen opened")
        spaces = pilot.app.screen
        target = str(project / ".session-memory")
        await until(
            pilot, lambda: spaces.table.current is not None and spaces.table.current.id == target, "the space selected"
        )


async def test_the_first_search_shows_the_rows_results_and_the_build_s_progress_before_the_whole_build(
    demo_root, ids, monkeypatch
):
    # the first search on a root builds its search cache (9.9 s on a 20k-row root): the board shows that build's
    # progress and, meanwhile, the index rows' results, then the whole answer once the cache is built (issue 27 §6)
    release = threading.Event()
    build = search_cache.SearchCache._build

    def held_build(self, tmp):
        """The cache's build, held until the test lets it go (a large root's build, as slow as it gets)."""
        release.wait(PATIENCE)
        build(self, tmp)

    monkeypatch.setattr(search_cache.SearchCache, "_build", held_build)
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        screen.query_one(Input).insert_text_at_cursor("syn")
        await until(pilot, lambda: bool(screen.hits), "results while the cache is being built")
        rows = [h.id for h in screen.hits]
        assert rows and all(h.where == "row" and h.state == "live" for h in screen.hits)
        assert ids["archived3"] not in rows and shown_ids(screen) == rows
        assert status(screen).startswith("searching for «syn»…") and "index rows" in status(screen)
        progress = screen.query_one("#search-progress", Static)
        assert progress.display and "building the search cache" in str(progress.render())
        release.set()
        expected = [h.id for h in search(demo_root, "syn", limit_filters())]
        await until(pilot, lambda: [h.id for h in screen.hits] == expected, "the whole answer once the cache is built")
        assert ids["archived3"] in expected and shown_ids(screen) == expected
        await until(pilot, lambda: not status(screen).startswith("searching"), "the whole answer's status line")
        assert f"{len(expected)} results for «syn»" in status(screen) and not progress.display


async def test_f_on_the_notes_view_searches_and_a_note_found_shows_there_and_a_session_on_the_table(demo_root, ids):
    # the notes view had no `f`: its letters fell through to nothing, and a person typing a query there ran
    # `o` (to the session table) and `c` (continue) instead (issue 27 §3: f, a note result, enter)
    # lazy: the notes modules are only needed by this test
    from memboard.board.notes.screen import NotesScreen
    from memboard.core.files.execute import execute
    from memboard.core.formats import clock
    from memboard.core.formats.note import NoteDraft
    from memboard.core.ops.notes.save import plan_note_save

    root = MemoryRoot(demo_root)
    for title, kind in (("Lock files live in local state", "gotcha"), ("Prefer short commits", "preference")):
        draft = NoteDraft(title, kind, "tool", "- A line.")
        execute(root, lambda r, d=draft: plan_note_save(r, d, clock.now()))
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NotesScreen) and app.screen.model.complete, "the notes")
        notes = app.screen
        assert isinstance(notes, NotesScreen)
        for _ in range(9):
            if notes.type_filter == "preference":
                break
            await pilot.press("t")
        await pilot.press("3")  # a type and a status that hide the note looked for
        assert (notes.type_filter, notes.status_filter) == ("preference", "superseded")
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "search opened from the notes view")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        hits = await search_for(pilot, screen, "Lock files live in")
        assert hits and hits[0].kind == "note"
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is notes, "back on the notes view")
        assert (notes.type_filter, notes.status_filter) == ("all", "all")
        assert notes.table.current is not None and notes.table.current.id == hits[0].id
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), "search opened again")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        hits = await search_for(pilot, screen, ids["sync3"])
        assert hits[0].kind == "session" and hits[0].state == "live"
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.screen_stack[0], "the session table")
        assert app.sessions.current_session_id == ids["sync3"]


async def test_a_search_opened_again_during_the_build_shows_the_rows_first_and_the_build_s_progress(
    demo_root, ids, monkeypatch
):
    # issue 27 §6: a search closed and opened again while the cache's first build goes on showed only a plain
    # "building…": it shows the rows' answer and that build's progress, as the first search does
    release = threading.Event()
    build = search_cache.SearchCache._build

    def held_build(self, tmp):
        """The cache's build: a progress line, then held until the test lets it go."""
        self._say("search cache: 8,000 sources read")
        release.wait(PATIENCE)
        build(self, tmp)

    monkeypatch.setattr(search_cache.SearchCache, "_build", held_build)
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        screen.query_one(Input).insert_text_at_cursor("syn")
        progress = screen.query_one("#search-progress", Static)
        await until(pilot, lambda: "8,000 sources read" in str(progress.render()), "the first search's progress")
        await pilot.press("escape")
        await pilot.pause()
        again = await open_search(pilot)
        assert again is not screen
        again.query_one(Input).insert_text_at_cursor("syn")
        await until(pilot, lambda: bool(again.hits), "the rows' results in the search opened again")
        assert all(h.where == "row" for h in again.hits) and "index rows" in status(again)
        shown = again.query_one("#search-progress", Static)
        assert shown.display and "search cache: 8,000 sources read" in str(shown.render()), str(shown.render())
        release.set()
        expected = [h.id for h in search(demo_root, "syn", limit_filters())]
        await until(pilot, lambda: [h.id for h in again.hits] == expected, "the whole answer once the cache is built")


async def test_search_s_title_names_every_kind_it_searches_notes_too(demo_root):
    # the title said "index rows, snapshots and the archive" above note results
    app = MemboardApp(demo_root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_search(pilot)
        assert str(screen.query_one("#search-title", Label).render()).endswith("snapshots, the archive and notes")
