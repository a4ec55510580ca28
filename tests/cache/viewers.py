"""Dashboard processes for the wall-screen tests: the real ``watchdeck`` command, headless.

Each viewer is ``python -m tui`` (what ``watchdeck`` runs) with Textual's headless
driver chosen through ``TEXTUAL_DRIVER``: the whole start path, prefetch decision,
settings resolution and poll loop, with no terminal. Only the request log of the
sandbox is read, so nothing here reaches into a process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
HEADLESS = "textual.drivers.headless_driver:HeadlessDriver"


@dataclass(frozen=True)
class Viewer:
    """One group of dashboards watching with one key."""

    key: str
    processes: int
    #: The group's own shared store (a Redis URL; its folders apart from the SQLite store's), else the measurement's.
    cache_url: str | None = None


def viewer_command(base_url: str, project_id: str, poll: float, cache_url: str | None) -> list[str]:
    command = [sys.executable, "-m", "tui", "--base-url", base_url, "--project", project_id, "--poll", f"{poll:g}"]
    return [*command, "--cache-url", cache_url] if cache_url else command


def viewer_env(key: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WATCHDECK_", "TEXTUAL"))}
    env.update(WATCHDECK_API_KEY=key, TEXTUAL_DRIVER=HEADLESS, PYTHONPATH=str(ROOT),
               **{f"WATCHDECK_{name}_DIR": str(home / name.lower()) for name in ("CONFIG", "DATA", "STATE", "CACHE")})
    return env


@contextmanager
def running_viewers(base_url: str, project_id: str, groups: Sequence[Viewer], home: Path, *, poll: float = 2.0,
                    cache_url: str | None = None) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Start every group's dashboards on its shared store (``home``'s cache dir, or Redis); stop them after."""
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for group in groups:
            url = group.cache_url or cache_url
            group_home = home if group.cache_url is None else home / "redis-viewers"
            for _ in range(group.processes):
                processes.append(subprocess.Popen(
                    viewer_command(base_url, project_id, poll, url), env=viewer_env(group.key, group_home),
                    cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def requests_by_key(base_url: str, since: float, until: float) -> Counter[str]:
    """The sandbox's recorded requests in [since, until), counted by the key id it logs (never the key)."""
    with httpx.Client(base_url=base_url, timeout=10, verify=False) as admin:
        records = admin.get("/_sandbox/requests/").json()["results"]
    return Counter(str(r["key_id"]) for r in records if since <= r["time"] < until)


def wait_for_keys(base_url: str, key_ids: int, since: float, timeout: float = 120.0) -> None:
    """Until the sandbox has heard from ``key_ids`` keys: every group has started (slow on a busy machine)."""
    deadline = time.monotonic() + timeout
    while len(requests_by_key(base_url, since, time.time() + 1)) < key_ids:
        if time.monotonic() > deadline:
            raise AssertionError("the dashboards did not start polling")
        time.sleep(0.5)


def measure(base_url: str, project_id: str, groups: Sequence[Viewer], home: Path, *, seconds: float,
            warm_up: float = 15.0, poll: float = 2.0, cache_url: str | None = None) -> Counter[str]:
    """Requests per key id over ``seconds``, from ``warm_up`` seconds after every group's first request.

    Start-up is left out: each dashboard's first poll, the moment it joins the others.
    """
    launched = time.time()
    with running_viewers(base_url, project_id, groups, home, poll=poll, cache_url=cache_url) as processes:
        wait_for_keys(base_url, len({g.key for g in groups}), launched)
        time.sleep(warm_up)
        started = time.time()
        time.sleep(seconds)
        ended = time.time()
        dead = [p for p in processes if p.poll() is not None]
        if dead:
            errors = (dead[0].stderr.read() if dead[0].stderr else b"").decode(errors="replace")[-2000:]
            raise AssertionError(f"{len(dead)} dashboards stopped early: {errors}")
        return requests_by_key(base_url, started, ended)
