"""The README is the front page and the manual is the docs/ site (issue 28 §7): nothing was lost in the move.

The README as it was before the split (commit 0ca50fe, 2,869 lines) is kept as readme_before_split.md beside this
file. Every heading it had is a heading of a docs page, and every block of it (the text between two blank lines:
a paragraph, a list, a table, a piece of code), with link targets dropped and white space collapsed, is text of
some docs page. The README stays at most 250 lines, starts with its two commands, and its links (to its own
headings, to docs pages and their headings) all resolve; every screenshot is in the site (docs/screenshots/).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
DOCS = PROJECT / "docs"
BEFORE = Path(__file__).with_name("readme_before_split.md")
DOCS_URL = "https://github.com/memboard/memboard/blob/main/docs/"

# The README's section headings at the commit the split started from (level, text), frozen.
HEADINGS = [
    (1, "memboard"),
    (2, "The board"),
    (3, "Notes on the board"),
    (3, "Spaces and Hierarchy"),
    (3, "Scale"),
    (2, "Command line"),
    (3, "memboard's own files"),
    (3, "JSON output"),
    (3, "Where the protocol leaves room, memboard decides"),
    (2, "Search"),
    (2, "Typed notes"),
    (2, "Guarantees"),
    (2, "One root on several machines"),
    (3, "Recognising copies: the names each tool gives"),
    (3, "Rows of index.md"),
    (3, "Merging copies: `doctor --fix`, `.memboard/conflicts/`, `resolve`"),
    (3, "Snapshots, archive files and notes"),
    (3, "git: the merge driver"),
    (3, "Tested with real engines"),
    (3, "On the board"),
    (2, "Hook it into your agent"),
    (2, "Agents through MCP"),
    (2, "Session-memory spaces"),
    (3, "Reading a space: where, list, restore, search, check"),
    (3, "Saving a space: init, save, research-save"),
    (3, "The cold layer: dream and archive"),
    (3, "Legacy paths and routes: migrate and add"),
    (2, "The agent memory hierarchy"),
    (3, "Migrating a prose MEMORY.md: the seed's five steps"),
    (3, "Facts: memory/facts.yaml, one scalar at a time"),
    (2, "Config"),
    (2, "Shell completion"),
    (2, "How it is built"),
    (2, "Benchmarks"),
    (3, "Typed notes"),
    (3, "Saving over a long note"),
    (3, "Spaces and the hierarchy: the targets, on a quiet machine"),
    (3, "The agent memory hierarchy"),
    (3, "Lint calibration: `fact_in_hot`"),
    (3, "Reading a session-memory space"),
    (3, "Saving a session-memory space"),
    (3, "Archiving a session-memory space"),
]

# Blocks of the old README deliberately reworded in docs/: the block's first normalised words -> why. A listed
# block still needs half of its four-word runs in the docs (reworded, not dropped).
REWORDED: dict[str, str] = {
    "- **Every process** runs under `bench/child.py`": "issue 29's targets (organize, list ≤ 12×; update, show; "
    "the hook ≤ 60 ms at 100k) in place of the round-one ones",
    "`doctor --json` — an array of findings": "the kinds name index_table, doctor's finding for rows Markdown reads in "
    "no table (issue 28: doctor --fix converges in one run)",
    "The entry runs this memboard by absolute path (`--root DIR` adds": "a project's file names its --root "
    "relative to the project, a user's keeps the absolute path (issue 28 §5)",
    "- The first search on a root builds it (figures below).": "issue 29: on a large root the first search answers "
    "from the files while the cache is built in a process of its own (a bullet added to the list)",
    "Merging sync-conflict copies (see One root on several machines)": "conflict_cell's path also names the file "
    "holding a same-minute update of an archived session (issue 26)",
    "memboard is a terminal board and command line": "the front page's first paragraph, rewritten with the MCP server and notes",
    "The table is `index.md`, live:": "'every write, below' named the Guarantees section, now a page of its own",
    "**Saving over a long note costs what creating it costs": "'note_size.py, below' is on the Benchmarks page",
    "`install-hook` merges one entry into the tool's JSON file": "JSONC: comments are kept, or refused in one line",
    "The entry runs this memboard by absolute path": "--command: a project's file runs memboard from PATH",
    "``` app/ the package `memboard` core/": "the mcp SDK is a plain dependency now, no extra",
    "**For your agent's rules file**": "the MCP tool profiles: a server sends the lines of the tools it serves",
    "```text memboard keeps the agents' shared working memory": "the instructions, one line per tool group since the MCP tool profiles",
    "- **Content decides, never the name alone.**": "issue 26: note show of a copy, the banner's missing original, longer markers",
    "- The original's rows stay in their order": "issue 26: rows doctor guessed from a snapshot yield at an equal Updated At",
    "- **One step per copy.**": "issue 26: what archived-and-updated at one Updated At still leaves",
    "- `0` when everything was decided:": "issue 26: a row of the driver's block is listed once; a note's Title renames its heading",
    "`tests/engines/` runs the tools themselves": "issue 26: the harness dials from one side and starts again when a port was taken",
    "- Syncthing keeps the newer version": "issue 26: the busy test is a real test, and what Syncthing still leaves meanwhile",
    "Measured on a shared 2-core machine:": "issue 26: measured again with the harness's new start",
    "- `2 sync-conflict copies to merge (d: doctor)`": "issue 26: the banner says an original is missing",
    "A banner under the status line names what is wrong": "issue 26: the banner names an archived session's "
    "same-minute cells and the driver's blocks beside them",
    "**Files other tools left behind are not taken for memory.**": "issue 26: resolve decides git's blocks; rclone "
    "and unison names",
    "The banner reads doctor's findings only while a copy": (
        "issue 26: also while an archived session is live again or a file holds conflict blocks"
    ),
    "``` memboard [--root DIR] open the board": "issue 28 §6: --json on note key, config and the install commands",
    "The memory root is `--root DIR`, else": "issue 28 §6: --root after the command, errors under --json",
    "`memboard completion bash|zsh|fish` prints": "issue 28 §6: Session IDs and topic keys complete from the root",
    "```sh pip install 'memboard[mcp]'": "the MCP SDK is a dependency now (issue 28 §1): the install line is pipx from git",
    "`type`, `scope`, `status` and `choice` are enums": "'Without the extra' is gone: the MCP SDK is a dependency now",
    "Every changing flow opens a preview": "the preview's s (skip to the next group) and z (fold) keys, issue 27",
    "Organize lists every row it leaves": "organize's preview lists its changes first, then what it leaves (issue 27)",
    "`f` searches everything: every index row": "the first search answers from the index rows while its cache is built (issue 27 §6)",
    "| Key | | |---|---| | `/` | filter by text": "issue 27 §4: enter on a line of the result log opens what it wrote",
    "The footer shows the keys of what is in front": "issue 27 §4: the command palette is a text box too (f1, ctrl+q)",
    "After a flow a toast says in one line": "issue 27 §4: the result log's lines open (what a change wrote)",
    "**Speed.** `python bench/mcp.py` starts the server": "issue 29: mem_context and session_context use what the server kept",
    "```sh python bench/run.py # 1k, 10k and 100k rows": "issue 29: a full run holds every target, the 1M, search "
    "and agents sections too",
    "`bench/run.py` generates memory roots (deterministic;": "issue 29: the smoke tests also run the new sections "
    "on small roots",
}

FIRST_COMMANDS = """\
# memboard

```sh
pip install -e . && memboard demo                  # install, open the board on a demo memory
pip install -e '.[test]' && python -m pytest -q    # install, run the whole test suite
```
"""

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^(#{1,6}) +(.*?)(?: +#+)? *$")
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]*)\)")


def pages() -> dict[str, str]:
    """Every docs page's text by its path under docs/."""
    return {p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md"))}


def headings(text: str) -> list[tuple[int, str]]:
    """(level, text) of each ATX heading outside fenced code."""
    out: list[tuple[int, str]] = []
    fence = ""
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and line.strip() == m.group(1):
                fence = ""
            continue
        if m:
            fence = m.group(1)
        elif h := HEADING.match(line):
            out.append((len(h.group(1)), h.group(2)))
    return out


def rendered(heading: str) -> str:
    """A heading's text as rendered: links to their text, code and emphasis marks dropped."""
    return re.sub(r"[`*]", "", LINK.sub(r"\2", heading))


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading (before the -1, -2 of repeats)."""
    return re.sub(r"[^\w\- ]", "", rendered(heading).strip().lower()).replace(" ", "-")


def mkdocs_slugs(text: str) -> set[str]:
    """The anchors MkDocs gives a page's headings (Python-Markdown's toc: ASCII, -, then _1, _2 for repeats)."""
    seen: set[str] = set()
    for _, heading in headings(text):
        ascii_text = unicodedata.normalize("NFKD", rendered(heading)).encode("ascii", "ignore").decode("ascii")
        slug = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())
        candidate, n = slug, 0
        while candidate in seen:
            n += 1
            candidate = f"{slug}_{n}"
        seen.add(candidate)
    return seen


def normal(text: str) -> str:
    """Text as compared: link targets dropped (their text kept), heading marks dropped, white space collapsed."""
    text = LINK.sub(r"\2", text)
    text = re.sub(r"(?m)^ {0,3}#{1,6} +", "", text)
    return " ".join(text.split())


def blocks(text: str) -> list[str]:
    """The text between blank lines, normalised, without the empty ones."""
    return [b for b in (normal(chunk) for chunk in re.split(r"\n[ \t]*\n", text)) if b]


def runs(text: str) -> set[tuple[str, ...]]:
    """The text's runs of four words."""
    words = text.split()
    return {tuple(words[i : i + 4]) for i in range(max(1, len(words) - 3))}


def test_the_frozen_headings_are_the_readme_before_the_split():
    assert headings(BEFORE.read_text(encoding="utf-8")) == HEADINGS


def test_every_heading_of_the_old_readme_is_a_heading_in_the_site():
    found = {rendered(h).strip() for text in pages().values() for _, h in headings(text)}
    assert [h for _, h in HEADINGS if rendered(h).strip() not in found] == []


def test_every_block_of_the_old_readme_is_in_a_docs_page():
    site = " \n ".join(normal(text) for text in pages().values())
    site_runs = runs(site)
    old = blocks(BEFORE.read_text(encoding="utf-8"))
    assert [start for start in REWORDED if not any(b.startswith(start) for b in old)] == []
    missing = []
    for block in old:
        if block in site:
            continue
        reason = next((why for start, why in REWORDED.items() if block.startswith(start)), None)
        if reason is not None and len(runs(block) & site_runs) * 2 >= len(runs(block)):
            continue
        missing.append(block[:160])
    assert missing == [], (
        "text of the README before the split is in no docs page (moved README text belongs in docs/; a block "
        "reworded on purpose goes into REWORDED with why):\n" + "\n".join(missing)
    )


def test_the_readme_is_a_front_page_that_starts_with_its_two_commands():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(FIRST_COMMANDS)
    assert len(readme.splitlines()) <= 250
    assert "| `/` |" in readme and "| `?` `q` `ctrl+p` |" in readme  # the board's key table


def test_the_readme_links_resolve_to_its_headings_docs_pages_and_their_anchors():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    own = {github_slug(h) for _, h in headings(readme)}
    site = pages()
    links = [m.group(3) for m in LINK.finditer(readme) if not m.group(1)]
    assert any(url.startswith(DOCS_URL) for url in links)
    for url in links:
        if url.startswith("#"):
            assert url[1:] in own, url
        elif url.startswith(DOCS_URL):
            page, _, anchor = url[len(DOCS_URL) :].partition("#")
            assert page in site, url
            assert not anchor or anchor in mkdocs_slugs(site[page]), url
        else:
            assert url.startswith("https://"), url


def test_every_screenshot_is_in_the_site():
    shown = set()
    for name, text in pages().items():
        for m in LINK.finditer(text):
            if m.group(1):
                image = (DOCS / name).parent / m.group(3)
                assert image.resolve().is_relative_to(DOCS) and image.is_file(), (name, m.group(3))
                shown.add(image.resolve())
    wanted = {p.resolve() for p in (DOCS / "screenshots").glob("*.svg")}
    assert wanted and wanted - shown == set()
    assert list((PROJECT / "screenshots").glob("*.svg")) == []  # the script writes them into docs/screenshots/


def test_the_code_points_at_docs_pages_that_exist_not_at_the_readme():
    named = []
    for folder in ("app", "bench", "widgets"):
        for path in sorted((PROJECT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"README(?!\.md)| the README", text) or "ops/demo.py" in path.as_posix(), path
            named += [(path.name, page) for page in re.findall(r"docs/([\w/-]+\.md)", text)]
    assert named and [(name, page) for name, page in named if not (DOCS / page).is_file()] == []
