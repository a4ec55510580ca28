"""Monitor benchmarks : figures and ratios to baselines of the same run.

Each test prints a table; asserts are functional only (200 rows shown, 5,000 lines kept...).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import sniffio
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

from tui.api.client import ApiClient
from tui.api.models.batch_exports import BatchExport, LogEntry
from tui.sandbox.runner import SandboxHandle
from tui.screens.logs import MAX_LINES, LogsScreen
from tui.screens.monitor import MonitorScreen
from tui.state.exports import ExportsSnapshot, WatchedExport, latest_run
from tui.widgets.virtual_table import VirtualTable

from .helpers import (
    EXPORTS,
    ROOT,
    SIZE,
    FrameCounter,
    make_app,
    median,
    p95,
    peak_rss_mb,
    report,
    rss_mb,
    wait_for,
)

# --------------------------------------------------------------------------- helpers


async def started_monitor(app: Any) -> tuple[MonitorScreen, VirtualTable]:
    """The monitor with its first poll shown, every worker done and the next poll disarmed."""
    await wait_for(lambda: isinstance(app.screen, MonitorScreen))
    screen: MonitorScreen = app.screen
    table = screen.query_one("#exports", VirtualTable)
    await wait_for(lambda: table.row_count == EXPORTS)
    await wait_for(lambda: not screen.poller.in_flight and all(w.is_finished for w in app.workers))
    screen.work.disarm()
    return screen, table


def with_changes(prev: ExportsSnapshot, indexes: Sequence[int]) -> ExportsSnapshot:
    """A new snapshot: copies of ``prev``'s exports; the latest run of each export at ``indexes`` flips
    between Running and Starting (a status change with no alert and no lag change, as most polls are)."""
    exports = list(prev.exports)
    for i in indexes:
        watched = exports[i]
        runs = list(watched.export.latest_runs)
        latest = latest_run(watched.export)
        if latest is None:
            continue
        status = "Starting" if latest.status == "Running" else "Running"
        runs[runs.index(latest)] = latest.model_copy(update={"status": status})
        exports[i] = WatchedExport(watched.project_id, watched.export.model_copy(update={"latest_runs": runs}))
    return ExportsSnapshot(exports=exports, item_errors=list(prev.item_errors), notes=list(prev.notes))


class CycleStats:
    def __init__(self) -> None:
        self.ui: list[float] = []
        self.proc: list[float] = []
        self.wall: list[float] = []
        self.painted = 0

    def row(self, name: str, baseline: CycleStats | None = None) -> list[object]:
        ratio = f"{median(baseline.ui) / median(self.ui):.1f}x better" if baseline else "-"
        return [name, f"{median(self.ui) * 1e3:.2f}", f"{p95(self.ui) * 1e3:.2f}", f"{median(self.proc) * 1e3:.2f}",
                f"{median(self.wall) * 1e3:.1f}", f"{self.painted}/{len(self.ui)}", ratio]


async def run_cycles(frames: FrameCounter, step: Callable[[int], None], warmup: int = 5,
                     cycles: int = 30) -> CycleStats:
    """``step(i)`` applies an update; each cycle is measured until the frame that shows it is rendered."""
    stats = CycleStats()
    for i in range(warmup + cycles):
        gc.collect()
        since = frames.count
        t0, p0, w0 = time.thread_time(), time.process_time(), time.perf_counter()
        step(i)
        painted = await frames.wait_next(since)
        t1, p1, w1 = time.thread_time(), time.process_time(), time.perf_counter()
        if i >= warmup:
            stats.ui.append(t1 - t0)
            stats.proc.append(p1 - p0)
            stats.wall.append(w1 - w0)
            stats.painted += painted
    return stats


class StockTable(App[None]):
    """The baseline: a stock DataTable of 200 rows x 13 columns, updated with ``update_cell``."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(id="t")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for c in range(13):
            table.add_column(f"col{c}", key=f"c{c}", width=7)
        for r in range(200):
            table.add_row(*(Text(f"r{r}c{c}") for c in range(13)), key=f"r{r}")


# 1. first paint: tests/benchmarks/test_startup_bench.py (every start path).


# --------------------------------------------------------------------------- 2. poll cost on the UI thread


async def test_poll_repaint_cost_vs_stock_datatable(sandbox200: SandboxHandle) -> None:
    """UI-thread CPU of a poll (apply + repaint) with 10 / 200 of 200 rows changed, vs stock DataTable."""
    results: dict[str, CycleStats] = {}
    apply_ms: dict[str, list[float]] = {}

    app = make_app(sandbox200.base_url, sandbox200.api_key)
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await started_monitor(app)
        frames = FrameCounter(app)
        visible = max(1, min(table.row_count, table.size.height - 1))
        ten = [round(k * (visible - 1) / 9) for k in range(10)]  # ten visible rows: the costly case
        every = list(range(EXPORTS))
        render_seconds: list[float] = []
        render_exports = screen.render_exports

        def timed_render_exports(now: Any) -> None:
            started = time.perf_counter()
            render_exports(now)
            render_seconds.append(time.perf_counter() - started)

        screen.render_exports = timed_render_exports  # type: ignore[method-assign]

        def poll(indexes: list[int], label: str) -> Callable[[int], None]:
            def step(_: int) -> None:
                assert screen.board.snapshot is not None
                screen.apply_snapshot(with_changes(screen.board.snapshot, indexes))
                apply_ms.setdefault(label, []).append(render_seconds[-1])
            return step

        results["monitor 10 changed"] = await run_cycles(frames, poll(ten, "10"))
        app.clear_notifications()
        results["monitor 200 changed"] = await run_cycles(frames, poll(every, "200"), cycles=15)
        # Gross functional check: the table still shows every export and a changed status.
        assert table.row_count == EXPORTS
        await pilot.pause()

    stock = StockTable()
    async with stock.run_test(size=SIZE):
        dt = stock.query_one(DataTable)
        await wait_for(lambda: dt.row_count == 200)
        frames = FrameCounter(stock)

        def cells(count: int) -> Callable[[int], None]:
            def step(i: int) -> None:
                with stock.batch_update():
                    for r in range(count) if count == 200 else [round(k * 37 / 9) for k in range(10)]:
                        dt.update_cell(f"r{r}", "c5", Text(f"v{i}", style="green" if i % 2 else "red"))
            return step

        results["stock DataTable 200x13, 10 update_cell"] = await run_cycles(frames, cells(10))
        results["stock DataTable 200x13, 200 update_cell"] = await run_cycles(frames, cells(200), cycles=15)

    stock10 = results["stock DataTable 200x13, 10 update_cell"]
    stock200 = results["stock DataTable 200x13, 200 update_cell"]
    rows = [
        results["stock DataTable 200x13, 10 update_cell"].row("stock DataTable 200x13, 10 update_cell (baseline)"),
        results["monitor 10 changed"].row("monitor apply_snapshot, 10 of 200 changed", stock10),
        results["stock DataTable 200x13, 200 update_cell"].row("stock DataTable 200x13, 200 update_cell (baseline)"),
        results["monitor 200 changed"].row("monitor apply_snapshot, 200 of 200 changed", stock200),
    ]
    report("2. one poll on the UI thread: apply + repaint (thread CPU; 30 cycles (15 for 200) after 5 warm-up)", rows,
           ["case", "UI ms med", "UI ms p95", "proc ms", "wall ms", "frames", "vs stock"])
    print(f"  render_exports alone, median: 10 changed {median(apply_ms['10']) * 1e3:.2f} ms, "
          f"200 changed {median(apply_ms['200']) * 1e3:.2f} ms; target <= 16 ms and ~3x better than stock")


# --------------------------------------------------------------------------- 3. client CPU per request


async def test_client_cpu_per_request(sandbox200: SandboxHandle) -> None:
    """ApiClient.batch_exports.get vs bare httpx GET + model_validate; client thread CPU only (the server is
    another thread)."""
    client = ApiClient(sandbox200.base_url, sandbox200.api_key, "1")
    bare = httpx.AsyncClient(base_url=sandbox200.base_url, headers={
        "Authorization": f"Bearer {sandbox200.api_key}", "Accept": "application/json"})
    try:
        page = await client.batch_exports.list()
        ids = [e.id for e in page.results][:100]
        assert len(ids) == 100
        base = "/api/environments/1/batch_exports/"
        sizes: list[int] = []

        async def ours() -> None:
            for export_id in ids:
                await client.batch_exports.get(export_id)

        async def theirs() -> None:
            for export_id in ids:
                response = await bare.get(f"{base}{export_id}/")
                response.raise_for_status()
                BatchExport.model_validate(response.json())
                if len(sizes) < 100:
                    sizes.append(len(response.content))

        async def ours_c8() -> None:
            await asyncio.gather(*(client.batch_exports.get(i) for i in ids))

        async def theirs_c8() -> None:
            gate = asyncio.Semaphore(8)

            async def one(export_id: str) -> None:
                async with gate:
                    response = await bare.get(f"{base}{export_id}/")
                BatchExport.model_validate(response.json())
            await asyncio.gather(*(one(i) for i in ids))

        async def listing() -> None:
            for _ in range(5):
                await client.batch_exports.list()

        timings: dict[str, list[float]] = {}
        for _name, action in [("ours", ours), ("theirs", theirs), ("ours_c8", ours_c8), ("theirs_c8", theirs_c8),
                             ("list", listing)]:
            await action()  # warm-up: connections, caches
        for _ in range(7):
            for name, action in [("theirs", theirs), ("ours", ours), ("theirs_c8", theirs_c8), ("ours_c8", ours_c8),
                                 ("list", listing)]:
                gc.collect()
                t0 = time.thread_time()
                await action()
                timings.setdefault(name, []).append(time.thread_time() - t0)
    finally:
        await client.aclose()
        await bare.aclose()
    per = {k: median(v) / (10 if k == "list" else len(ids)) * 1e3 for k, v in timings.items()}
    report("3. client CPU per request (main-thread CPU, 100 GETs x 7 reps, interleaved; server in another thread)", [
        ["bare httpx GET + BatchExport.model_validate, sequential", f"{per['theirs']:.3f}", "1.00x"],
        ["ApiClient.batch_exports.get, sequential", f"{per['ours']:.3f}", f"{per['ours'] / per['theirs']:.2f}x"],
        ["bare, 8 in flight", f"{per['theirs_c8']:.3f}", "1.00x"],
        ["ApiClient, 8 in flight (its cap)", f"{per['ours_c8']:.3f}", f"{per['ours_c8'] / per['theirs_c8']:.2f}x"],
        [f"ApiClient.batch_exports.list: per page of 100 exports ({EXPORTS} = 2 pages)", f"{per['list']:.3f}",
         f"= {per['list'] / 100:.3f} ms per export"],
    ], ["what", "CPU ms/request", "ratio (target <= 1.2x)"])
    print(f"  body size of one export: {median(sizes) / 1024:.1f} KB; sniffio importable: "
          f"{sniffio.__version__} (httpcore's per-request import finds it)")


# --------------------------------------------------------------------------- 4. idle CPU
#
# Nothing changes on the server (a frozen world on a clock that runs with the wall's): a poll should cost little more
# than its requests. Three processes side by side, each measured over the same window: the monitor at --poll 10, the
# same requests sent by a bare client (the baseline a poll cannot beat), and a bare Textual app. At 50 and at 200
# exports: under 1 % of a core at 50, and no worse than linear from 50 to 200. ``WATCHDECK_IDLE_SECONDS`` sets the
# window (default 60); ``WATCHDECK_IDLE_PROFILE=1`` prints where the monitor's CPU went (cProfile, top 25).

SANDBOX_SCRIPT = r"""
import sys, threading
from datetime import UTC, datetime
from tui.clock import ScaledClock
from tui.sandbox.runner import SandboxOptions, start_sandbox
frozen = len(sys.argv) > 2 and sys.argv[2] == "frozen"
options = SandboxOptions(seed=7, exports=int(sys.argv[1]), speed=1.0, simulate=not frozen)
if frozen:
    options.clock = ScaledClock(datetime.now(UTC), 1.0)
handle = start_sandbox(options)
print(handle.base_url, handle.api_key, flush=True)
threading.Event().wait()
"""

IDLE_SCRIPT = r"""
import asyncio, cProfile, io, json, os, pstats, resource, sys, time
WARM, MEASURE = float(sys.argv[1]), float(sys.argv[2])
kind = sys.argv[3]
POLL = 10.0

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

if kind == "bare":
    import httpx, pydantic, humanize
    from textual.app import App
    from textual.widgets import DataTable, Footer, Header
    class Bare(App):
        def compose(self):
            yield Header()
            yield DataTable()
            yield Footer()
        def on_mount(self):
            t = self.query_one(DataTable)
            t.add_columns(*(f"c{c}" for c in range(6)))
            t.add_rows([[f"r{r}c{c}" for c in range(6)] for r in range(50)])
    app = Bare()
elif kind == "requests":
    from tui.api.client import ApiClient
    app = None
else:
    from tui.app import WatchdeckApp
    from tui.config import Settings
    app = WatchdeckApp(Settings(base_url=sys.argv[4], api_key=sys.argv[5], project_ids=["1"], bell=False,
                                poll_seconds=POLL, cache=False))

async def requests_only():
    async with ApiClient(sys.argv[4], sys.argv[5], "1") as client:
        await client.batch_exports.list()
        await asyncio.sleep(WARM)
        c0, w0 = cpu(), time.monotonic()
        polls = 0
        while time.monotonic() - w0 < MEASURE:
            await client.batch_exports.list()
            polls += 1
            await asyncio.sleep(POLL)
        print(json.dumps({"cpu": cpu() - c0, "wall": time.monotonic() - w0, "cycles": polls}), flush=True)

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        extra = {}
        if kind != "bare":
            deadline = time.monotonic() + 60
            while getattr(app.screen, "poller", None) is None or app.screen.poller.last_success is None:
                assert time.monotonic() < deadline, "no poll succeeded"
                await asyncio.sleep(0.05)
        await asyncio.sleep(WARM)
        profile = cProfile.Profile() if kind != "bare" and os.environ.get("WATCHDECK_IDLE_PROFILE") == "1" else None
        c0, w0 = cpu(), time.monotonic()
        cycles0 = getattr(getattr(app.screen, "poller", None), "cycles", 0)
        if profile is not None:
            profile.enable()
        await asyncio.sleep(MEASURE)
        if profile is not None:
            profile.disable()
        c1, w1 = cpu(), time.monotonic()
        if kind != "bare":
            extra = {"cycles": app.screen.poller.cycles - cycles0, "rows": app.screen.query_one("#exports").row_count,
                     "interval": app.screen.poller.interval, "failures": app.screen.poller.failures}
        if profile is not None:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
            pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(40)
            print(out.getvalue(), file=sys.stderr, flush=True)
        print(json.dumps({"cpu": c1 - c0, "wall": w1 - w0, **extra}), flush=True)

asyncio.run(requests_only() if kind == "requests" else main())
"""


def idle_figures(exports: int, tmp_path: Any, warm: float, measure: float) -> dict[str, dict[str, Any]]:
    """The monitor, the bare client and the bare app measured side by side against a frozen sandbox."""
    env = {**os.environ, **{f"WATCHDECK_{n}_DIR": str(tmp_path / n.lower()) for n in ("DATA", "STATE", "CONFIG")}}
    server = subprocess.Popen([sys.executable, "-c", SANDBOX_SCRIPT, str(exports), "frozen"], stdout=subprocess.PIPE,
                              text=True, cwd=ROOT, env=env)
    try:
        assert server.stdout is not None
        base_url, api_key = server.stdout.readline().split()
        cmd = [sys.executable, "-c", IDLE_SCRIPT, str(warm), str(measure)]
        started = {kind: subprocess.Popen([*cmd, kind, base_url, api_key], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
                   for kind in ("watchdeck", "requests", "bare")}
        figures: dict[str, dict[str, Any]] = {}
        for kind, process in started.items():
            out, err = process.communicate(timeout=measure + warm + 180)
            assert process.returncode == 0, err
            figures[kind] = json.loads(out.strip().splitlines()[-1])
            if kind == "watchdeck" and os.environ.get("WATCHDECK_IDLE_PROFILE") == "1":
                print(f"\n== where the monitor's idle CPU went, {exports} exports\n{err}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return figures


def test_idle_cpu_50_and_200_exports(tmp_path: Any) -> None:
    """Process CPU of each process alone (the sandbox in its own) at --poll 10, nothing changing on the server."""
    warm, measure = 12.0, float(os.environ.get("WATCHDECK_IDLE_SECONDS", "60"))
    rows: list[list[object]] = []
    share: dict[int, float] = {}
    for exports in (50, 200):
        figures = idle_figures(exports, tmp_path / str(exports), warm, measure)
        ours, alone, bare = figures["watchdeck"], figures["requests"], figures["bare"]
        assert ours["rows"] == exports and ours["cycles"] >= 2 and ours["failures"] == 0, ours
        pct = {kind: 100 * f["cpu"] / f["wall"] for kind, f in figures.items()}
        share[exports] = pct["watchdeck"]
        per_poll = ours["cpu"] * 1e3 / max(ours["cycles"], 1)
        per_request_poll = alone["cpu"] * 1e3 / max(alone["cycles"], 1)
        rows += [
            [exports, "watchdeck monitor, --poll 10", f"{pct['watchdeck']:.2f} %", f"{ours['cpu'] * 1e3:.0f}",
             f"{ours['cycles']} polls, {per_poll:.0f} ms CPU/poll incl. its timers"],
            [exports, "the same list requests, bare client", f"{pct['requests']:.2f} %", f"{alone['cpu'] * 1e3:.0f}",
             f"{alone['cycles']} polls, {per_request_poll:.0f} ms CPU/poll; monitor / client "
             f"{ours['cpu'] / max(alone['cpu'], 1e-3):.1f}x"],
            [exports, "bare app: Header/Footer/DataTable 50x6", f"{pct['bare']:.2f} %", f"{bare['cpu'] * 1e3:.0f}",
             "-"],
        ]
    report(f"4. idle CPU over {measure:.0f} s after {warm:.0f} s warm-up, nothing changing on the server (headless; "
           f"each process measured alone, side by side)", rows,
           ["exports", "what", "of one core (target < 1 % at 50)", "CPU ms", "notes"])
    print(f"  200 exports / 50 exports: {share[200] / max(share[50], 1e-3):.2f}x the CPU for 4x the exports "
          f"(linear or better: at most 4x)")


# --------------------------------------------------------------------------- 5. memory over 5,000 polls


async def test_rss_over_5000_polls(sandbox200: SandboxHandle) -> None:
    """Feed 5,000 snapshots (10 rows changing each, rotating over all rows) and watch RSS, tasks, workers.

    A poll of 200 exports costs ~40 ms of CPU (see benchmark 2), so 5,000 of them would take minutes:
    the snapshots carry the first WATCHDECK_RSS_EXPORTS (default 30) exports; a leak per poll shows the same.
    """
    watched_count = int(os.environ.get("WATCHDECK_RSS_EXPORTS", "30"))
    total = int(os.environ.get("WATCHDECK_RSS_CYCLES", "5000"))
    app = make_app(sandbox200.base_url, sandbox200.api_key)
    checkpoints = {0, total // 5, total // 2, total}
    rows: list[list[object]] = []
    async with app.run_test(size=SIZE):
        screen, table = await started_monitor(app)
        assert screen.board.snapshot is not None
        first = screen.board.snapshot
        screen.apply_snapshot(ExportsSnapshot(exports=first.exports[:watched_count]))
        frames = FrameCounter(app)
        await frames.wait_next(frames.count, timeout=0.1)
        started = time.perf_counter()
        cpu0 = time.process_time()
        base: dict[str, float] = {}
        for cycle in range(total + 1):
            if cycle in checkpoints:
                await frames.wait_next(frames.count, timeout=0.1)
                gc.collect()
                rss, tasks, workers = rss_mb(), len(asyncio.all_tasks()), len(app.workers)
                base = base or {"rss": rss, "tasks": tasks, "workers": workers}
                rows.append([cycle, f"{rss:.1f}", f"{100 * (rss / base['rss'] - 1):+.1f} %", tasks, workers,
                             len(table._strips),
                             f"{time.perf_counter() - started:.1f}"])
            if cycle == total:
                break
            indexes = [(cycle * 10 + k * 5) % watched_count for k in range(10)]
            screen.apply_snapshot(with_changes(screen.board.snapshot, indexes))
            if cycle % 5 == 0:
                await frames.wait_next(frames.count, timeout=0.05)  # a repaint every few polls
            else:
                await asyncio.sleep(0)
        cpu = time.process_time() - cpu0
        assert table.row_count == watched_count
        app.clear_notifications()
    report(f"5. RSS over {total:,} polls of {watched_count} exports (gc before each checkpoint; "
           "10 rows change per poll)", rows,
           ["cycle", "RSS MB", "growth", "asyncio tasks", "workers", "line cache", "s"])
    print(f"  {cpu / total * 1e3:.2f} ms process CPU per poll (apply, alerts, diff; repaint every 5th); "
          f"peak RSS {peak_rss_mb():.0f} MB; target: growth < 5 %, tasks and workers flat")


# --------------------------------------------------------------------------- 6. logs


async def test_logs_100k_lines(sandbox200: SandboxHandle) -> None:
    """100,000 lines through LogsScreen._write (format_entry + Log.write_lines) in batches of 500."""
    app = make_app(sandbox200.base_url, sandbox200.api_key)
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await started_monitor(app)
        watched = screen.board.snapshot.exports[0]  # type: ignore[union-attr]
        logs = LogsScreen(watched, None)
        await app.push_screen(logs)
        await wait_for(lambda: all(w.is_finished for w in app.workers))
        await pilot.pause()
        log = logs.query_one("#logs")
        frames = FrameCounter(app)
        from datetime import UTC, datetime, timedelta

        start = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
        levels = ["INFO", "DEBUG", "WARNING", "ERROR"]
        entries = [LogEntry.model_validate({
            "timestamp": (start + timedelta(milliseconds=i)).isoformat(), "level": levels[i % 4],
            "message": f"Batch {i // 500} exported {i * 37 % 10_000} records to s3://bucket/prefix/part-{i}.parquet"})
            for i in range(100_000)]
        gc.collect()
        rss0 = rss_mb()
        rss_at: dict[int, float] = {}
        workers_max = 0
        t0, p0, w0 = time.thread_time(), time.process_time(), time.perf_counter()
        for n in range(0, 100_000, 500):
            logs._write(entries[n:n + 500])
            workers_max = max(workers_max, len(app.workers))
            await asyncio.sleep(0)  # let the loop run: refreshes and the size worker's callbacks
            if n + 500 in (10_000, 50_000, 100_000):
                rss_at[n + 500] = rss_mb()
        await frames.wait_next(frames.count)
        t1, p1, w1 = time.thread_time(), time.process_time(), time.perf_counter()
        await wait_for(lambda: all(w.is_finished for w in app.workers))
        gc.collect()
        rss_end = rss_mb()
        assert log.line_count == MAX_LINES, log.line_count
        assert logs.lines_written >= 100_000
        left = len(app.workers)

        # A per-batch repaint variant: every batch waits for its frame (frame pacing dominates the wall time).
        t2, w2 = time.thread_time(), time.perf_counter()
        for n in range(0, 20_000, 500):
            since = frames.count
            logs._write(entries[n:n + 500])
            await frames.wait_next(since)
        t3, w3 = time.thread_time(), time.perf_counter()
    report("6. logs: 100,000 lines into LogsScreen._write in batches of 500", [
        ["lines/s (wall, incl. final repaint)", f"{100_000 / (w1 - w0):,.0f}", "target >= 50,000"],
        ["lines/s (UI-thread CPU)", f"{100_000 / (t1 - t0):,.0f}", f"{(t1 - t0) / 100_000 * 1e6:.1f} us/line"],
        ["process CPU per line (incl. the size thread worker)", f"{(p1 - p0) / 100_000 * 1e6:.1f} us", ""],
        ["lines/s with a repaint after every batch (20k lines)", f"{20_000 / (w3 - w2):,.0f}",
         f"UI CPU {(t3 - t2) / 20_000 * 1e6:.1f} us/line"],
        ["RSS before / 10k / 50k / 100k / after gc",
         f"{rss0:.1f} / {rss_at[10_000]:.1f} / {rss_at[50_000]:.1f} / {rss_at[100_000]:.1f} / {rss_end:.1f} MB",
         f"kept {log.line_count} lines (MAX_LINES {MAX_LINES})"],
        ["workers: max during / left after", f"{workers_max} / {left}", ""],
    ], ["what", "figure", "notes"])
