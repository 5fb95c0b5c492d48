"""The command line's output does not change unnoticed: every command's exit status, stdout and stderr
(`--json`, `--dry-run` patches and plain text) on the demo root, the tricky root, a benchmark root and the
hostile corpus roots, compared byte for byte with the recorded outputs in tests/golden/.

Each command runs in-process on a fresh copy of its root. Paths of the temp folders are replaced by
`<ROOT>` and `<STATE>`. `MEMBOARD_GOLDEN_UPDATE=1 pytest tests/cli/test_cli_golden.py` records the
outputs again (a change of output is then reviewed in the diff of tests/golden/).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from bench.roots import generate
from memboard.cli import main
from memboard.core.formats.clock import now
from memboard.core.ops.demo import build_demo, demo_ids
from tests.corpus import ROOTS, A, B, I
from tests.support.roots import TRICKY_IDLE, TRICKY_OLD, TRICKY_SOURCE, write_tricky

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
PAST = 1_700_000_000  # every file of a template root is this old: reads are settled at once
SNAPSHOT_INPUT = "## Decisions\n\n- Keep the golden outputs.\n\n## Next Actions\n\n- [done] Write tests.\n"
LARGE, HEAD = 16_384, 2_048  # an output longer than LARGE is recorded by its digest and first HEAD bytes


def commands(live: str, follower: str, idle: str, archived: str | None) -> list[list[str]]:
    """Every command, in its JSON, dry-run and plain forms, on a root with these sessions:
    live (referenced by follower), follower (continues from live), an idle row, an archived one."""
    out = [
        ["list"],
        ["list", "--json"],
        ["list", "--status", "active", "--json"],
        ["show", live],
        ["show", live, "--json"],
        ["show", follower, "--json"],
        ["chain", live],
        ["chain", live, "--json"],
        ["chain", follower, "--json"],
        ["doctor"],
        ["doctor", "--json"],
        ["doctor", "--fix", "--dry-run"],
        ["doctor", "--fix", "--json", "--dry-run"],
        ["doctor", "--fix"],
        ["doctor", "--fix", "--json"],
        ["register", "--dry-run"],
        ["register", "--json"],
        ["register"],
        ["register", "--manual", "--topic", "T", "--summary", "S", "--dry-run"],
        ["register", "--manual", "--topic", "T", "--summary", "S", "--json"],
        ["update", live, "--summary", "new", "--dry-run"],
        ["update", live, "--summary", "new", "--json"],
        ["update", idle, "--summary", "promoted", "--keywords", "k2", "--json"],
        ["update", follower, "--snapshot", "<INPUT>", "--dry-run"],
        ["update", follower, "--snapshot", "<INPUT>", "--json"],
        ["continue", live, "--as", idle, "--dry-run"],
        ["continue", live, "--as", idle, "--json"],
        ["continue", live, "--json"],
        ["continue", live],
        ["release", live, "--as", follower, "--dry-run"],
        ["release", live, "--as", follower, "--json"],
        ["release", live, "--as", follower],
        ["organize"],
        ["organize", "--dry-run"],
        ["organize", "--json"],
        ["organize", "--stale-days", "0", "--json"],
        ["archive", follower, "--dry-run"],
        ["archive", follower, "--json"],
        ["archive", idle, "--json"],
        ["archive", live],
        ["archive", live, "--dry-run"],
        ["search", "work", "--json"],
        ["search", "topic"],
    ]
    if archived:
        out += [["show", archived, "--json"], ["show", archived], ["chain", archived, "--json"]]
    return out


def demo(root: Path) -> tuple[str, str, str, str | None]:
    """The demo root at the fixed clock."""
    build_demo(root, now())
    ids = demo_ids(now())
    return ids["table"], ids["contflow"], ids["idle1"], ids["archived1"]


def tricky(root: Path) -> tuple[str, str, str, str | None]:
    """The tricky root of the CLI tests (BOM, CRLF, extra column, malformed row)."""
    write_tricky(root)
    return TRICKY_SOURCE, TRICKY_OLD, TRICKY_IDLE, None


def bench(root: Path) -> tuple[str, str, str, str | None]:
    """A 120-row benchmark root (bench/roots.py)."""
    generate(root, 120)
    rows = [
        line.strip("|").split(" | ")
        for line in (root / "index.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| 2")
    ]
    live, follower = next(
        (cells[0].strip(), cells[6].split(",")[0].strip()) for cells in rows if cells[6].strip() != "-"
    )
    idle = next(cells[0].strip() for cells in rows if cells[5] == "idle")
    return live, follower, idle, None


def corpus(name: str):
    """A root of the hostile corpus."""

    def build(root: Path) -> tuple[str, str, str, str | None]:
        ROOTS[name](root)
        return A, B, I, None

    return build


BUILDERS = {"demo": demo, "tricky": tricky, "bench120": bench, **{f"corpus-{n}": corpus(n) for n in ROOTS}}


def age(folder: Path) -> None:
    """Make every file and folder under folder old (symlinks left alone)."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            os.utime(path, (PAST, PAST))


def tree_lines(root: Path) -> list[str]:
    """The template root's files with a digest of their bytes (symlinks by their target)."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out.append(f"{rel} -> {os.path.relpath(os.readlink(path), root)}")
        elif path.is_file():
            out.append(f"{rel} {hashlib.sha256(path.read_bytes()).hexdigest()[:16]}")
    return out


def run(argv: list[str], root: Path, capsysbinary) -> bytes:
    """One command's exit status, stdout and stderr as one record."""
    code: object
    try:
        code = main([*argv, "--root", str(root)])
    except SystemExit as exc:
        code = exc.code
    captured = capsysbinary.readouterr()
    return (
        f"$ memboard {' '.join(argv)}\nexit {code}\n".encode()
        + shown("stdout", captured.out)
        + shown("stderr", captured.err)
    )


def shown(name: str, data: bytes) -> bytes:
    """One output stream for the record: whole, or (beyond LARGE bytes) its size, digest and first lines."""
    if len(data) <= LARGE:
        return f"--- {name}\n".encode() + data + b"\n"
    digest = hashlib.sha256(data).hexdigest()
    return f"--- {name} ({len(data)} bytes, sha256 {digest})\n".encode() + data[:HEAD] + b"\n[...]\n"


def record(name: str, tmp_path: Path, capsysbinary) -> bytes:
    """Everything the commands print on the named root."""
    template = tmp_path / "template" / "memory"
    template.mkdir(parents=True)
    live, follower, idle, archived = BUILDERS[name](template)
    (template.parent / "input.md").write_text(SNAPSHOT_INPUT, encoding="utf-8")
    age(template.parent)
    parts = [("\n".join(tree_lines(template)) + "\n").encode("utf-8", "surrogateescape")]
    state = os.environ["MEMBOARD_STATE_DIR"]
    for n, argv in enumerate(commands(live, follower, idle, archived)):
        base = tmp_path / f"run{n}"
        shutil.copytree(template.parent, base, symlinks=True)
        argv = [str(base / "input.md") if a == "<INPUT>" else a for a in argv]
        out = run(argv, base / "memory", capsysbinary)
        for path, mark in ((str(base / "memory"), b"<ROOT>"), (str(base), b"<BASE>"), (state, b"<STATE>")):
            out = out.replace(path.encode(), mark)
        parts.append(out)
        shutil.rmtree(base)
    return b"".join(parts)


@pytest.mark.parametrize("name", list(BUILDERS))
def test_command_output_is_unchanged(name, tmp_path, capsysbinary):
    got = record(name, tmp_path, capsysbinary)
    path = GOLDEN / f"{name.replace(':', '-')}.txt"
    if os.environ.get("MEMBOARD_GOLDEN_UPDATE") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(got)
    assert path.exists(), f"no recorded output for {name}: run with MEMBOARD_GOLDEN_UPDATE=1"
    want = path.read_bytes()
    if got != want:
        got_lines, want_lines = got.split(b"\n"), want.split(b"\n")
        first = next(
            (i for i, (a, b) in enumerate(zip(got_lines, want_lines)) if a != b), min(len(got_lines), len(want_lines))
        )
        context = b"\n".join(want_lines[max(0, first - 8) : first + 1]).decode("utf-8", "replace")
        pytest.fail(
            f"{name}: output differs at line {first + 1}:\nwant ...{context}\ngot  {got_lines[first : first + 1]!r}"
        )
