"""Soak: the monitor against a fast, faulty sandbox for N poll cycles; memory, tasks and workers stay flat.

Short by default (30 cycles at the 2 s minimum interval, about a minute and a half); for hours:
``make bench`` with ``WATCHDECK_SOAK_CYCLES=5000`` or ``pytest -s tests/benchmarks/test_soak.py --soak-cycles 5000``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from tui.app import WatchdeckApp
from tui.clock import ScaledClock
from tui.config import Settings
from tui.screens.monitor import MonitorScreen
from tui.widgets.live_table import LiveTable

from .helpers import ROOT, SIZE, report, rss_mb, wait_for

FAULTS = [
    {"kind": "status", "status": 503, "rate": 0.06},
    {"kind": "status", "status": 502, "rate": 0.03},
    {"kind": "retry_after", "seconds": 1, "rate": 0.04},
    {"kind": "latency", "seconds": 0.8, "rate": 0.08},
    {"kind": "malformed", "rate": 0.03},
    {"kind": "truncated", "rate": 0.02},
]
WARMUP_CYCLES = 5
RSS_TOLERANCE = 0.10  # short runs still warm caches up; the hours-long run is the real leak test
COUNT_TOLERANCE = 3  # a poll, a runs load and a toast may be in flight at a sample
SPEED = 600.0
# The sandbox runs in its own process: its database grows with every simulated run and its request log
# with every request, and that must not be counted as the app's memory.
SANDBOX_SCRIPT = r"""
import sys, threading
from tui.sandbox.runner import SandboxOptions, start_sandbox
handle = start_sandbox(SandboxOptions(seed=7, exports=50, speed=float(sys.argv[1]), simulate=True))
print(handle.base_url, handle.api_key, handle.project_id, flush=True)
threading.Event().wait()
"""


def soak_cycles(config: pytest.Config) -> int:
    option = config.getoption("--soak-cycles")
    return int(option if option is not None else os.environ.get("WATCHDECK_SOAK_CYCLES", "30"))


async def test_soak_with_faults(request: pytest.FixtureRequest, user_dirs: Path) -> None:
    cycles = soak_cycles(request.config)
    samples: list[list[object]] = []
    server = subprocess.Popen([sys.executable, "-c", SANDBOX_SCRIPT, str(SPEED)], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    try:
        assert server.stdout is not None
        base_url, api_key, project_id = server.stdout.readline().split()
        for fault in FAULTS:
            response = httpx.post(f"{base_url}/_sandbox/faults", json=fault)
            assert response.status_code == 201, response.text
        now = datetime.fromisoformat(httpx.get(f"{base_url}/_sandbox/clock").json()["now"].replace("Z", "+00:00"))
        settings = Settings(base_url=base_url, api_key=api_key, project_ids=[project_id], poll_seconds=2.0,
                            bell=False)
        app = WatchdeckApp(settings, clock=ScaledClock(now, SPEED))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: isinstance(app.screen, MonitorScreen))
            screen: MonitorScreen = app.screen
            table = screen.query_one("#exports", LiveTable)
            await wait_for(lambda: table.row_count > 0, timeout=60)
            base: dict[str, float] = {}
            worst = {"rss": 0.0, "tasks": 0.0, "workers": 0.0}
            started = time.monotonic()
            cpu0 = time.process_time()
            last_sample = -1
            failures_seen = 0
            while screen.poller.cycles < cycles + WARMUP_CYCLES:
                await asyncio.sleep(0.25)
                failures_seen = max(failures_seen, screen.poller.failures)
                done = screen.poller.cycles
                if done % 7 == 3 and done != last_sample and not screen.poller.in_flight:
                    await pilot.press("ctrl+r")  # an operator's refresh now and then, between timer polls
                step = max(1, cycles // 10)
                if done >= WARMUP_CYCLES and done != last_sample and (done - WARMUP_CYCLES) % step == 0:
                    last_sample = done
                    gc.collect()
                    rss, tasks, workers = rss_mb(), len(asyncio.all_tasks()), len(app.workers)
                    if not base:
                        base = {"rss": rss, "tasks": tasks, "workers": workers}
                    worst = {"rss": max(worst["rss"], rss), "tasks": max(worst["tasks"], tasks),
                             "workers": max(worst["workers"], workers)}
                    samples.append([done - WARMUP_CYCLES, f"{rss:.1f}", f"{100 * (rss / base['rss'] - 1):+.1f} %",
                                    tasks, workers, table.row_count, screen.poller.freshness().value,
                                    f"{time.monotonic() - started:.0f}"])
                if time.monotonic() - started > max(600.0, cycles * 30.0):
                    raise AssertionError(f"only {screen.poller.cycles} polls in {time.monotonic() - started:.0f} s")
            cpu = time.process_time() - cpu0
            wall = time.monotonic() - started
            gc.collect()
            end = {"rss": rss_mb(), "tasks": len(asyncio.all_tasks()), "workers": len(app.workers)}
            assert app.is_running and isinstance(app.screen, MonitorScreen)
            assert table.row_count > 0
            await pilot.pause()
        recorded = httpx.get(f"{base_url}/_sandbox/requests").json()["results"]
    finally:
        server.terminate()
        server.wait(timeout=10)
    faulted = [r for r in recorded if r.get("fault")]
    total_requests = len([r for r in recorded if "/batch_exports/" in r["path"]])

    title = f"7. soak: {cycles} polls every 2 s (after {WARMUP_CYCLES} warm-up), sandbox (own process) at 600x, faults"
    report(title, samples, ["cycle", "RSS MB", "growth", "asyncio tasks", "workers", "rows", "freshness", "s"])
    kinds: dict[str, int] = {}
    for r in faulted:
        kinds[r["fault"]] = kinds.get(r["fault"], 0) + 1
    print(f"  {total_requests} requests, {len(faulted)} faulted {kinds}; worst poller failure streak {failures_seen}; "
          f"app process CPU {100 * cpu / wall:.1f} % of a core over {wall:.0f} s")
    crash_log = user_dirs / "state"
    crashes = list(crash_log.rglob("*.log")) if crash_log.exists() else []
    assert not crashes, f"unexpected exceptions were logged: {crashes}"
    assert faulted, "no fault fired: the soak tested nothing"
    assert end["rss"] <= base["rss"] * (1 + RSS_TOLERANCE), (end, base)
    assert end["tasks"] <= base["tasks"] + COUNT_TOLERANCE, (end, base)
    assert end["workers"] <= base["workers"] + COUNT_TOLERANCE, (end, base)
