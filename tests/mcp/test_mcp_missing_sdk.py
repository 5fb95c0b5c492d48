"""An install whose MCP SDK cannot load (issue 28 §1): install-mcp refuses to point an agent at the server, writing
nothing, and doctor says so in one finding; both in one line naming the install command, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import server_env

INSTALL = f"{sys.executable} -m pip install 'mcp>=2.3,<3'"


def without(package: str, argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """memboard's main(argv) in a fresh interpreter where package cannot be imported."""
    code = (
        f"import sys; sys.modules[{package!r}] = None; from memboard.cli import main; raise SystemExit(main({argv!r}))"
    )
    env = server_env(tmp_path / "state", HOME=str(tmp_path / "home"))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize("package", ["mcp", "anyio"])
def test_install_mcp_refuses_to_write_a_config_for_a_server_that_cannot_start(tmp_path, package):
    project = tmp_path / "project"
    project.mkdir()
    done = without(package, ["install-mcp", "claude", "--project", str(project)], tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memboard: memboard mcp cannot start: the MCP SDK 2.x does not load")
    assert f"No module named '{package}" in lines[0] and INSTALL in lines[0] and "nothing written" in lines[0]
    assert not (project / ".mcp.json").exists() and done.stdout == ""


def test_doctor_says_the_mcp_server_cannot_start(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    done = without("mcp_types", ["doctor", "--json", "--root", str(root)], tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    findings = [f for f in json.loads(done.stdout) if f["kind"] == "mcp_server_unavailable"]
    assert len(findings) == 1 and "No module named 'mcp_types'" in findings[0]["message"]
    assert findings[0]["message"].endswith(f"install it: {INSTALL}")
    assert done.returncode == 1 and "mcp_server_unavailable" in done.stderr  # a checker's exit: it needs a hand
    healthy = subprocess.run(
        [sys.executable, "-m", "memboard", "doctor", "--json", "--root", str(root)],
        capture_output=True,
        text=True,
        env=server_env(tmp_path / "state"),
        timeout=120,
    )
    assert "mcp_server_unavailable" not in healthy.stdout and healthy.returncode == 0, healthy.stderr


def test_the_install_line_works_in_pipx_and_uv_tool_environments_which_have_no_pip(tmp_path, monkeypatch):
    # `python -m pip` fails in a uv tool's environment and under pipx's uv backend ("No module named pip"):
    # the line names the tool that made the environment, or uv where pip is missing.
    import importlib.util

    from memboard.cli import server

    python = tmp_path / "venvs" / "memboard" / "bin" / "python"
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setattr(sys, "prefix", str(python.parent.parent))
    python.parent.mkdir(parents=True)
    assert server.reinstall_line() == f"{python} -m pip install 'mcp>=2.3,<3'"  # pip is there (this interpreter's)
    (python.parent.parent / "pipx_metadata.json").write_text("{}")
    assert server.reinstall_line() == "pipx runpip memboard install 'mcp>=2.3,<3'"
    (python.parent.parent / "pipx_metadata.json").unlink()
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pip" else real_find_spec(name))
    (python.parent.parent / "uv-receipt.toml").write_text("[tool]\n")
    assert server.reinstall_line() == f"uv pip install --python {python} 'mcp>=2.3,<3'"
    (python.parent.parent / "uv-receipt.toml").unlink()
    monkeypatch.setattr(server.shutil, "which", lambda name: None)
    assert server.reinstall_line() == f"{python} -m ensurepip && {python} -m pip install 'mcp>=2.3,<3'"
