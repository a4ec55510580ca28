"""``watchdeck metrics`` as a process against the sandbox, and a world of four exports in known states.

The sandbox's clock runs at real speed over a frozen world (no simulator), so
the runs stay as the test set them and the server's time is this machine's.
The tests share it, its world put back as seeded before each (tests/live_world.py).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.live_world import LiveWorld, as_seeded, live_world
from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import iso, parse_iso

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 60.0

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def wait_for(condition: Callable[[], object], what: str, timeout: float = WAIT_SECONDS) -> None:
    """Until ``condition()`` is true (checked every 50 ms); fails naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def parse_samples(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


def watchdeck_env(handle: SandboxHandle, key: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHDECK_")}
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):  # the test's own folders (tests/conftest.py)
        env[f"WATCHDECK_{name}_DIR"] = os.environ[f"WATCHDECK_{name}_DIR"]
    env |= {"WATCHDECK_BASE_URL": handle.base_url, "WATCHDECK_API_KEY": key or handle.api_key,
            "WATCHDECK_PROJECT_ID": "1", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    return env


class Exporter:
    """A running ``watchdeck metrics`` on a free loopback port."""

    def __init__(self, env: dict[str, str], args: list[str], log: Path, listen: str = "127.0.0.1:0") -> None:
        self.log = log
        self._err = log.open("w")
        self.process = subprocess.Popen([sys.executable, "-m", "tui", "metrics", "--listen", listen, *args],
                                        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=self._err)
        wait_for(lambda: self.url is not None or self.process.poll() is not None, "the exporter to listen")
        assert self.url is not None, self.stderr()
        self.http = httpx.Client(timeout=10, verify=False)

    @property
    def url(self) -> str | None:
        found = re.search(r"serving http://(\S+):(\d+)/metrics", self.log.read_text())
        return f"http://127.0.0.1:{found.group(2)}/metrics" if found else None  # scraped over loopback

    def stderr(self) -> str:
        return self.log.read_text()

    def text(self) -> str:
        assert self.url is not None
        answer = self.http.get(self.url)
        assert answer.status_code == 200
        return answer.text

    def scrape(self) -> Samples:
        return parse_samples(self.text())

    def scrape_when(self, condition: Callable[[Samples], bool], what: str) -> Samples:
        found: list[Samples] = []

        def check() -> bool:
            found[:] = [self.scrape()]
            return condition(found[0])

        wait_for(check, what)
        return found[0]

    def stop(self) -> int:
        """SIGTERM, and the exit code (it must stop within the wait)."""
        self.http.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=WAIT_SECONDS)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self._err.close()
        return code


@pytest.fixture
def start_exporter(tmp_path: Path) -> Iterator[Callable[..., Exporter]]:
    started: list[Exporter] = []

    def start(handle: SandboxHandle, *args: str, key: str | None = None, cache: bool = False,
              listen: str = "127.0.0.1:0", base_url: str | None = None) -> Exporter:
        """An exporter of ``handle``'s project (at ``base_url`` instead of the sandbox's, when given)."""
        env = watchdeck_env(handle, key) | ({"WATCHDECK_BASE_URL": base_url} if base_url else {})
        exporter = Exporter(env, [*([] if cache else ["--no-cache"]), "--poll", "2", *args],
                            tmp_path / f"exporter-{len(started)}.log", listen)
        started.append(exporter)
        return exporter

    yield start
    for exporter in started:
        exporter.stop()


@pytest.fixture(scope="session")
def world() -> Iterator[LiveWorld]:
    with live_world() as found:
        yield found


@pytest.fixture
def sandbox(world: LiveWorld) -> SandboxHandle:
    """One sandbox for the metrics tests, its world put back as seeded before each (tests/live_world.py)."""
    return as_seeded(world)


@dataclass(frozen=True)
class World:
    """Four exports of project 1 in known states; every other export of the project healthy."""

    healthy: str
    failing: str
    overdue: str
    paused: str
    names: dict[str, str]
    last_completed_end: dict[str, datetime]  # of the healthy, failing and overdue ones


def _exports(handle: SandboxHandle) -> list[dict[str, object]]:
    with handle.state.db.transaction() as c:
        rows = c.execute("SELECT id, paused, interval, end_at, data FROM exports WHERE project_id = 1 "
                         "AND deleted = 0 ORDER BY created_at").fetchall()
    return [{"id": r[0], "paused": bool(r[1]), "interval": r[2], "end_at": r[3], "name": json.loads(r[4])["name"]}
            for r in rows]


def _newest_ends(handle: SandboxHandle, export_id: str) -> list[tuple[str, datetime]]:
    with handle.state.db.transaction() as c:
        rows = c.execute("SELECT id, data_interval_end FROM runs WHERE export_id = ?", (export_id,)).fetchall()
    return sorted(((r[0], parse_iso(r[1])) for r in rows), key=lambda item: item[1], reverse=True)


def make_world(handle: SandboxHandle) -> World:
    """Every run Completed; then one hourly export's two newest runs Failed, another's runs of the last five
    hours gone (no completed data for five hours: overdue for an hourly export, allowed 2h10m)."""
    with handle.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'Completed', latest_error = NULL, active = 0")
        c.execute("DELETE FROM pending_runs")
    exports = _exports(handle)
    hourly = [e for e in exports if not e["paused"] and e["end_at"] is None and e["interval"] == "hour"]
    paused = [e for e in exports if e["paused"]]
    assert len(hourly) >= 3 and paused, "the seed changed: need three hourly exports and a paused one in project 1"
    healthy, failing, overdue = (str(e["id"]) for e in hourly[:3])
    now = handle.clock.now()
    failed = [run_id for run_id, _ in _newest_ends(handle, failing)[:2]]
    with handle.state.db.transaction() as c:
        c.executemany("UPDATE runs SET status = 'Failed', latest_error = 'disk full' WHERE id = ?",
                      [(run_id,) for run_id in failed])
        c.execute("DELETE FROM runs WHERE export_id = ? AND data_interval_end > ?",
                  (overdue, iso(now - timedelta(hours=5))))
    ends = {}
    for export_id in (healthy, failing, overdue):
        runs = _newest_ends(handle, export_id)
        skip = 2 if export_id == failing else 0
        ends[export_id] = runs[skip][1]
    return World(healthy, failing, overdue, str(paused[0]["id"]), {str(e["id"]): str(e["name"]) for e in exports},
                 ends)
