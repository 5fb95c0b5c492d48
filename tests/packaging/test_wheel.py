"""The wheel people install (issue 28 §1): built by setuptools' own build hook from the project's files, installed
into a fresh environment, it runs the command line and an MCP server that answers `initialize` and `tools/list`, and
it requires the MCP SDK (a plain dependency: no extra to forget)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from memboard import __version__
from tests.packaging.test_package import PROJECT, built


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the bin folder of a fresh environment where it is installed; the dependencies come from the
    interpreter's own site-packages, so no index is asked)."""
    wheel = built(tmp_path_factory, "wheel")
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--no-deps", "--no-index"]
    done = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return wheel, bin_dir


def test_the_wheel_requires_the_mcp_sdk_and_ships_the_protocol(installed):
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: mcp")]
    assert requires and all("extra ==" not in line for line in requires), requires
    assert "memboard/mcp/protocol.md" in names and "memboard/mcp/wire.py" in names


def test_the_installed_wheel_runs_the_commands_and_the_mcp_server(installed, tmp_path):
    _, bin_dir = installed
    env = {k: v for k, v in os.environ.items() if k not in ("MEMBOARD_ROOT", "PYTHONPATH")}
    env.update(MEMBOARD_STATE_DIR=str(tmp_path / "state"), MEMBOARD_CONFIG=str(tmp_path / "config.toml"))
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import memboard; print(memboard.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert where.stdout.startswith(str(bin_dir.parent)), where  # the wheel's copy, not the checkout's
    version = subprocess.run([str(bin_dir / "memboard"), "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and __version__ in version.stdout
    root = tmp_path / "memory"
    root.mkdir()
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    served = subprocess.run(
        [str(bin_dir / "memboard"), "mcp", "--root", str(root)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    answers = [json.loads(line) for line in served.stdout.splitlines()]
    assert served.returncode == 0 and [a["id"] for a in answers] == [0, 1], served.stderr
    assert {t["name"] for t in answers[1]["result"]["tools"]} >= {"session_register", "mem_save"}


def test_releasing_is_a_tag_that_builds_tests_the_wheel_and_publishes_with_trusted_publishing():
    from ruamel.yaml import YAML  # lazy: the workflow is read here alone

    changelog = (PROJECT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {__version__}\n" in changelog and "**Versioning.**" in changelog
    workflow = YAML(typ="safe").load((PROJECT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    assert workflow["on"]["push"]["tags"] == ["v*.*.*"]
    jobs = workflow["jobs"]
    assert jobs["test"]["needs"] == "build" and jobs["publish"]["needs"] == "test"
    steps = " ".join(str(step) for step in jobs["test"]["steps"])
    assert ".ci/run --wheel" in steps  # what it runs: tests/packaging/test_release_ci.py
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish") for step in jobs["publish"]["steps"])
