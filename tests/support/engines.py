"""Real sync engines for the tests of tests/engines/: two Syncthing instances on the loopback address, rclone
bisync and unison between two local folders.

memboard's merge of sync-conflict copies is only as good as its knowledge of the names and contents the tools
really leave, and of what they do when two machines write the same file. Unit tests with hand-made names can
only repeat what we believe; these run the tools themselves (the Debian packages `syncthing`, `rclone`,
`unison`; `.ci/run` installs them) and a test skips, saying why, where one is not installed.

Syncthing: each instance has its own home in the test's tmp folder (`syncthing generate`, then a config this
module writes: a listen address and a GUI/REST address on free loopback ports, an API key, global and local
discovery, relays, NAT traversal, STUN, usage reporting, crash reports and upgrades off, the other instance
known by its device ID at tcp://127.0.0.1:PORT, and one shared folder with the file watcher on). Everything
waits on the REST API, polling at short intervals under a deadline whose failure names what was seen: the API
up, the two connected, the folder in sync. The laptop pausing the desktop's device is the two machines gone
offline (their connection drops both ways); resuming it reconnects them. Each instance runs in a process group of its own, killed by the pair's
`stop` (the fixture's finalizer), so no process outlives its test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result
from tests.support import runner

FOLDER_ID = "memory"  # the one shared folder's ID
POLL = 0.05  # seconds between two looks at the REST API
SYNC_DEADLINE = 30.0  # seconds a pair may take to be in sync before the test fails, saying what it saw
START_ATTEMPTS = 3  # starts of a pair on new ports when another process took one of its ports first
TAKEN = "address already in use"  # what Syncthing says when another process bound its port first
# what Syncthing keeps in a folder of its own, never a file the two machines share
OWN_NAMES = (".stfolder", ".stversions", ".stignore")
OWN_PREFIXES = (".syncthing.", "~syncthing~")


def tool(name: str) -> str:
    """The engine's executable on PATH, or a skip that says which package to install."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed: `apt-get install {name}` (as .ci/run does) to run this test")
    return found


def free_ports(n: int) -> list[int]:
    """n distinct TCP ports on 127.0.0.1 that nothing listens on now (all bound at once, so none is given twice).

    Another process may still take one before Syncthing binds it (other tests on the machine do): the pair then
    starts again on new ports (SyncthingPair.start), which is why a failed bind is looked for, not waited out."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) for _ in range(n)]
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in socks]


def wait_for(
    what: str, probe: Callable[[], Any], deadline: float = SYNC_DEADLINE, seen: Callable[[], str] = str
) -> Any:
    """probe()'s first true value, polled every POLL seconds; AssertionError naming `what` and seen() (what was
    last observed) when deadline seconds pass first."""
    end = time.monotonic() + deadline
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not within {deadline:.0f} s; last seen: {seen()}")
        time.sleep(POLL)


def shared_files(folder: Path) -> dict[str, bytes]:
    """Every file of a synced folder by its path (POSIX, relative), without what the engine keeps for itself."""
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if rel.parts[0] in OWN_NAMES or path.name.startswith(OWN_PREFIXES) or not path.is_file():
            continue
        out[rel.as_posix()] = path.read_bytes()
    return out


def differences(a: Path, b: Path) -> list[str]:
    """The shared files' paths that differ between two folders (present in one only, or other bytes)."""
    fa, fb = shared_files(a), shared_files(b)
    return sorted(p for p in fa.keys() | fb.keys() if fa.get(p) != fb.get(p))


@dataclass
class Syncthing:
    """One Syncthing instance: its home, its shared folder, its ports and API key, and its process."""

    name: str
    home: Path
    folder: Path
    device_id: str = ""
    api_port: int = 0
    listen_port: int = 0
    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    proc: subprocess.Popen[bytes] | None = None
    log_from: int = 0  # the log's size when the instance was last started (a pair may start again on new ports)

    @property
    def log(self) -> Path:
        """The instance's log file (its stdout and stderr)."""
        return self.home / "syncthing.log"

    def generate(self, binary: str) -> None:
        """Generate the instance's keys and default config, and read its device ID from that config."""
        self.home.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [binary, "generate", f"--home={self.home}", "--no-default-folder", "--skip-port-probing"],
            check=True,
            capture_output=True,
            timeout=30,
        )
        own = ET.parse(self.home / "config.xml").getroot().find("device")
        assert own is not None, f"{self.home}/config.xml names no device"
        self.device_id = own.attrib["id"]

    def configure(
        self, peer: Syncthing, max_conflicts: int, rescan_s: int, watcher_delay_s: int, dials: bool = True
    ) -> None:
        """Write the instance's config: loopback only, nothing announced or reported, peer known (by its address
        when this instance dials it, else `dynamic`: with discovery off, never dialed), one folder."""
        self.folder.mkdir(parents=True, exist_ok=True)
        config = ET.Element("configuration", version="36")
        folder = ET.SubElement(
            config,
            "folder",
            id=FOLDER_ID,
            label=FOLDER_ID,
            path=str(self.folder),
            type="sendreceive",
            rescanIntervalS=str(rescan_s),
            fsWatcherEnabled="true",
            fsWatcherDelayS=str(watcher_delay_s),
            ignorePerms="false",
            autoNormalize="true",
        )
        for device in (self, peer):
            ET.SubElement(folder, "device", id=device.device_id, introducedBy="")
        ET.SubElement(folder, "maxConflicts").text = str(max_conflicts)
        ET.SubElement(folder, "markerName").text = ".stfolder"
        peer_address = f"tcp://127.0.0.1:{peer.listen_port}" if dials else "dynamic"
        for device, address in ((self, "dynamic"), (peer, peer_address)):
            node = ET.SubElement(config, "device", id=device.device_id, name=device.name, compression="metadata")
            ET.SubElement(node, "address").text = address
            # the dialing side starts with its peer paused: resuming it once both listen dials at once (start)
            ET.SubElement(node, "paused").text = "true" if dials and device is peer else "false"
            ET.SubElement(node, "autoAcceptFolders").text = "false"
        gui = ET.SubElement(config, "gui", enabled="true", tls="false")
        ET.SubElement(gui, "address").text = f"127.0.0.1:{self.api_port}"
        ET.SubElement(gui, "apikey").text = self.api_key
        options = ET.SubElement(config, "options")
        for key, value in (
            ("listenAddress", f"tcp://127.0.0.1:{self.listen_port}"),
            ("globalAnnounceEnabled", "false"),
            ("localAnnounceEnabled", "false"),
            ("relaysEnabled", "false"),
            ("natEnabled", "false"),
            ("stunKeepaliveStartS", "0"),
            ("urAccepted", "-1"),
            ("urSeen", "3"),
            ("crashReportingEnabled", "false"),
            ("autoUpgradeIntervalH", "0"),
            ("startBrowser", "false"),
            ("announceLANAddresses", "false"),
            ("reconnectionIntervalS", "1"),
            ("setLowPriority", "false"),
        ):
            ET.SubElement(options, key).text = value
        ET.ElementTree(config).write(self.home / "config.xml", encoding="utf-8", xml_declaration=False)

    def _this_start(self) -> str:
        """What the instance logged since it was last started."""
        try:
            with self.log.open("rb") as log:
                log.seek(self.log_from)
                return log.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def start(self, binary: str) -> None:
        """Start the instance in a process group of its own (its output in its log), with the folder's marker."""
        (self.folder / ".stfolder").mkdir(exist_ok=True)  # (what Syncthing wants in a folder before it uses it)
        self.log_from = self.log.stat().st_size if self.log.exists() else 0
        env = {**os.environ, "STNORESTART": "1", "STNOUPGRADE": "1", "STNODEFAULTFOLDER": "1"}
        env.pop("STGUIADDRESS", None)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [binary, "serve", f"--home={self.home}", "--no-browser", "--no-restart", "--no-upgrade"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )

    def stop(self) -> None:
        """End the instance's process group: TERM, then KILL what is still there after 5 s."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):  # (anything the group still holds)
            os.killpg(proc.pid, signal.SIGKILL)

    def call(self, method: str, path: str, params: dict[str, str], timeout: float = 10.0) -> Any:
        """The REST API's answer (decoded JSON, None when empty) to METHOD path?params."""
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.api_port}{path}{query}", method=method, headers={"X-API-Key": self.api_key}
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body.strip() else None

    def get(self, path: str, **params: str) -> Any:
        """GET path?params."""
        return self.call("GET", path, params)

    def post(self, path: str, timeout: float = 10.0, **params: str) -> Any:
        """POST path?params."""
        return self.call("POST", path, params, timeout)

    def up(self) -> bool:
        """Whether the REST API answers (the process still running, else AssertionError with its log)."""
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"syncthing {self.name} exited with {self.proc.returncode}:\n{self.tail()}")
        try:
            return bool(self.get("/rest/system/ping"))
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def started(self) -> str | None:
        """How the start went, once it is known: "up" (the REST API answers and the sync listener listens),
        "port taken" (another process bound the API's or the listener's port first: the instance exited, or its
        listener says so), else None (not yet; AssertionError with the log when it exited for another reason)."""
        if TAKEN in self._this_start():  # (said at once; the process exits seconds later)
            return "port taken"
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"syncthing {self.name} exited with {self.proc.returncode}:\n{self.tail()}")
        try:
            # (a short timeout: a process that took the API's port may accept and never answer)
            listeners = self.call("GET", "/rest/system/status", {}, 1.0).get("connectionServiceStatus", {})
        except (OSError, urllib.error.URLError, ValueError):
            return None
        errors = [str(info.get("error") or "") for info in listeners.values()]
        if any(TAKEN in error for error in errors):
            return "port taken"
        return "up" if listeners and not any(errors) else None

    def connected(self, peer: Syncthing) -> bool:
        """Whether this instance holds a connection to peer."""
        info = self.get("/rest/system/connections")["connections"].get(peer.device_id, {})
        return bool(info.get("connected"))

    def status(self) -> dict[str, Any]:
        """The shared folder's status (state, needTotalItems, sequence, …)."""
        status: dict[str, Any] = self.get("/rest/db/status", folder=FOLDER_ID)
        return status

    def completion(self, peer: Syncthing) -> dict[str, Any]:
        """How complete this instance believes peer's copy of the folder is (completion, needItems, …)."""
        done: dict[str, Any] = self.get("/rest/db/completion", folder=FOLDER_ID, device=peer.device_id)
        return done

    def scan(self) -> None:
        """Rescan the shared folder now (the call returns when the scan is done)."""
        self.post("/rest/db/scan", timeout=30.0, folder=FOLDER_ID)

    def tail(self, lines: int = 25) -> str:
        """The last lines of the instance's log."""
        try:
            return "\n".join(self.log.read_text("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


@dataclass
class Timings:
    """What the pair measured, in seconds: the start (both APIs up and connected), and each sync it waited for."""

    start: float = 0.0
    syncs: list[float] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)


class SyncthingPair:
    """Two Syncthing instances, `a` and `b`, sharing one folder each (a.folder, b.folder) over 127.0.0.1.

    Only `a` dials (it knows b's address; b knows a as `dynamic`, which with discovery off it never dials): when
    both dialed, their two connections crossed at start about once in 15 starts under load, and the Hello
    exchange on one of them hung for Syncthing's 20 s timeout before the other was used (a start of 21.6 s
    instead of 1.5 s). `a` starts with b paused and resumes it once both listen: its first dial then finds b's
    listener (a dial that does not waits 5 s for the next). `a` is also the side that pauses and resumes
    (pause, resume), so it dials at once."""

    def __init__(self, base: Path, max_conflicts: int = 10, rescan_s: int = 3600, watcher_delay_s: int = 1) -> None:
        """Generate both instances' keys and configs under base (nothing starts yet)."""
        self.binary = tool("syncthing")
        self.a = Syncthing("laptop", base / "home-a", base / "laptop")
        self.b = Syncthing("desktop", base / "home-b", base / "desktop")
        self.timings = Timings()
        self.options = (max_conflicts, rescan_s, watcher_delay_s)
        for one in (self.a, self.b):
            one.generate(self.binary)
        self.configure()

    def configure(self) -> None:
        """Give both instances new free ports and write their configs."""
        self.a.api_port, self.a.listen_port, self.b.api_port, self.b.listen_port = free_ports(4)
        self.a.configure(self.b, *self.options)
        self.b.configure(self.a, *self.options, dials=False)  # (one side dials: see the class's docstring)

    @property
    def both(self) -> tuple[Syncthing, Syncthing]:
        """(a, b)."""
        return self.a, self.b

    def start(self) -> None:
        """Start both and wait until both APIs answer, both listeners listen and the two are connected; when
        another process took a port first, both start again on new ports (at most START_ATTEMPTS times)."""
        began = time.monotonic()
        for attempt in range(1, START_ATTEMPTS + 1):
            for one in self.both:
                one.start(self.binary)
            outcomes = wait_for("both syncthing instances started", self._started, seen=self._tails)
            if outcomes == ["up", "up"]:
                break
            self.stop()
            if attempt == START_ATTEMPTS:
                raise AssertionError(f"a port was taken by another process at each of {attempt} starts: {outcomes}")
            self.configure()
        self.a.post("/rest/system/resume", device=self.b.device_id)  # (a dial before b listened waits 5 s more)
        self.wait_connected()
        self.timings.start = time.monotonic() - began

    def _started(self) -> list[str] | None:
        """Both instances' start outcomes (Syncthing.started) once both are up or either found a port taken."""
        outcomes = [one.started() or "" for one in self.both]
        return outcomes if "port taken" in outcomes or outcomes == ["up", "up"] else None

    def _tails(self) -> str:
        """Both instances' last log lines, for a failure message."""
        return "\n".join(f"{one.name}:\n{one.tail()}" for one in self.both)

    def stop(self) -> None:
        """Stop both instances (their process groups)."""
        for one in self.both:
            one.stop()

    def _connections(self) -> str:
        """What each side says of its connection, for a failure message."""
        return "; ".join(
            f"{one.name}: {one.get('/rest/system/connections')['connections'].get(other.device_id)}"
            for one, other in ((self.a, self.b), (self.b, self.a))
        )

    def wait_connected(self) -> None:
        """Until each instance holds a connection to the other."""
        wait_for(
            "the two instances connected",
            lambda: self.a.connected(self.b) and self.b.connected(self.a),
            seen=self._connections,
        )

    def pause(self) -> None:
        """Take the two machines offline: the laptop pauses the desktop's device, which drops their connection
        both ways (the desktop's dials are refused meanwhile); returns once neither is connected."""
        self.a.post("/rest/system/pause", device=self.b.device_id)
        wait_for(
            "the two instances disconnected",
            lambda: not self.a.connected(self.b) and not self.b.connected(self.a),
            seen=self._connections,
        )

    def resume(self) -> float:
        """Bring the machines back online and wait until they are in sync; the seconds that took.

        Only one side pauses (pause): a side that dials while the other still pauses it is refused and waits
        longer and longer before it dials again (measured: 5 s, then 25 s), while the side that paused dials
        at once when it resumes."""
        began = time.monotonic()
        self.a.post("/rest/system/resume", device=self.b.device_id)
        self.wait_connected()
        self.sync(scan=False)
        took = time.monotonic() - began
        self.timings.reconnects.append(took)
        return took

    def _state(self) -> str:
        """Both sides' folder state, need, and completion of the other, and the differing files."""
        parts = []
        for one, other in ((self.a, self.b), (self.b, self.a)):
            try:
                st, done = one.status(), one.completion(other)
                parts.append(
                    f"{one.name}: {st.get('state')} need {st.get('needTotalItems')} errors {st.get('pullErrors')}, "
                    f"{other.name} {done.get('completion')}% need {done.get('needItems')}"
                )
            except (OSError, urllib.error.URLError) as exc:
                parts.append(f"{one.name}: {exc}")
        parts.append(f"differing files: {differences(self.a.folder, self.b.folder)}")
        return "; ".join(parts)

    def in_sync(self) -> bool:
        """Both idle, neither needing anything, each sure the other has everything, and the files equal."""
        for one, other in ((self.a, self.b), (self.b, self.a)):
            st = one.status()
            if st.get("state") != "idle" or st.get("needTotalItems") or st.get("pullErrors"):
                return False
            done = one.completion(other)
            if done.get("completion") != 100 or done.get("needItems") or done.get("needDeletes"):
                return False
        return not differences(self.a.folder, self.b.folder)

    def _settled(self) -> bool:
        """In sync now and still a poll later (an index update in flight shows in the second look)."""
        if not self.in_sync():
            return False
        time.sleep(POLL)
        return self.in_sync()

    def sync(self, scan: bool = True, deadline: float = SYNC_DEADLINE) -> float:
        """Rescan both (unless not scan) and wait until the pair is in sync twice in a row; the seconds it took."""
        began = time.monotonic()
        if scan:
            for one in self.both:
                one.scan()
        wait_for("the shared folder in sync", self._settled, deadline, self._state)
        took = time.monotonic() - began
        self.timings.syncs.append(took)
        return took


@contextlib.contextmanager
def syncthing_pair(base: Path, **options: int) -> Iterator[SyncthingPair]:
    """A started pair of Syncthing instances under base, stopped when the block ends (even on failure)."""
    pair = SyncthingPair(base, **options)
    try:
        pair.start()
        yield pair
    finally:
        pair.stop()


def rclone_bisync(path1: Path, path2: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`rclone bisync path1 path2 EXTRA…` with a config and cache of its own under path1's parent (no network)."""
    binary = tool("rclone")
    work = path1.parent / ".rclone"
    work.mkdir(exist_ok=True)
    (work / "rclone.conf").touch()
    cmd = [
        binary,
        "bisync",
        str(path1),
        str(path2),
        "--config",
        str(work / "rclone.conf"),
        "--workdir",
        str(work / "bisync"),
        *extra,
    ]
    env = {**os.environ, "RCLONE_CACHE_DIR": str(work / "cache")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)


def unison(root1: Path, root2: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`unison root1 root2 -batch EXTRA…` with a UNISON home of its own under root1's parent (no network)."""
    binary = tool("unison")
    home = root1.parent / ".unison"
    home.mkdir(exist_ok=True)
    cmd = [binary, str(root1), str(root2), "-batch", "-ui", "text", "-log=false", *extra]
    env = {**os.environ, "UNISON": str(home)}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)


class Clock:
    """The minutes the machines' commands run at: each command takes the next one (shared, thread-safe), so a
    later write always has a later Updated At, as on machines whose clocks agree."""

    def __init__(self, start: str = "2026-06-01 09:30") -> None:
        """A clock whose first minute is start."""
        self._next = datetime.strptime(start, "%Y-%m-%d %H:%M")
        self._lock = threading.Lock()

    def tick(self) -> str:
        """The next minute, as MEMBOARD_NOW takes it."""
        with self._lock:
            now, self._next = self._next, self._next + timedelta(minutes=1)
        return now.strftime("%Y-%m-%d %H:%M")


@dataclass
class Machine:
    """One machine using a memory root: its copy of the root, its own local state and config, its agent name."""

    name: str
    root: Path
    local: Path  # what memboard keeps outside the root on this machine (state dir: locks, revisions, caches)
    agent: str
    clock: Clock

    def env(self, now: str | None = None) -> dict[str, str]:
        """The environment of one command on this machine (its own state, config and clock)."""
        return {
            "MEMBOARD_STATE_DIR": str(self.local),
            "MEMBOARD_CONFIG": str(self.local / "config.toml"),
            "MEMBOARD_NOW": now or self.clock.tick(),
        }

    def setup(self) -> None:
        """The machine's local state folder and its agent name in its config (`config set agent_name`)."""
        self.local.mkdir(parents=True, exist_ok=True)
        res = self("config", "set", "agent_name", self.agent, use_root=False)
        assert res.code == 0, res.err

    def __call__(
        self,
        *args: str,
        input: str | None = None,
        now: str | None = None,
        process: bool = False,
        use_root: bool = True,
    ) -> Result:
        """`memboard ARGS --root <this machine's root>`, in this process (`main(argv)`) unless process."""
        argv = [*args, "--root", str(self.root)] if use_root else list(args)
        data = input.encode("utf-8") if input is not None else None
        ran = (runner.in_a_process if process else runner.run)(argv, data, self.env(now))
        return Result(ran.code, ran.out.decode("utf-8", "replace"), ran.err.decode("utf-8", "replace"))

    def ok(self, *args: str, **kwargs: Any) -> Result:
        """The command's result, which must be exit 0 (else AssertionError with its stderr)."""
        res = self(*args, **kwargs)
        assert res.code == 0, f"{self.name}: memboard {' '.join(args)} exited {res.code}: {res.err.strip()}"
        return res

    def register(self, *args: str, **kwargs: Any) -> str:
        """`register ARGS`: the Session ID it announced."""
        out = self.ok("register", *args, **kwargs).out
        found = re.search(r"Your Memory Session ID is: (\S+)", out)
        assert found, f"{self.name}: register announced no Session ID: {out!r}"
        return found[1]

    def hook(self, conversation: str, **kwargs: Any) -> str:
        """`hook claude` for a new conversation: the Session ID it announced to the agent."""
        out = self.ok("hook", "claude", input=json.dumps({"session_id": conversation}), **kwargs).out
        found = re.search(r"Your Memory Session ID is: ([^\"\s]+)", out)
        assert found, f"{self.name}: the hook announced no Session ID: {out!r}"
        return found[1]

    def rows(self) -> dict[str, dict[str, Any]]:
        """`list --json`: the live rows by Session ID."""
        return {row["id"]: row for row in json.loads(self.ok("list", "--json").out)}

    def doctor(self, *args: str, **kwargs: Any) -> list[dict[str, Any]]:
        """`doctor --json ARGS` (the findings; --fix's report when ARGS has --fix)."""
        res = self("doctor", "--json", *args, **kwargs)
        assert res.code in (0, 1), f"{self.name}: doctor exited {res.code}: {res.err.strip()}"
        found: list[dict[str, Any]] = json.loads(res.out)
        return found
