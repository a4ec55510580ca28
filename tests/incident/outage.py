"""A fixed incident for the view tests and snapshots: an S3 outage across exports, one other failing export.

Built from models (no server), so the pictures depend on nothing but this file.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.api.models.batch_exports import BackfillResult, BatchExport, BatchExportRun
from tui.api.models.common import Page
from tui.clock import FrozenClock
from tui.config.paths import stylesheets
from tui.look.palette import use_no_color
from tui.safe_app import SafeApp
from tui.screens.incident_base import IncidentContext
from tui.state.alert_book import AlertBook
from tui.state.budget import ActionBudget
from tui.state.exports import WatchedExport
from tui.state.incident import IncidentDesk
from tui.state.io.journal import ActionJournal

from .runs import HOUR, NOW

ACCESS = ("ClientError: An error occurred (AccessDenied) when calling the PutObject operation: "
          "Access Denied for bucket '{bucket}' (request {request})")
SNOWFLAKE = "ProgrammingError: 002003 (02000): SQL compilation error: Table '{table}' does not exist"

EXPORTS: list[tuple[str, str, str]] = [  # (id, name, destination)
    ("e01", "Events to S3 data lake", "S3"),
    ("e02", "Persons to S3 archive", "S3"),
    ("e03", "Billing events to S3", "S3"),
    ("e04", "Snowflake warehouse (hourly)", "Snowflake"),
    ("e05", "BigQuery marketing", "BigQuery"),
    ("e06", "Postgres replica", "Postgres"),
    ("e07", "Redshift persons sync", "Redshift"),
    ("e08", "HTTP webhook mirror", "HTTP"),
]
OUTAGE_HOURS = (2, 3, 4)  # intervals ending 2, 3 and 4 hours before NOW failed on every S3 export


@dataclass(frozen=True)
class Verdict:
    """A health verdict as the monitor would pass it (state, reason, streak, latest run, newest completed end)."""

    state: str
    reason: str
    failure_streak: int = 0
    latest_run: BatchExportRun | None = None
    last_completed_end: datetime | None = None
    failure_streak_is_lower_bound: bool = False


def _run(export_id: str, hours_ago: int, status: str, error: str | None = None, n: int = 0) -> BatchExportRun:
    end = NOW - hours_ago * HOUR
    created = end + timedelta(minutes=2 + n)
    finished = None if status in ("Running", "Starting") else created + timedelta(minutes=4)
    return BatchExportRun(id=f"{export_id}-r{hours_ago:02d}{n}", status=status, data_interval_start=end - HOUR,
                          data_interval_end=end, created_at=created, finished_at=finished, latest_error=error,
                          records_completed=1000 + hours_ago)


def outage_exports(*, repaired: bool = False, in_progress: bool = False) -> list[WatchedExport]:
    """Twenty hours of hourly runs per export; the S3 ones failed during the outage (and still do at hour 1).

    ``in_progress``: the same runs a moment earlier, the ones that failed still running (a server's runs never
    disappear, so a poll before the outage shows the same runs, not others).
    """
    out: list[WatchedExport] = []
    for index, (export_id, name, dest) in enumerate(EXPORTS):
        runs: list[BatchExportRun] = []
        for hours_ago in range(20, 0, -1):
            status, error = "Completed", None
            if dest == "S3" and (hours_ago in OUTAGE_HOURS or hours_ago == 1):
                status = "Failed"
                error = ACCESS.format(bucket=f"acme-{export_id}", request=f"9F{index}{hours_ago:02d}A7C3E1B2D4")
            if dest == "Snowflake" and hours_ago == 1:
                status, error = "Failed", SNOWFLAKE.format(table="EVENTS")
            if dest == "Postgres" and hours_ago == 1:
                status = "Running"
            if in_progress and status == "Failed":
                status, error = "Running", None
            runs.append(_run(export_id, hours_ago, status, error))
            if repaired and status == "Failed":
                runs.append(_run(export_id, hours_ago, "Completed", n=30))
        export = BatchExport(id=export_id, name=name, interval="hour", paused=False, destination={"type": dest},
                             latest_runs=runs)
        out.append(WatchedExport("1", export))
    return out


def verdicts(exports: list[WatchedExport]) -> dict[str, Verdict]:
    """What the health judge says of these exports (failing: latest interval's latest attempt failed)."""
    found: dict[str, Verdict] = {}
    for watched in exports:
        runs = sorted(watched.export.latest_runs, key=lambda r: (r.created_at or NOW))
        streak = 0
        for run in reversed(runs):
            if run.status != "Failed":
                break
            streak += 1
        latest = runs[-1]
        done = max((r.data_interval_end for r in runs if r.status == "Completed" and r.data_interval_end), default=None)
        if latest.status == "Failed":
            found[watched.key] = Verdict("failing", f"latest run Failed, {streak} failed runs in a row", streak,
                                         latest, done)
        else:
            found[watched.key] = Verdict("ok", "data 0s behind", 0, latest, done)
    return found


def outage_desk(tmp_journal: Any = None, *, primed: bool = True) -> IncidentDesk:
    """A desk that saw a healthy poll first (so the outage's alerts are new), then the outage."""
    desk = IncidentDesk(AlertBook(ActionJournal(tmp_journal) if tmp_journal else None))
    exports = outage_exports()
    if primed:
        healthy = outage_exports(in_progress=True)
        desk.observe(healthy, verdicts(healthy), NOW - timedelta(minutes=5))
    desk.observe(exports, verdicts(exports), NOW)
    return desk


class Host(SafeApp[None]):
    """Pushes one incident screen over an empty base screen, as the monitor would; records what it returned.

    Chooses the status looks and the colours for ``NO_COLOR`` (set or not) as the real app does when it starts.
    """

    CSS_PATH = stylesheets("app.tcss", "modals.tcss")

    def __init__(self, make: Any) -> None:
        super().__init__()
        use_no_color(self.no_color)
        self.make = make
        self.results: list[Any] = []
        self.notes: list[str] = []

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None:
        self.notes.append(str(message))
        super().notify(message, *args, **kwargs)

    def compose(self) -> ComposeResult:
        yield Static("monitor underneath")

    def on_mount(self) -> None:
        self.push_screen(self.make(self), self.results.append)


def context(desk: IncidentDesk, journal_path: Any = None, client_for: Any = None,
            clock_now: datetime = NOW) -> IncidentContext:
    clock = FrozenClock(clock_now)
    ticks = iter(range(10**9))
    recorder = RecordingClient()
    return IncidentContext(desk=desk, client_for=client_for or (lambda _pid: recorder),
                           budget=ActionBudget(lambda: float(next(ticks)) * 0.001),
                           journal=ActionJournal(journal_path) if journal_path else ActionJournal(),
                           clock=clock)


class RecordingApi:
    """The batch-exports half of a client, recording what repair sends; two calls may overlap."""

    def __init__(self) -> None:
        self.retried: list[tuple[str, str]] = []
        self.backfilled: list[tuple[str, Any, Any]] = []
        self.in_flight = 0
        self.most = 0
        self.delay = 0.01
        self.history: list[str] = []

    async def retry_run(self, export_id: str, run_id: str) -> BackfillResult:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(self.delay)
        self.in_flight -= 1
        self.retried.append((export_id, run_id))
        return BackfillResult(backfill_id="b")

    async def runs(self, export_id: str, **_query: Any) -> Page[BatchExportRun]:
        self.history.append(export_id)
        return Page[BatchExportRun](results=[])

    async def backfill(self, export_id: str, start: Any, end: Any) -> BackfillResult:
        self.backfilled.append((export_id, start, end))
        return BackfillResult(backfill_id="b")


class RecordingClient:
    def __init__(self) -> None:
        self.batch_exports = RecordingApi()



__all__ = ["Host", "RecordingClient", "Screen", "context", "outage_desk", "outage_exports", "verdicts"]
