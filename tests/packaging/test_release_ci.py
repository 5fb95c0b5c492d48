"""The release tests what CI tests: its test job runs .ci/run against the wheel it publishes, so the real-client,
real-engine, clock-skew and real-terminal tests run there instead of skipping (issue 28, Done when).

A release job that ran pytest by itself lacked the npm clients and the Debian packages .ci/run installs, and every
test that needs them skipped on the tag that publishes. These tests read the workflow and .ci/run as text: they
fail when the workflow stops calling .ci/run, or when .ci/run stops installing what those tests need.
"""

from __future__ import annotations

import re

from tests.mcp import test_real_clients
from tests.packaging.test_package import PROJECT

RUN = PROJECT / ".ci" / "run"
DEBIAN = ["faketime", "nodejs", "npm"]  # and by their loops the engines (syncthing rclone unison), tmux zsh fish


def release_test_job() -> dict:
    """The release workflow's test job."""
    from ruamel.yaml import YAML  # lazy: the workflow is read here alone

    workflow = YAML(typ="safe").load((PROJECT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    return workflow["jobs"]["test"]


def test_the_release_test_job_is_the_ci_run_against_the_built_wheel():
    runs = [step["run"] for step in release_test_job()["steps"] if "run" in step]
    ci = [run for run in runs if run.strip().startswith(".ci/run ")]
    assert len(ci) == 1, runs
    assert re.search(r"--wheel \"\$\(ls dist/\*\.whl\)\"", ci[0])
    # No test run of its own beside it, which would again lack what .ci/run installs.
    assert not [run for run in runs if "pytest" in run and run not in ci]
    uses = [step.get("uses", "") for step in release_test_job()["steps"]]
    assert any(u.startswith("actions/download-artifact") for u in uses)


def test_ci_run_installs_what_the_real_client_and_engine_tests_need():
    text = RUN.read_text(encoding="utf-8")
    npm = re.search(r"npm install(?:[^\n\\]|\\\n)*", text)  # with its continued lines
    assert npm is not None
    wanted = re.findall(r"@modelcontextprotocol/\S+|ajv@\d+", test_real_clients.INSTALL)
    assert len(wanted) == 3 and all(package in npm.group(0) for package in wanted), (wanted, npm.group(0))
    installs = " ".join(re.findall(r"apt-get install -y -qq ([^\n]+)", text))
    assert all(package in installs.split() for package in DEBIAN), installs
    assert "for engine in syncthing rclone unison; do" in text and '"${engines[@]}"' in installs
    assert "for tool in tmux zsh fish; do" in text and '"${shells[@]}"' in installs
    # On a runner that is not root (GitHub's) apt-get goes through sudo.
    assert all(
        line.lstrip().startswith(("as_root", "timed")) for line in text.splitlines() if "apt-get install" in line
    )
    assert re.search(r"sudo \"\$@\"", text)


def test_ci_run_with_a_wheel_tests_the_installed_wheel_and_passes_the_rest_to_pytest():
    text = RUN.read_text(encoding="utf-8")
    assert 'pip install --quiet "$wheel[test]"' in text
    assert '"site-packages" not in memboard.__file__' in text
    assert re.search(r"python -m pytest -q \"\$@\"\n", text)
