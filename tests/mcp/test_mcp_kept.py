"""What `memboard mcp` keeps of what it parsed (app/mcp/kept.py): never a stale answer, and only changed files read.

Through the real stdio server: a note or index.md changed by another process between two calls,
at the same size and with its mtime set back (a stamp that lies about mtime and size), shows on
the second call, whether the first read was racy (the file had just changed) or aged (trusted on
its stamp); so do an appended row, a note added and a note removed. In process: a call after one
note changed reads that note alone, and a call on unchanged files reads nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memboard.core.files import continues
from memboard.core.files.root import MemoryRoot
from memboard.mcp.kept import Parsed
from tests.mcp.conftest import Agent, running
from tests.mcp.test_mcp_notes import save
from tests.mcp.test_mcp_server import register

AGED = 2.2  # seconds: longer than AGED_NS, so the first read is trusted on its stamp


def rewrite_keeping_stamp(path: Path, old: bytes, new: bytes, rename: bool = False) -> None:
    """Replace old by new (the same length) in the file, from outside the server, its mtime set back to what it was
    (rename: through a new file moved over it, as a sync client saves, so its inode changes too)."""
    st = path.stat()
    data = path.read_bytes()
    assert old in data and len(old) == len(new)
    changed = data.replace(old, new)
    if rename:
        temp = path.with_name(path.name + ".tmp")
        temp.write_bytes(changed)
        os.utime(temp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(temp, path)
    else:
        with open(path, "r+b") as fh:
            fh.write(changed)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def titles(agent: Agent, **arguments: str) -> list[str]:
    """The titles of the related notes mem_context answers, sorted."""
    return sorted(n["title"] for n in agent.answer("mem_context", **arguments)["related"])


@pytest.mark.parametrize("first_read", ["racy", "aged"])
@pytest.mark.parametrize("rename", [False, True], ids=["in-place", "by-rename"])
def test_a_note_changed_outside_at_the_same_size_and_mtime_shows_on_the_next_call(tmp_path, first_read, rename):
    root = tmp_path / "memory"
    root.mkdir()
    with running(root, tmp_path / "state") as agent:
        sid = register(agent, topic="Kept work")
        save(agent, "project/kept/db", "Use Alpha", "decision", "- Alpha 15.", project="kept", session_id=sid)
        save(agent, "project/kept/cache", "Use Redis", "decision", "- Redis 7.", project="kept")
        if first_read == "aged":
            time.sleep(AGED)
        assert titles(agent, project="kept") == ["Use Alpha", "Use Redis"]
        own = agent.answer("session_context", session_id=sid)["notes"]["session"]
        assert [n["title"] for n in own] == ["Use Alpha"]
        rewrite_keeping_stamp(root / "notes/project/kept/db.md", b"Alpha", b"Omega", rename)
        assert titles(agent, project="kept") == ["Use Omega", "Use Redis"]
        own = agent.answer("session_context", session_id=sid)["notes"]["session"]
        assert [n["title"] for n in own] == ["Use Omega"]


@pytest.mark.parametrize("first_read", ["racy", "aged"])
@pytest.mark.parametrize("rename", [False, True], ids=["in-place", "by-rename"])
def test_index_md_changed_outside_at_the_same_size_and_mtime_shows_on_the_next_call(tmp_path, first_read, rename):
    root = tmp_path / "memory"
    root.mkdir()
    with running(root, tmp_path / "state") as agent:
        sid = register(agent, topic="Alpha topic")
        if first_read == "aged":
            time.sleep(AGED)
        assert agent.answer("session_context", session_id=sid)["row"]["topic"] == "Alpha topic"
        assert agent.answer("session_show", session_id=sid)["row"]["topic"] == "Alpha topic"
        rewrite_keeping_stamp(root / "index.md", b"Alpha topic", b"Omega topic", rename)
        assert agent.answer("session_context", session_id=sid)["row"]["topic"] == "Omega topic"
        assert agent.answer("session_show", session_id=sid)["row"]["topic"] == "Omega topic"


def test_rows_appended_and_notes_added_or_removed_outside_show_on_the_next_call(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    with running(root, tmp_path / "state") as agent:
        sid = register(agent, topic="First")
        save(agent, "project/kept/db", "Use PostgreSQL", "decision", "- PostgreSQL 15.", project="kept")
        save(agent, "project/kept/cache", "Use Redis", "decision", "- Redis 7.", project="kept")
        time.sleep(AGED)
        assert agent.answer("session_context", session_id=sid)["row"]["topic"] == "First"
        assert titles(agent, project="kept") == ["Use PostgreSQL", "Use Redis"]

        index = root / "index.md"
        line = next(line for line in index.read_text(encoding="utf-8").splitlines() if line.startswith(f"| {sid} "))
        later = sid.replace(sid[:15], "2030-01-02-0304", 1)
        with open(index, "a", encoding="utf-8") as fh:  # another process appends a row, as a hook does
            fh.write(line.replace(sid, later).replace("First", "Later") + "\n")
        assert agent.answer("session_context", session_id=later)["row"]["topic"] == "Later"
        assert agent.answer("session_chain", session_id=later)["id"] == later

        note = root / "notes/project/kept/db.md"
        copy = root / "notes/project/kept/queue.md"
        copy.write_bytes(
            note.read_bytes().replace(b"project/kept/db", b"project/kept/queue").replace(b"PostgreSQL", b"RabbitMQ")
        )
        assert titles(agent, project="kept") == ["Use PostgreSQL", "Use RabbitMQ", "Use Redis"]
        note.unlink()
        assert titles(agent, project="kept") == ["Use RabbitMQ", "Use Redis"]


def note_text(key: str, title: str) -> str:
    """A note file as memboard writes one."""
    return (
        f"# {title}\n\n## Metadata\n\n| Field | Value |\n|---|---|\n| Title | {title} |\n| Type | fact |\n"
        f"| Scope | project |\n| Topic Key | {key} |\n| Status | active |\n| Supersedes | - |\n| Superseded By | - |\n"
        "| Project | p |\n| Session | - |\n| Created | 2026-05-01 09:00 |\n| Updated | 2026-05-01 09:00 |\n\n"
        "## What\n\n- A fact.\n"
    )


def notes_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A memory root with an empty index and a notes/project/p folder, local state of its own, and every file aged at
    once (AGED_NS 0: trusted on its stamp)."""
    (tmp_path / "state").mkdir()
    monkeypatch.setenv("MEMBOARD_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(continues, "AGED_NS", 0)
    base = tmp_path / "memory"
    (base / "notes/project/p").mkdir(parents=True)
    (base / "index.md").write_text("# Index\n", encoding="utf-8")
    return base


def test_a_call_reads_only_the_notes_and_index_that_changed(tmp_path, monkeypatch):
    base = notes_root(tmp_path, monkeypatch)
    for n in range(3):
        (base / f"notes/project/p/n{n}.md").write_text(note_text(f"project/p/n{n}", f"Note {n}"), encoding="utf-8")
    root, parsed = MemoryRoot(base), Parsed(base)

    assert [v.title for v in parsed.note_set(root).listed] == ["Note 0", "Note 1", "Note 2"]
    parsed.index_file(root)
    assert parsed.reads == 4
    parsed.note_set(root)
    parsed.index_file(root)
    assert parsed.reads == 4  # nothing changed: nothing read

    (base / "notes/project/p/n1.md").write_text(note_text("project/p/n1", "Note one"), encoding="utf-8")
    assert [v.title for v in parsed.note_set(root).newest] == ["Note 0", "Note one", "Note 2"]
    assert parsed.reads == 5  # the changed note alone
    with open(base / "index.md", "a", encoding="utf-8") as fh:
        fh.write("more\n")
    assert parsed.index_file(root).data.endswith(b"more\n")
    assert parsed.reads == 6


def dated_note(key: str, title: str, updated: str) -> str:
    """note_text with another Updated (what orders the notes newest first)."""
    return note_text(key, title).replace("| Updated | 2026-05-01 09:00 |", f"| Updated | {updated} |")


def test_notes_changed_a_few_at_a_time_keep_the_order_a_fresh_listing_gives(tmp_path, monkeypatch):
    """The kept order is patched when a few notes changed (app/mcp/kept.py: _patched): after each round of changes
    (an Updated moved either way or onto another note's, a title, a note made unreadable and readable again, a
    note turned into a copy of another), the listing and the newest-first order are those a fresh read gives."""
    import random

    from memboard.core.ops.notes import list_notes
    from memboard.mcp import kept as kept_module
    from memboard.mcp.context import note_set

    base = notes_root(tmp_path, monkeypatch)
    rng, stamp = random.Random(29), [1_700_000_000_000_000_000]
    days = [f"2026-05-{d:02d} 09:00" for d in range(1, 6)]

    def write(n: int, text: str) -> None:
        path = base / f"notes/project/p/n{n}.md"
        if path.exists() and not path.is_file():
            path.unlink()
        path.write_text(text, encoding="utf-8")
        stamp[0] += 1_000_000
        os.utime(path, ns=(stamp[0], stamp[0]))

    for n in range(30):
        write(n, dated_note(f"project/p/n{n}", f"Note {n}", rng.choice(days)))
    root, parsed = MemoryRoot(base), Parsed(base)
    parsed.note_set(root)
    sorted_again, unreadable = [], 0
    monkeypatch.setattr(kept_module, "note_set", lambda views: sorted_again.append(1) or note_set(views))
    for _round in range(40):
        for n in rng.sample(range(30), rng.choice([1, 1, 2, 3])):
            how = rng.random()
            if how < 0.1:
                (base / f"notes/project/p/n{n}.md").unlink()
                os.mkfifo(base / f"notes/project/p/n{n}.md")  # unreadable (never opened)
            elif how < 0.2:
                write(n, dated_note("project/p/n0", "A copy", rng.choice(days)))  # another note's key: a copy
            else:
                write(n, dated_note(f"project/p/n{n}", f"Note {n} {_round}", rng.choice(days)))
        unreadable += any(path.is_fifo() for path in (base / "notes/project/p").iterdir())
        kept, fresh = parsed.note_set(root), note_set(list_notes(root))
        assert kept.listed == fresh.listed
        assert [v.id for v in kept.newest] == [v.id for v in fresh.newest] and kept.newest == fresh.newest
    assert 0 < unreadable < 30 and len(sorted_again) <= unreadable  # (patched, but while a note is unreadable: no
    # note that cannot be read is kept, so its file is not among the kept ones and the order is sorted again)


def test_the_newest_first_order_is_updated_descending_then_id_both_fresh_and_patched(tmp_path, monkeypatch):
    """The one newest-first order (app/mcp/context.py: newest_key), as mem_context with neither a session nor a
    project ranks every active note: Updated descending as text compares (a longer Updated before its own prefix,
    an empty one last, non-ASCII after ASCII), equal Updated by ID; the same after a note's Updated is moved onto
    another's, both when the whole set is sorted and when the kept order is patched (app/mcp/kept.py: _by_newest)."""
    from memboard.core.ops.notes import list_notes
    from memboard.mcp.context import note_context, note_set

    base = notes_root(tmp_path, monkeypatch)
    updated = {"a": "2026-05-01", "b": "2026-05-01 09:00", "c": "2026-05-01 09:00", "d": "", "e": "2026-05-01 é"}
    updated |= {"f": "2026-05-10", "g": "2026-05-01 09:00:30", "h": "2026-05-01 z", "i": "2026-05-1"}

    def write(key: str, when: str) -> None:
        path = base / f"notes/project/p/{key}.md"
        path.write_text(dated_note(f"project/p/{key}", key, when), encoding="utf-8")

    for key, when in updated.items():
        write(key, when)
    root, parsed = MemoryRoot(base), Parsed(base)

    def order(notes) -> list[str]:
        return [n["title"] for n in note_context(root, notes=notes, limit=100)["related"]]

    expected = ["f", "i", "e", "h", "g", "b", "c", "a", "d"]
    assert order(note_set(list_notes(root))) == order(parsed.note_set(root)) == expected
    write("f", "2026-05-01 09:00")  # onto b's and c's: between them by ID
    write("a", "2026-05-01 é!")  # after its old place, just before e
    expected = ["i", "a", "e", "h", "g", "b", "c", "f", "d"]
    assert order(parsed.note_set(root)) == order(note_set(list_notes(root))) == expected


def test_a_kept_context_answer_never_outlives_a_change_to_any_note(tmp_path, monkeypatch):
    """note_context keeps its answers with the note set they came from (app/mcp/context.py: NoteSet.answers): the
    same arguments on unchanged notes are not worked out again, and after a note is edited (at the same size, its
    mtime set back), added or deleted outside, the answer is the one a fresh read gives."""
    from memboard.mcp import context

    base = notes_root(tmp_path, monkeypatch)
    for n in range(3):
        (base / f"notes/project/p/n{n}.md").write_text(note_text(f"project/p/n{n}", f"Note {n}"), encoding="utf-8")
    root, parsed = MemoryRoot(base), Parsed(base)
    worked: list[int] = []
    real = context._context
    monkeypatch.setattr(context, "_context", lambda *args: worked.append(1) or real(*args))

    def kept_titles() -> list[str]:
        answer = context.note_context(root, project="p", notes=parsed.note_set(root))
        assert answer == context.note_context(root, project="p")  # (notes None: read afresh)
        return [n["title"] for n in answer["related"]]

    assert kept_titles() == ["Note 0", "Note 1", "Note 2"]
    worked.clear()
    assert kept_titles() == ["Note 0", "Note 1", "Note 2"] and len(worked) == 1  # (the fresh read's alone)
    rewrite_keeping_stamp(base / "notes/project/p/n1.md", b"Note 1", b"Note X")
    assert kept_titles() == ["Note 0", "Note X", "Note 2"]
    (base / "notes/project/p/n3.md").write_text(note_text("project/p/n3", "Note 3"), encoding="utf-8")
    assert kept_titles() == ["Note 0", "Note X", "Note 2", "Note 3"]
    (base / "notes/project/p/n0.md").unlink()
    assert kept_titles() == ["Note X", "Note 2", "Note 3"]


def test_answers_carried_over_a_change_are_those_a_fresh_read_gives(tmp_path, monkeypatch):
    """After a few notes changed, came or went, the note set is derived from the last one and keeps the answers the
    change cannot move (app/mcp/context.py: carried): after each round of changes (metadata edited, only the text
    edited, a same-size edit with the mtime set back, notes added, deleted, made unreadable and readable again),
    every answer, carried or worked out again, is the one a fresh read gives; and some were carried."""
    import random

    from memboard.mcp import context

    base = notes_root(tmp_path, monkeypatch)
    rng, stamp = random.Random(2029), [1_700_000_000_000_000_000]
    folder = base / "notes/project/p"

    def text(n: int) -> str:
        scope, status = rng.choice(["global", "project", "global"]), rng.choice(["active", "active", "superseded"])
        fields = {"Scope": scope, "Status": status, "Project": rng.choice(["p", "q", "-"])}
        fields |= {"Session": rng.choice(["s1", "s2", "-", "-"]), "Updated": f"2026-05-{rng.randint(1, 9):02d} 09:00"}
        out = note_text(f"project/p/n{n}", f"Note {n} {rng.randint(10, 99)}")
        for name, value in fields.items():
            out = "\n".join(
                f"| {name} | {value} |" if line.startswith(f"| {name} |") else line for line in out.split("\n")
            )
        return out

    def write(n: int, data: str) -> None:
        path = folder / f"n{n}.md"
        if path.exists() and not path.is_file():
            path.unlink()
        path.write_text(data, encoding="utf-8")
        stamp[0] += 1_000_000
        os.utime(path, ns=(stamp[0], stamp[0]))

    for n in range(40):
        write(n, text(n))
    root, parsed = MemoryRoot(base), Parsed(base)
    asked = [
        {"session_id": "s1", "linked": ["s2"], "text": "see notes/project/p/n3.md"},
        {"project": "p", "limit": 4},
        {},
        {"limit": 3},
        {"session_id": "s2", "limit": 5},
    ]
    worked: list[int] = []
    real = context._context
    monkeypatch.setattr(context, "_context", lambda *args: worked.append(1) or real(*args))
    carried = 0
    for _round in range(60):
        for n in rng.sample(range(44), rng.choice([1, 1, 1, 2, 3])):
            path, how = folder / f"n{n}.md", rng.random()
            if path.is_file() and how < 0.3:  # only its text: the same metadata
                write(n, path.read_text(encoding="utf-8") + f"- More {_round}.\n")
            elif path.is_file() and how < 0.4:
                data = path.read_bytes()
                old = b"Note " if b"Note " in data else b"NOTE "
                rewrite_keeping_stamp(path, old, b"NOTE " if old == b"Note " else b"Note ")  # (the same size, mtime)
            elif path.exists() and how < 0.5:
                path.unlink()
            elif how < 0.55:
                path.unlink(missing_ok=True)
                os.mkfifo(path)  # unreadable (never opened)
            else:
                write(n, text(n))
        notes = parsed.note_set(root)
        worked.clear()
        for arguments in asked:
            assert context.note_context(root, notes=notes, **arguments) == context.note_context(root, **arguments)
        carried += len(asked) - (len(worked) - len(asked))  # (each fresh read works its answer out once)
    assert carried > 20
