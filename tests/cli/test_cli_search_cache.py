"""The search cache: kept in local state, refreshed from the files, rebuilt when broken, bypassed when busy."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.roots import index_text, row_cells, row_line, snapshot_text, table_line

SID_A = "2026-05-30-0900-claude-code"
SID_B = "2026-05-31-0930-codex-cli"
NEW = "2026-06-01-0930-cursor-main-agent"  # what `register` creates at the tests' fixed clock


def found(cli, query: str, *args: str, env: dict | None = None) -> list[tuple[str, str, str]]:
    """(id, state, section) of each hit of a successful `search --json`."""
    res = cli("search", query, "--json", *args, env=env)
    assert res.code == 0, res.err
    assert res.err == ""
    return [(h["id"], h["state"], h["section"]) for h in json.loads(res.out)]


def cache_file() -> Path:
    """The one cache file in the tests' state folder."""
    files = list((Path(os.environ["MEMBOARD_STATE_DIR"]) / "search").glob("*.sqlite3"))
    assert len(files) == 1, files
    return files[0]


def user_version(path: Path) -> int:
    """The schema version stored in a cache file."""
    con = sqlite3.connect(path)
    try:
        return con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()


@pytest.fixture
def two(mem):
    """Two sessions; A has a snapshot."""
    mem.index(
        row_line(SID_A, topic="Lock queue", summary="FIFO tickets for the lock", keywords="lock"),
        row_line(SID_B, topic="Parser rewrite", summary="A faster line scan", keywords="parser"),
    )
    mem.snapshot(SID_A, decisions=["Tickets are files in a queue folder"])
    return mem


def test_cache_lives_in_local_state_and_the_root_is_untouched(cli, two, root, whole_tree):
    before = whole_tree()
    res = cli("search", "tickets")
    assert res.code == 0 and res.err == ""
    assert SID_A in res.out
    after = whole_tree()
    assert before == after  # nothing written in or around the root
    assert user_version(cache_file()) >= 1
    assert not str(cache_file().resolve()).startswith(str(root.resolve()))
    assert (cache_file().stat().st_mode & 0o777, cache_file().parent.stat().st_mode & 0o777) == (0o600, 0o700)


def test_register_update_archive_organize_are_reflected_without_a_rebuild(cli, two, tmp_path):
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]
    inode = cache_file().stat().st_ino
    assert cli("register").code == 0
    assert found(cli, "sessionStart") == [(NEW, "live", "Keywords")]
    snap = tmp_path / "snap.md"
    snap.write_text("## Decisions\n\n- Switch to a streaming tokenizer\n", encoding="utf-8")
    assert cli("update", SID_B, "--summary", "Streaming now", "--snapshot", str(snap)).code == 0
    assert found(cli, "streaming tokenizer") == [(SID_B, "live", "Decisions")]
    assert found(cli, "faster line scan") == []
    assert found(cli, "Streaming now") == [(SID_B, "live", "Summary")]
    assert cli("archive", SID_A).code == 0
    assert found(cli, "queue folder") == [(SID_A, "archived", "Decisions")]
    assert found(cli, "queue folder", "--live") == []
    assert cli("organize").code == 0  # deletes the idle row registered above
    assert found(cli, "sessionStart") == []
    assert cache_file().stat().st_ino == inode  # refreshed in place, never rebuilt


def test_hand_edits_and_a_deleted_snapshot_are_reflected(cli, two, root):
    assert found(cli, "Parser rewrite") == [(SID_B, "live", "Topic")]
    index = root / "index.md"
    text, stamp = index.read_text(encoding="utf-8"), index.stat().st_mtime_ns
    index.write_text(text.replace("Parser rewrite", "Lexer  rewrite"), encoding="utf-8")
    os.utime(index, ns=(stamp, stamp))  # same size, same time: saved within one tick of the clock
    assert found(cli, "Parser rewrite") == []
    assert found(cli, "Lexer  rewrite") == [(SID_B, "live", "Topic")]
    snap = root / "sessions" / f"{SID_A}.md"
    snap.write_text(snap.read_text(encoding="utf-8") + "\n## Notes\n\nA zeppelin appeared.\n", encoding="utf-8")
    assert found(cli, "zeppelin") == [(SID_A, "live", "Notes")]
    snap.unlink()
    assert found(cli, "zeppelin") == []
    assert found(cli, "Tickets are files") == []
    assert found(cli, "Lock queue") == [(SID_A, "live", "Topic")]  # the row stays


def test_an_archived_sessions_files_edited_by_hand_are_reread(cli, two, root):
    """The archive's index.md and session.md are stamped through the archive folder's handle: an edit of either,
    or a deleted one, shows in the next search."""
    assert cli("archive", SID_A).code == 0
    assert found(cli, "queue folder") == [(SID_A, "archived", "Decisions")]
    folder = root / "archive" / SID_A
    session = folder / "session.md"
    session.write_text(session.read_text(encoding="utf-8") + "\n## Notes\n\nA zeppelin appeared.\n", encoding="utf-8")
    assert found(cli, "zeppelin") == [(SID_A, "archived", "Notes")]
    record = folder / "index.md"
    assert "Lock queue" in record.read_text(encoding="utf-8")
    record.write_text(record.read_text(encoding="utf-8").replace("Lock queue", "Lock ledger"), encoding="utf-8")
    assert found(cli, "Lock ledger") == [(SID_A, "archived", "Topic")]
    session.unlink()
    assert found(cli, "zeppelin") == []


def test_a_note_search_looks_at_notes_alone_and_the_next_search_sees_the_rest(cli, two, root):
    """A search of notes takes the notes' stats alone (nothing else can change its answer); what changed elsewhere
    meanwhile is caught up by the next search of everything, not lost."""
    assert found(cli, "Parser rewrite") == [(SID_B, "live", "Topic")]
    index = root / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("Parser rewrite", "Lexer rewrite"), encoding="utf-8")
    snap = root / "sessions" / f"{SID_A}.md"
    snap.write_text(snap.read_text(encoding="utf-8") + "\n## Notes\n\nA zeppelin appeared.\n", encoding="utf-8")
    for path in (index, snap):
        os.utime(path, (1_600_000_000, 1_600_000_000))  # (long settled: their stats alone are trusted)
    args = ["--scope", "project", "--type", "fact", "--topic-key", "memory/airship", "--what", "Zeppelin hangar"]
    assert cli("note", "save", "--title", "Airships", *args).code == 0
    notes = json.loads(cli("note", "search", "zeppelin", "--json").out)
    assert [h["id"] for h in notes] == ["memory/airship"]
    assert [(h["kind"], h["id"]) for h in json.loads(cli("search", "zeppelin", "--kind", "note", "--json").out)] == [
        ("note", "memory/airship")
    ]
    assert found(cli, "Lexer rewrite") == [(SID_B, "live", "Topic")]
    assert found(cli, "Parser rewrite") == []
    assert sorted(found(cli, "zeppelin", "--kind", "session")) == [(SID_A, "live", "Notes")]


@pytest.mark.parametrize("no_note", [["--kind", "session"], ["--agent", "claude-code"], ["--archived"]])
def test_a_search_no_note_can_pass_looks_past_the_notes_and_the_next_search_sees_them(cli, two, root, no_note):
    """A search whose filters no note passes takes no note's stat (nothing under notes/ can change its answer); a
    note edited in place, added or removed meanwhile is seen by the next search of everything, not lost."""
    args = ["--scope", "project", "--type", "fact", "--what", "Airship hangar"]
    assert cli("note", "save", "--title", "Airships", "--topic-key", "memory/airship", *args).code == 0
    assert cli("note", "save", "--title", "Balloons", "--topic-key", "memory/balloon", *args).code == 0
    assert sorted(hit[0] for hit in found(cli, "hangar")) == ["memory/airship", "memory/balloon"]
    edited = root / "notes" / "memory" / "airship.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Airship hangar", "Zeppelin hangar"), "utf-8")
    (root / "notes" / "memory" / "balloon.md").unlink()
    args = ["--scope", "project", "--type", "fact", "--what", "Zeppelin shed"]
    assert cli("note", "save", "--title", "Sheds", "--topic-key", "memory/shed", *args).code == 0
    snap = root / "sessions" / f"{SID_A}.md"
    snap.write_text(snap.read_text(encoding="utf-8") + "\n## Notes\n\nA zeppelin appeared.\n", encoding="utf-8")
    for path in (snap, edited, root / "notes" / "memory" / "shed.md"):
        os.utime(path, (1_600_000_000, 1_600_000_000))  # (long settled: their stats alone are trusted)
    hits = found(cli, "zeppelin", *no_note)
    assert hits == ([] if "--archived" in no_note else [(SID_A, "live", "Notes")])
    assert sorted(hit[0] for hit in found(cli, "zeppelin")) == [SID_A, "memory/airship", "memory/shed"]
    assert [hit[0] for hit in found(cli, "hangar")] == ["memory/airship"]


def test_an_old_unchanged_index_edited_in_place_is_reread(cli, two, root):
    index = root / "index.md"
    os.utime(index, (1_600_000_000, 1_600_000_000))
    assert found(cli, "Parser rewrite") == [(SID_B, "live", "Topic")]
    text = index.read_text(encoding="utf-8")
    index.write_text(text.replace("Parser rewrite", "Parser REWRITTEN!!"), encoding="utf-8")
    assert found(cli, "rewritten!!") == [(SID_B, "live", "Topic")]


def test_many_rows_one_changed_row_is_the_only_one_reindexed(cli, mem, root):
    rows = [
        row_line(f"2026-05-{1 + i // 1440:02d}-{(i // 60) % 24:02d}{i % 60:02d}-claude-code", topic=f"topic {i}")
        for i in range(300)
    ]
    mem.index(*rows)
    assert len(found(cli, "topic 1", "--limit", "1000")) == 111  # topic 1, 10-19, 100-199
    con = sqlite3.connect(cache_file())
    before = dict(con.execute("SELECT key, id FROM records WHERE source = 'row'"))
    con.close()
    mem.index(*rows[:150], rows[150].replace("topic 150", "topic changed"), *rows[151:], row_line(NEW, topic="fresh"))
    assert found(cli, "topic changed") != []
    con = sqlite3.connect(cache_file())
    after = dict(con.execute("SELECT key, id FROM records WHERE source = 'row'"))
    con.close()
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed == {rows[150].split(" | ")[0].strip("| "), NEW}


@pytest.mark.parametrize("damage", ["garbage", "truncated", "scribbled", "old_schema", "empty"])
def test_a_broken_cache_is_rebuilt_silently(cli, two, damage):
    assert found(cli, "tickets") == [(SID_A, "live", "Summary")]
    path = cache_file()
    if damage == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif damage == "scribbled":  # same size, sound header and tables, garbage where the text index lives
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] + b"\xa5" * (len(data) - len(data) // 2))
    elif damage == "old_schema":
        con = sqlite3.connect(path)
        con.execute("PRAGMA user_version = 0")
        con.close()
    else:
        path.write_bytes(b"")
    assert found(cli, "tickets") == [(SID_A, "live", "Summary")]
    assert user_version(cache_file()) >= 1
    con = sqlite3.connect(cache_file())
    try:
        assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert con.execute("SELECT count(*) FROM records").fetchone()[0] == 3  # two rows and a snapshot
    finally:
        con.close()


def test_a_cache_busy_in_another_process_is_bypassed_by_scanning(cli, two, root):
    """While another process writes the cache, search answers from the files at once."""
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]
    path = cache_file()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        index = root / "index.md"
        index.write_text(
            index.read_text(encoding="utf-8").replace("Parser rewrite", "Grammar rewrite"), encoding="utf-8"
        )
        stamp = path.stat().st_mtime_ns
        assert found(cli, "grammar") == [(SID_B, "live", "Topic")]  # fresh, so not from the stale cache
        assert found(cli, "Parser rewrite") == []
        assert path.stat().st_mtime_ns == stamp  # and nothing waited for the lock to write
    finally:
        holder.communicate("done\n", timeout=60)
    assert found(cli, "grammar") == [(SID_B, "live", "Topic")]
    assert path.stat().st_mtime_ns != stamp  # free again: the cache caught up


HOLD_LOCK = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
con.execute("ROLLBACK")
"""


def test_a_cache_left_mid_write_by_a_crashed_process_is_recovered(cli, two):
    assert found(cli, "tickets") == [(SID_A, "live", "Summary")]
    path = cache_file()
    crash = subprocess.run([sys.executable, "-c", CRASH_MID_WRITE, str(path)], timeout=60)
    assert crash.returncode == 3
    assert Path(f"{path}-journal").exists()  # a hot journal: the cache file holds half a transaction
    assert found(cli, "tickets") == [(SID_A, "live", "Summary")]
    assert found(cli, "crashed writer") == []
    assert not Path(f"{path}-journal").exists()


def test_a_killed_build_leaves_nothing_behind_once_a_search_runs_again(cli, two):
    assert found(cli, "tickets") == [(SID_A, "live", "Summary")]
    path = cache_file()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = path.with_name(f"{path.name}.{int(dead.stdout)}.0badf00d.tmp")  # a builder that died mid-build
    killed.write_bytes(b"x" * 4096)
    building = path.with_name(f"{path.name}.{os.getpid()}.1234abcd.tmp")  # one still building (this process)
    building.write_bytes(b"y")
    assert found(cli, "tickets") == [(SID_A, "live", "Summary")]
    assert not killed.exists() and building.exists()


CRASH_MID_WRITE = """
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA cache_size = 1")
con.execute("BEGIN IMMEDIATE")
con.execute("UPDATE docs SET text = 'crashed writer'")
con.execute("UPDATE sessions SET topic = 'crashed writer'")
os._exit(3)
"""


def test_a_first_build_busy_elsewhere_is_bypassed_by_scanning(cli, two):
    state = Path(os.environ["MEMBOARD_STATE_DIR"]) / "search"
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]
    path = cache_file()
    path.unlink()
    from filelock import FileLock

    with FileLock(str(path) + ".lock"):
        assert found(cli, "parser") == [(SID_B, "live", "Topic")]
        assert list(state.glob("*.sqlite3")) == []
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]
    assert cache_file().exists()


def test_without_fts5_the_files_are_scanned_with_the_same_results(cli, two, mem, tmp_path):
    mem.snapshot(SID_B, text=snapshot_text(SID_B, decisions=["同步 the lock and the parser", "LOCK twice"]))
    assert cli("archive", SID_A).code == 0
    no_fts = {"MEMBOARD_SEARCH_NO_FTS": "1"}
    queries = [
        ["lock"],
        ["同步"],
        ["parser"],
        ["2026-05"],
        ["lock", "--section", "Decisions"],
        ["lock", "--archived"],
        ["a", "--limit", "3"],
        ["queue"],
        ["nothing here"],
    ]
    for args in queries:
        fts = cli("search", *args, "--json")
        scan = cli("search", *args, "--json", env=no_fts)
        assert (fts.code, scan.code) == (0, 0)
        assert json.loads(scan.out) == json.loads(fts.out), args
    state = Path(os.environ["MEMBOARD_STATE_DIR"]) / "search"
    cache_file().unlink()
    assert cli("search", "lock", env=no_fts).code == 0
    assert list(state.glob("*.sqlite3")) == []  # the scan wrote no cache
    res = cli("search", "--syntax", "lock OR parser", env=no_fts)
    assert res.code == 1 and "--syntax needs the search cache" in res.err


def test_snapshot_bytes_that_are_not_utf8_are_indexed_with_replacement_characters(cli, two, root):
    snap = root / "sessions" / f"{SID_B}.md"
    snap.write_bytes(
        snapshot_text(SID_B).encode("utf-8").replace(b"Worked on the thing.", b"Worked \xff\xfe on the zebra.")
    )
    res = cli("search", "zebra", "--json")
    assert res.code == 0, res.err
    hit = json.loads(res.out)[0]
    assert (hit["id"], hit["section"]) == (SID_B, "Current Context")
    assert "\ufffd\ufffd on the «zebra»" in hit["marked"]
    assert "Traceback" not in cli("search", "zebra").err


def test_symlinks_and_files_not_named_by_a_session_id_are_not_searched(cli, two, root, tmp_path):
    outside = tmp_path / "outside"
    (outside / "sessions").mkdir(parents=True)
    (outside / "archive" / SID_B).mkdir(parents=True)
    secret = snapshot_text(SID_B, decisions=["outsider secret"])
    (outside / "sessions" / f"{SID_B}.md").write_text(secret, encoding="utf-8")
    (outside / "archive" / SID_B / "session.md").write_text(secret, encoding="utf-8")
    (root / "sessions" / "notes.md").write_text("## Notes\n\noutsider too\n", encoding="utf-8")  # no Session ID
    (root / "sessions" / f"{SID_B}.md").symlink_to(outside / "sessions" / f"{SID_B}.md")  # a linked file
    assert found(cli, "outsider") == []
    (root / "archive").symlink_to(outside / "archive")  # a linked folder
    assert found(cli, "outsider") == []
    shutil.rmtree(root / "sessions")
    (root / "sessions").symlink_to(outside / "sessions")
    assert found(cli, "outsider") == []
    assert found(cli, "outsider", env={"MEMBOARD_SEARCH_NO_FTS": "1"}) == []
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]


def test_names_and_arguments_that_are_not_utf8(cli, two, root, tmp_path):
    """A file name or a root path with bytes that are not UTF-8 is no trouble; such an argument is a usage error."""
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]
    (root / "sessions" / os.fsdecode(b"\xff\xfe.md")).write_text("## Notes\n\nparser\n", encoding="utf-8")
    assert found(cli, "parser") == [(SID_B, "live", "Topic")]
    odd = tmp_path / os.fsdecode(b"r\xffoot")
    shutil.copytree(root, odd)
    res = cli("search", "parser", "--json", "--root", str(odd), use_root=False)
    assert res.code == 0, res.err
    assert [h["id"] for h in json.loads(res.out)] == [SID_B]
    for args in (
        ["ab" + os.fsdecode(b"\xff")],
        ["x", "--agent", os.fsdecode(b"\xff")],
        ["x", "--section", os.fsdecode(b"\xfe")],
    ):
        res = cli("search", *args)
        assert res.code == 2 and "not UTF-8" in res.err and len(res.err.strip().splitlines()) == 1, res.err


def test_state_folder_that_cannot_hold_a_cache_still_searches(cli, two, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    env = {"MEMBOARD_STATE_DIR": str(blocker)}
    assert found(cli, "parser", env=env) == [(SID_B, "live", "Topic")]


def test_a_cache_that_cannot_be_written_whole_still_searches(two, root):
    """A full disk (here: a file size limit) fails the cache build; the search scans and leaves no temp file."""
    code = (
        "import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN);"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384)); from memboard.cli import main;"
        "sys.exit(main(['search', 'parser', '--root', sys.argv[1], '--json']))"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert [h["id"] for h in json.loads(proc.stdout)] == [SID_B]
    assert proc.stderr == ""
    state = Path(os.environ["MEMBOARD_STATE_DIR"]) / "search"
    assert [p.name for p in state.iterdir() if not p.name.endswith(".lock")] == []


@pytest.mark.parametrize("root_first", [False, True], ids=["root-after", "root-before"])
@pytest.mark.parametrize("command", [["search"], ["note", "search"]])
def test_search_imports_no_board_markdown_parser_or_other_command(two, root, command, root_first):
    # `note search` starts like `memboard search` (it built every command's parser and loaded the notes'
    # save machinery: 2.5x the time of `search --kind note`); `--root DIR search` missed that fast path (issue 29)
    argv = "['--root', sys.argv[1]] + {0!r} + ['parser']" if root_first else "{0!r} + ['parser', '--root', sys.argv[1]]"
    code = (
        f"import sys; from memboard.cli import main; rc = main({argv.format(command)});"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich', 'mistletoe'});"
        "heavy += sorted(m for m in ('memboard.cli.parser', 'memboard.cli.notes', 'memboard.core.ops') if m in sys.modules);"
        "print(rc, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_a_search_on_a_fresh_cache_loads_no_dataclasses(two, root, cli):
    # `memboard search` must start within twice Python's own start: dataclasses (with inspect, ast and
    # tokenize) costs about 5 ms of that, and a search on an up-to-date cache needs none of it (json and
    # hashlib, 7% of a search at 10k rows together, are plain imports: docs/how-it-is-built/speed.md)
    old = time.time() - 60  # files saved a while ago: the cache holds them for good (no racy re-read)
    for path in [root / "index.md", *root.glob("sessions/*.md")]:
        os.utime(path, (old, old))
    assert cli("search", "parser").code == 0  # builds the cache
    code = (
        "import sys; from memboard.cli import main; rc = main(['search', 'parser', '--root', sys.argv[1]]);"
        "print(rc, sorted(m for m in ('dataclasses',) if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_a_search_process_prints_its_whole_answer_before_it_leaves(cli_process, root):
    """A search ends its process as soon as its answer is printed (no interpreter teardown): a long JSON
    answer on a pipe still arrives whole, and the exit status is the command's."""
    rows = [row_cells(f"2026-05-01-{i // 60:02d}{i % 60:02d}-agent", "active", "-", f"zebra {i}") for i in range(600)]
    (root / "index.md").write_text(index_text([table_line(r) for r in rows]), encoding="utf-8")
    buffered = {"PYTHONUNBUFFERED": ""}  # stdout on a pipe is block-buffered, as for a script reading it
    res = cli_process("search", "zebra", "--json", "--limit", "1000", env=buffered)
    assert res.code == 0 and len(json.loads(res.out)) == 600 and res.out.endswith("]\n")
    res = cli_process(
        "search", "zebra", "--limit", "1000", env=buffered
    )  # two short lines a hit: the last sit in the buffer
    assert res.code == 0 and len(res.out.splitlines()) == 1200 and res.out.endswith("\n")
    assert cli_process("search", "").code == 2
