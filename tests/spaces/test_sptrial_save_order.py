"""Defect found by using the spaces as a new user would (issue 24 §4 save): a full disk between save's two writes.

save moves the lines it displaces from current.md into a history.md entry. When history.md cannot be written (a
full disk: ENOSPC) after current.md was already replaced, the displaced lines were in neither file. The append
goes first, so a failure between the writes leaves them in both (as archive writes the archive before the source)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from memboard.core.files import execute


@pytest.fixture(autouse=True)
def homes(tmp_path, monkeypatch):
    """A private global home."""
    home = tmp_path / "smhome"
    home.mkdir()
    monkeypatch.setenv("SESSION_MEMORY_HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codexhome"))
    monkeypatch.setenv("CLAUDE_HOME", str(tmp_path / "claudehome"))
    return home


def test_a_failed_history_write_never_loses_the_lines_save_displaced(cli, tmp_path, monkeypatch):
    p = tmp_path / "p"
    (p / ".git").mkdir(parents=True)
    assert cli("space", "init", "--workspace", str(p), use_root=False).code == 0
    memory = p / ".session-memory"
    (memory / "current.md").write_text("# c\n\n## 当前目标\n- the line someone wrote\n", encoding="utf-8")
    new = tmp_path / "new.md"
    new.write_text("# c\n\n## 当前目标\n- another goal\n", encoding="utf-8")
    real = execute.atomic_write

    def full_disk(path: Path, data: bytes, *args, **kwargs):
        if Path(path).name == "history.md":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data, *args, **kwargs)

    monkeypatch.setattr(execute, "atomic_write", full_disk)
    res = cli("space", "save", "--workspace", str(p), "--current", str(new), use_root=False)
    assert res.code == 1
    assert len(res.err.strip().splitlines()) == 1
    kept = (memory / "current.md").read_text(encoding="utf-8") + (memory / "history.md").read_text(encoding="utf-8")
    assert "- the line someone wrote" in kept
