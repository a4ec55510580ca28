"""Soaks: the monitor polling every 2 s for a long time; memory, tasks and workers stay flat.

1. Against a fast, faulty sandbox for N poll cycles. Short by default (30 cycles, about a minute and a half); for
   hours: ``WATCHDECK_SOAK_CYCLES=5000`` or ``--soak-cycles 5000``.
2. Over 50 exports whose runs change every 2 s, for ``--soak-minutes`` (``WATCHDECK_SOAK_MINUTES``, default 3; the
   target is for 30): RSS grows less than 1 % over the last half.
3. The same length over 50 exports whose newest runs flip status on a server whose runs list the verdicts read
   (``soak_worlds.RUNS_LIST_CHURN``), toasts drawn: RSS grows less than 1 % over the last half.
4. A simulated week (``WATCHDECK_SOAK_DAYS``, default 7, at ``WATCHDECK_SOAK_SPEED`` times the wall's clock, default
   2880: a day in 30 s): RSS at the end within 5 % of RSS after the first day; open files, threads and asyncio tasks
   no more than then.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from rich.text import Text
from textual.cache import FIFOCache
from textual.geometry import Region
from textual.strip import Strip

from tui.api.models.batch_exports import BatchExportRun
from tui.app import TOAST_RACK_ID, WatchdeckApp
from tui.clock import ScaledClock
from tui.config import Settings
from tui.screens.monitor import MonitorScreen
from tui.widgets.virtual_table import VirtualTable

from . import soak_worlds
from .helpers import ROOT, SIZE, growth_over_last_half, report, rss_mb, wait_for
from .memory_census import Census, census_growth, live_ids, malloc_figures, owners_of_new, take_census

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
            table = screen.query_one("#exports", VirtualTable)
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


# --------------------------------------------------------------------------- runs changing every 2 s
#
# The monitor over 50 exports whose runs change every 2 s; memory levels off. Every 2 s the sandbox (its own
# process, so its database is not counted) starts five new runs and finishes the five it started the cycle before,
# each with a status from a rotating list and, where it failed, an error text never seen before: the newest-ten
# window of every export moves on every 20 s, the alert book opens and ends episodes, and every store keyed by run id
# or error text sees new keys all the time. The monitor polls every 2 s. Passes when RSS over the last half of the
# run grows by less than 1 %. The length is a parameter: 3 minutes by default (``make bench``), where the limit is
# 3 % (the caches still fill that early); the target is for ``--soak-minutes 30`` or ``WATCHDECK_SOAK_MINUTES=30``.
# ``WATCHDECK_SOAK_TRACE=1`` prints what grew over the last half: caches, objects by type, the allocator's figures
# (``memory_census``; cheap enough to keep polling on time); ``WATCHDECK_SOAK_TRACEMALLOC=1`` starts tracemalloc at a
# quarter, takes a snapshot at half-time and one at the end, and prints the lines whose memory grew between them
# (polls slower meanwhile, and RSS counts tracemalloc's own: the figures of such a run are not the soak's).
# ``WATCHDECK_SOAK_TOASTS=0`` draws no toast (Textual's notifications off), to tell the toasts' share of a growth.
# ``WATCHDECK_SOAK_OWNERS=1`` notes the objects of ``OWNER_KINDS`` alive at half-time and, at the end, walks a sample
# of those made since and still alive up to the object that holds them (``memory_census.owners_of_new``).

OWNER_KINDS: tuple[type, ...] = (Text, BatchExportRun, list, tuple, Region, Strip, FIFOCache)
GROWTH_LIMIT = 0.01  # over the last half of a run of 20 minutes or more
SHORT_GROWTH_LIMIT = 0.03  # over the last half of a shorter run
WARMUP_SECONDS = 60.0  # caches fill, the first windows of runs scroll by
SAMPLE_SECONDS = 15.0
CHURN_SCRIPT = r"""
import sys, threading, time, uuid
from datetime import UTC, datetime, timedelta
from tui.clock import ScaledClock
from tui.sandbox.runner import SandboxOptions, start_sandbox
from tui.sandbox.timeutil import iso

handle = start_sandbox(SandboxOptions(seed=7, exports=50, simulate=False, clock=ScaledClock(datetime.now(UTC), 1.0)))
print(handle.base_url, handle.api_key, handle.project_id, flush=True)
db = handle.state.db
with db.read() as c:
    ids = [r["id"] for r in c.execute("SELECT id FROM exports WHERE deleted = 0 AND project_id = 1 "
                                      "ORDER BY created_at").fetchall()]
STATUSES = ["Failed", "Completed", "FailedRetryable", "Completed", "Cancelled", "Failed", "TimedOut", "Completed",
            "Running"]
ERRORS = ["ConnectionResetError: [Errno 104] Connection reset by peer (request {tag})",
          "ClientError: An error occurred (AccessDenied) when calling the PutObject operation (request {tag})",
          "OperationalError: could not connect to server at 10.0.{a}.{b}, port 5432: timeout expired"]
pending = []
n = 0
while True:
    time.sleep(2.0)
    now = handle.clock.now().replace(microsecond=0)
    with db.transaction() as c:
        for run_id, k in pending:
            status = STATUSES[k % len(STATUSES)]
            tag = uuid.uuid4().hex[:16]
            error = None if status in ("Completed", "Running") else ERRORS[k % len(ERRORS)].format(
                tag=tag, a=k % 250, b=(k // 250) % 250)
            finished = None if status == "Running" else iso(now)
            c.execute("UPDATE runs SET status = ?, latest_error = ?, finished_at = ?, last_updated_at = ?, "
                      "records_completed = ? WHERE id = ?", (status, error, finished, iso(now), k % 9000, run_id))
        pending = []
        for i in range(5):
            k = n * 5 + i
            run_id = str(uuid.uuid4())
            c.execute("INSERT INTO runs(id, export_id, status, active, created_at, data_interval_start, "
                      "data_interval_end, last_updated_at, instance_id, plan) VALUES(?,?,?,?,?,?,?,?,?,?)",
                      (run_id, ids[k % len(ids)], "Running", 0, iso(now), iso(now - timedelta(minutes=5)), iso(now),
                       iso(now), str(uuid.uuid4()), "{}"))
            pending.append((run_id, k))
    n += 1
"""


def soak_minutes(config: pytest.Config) -> float:
    option = config.getoption("--soak-minutes")
    return float(option if option is not None else os.environ.get("WATCHDECK_SOAK_MINUTES", "3"))


async def test_soak_runs_changing_every_two_seconds(request: pytest.FixtureRequest, user_dirs: Path) -> None:
    await churning_soak(request, user_dirs, [CHURN_SCRIPT], "8. soak: 50 exports, 5 runs changing every 2 s")


async def test_soak_statuses_flipping_on_the_runs_list(request: pytest.FixtureRequest, user_dirs: Path) -> None:
    await churning_soak(request, user_dirs, [soak_worlds.RUNS_LIST_CHURN, "50"],
                        "9. soak: 50 exports, the newest run of 5 flipping status every 2 s, runs list read")


async def churning_soak(request: pytest.FixtureRequest, user_dirs: Path, script: list[str], title: str) -> None:
    """The monitor (toasts drawn, as in a terminal) polling every 2 s against ``script``'s server for the soak's
    minutes after a warm-up; RSS sampled every 30 s; passes when it grew less than 1 % over the last half."""
    minutes = soak_minutes(request.config)
    limit = GROWTH_LIMIT if minutes >= 20 else SHORT_GROWTH_LIMIT
    trace = os.environ.get("WATCHDECK_SOAK_TRACE") == "1"
    allocations = os.environ.get("WATCHDECK_SOAK_TRACEMALLOC") == "1"
    owners = os.environ.get("WATCHDECK_SOAK_OWNERS") == "1"
    alive_at_half: dict[type, set[int]] = {}
    owned: list[list[object]] = []
    held: list[list[object]] = []
    at_half: tracemalloc.Snapshot | None = None
    server = subprocess.Popen([sys.executable, "-c", *script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    samples: list[list[object]] = []
    rss: list[tuple[float, float]] = []
    traced: list[Census] = []
    try:
        assert server.stdout is not None
        base_url, api_key, project_id = server.stdout.readline().split()
        now = datetime.fromisoformat(httpx.get(f"{base_url}/_sandbox/clock").json()["now"].replace("Z", "+00:00"))
        settings = Settings(base_url=base_url, api_key=api_key, project_ids=[project_id], poll_seconds=2.0,
                            bell=False)
        app = WatchdeckApp(settings, clock=ScaledClock(now, 1.0))
        toasts = os.environ.get("WATCHDECK_SOAK_TOASTS", "1") == "1"  # 0: no toast drawn, to tell their share
        async with app.run_test(size=SIZE, notifications=toasts) as pilot:  # toasts drawn, as in a terminal
            await wait_for(lambda: isinstance(app.screen, MonitorScreen))
            screen: MonitorScreen = app.screen
            table = screen.query_one("#exports", VirtualTable)
            await wait_for(lambda: table.row_count > 0, timeout=60)
            await asyncio.sleep(WARMUP_SECONDS)
            started = time.monotonic()
            total = minutes * 60.0
            cycles0 = screen.poller.cycles
            next_sample = 0.0
            half_traced = False
            while (elapsed := time.monotonic() - started) < total:
                if elapsed >= next_sample:
                    gc.collect()
                    value = rss_mb()
                    rss.append((elapsed, value))
                    book = screen.incident.desk.book
                    heap = malloc_figures()
                    samples.append([f"{elapsed / 60:.1f}", f"{value:.1f}", f"{100 * (value / rss[0][1] - 1):+.2f} %",
                                    screen.poller.cycles - cycles0, book.open_count, len(book.history),
                                    len(screen.board.history), toast_holders(screen), len(asyncio.all_tasks()),
                                    len(app.workers),
                                    sys.getallocatedblocks() // 1000, heap.get("in_use", 0) // 2**20,
                                    heap.get("free", 0) // 2**20])
                    next_sample += SAMPLE_SECONDS
                if allocations and not tracemalloc.is_tracing() and elapsed >= total / 4:
                    tracemalloc.start(8)
                if not half_traced and elapsed >= total / 2:
                    half_traced = True
                    if trace:
                        traced.append(take_census())
                    if owners:
                        alive_at_half = {kind: live_ids(kind) for kind in OWNER_KINDS}
                    if allocations:
                        gc.collect()
                        at_half = tracemalloc.take_snapshot()
                await asyncio.sleep(0.5)
                if screen.poller.cycles - cycles0 == 0 and elapsed > 120:
                    raise AssertionError("no poll in two minutes")
            gc.collect()
            end = rss_mb()
            rss.append((time.monotonic() - started, end))
            if trace:
                traced.append(take_census())
            if owners:
                owned = [row for kind, ids in alive_at_half.items() for row in owners_of_new(kind, ids)]
            if at_half is not None:
                gc.collect()
                held = grown_by_line(at_half, tracemalloc.take_snapshot())
                tracemalloc.stop()
            polls = screen.poller.cycles - cycles0
            assert app.is_running and isinstance(app.screen, MonitorScreen) and table.row_count > 0
            await pilot.pause()
    finally:
        server.terminate()
        server.wait(timeout=10)

    report(f"{title}, polled every 2 s for {minutes:g} min (after {WARMUP_SECONDS:.0f} s warm-up)", samples,
           ["min", "RSS MB", "growth", "polls", "open alerts", "alert history", "runs held", "toast holders",
            "asyncio tasks", "workers", "k blocks", "malloc MB", "free MB"])
    half = min(rss, key=lambda s: abs(s[0] - rss[-1][0] / 2))[1]
    growth = growth_over_last_half(rss)
    print(f"  {polls} polls; RSS {half:.1f} MB at half-time, {end:.1f} MB at the end "
          f"({100 * (end / half - 1):+.2f} %); the trend over the last half: {100 * growth:+.2f} % "
          f"(limit {100 * limit:g} %)")
    if traced:
        report("what grew over the last half", census_growth(*traced), ["kind", "what", "half", "end", "grew"])
    if owned:
        report("rich Text and runs made in the last half and still alive, and who holds a sample of them", owned,
               ["count", "held by (the object first, then each holder up to a named owner)"])
    if held:
        report("grew over the last half (tracemalloc snapshots at half-time and at the end; its own memory makes RSS "
               "jump when it starts), by line", held, ["KiB", "blocks", "where"])
    crash_log = user_dirs / "state"
    crashes = list(crash_log.rglob("*.log")) if crash_log.exists() else []
    assert not crashes, f"unexpected exceptions were logged: {crashes}"
    assert polls >= minutes * 60 / 2 * 0.5, f"only {polls} polls in {minutes:g} min"
    assert growth < limit, f"RSS grew {100 * growth:+.2f} % over the last half (limit {100 * limit:g} %)"


def grown_by_line(first: tracemalloc.Snapshot, last: tracemalloc.Snapshot, top: int = 15) -> list[list[object]]:
    """The lines whose memory held grew most between two snapshots (net of what was freed)."""
    mine = [tracemalloc.Filter(False, tracemalloc.__file__)]
    stats = last.filter_traces(mine).compare_to(first.filter_traces(mine), "lineno")
    return [[f"{stat.size_diff / 1024:+.0f}", f"{stat.count_diff:+d}", str(stat.traceback[0])]
            for stat in stats[:top] if stat.size_diff > 0]


def toast_holders(screen: MonitorScreen) -> int:
    """Holders in the screen's toast rack (each a toast on screen, or one left behind)."""
    return sum(len(rack.children) for rack in screen.query_children(f"#{TOAST_RACK_ID}"))


# --------------------------------------------------------------------------- a simulated week

WEEK_RSS_LIMIT = 0.05  # end against the first simulated day
DAY = timedelta(days=1)


def soak_days() -> float:
    return float(os.environ.get("WATCHDECK_SOAK_DAYS", "7"))


def soak_speed() -> float:
    return float(os.environ.get("WATCHDECK_SOAK_SPEED", "2880"))


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_soak_a_simulated_week(user_dirs: Path) -> None:
    """The monitor through days of server time on the sandbox's fast clock: thousands of runs per export, outages
    starting and ending, exports deleted and added (``soak_worlds.WEEK``); toasts drawn."""
    days, speed = soak_days(), soak_speed()
    server = subprocess.Popen([sys.executable, "-c", soak_worlds.WEEK, str(speed)], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    rows: list[list[object]] = []
    figures: list[dict[str, float]] = []
    try:
        assert server.stdout is not None
        base_url, api_key, project_id = server.stdout.readline().split()
        now = datetime.fromisoformat(httpx.get(f"{base_url}/_sandbox/clock").json()["now"].replace("Z", "+00:00"))
        clock = ScaledClock(now, speed)
        settings = Settings(base_url=base_url, api_key=api_key, project_ids=[project_id], poll_seconds=2.0,
                            bell=False)
        app = WatchdeckApp(settings, clock=clock)
        started = time.monotonic()
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(lambda: isinstance(app.screen, MonitorScreen))
            screen: MonitorScreen = app.screen
            table = screen.query_one("#exports", VirtualTable)
            await wait_for(lambda: table.row_count > 0, timeout=60)
            day = 1
            while day <= days:
                await asyncio.sleep(0.5)
                if clock.now() - now < day * DAY:
                    continue
                gc.collect()
                book = screen.incident.desk.book
                figure = {"day": day, "rss": rss_mb(), "files": open_files(), "threads": threading.active_count(),
                          "tasks": len(asyncio.all_tasks())}
                figures.append(figure)
                rows.append([day, f"{figure['rss']:.1f}", f"{100 * (figure['rss'] / figures[0]['rss'] - 1):+.2f} %",
                             figure["files"], figure["threads"], figure["tasks"], len(app.workers),
                             screen.poller.cycles, table.row_count, book.open_count, len(book.history),
                             len(screen.board.history), toast_holders(screen), f"{time.monotonic() - started:.0f}"])
                day += 1
            assert app.is_running and isinstance(app.screen, MonitorScreen) and table.row_count > 0
            await pilot.pause()
    finally:
        server.terminate()
        server.wait(timeout=10)
    report(f"10. soak: a simulated week, {days:g} days at {speed:g}x, polled every 2 s (real), outages, exports "
           f"deleted and added", rows, ["day", "RSS MB", "vs day 1", "open files", "threads", "asyncio tasks",
                                       "workers", "polls", "rows", "open alerts", "alert history", "runs held",
                                       "toast holders", "s"])
    first, last = figures[0], figures[-1]
    crash_log = user_dirs / "state"
    crashes = list(crash_log.rglob("*.log")) if crash_log.exists() else []
    assert not crashes, f"unexpected exceptions were logged: {crashes}"
    assert last["rss"] <= first["rss"] * (1 + WEEK_RSS_LIMIT), (first, last)
    assert last["files"] <= first["files"], (first, last)
    assert last["threads"] <= first["threads"], (first, last)
    assert last["tasks"] <= first["tasks"] + COUNT_TOLERANCE, (first, last)
