"""Incident benchmarks: the timeline's cost per poll and grouping 10,000 failed runs.

Figures (CPU time of the UI thread) and ratios to baselines measured in the same run (the machine is noisy: a
shared box under load runs everything several times slower, so the ratio to the floor and to the baseline is the
figure to read); asserts are functional only.
Targets: the timeline over 200 exports x 24 h costs the UI <= 16 ms per poll that changes 10 rows; grouping
10,000 runs <= 20 ms.
"""

from __future__ import annotations

import gc
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.clock import FrozenClock
from tui.screens.incident_base import IncidentContext
from tui.screens.timeline import TimelineScreen
from tui.state.budget import ActionBudget
from tui.state.exports import WatchedExport
from tui.state.failure_groups import group_failures
from tui.state.incident import IncidentDesk
from tui.state.io.journal import ActionJournal
from tui.state.timeline import TimelineModel
from tui.widgets.timeline_view import TimelineView

from .helpers import FrameCounter, median, p95, report

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
ERRORS = [
    "ClientError: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied for "
    "bucket 'acme-{n}' (request {n:08X}A7C3E1B2D4)",
    "Activity task timed out: insert_into_bigquery_activity (StartToClose {n}s)",
    "ProgrammingError: 002003 (02000): SQL compilation error: Table 'EVENTS_{n}' does not exist",
    "HTTP {n} from https://hooks.example.com/x/AbCdEf{n:010d}",
]


def make_run(export: int, hours_ago: int, status: str, n: int = 0) -> BatchExportRun:
    end = NOW - hours_ago * HOUR
    error = ERRORS[(export + hours_ago) % len(ERRORS)].format(n=export * 100 + hours_ago) if status == "Failed" \
        else None
    return BatchExportRun(id=f"{export}-{hours_ago}-{n}", status=status, data_interval_start=end - HOUR,
                          data_interval_end=end, created_at=end + timedelta(minutes=2 + n),
                          finished_at=end + timedelta(minutes=6 + n), latest_error=error)


def make_exports(count: int, hours: int, failing_every: int = 5) -> list[WatchedExport]:
    out = []
    for e in range(count):
        runs = [make_run(e, h, "Failed" if (e + h) % failing_every == 0 else "Completed")
                for h in range(hours, 0, -1)]
        export = BatchExport(id=f"x{e:03d}", name=f"export {e:03d}", interval="hour", paused=False,
                             destination={"type": "S3"}, latest_runs=runs)
        out.append(WatchedExport("1", export))
    return out


def with_flips(exports: list[WatchedExport], cycle: int, changed: int = 10) -> list[WatchedExport]:
    """A new poll: ``changed`` exports' newest run flips between Running and Completed."""
    out = list(exports)
    for i in range(changed):
        index = (cycle * changed + i * 17) % len(out)
        watched = out[index]
        runs = list(watched.export.latest_runs)
        runs[-1] = runs[-1].model_copy(update={"status": "Running" if runs[-1].status != "Running" else "Completed"})
        out[index] = WatchedExport("1", watched.export.model_copy(update={"latest_runs": runs}))
    return out


class Verdict:
    def __init__(self, state: str) -> None:
        self.state = state
        self.reason = state
        self.failure_streak = 1 if state == "failing" else 0
        self.latest_run = None
        self.last_completed_end = None
        self.failure_streak_is_lower_bound = False


def verdicts(exports: list[WatchedExport]) -> dict[str, Any]:
    return {w.key: Verdict("failing" if w.export.latest_runs[-1].status == "Failed" else "ok") for w in exports}


class Host(App[None]):
    def __init__(self, desk: IncidentDesk) -> None:
        super().__init__()
        self.desk = desk

    def compose(self) -> ComposeResult:
        yield Static("monitor")

    def on_mount(self) -> None:
        ticks = iter(range(10**9))
        context = IncidentContext(desk=self.desk, client_for=lambda _pid: None,  # type: ignore[arg-type,return-value]
                                  budget=ActionBudget(lambda: float(next(ticks)), per_minute=0, per_hour=0),
                                  journal=ActionJournal(), clock=FrozenClock(NOW))
        self.push_screen(TimelineScreen(context))


async def _cycles(app: Host, exports: list[WatchedExport], naive: bool, cycles: int = 30,
                  warmup: int = 5) -> tuple[list[float], int]:
    frames = FrameCounter(app)
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    times: list[float] = []
    painted = 0
    current = exports
    for i in range(warmup + cycles):
        current = with_flips(current, i)
        gc.collect()
        since = frames.count
        t0 = time.thread_time()
        if naive:
            # The baseline: no per-row cache and a full repaint, as a grid redrawn from scratch each poll would do.
            screen.model = TimelineModel(screen.model.zoom_index)
            screen.query_one(TimelineView).model = screen.model
            screen.desk.observe(current, verdicts(current), NOW)
            screen.update_from_desk(full=True)
        else:
            screen.desk.observe(current, verdicts(current), NOW)
        done = await frames.wait_next(since)
        if i >= warmup:
            times.append(time.thread_time() - t0)
            painted += done
    return times, painted


async def test_timeline_poll_cost() -> None:
    results: dict[str, tuple[list[float], int]] = {}
    for naive in (True, False):
        exports = make_exports(200, 24)
        desk = IncidentDesk()
        desk.observe(exports, verdicts(exports), NOW)
        app = Host(desk)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            assert len(screen.model.order) == 200
            results["naive" if naive else "timeline"] = await _cycles(app, exports, naive)
    ours, painted = results["timeline"]
    base, _ = results["naive"]
    report("Timeline, 200 exports x 24 h, a poll changing 10 rows (desk + model + repaint, UI thread)", [
        ["rebuilt and repainted whole (baseline)", f"{median(base) * 1e3:.2f}", f"{p95(base) * 1e3:.2f}", "-"],
        ["timeline (rows diffed, 10 lines repainted)", f"{median(ours) * 1e3:.2f}", f"{p95(ours) * 1e3:.2f}",
         f"{median(base) / median(ours):.1f}x better; {median(ours) * 1e3 / 16:.2f} of the 16 ms target"],
    ], ["what", "median ms", "p95 ms", "ratio"])
    assert painted > 0


def test_grouping_ten_thousand_runs() -> None:
    exports = make_exports(200, 50, failing_every=2)  # 10,000 runs, half of them failed
    runs = {w.key: w.export.latest_runs for w in exports}
    assert sum(len(r) for r in runs.values()) == 10_000

    def timed(action: Any, rounds: int = 12) -> list[float]:
        out = []
        for i in range(rounds):
            gc.collect()
            t0 = time.thread_time()
            action(i)
            out.append(time.thread_time() - t0)
        return out

    def floor(_i: int) -> None:
        for batch in runs.values():
            for run in batch:
                _ = (run.id, run.status)

    def scratch(_i: int) -> None:
        assert sum(g.run_count for g in group_failures(runs)) == 5_000

    desk = IncidentDesk()
    desk.history.hold("groups", NOW - timedelta(days=30))  # the groups view is open: its runs are all held
    desk.observe(exports, {}, NOW)
    desk.groups()
    polls = [[WatchedExport("1", w.export.model_copy()) for w in with_flips(exports, i)] for i in range(12)]

    def per_poll(i: int) -> None:
        desk.observe(polls[i], {}, NOW)  # fresh objects, as a poll parses them; 10 exports changed
        assert desk.groups()

    results = {name: timed(action) for name, action in
               (("floor", floor), ("scratch", scratch), ("poll", per_poll))}
    base = median(results["scratch"])
    report("Grouping 10,000 runs (5,000 failed) of 200 exports", [
        ["floor: read id and status of every run once", f"{median(results['floor']) * 1e3:.2f}", "-"],
        ["from scratch: every signature worked out (baseline)", f"{base * 1e3:.2f}", "-"],
        ["per poll on the desk (10 exports changed)", f"{median(results['poll']) * 1e3:.2f}",
         f"{base / median(results['poll']):.1f}x better; {median(results['poll']) / median(results['floor']):.1f}x "
         f"the floor; {median(results['poll']) * 1e3 / 20:.2f} of the 20 ms target"],
    ], ["what", "median ms", "ratio"])
