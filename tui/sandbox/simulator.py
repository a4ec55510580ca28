"""The run simulator: batch exports produce runs on the simulation clock.

Every run gets a *plan* when it is created (start delay, duration, outcome, record count, log
lines at offsets), drawn from a random generator seeded by the sandbox seed and the run's
identity. A run's state at any moment is a pure function of its plan and the time, so the
result does not depend on how often the simulator ticks, and a restart on a saved database
simply carries on. One tick is one transaction:

1. advance the runs in flight (status, records_completed, new log lines);
2. create the scheduled runs whose interval has ended (one per interval, unless paused or
   outside ``start_at``/``end_at``);
3. release queued backfill/retry runs whose time has come.
"""

from __future__ import annotations

import hashlib
import math
import random
import sqlite3
import threading
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from tui.clock import Clock
from tui.sandbox.db import Database, dumps, loads, set_meta
from tui.sandbox.outages import failure_for
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso, parse_iso

TERMINAL = frozenset(
    {"Completed", "Failed", "FailedRetryable", "FailedBilling", "TimedOut", "Terminated", "Cancelled",
     "ContinuedAsNew"}
)
ALL_STATUSES = (
    "Cancelled", "Completed", "ContinuedAsNew", "Failed", "FailedRetryable", "Terminated", "TimedOut",
    "Running", "Starting",
)

# Outcome weights per failure profile.
PROFILES: dict[str, list[tuple[str, float]]] = {
    "normal": [
        ("Completed", 0.93), ("FailedRetryable", 0.02), ("Failed", 0.015), ("Cancelled", 0.01),
        ("TimedOut", 0.008), ("Terminated", 0.007), ("ContinuedAsNew", 0.01),
    ],
    "flaky": [
        ("Completed", 0.52), ("FailedRetryable", 0.2), ("Failed", 0.18), ("TimedOut", 0.04),
        ("Cancelled", 0.02), ("Terminated", 0.02), ("ContinuedAsNew", 0.02),
    ],
}

# Simulated seconds a run takes once Running, by interval.
DURATIONS: dict[str, tuple[float, float]] = {
    "every 5 minutes": (40, 200),
    "every 15 minutes": (60, 420),
    "hour": (120, 900),
    "day": (600, 4800),
    "week": (1800, 12000),
}
RECORDS: dict[str, tuple[int, int]] = {
    "every 5 minutes": (200, 6_000),
    "every 15 minutes": (800, 20_000),
    "hour": (4_000, 90_000),
    "day": (80_000, 1_800_000),
    "week": (500_000, 12_000_000),
}
TIMEOUTS: dict[str, int] = {
    "every 5 minutes": 20 * 60,
    "every 15 minutes": 45 * 60,
    "hour": 2 * 3600,
    "day": 8 * 3600,
    "week": 24 * 3600,
}

ERRORS: dict[str, list[str]] = {
    "S3": [
        "ClientError: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied",
        "ClientError: An error occurred (NoSuchBucket) when calling the CreateMultipartUpload operation: "
        "The specified bucket does not exist",
        'EndpointConnectionError: Could not connect to the endpoint URL: "https://s3.eu-west-1.amazonaws.com/"',
    ],
    "Snowflake": [
        "ProgrammingError: 002003 (02000): SQL compilation error: Table 'EVENTS' does not exist or not "
        "authorized.",
        "OperationalError: 250001: Could not connect to Snowflake backend after 2 attempt(s).",
        "SnowflakeFileNotUploadedError: Failed to upload file to stage @%EVENTS",
    ],
    "Postgres": [
        'OperationalError: connection to server at "analytics-db.internal" (10.0.3.12), port 5432 failed: '
        "timeout expired",
        "InsufficientPrivilege: permission denied for table events",
        'UniqueViolation: duplicate key value violates unique constraint "events_pkey"',
    ],
    "Redshift": [
        "InsufficientPrivilege: permission denied for schema analytics",
        "StringDataRightTruncation: value too long for type character varying(65535)",
    ],
    "BigQuery": [
        "Forbidden: 403 Access Denied: Table acme-analytics:posthog.events: Permission "
        "bigquery.tables.updateData denied",
        "BadRequest: 400 Provided Schema does not match Table acme-analytics:posthog.events.",
    ],
    "HTTP": [
        "NonRetryableResponseError: 401 Unauthorized from https://us.i.posthog.com/batch/",
        "RetryableResponseError: 503 Service Unavailable from https://us.i.posthog.com/batch/",
    ],
    "Databricks": [
        "DatabricksInsufficientPermissionsError: User does not have USE CATALOG on catalog 'analytics'",
        "DatabricksConnectionError: Failed to connect to SQL warehouse: warehouse is stopped",
    ],
}
TRANSIENT = [
    "ConnectionResetError: [Errno 104] Connection reset by peer",
    "ReadTimeout: timed out waiting for destination after 30s",
    "Throttled by destination, backing off for 4s",
]


def run_timeout(interval: str) -> timedelta:
    """How long a run may stay in flight before it ends TimedOut."""
    return timedelta(seconds=TIMEOUTS.get(interval, 2 * 3600))


def derived_uuid(*parts: object) -> str:
    """A UUID4-shaped id derived from ``parts`` (deterministic for a given seed)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def derived_rng(*parts: object) -> random.Random:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _fmt_range(start: str | None, end: str) -> str:
    s = "the beginning" if start is None else start.replace("T", " ").replace(".000000Z", "+00:00")
    return f"{s} - {end.replace('T', ' ').replace('.000000Z', '+00:00')}"


def make_plan(
    rng: random.Random,
    *,
    interval: str,
    destination: str,
    model: str,
    profile: str,
    name: str,
    interval_start: str | None,
    interval_end: str,
    force: str | None = None,
    start_delay_override: float | None = None,
    min_duration: float | None = None,
) -> dict[str, Any]:
    """Decide everything about a run up front so its state is a pure function of time."""
    weights = PROFILES.get(profile, PROFILES["normal"])
    outcome = force or rng.choices([w[0] for w in weights], [w[1] for w in weights])[0]
    start_delay = round(rng.uniform(2.0, 15.0), 3)
    lo, hi = DURATIONS.get(interval, (120, 900))
    duration = round(rng.uniform(lo, hi), 3)
    if start_delay_override is not None:
        start_delay = start_delay_override
    if min_duration is not None:
        duration = max(duration, min_duration)
    rlo, rhi = RECORDS.get(interval, (1000, 50_000))
    total = 0 if rng.random() < 0.03 else rng.randint(rlo, rhi)
    if model == "persons":
        total //= 6
    timeout = TIMEOUTS.get(interval, 7200)
    if outcome == "TimedOut":
        duration = timeout - start_delay
    fraction = 1.0 if outcome == "Completed" else round(rng.uniform(0.05, 0.9), 3)
    if outcome == "ContinuedAsNew":
        fraction = round(rng.uniform(0.4, 0.8), 3)
    error: str | None = None
    if outcome in ("Failed", "FailedRetryable", "FailedBilling"):
        error = rng.choice(ERRORS.get(destination, ERRORS["S3"]))
        if outcome == "FailedBilling":
            error = "BillingLimitsExceeded: the organization has exceeded its billing limits"
    elif outcome == "TimedOut":
        error = f"Activity task timed out: insert_into_{destination.lower()}_activity (StartToClose {timeout}s)"
    elif outcome == "Terminated":
        error = "Workflow terminated: terminated by an operator"
    elif outcome == "Cancelled":
        error = "Workflow cancelled: CancelledError"
    bytes_per_record = rng.randint(180, 1400)
    end = start_delay + duration
    rng_text = _fmt_range(interval_start, interval_end)
    events: list[list[Any]] = [
        [0.0, "INFO", f"Starting batch export '{name}' for data interval {rng_text}"],
        [round(min(1.0, start_delay / 2), 3), "DEBUG", f"Using {destination} destination, model {model}"],
        [start_delay, "INFO", f"Batch exporting range {rng_text} to {destination}"],
        [start_delay + 0.5, "DEBUG", f"Counted {total} records to export"],
    ]
    last_progress = fraction if outcome != "Completed" else 1.0
    for pct in (0.25, 0.5, 0.75):
        if pct < last_progress:
            done = math.floor(total * pct)
            events.append([round(start_delay + duration * pct / last_progress, 3), "DEBUG",
                           f"Flushed {done} records ({done * bytes_per_record} bytes) to {destination}"])
    if rng.random() < (0.35 if profile == "flaky" else 0.12):
        events.append([round(start_delay + duration * 0.4, 3), "WARNING",
                       f"Retrying after transient error: {rng.choice(TRANSIENT)}"])
    if outcome == "Completed":
        events.append([end, "INFO", f"Successfully finished exporting batch {rng_text}"])
        events.append([end, "INFO", f"Batch export finished, {total} records exported"])
    elif outcome == "ContinuedAsNew":
        events.append([end, "INFO", "Continuing as new to process the remaining records"])
    elif outcome == "FailedRetryable":
        events.append([end, "WARNING", "Batch export failed with a retryable error; it will be retried"])
        events.append([end, "ERROR", f"Batch export failed: {error}"])
    elif outcome in ("Cancelled", "Terminated"):
        events.append([end, "WARNING", f"Batch export {outcome.lower()}: {error}"])
    else:
        events.append([end, "ERROR", f"Batch export failed: {error}"])
    events.sort(key=lambda e: e[0])
    return {
        "outcome": outcome,
        "start_delay": start_delay,
        "duration": duration,
        "total": total,
        "fraction": fraction,
        "error": error,
        "bytes_per_record": bytes_per_record,
        "events": events,
    }


def fail_plan(plan: dict[str, Any], error: str, after: float | None = None) -> dict[str, Any]:
    """The same run, failing with ``error`` (a destination outage): early, or ``after`` seconds of running."""
    end = round(plan["start_delay"] + (after if after is not None else min(plan["duration"], 20.0)), 3)
    events = [e for e in plan["events"] if e[0] <= plan["start_delay"] and e[1] != "ERROR"]
    events.append([end, "ERROR", f"Batch export failed: {error}"])
    return {**plan, "outcome": "Failed", "duration": end - plan["start_delay"], "fraction": 0.0, "error": error,
            "events": events}


def state_at(plan: dict[str, Any], created_at: datetime, now: datetime) -> dict[str, Any]:
    """The run's fields at ``now`` according to its plan."""
    elapsed = (now - created_at).total_seconds()
    sd, dur, total = plan["start_delay"], plan["duration"], plan["total"]
    if elapsed < sd:
        return {"status": "Starting", "records_completed": None, "records_total_count": None,
                "finished_at": None, "latest_error": None, "bytes_exported": None, "cursor": None}
    if elapsed < sd + dur:
        progress = (elapsed - sd) / dur * plan["fraction"]
        done = min(total, math.floor(total * progress))
        return {"status": "Running", "records_completed": done, "records_total_count": total,
                "finished_at": None, "latest_error": None, "bytes_exported": done * plan["bytes_per_record"],
                "cursor": None}
    outcome = plan["outcome"]
    done = total if outcome == "Completed" else math.floor(total * plan["fraction"])
    finished = created_at + timedelta(seconds=sd + dur)
    cursor = None if outcome == "Completed" else iso(finished)
    return {"status": outcome, "records_completed": done, "records_total_count": total,
            "finished_at": iso(finished), "latest_error": plan["error"],
            "bytes_exported": done * plan["bytes_per_record"], "cursor": cursor}


class Simulator:
    """Drives runs from the clock; call :meth:`tick` directly in tests, or :meth:`start` a thread."""

    def __init__(self, db: Database, clock: Clock, seed: int, tick_seconds: float = 0.25) -> None:
        self.db = db
        self.clock = clock
        self.seed = seed
        self.tick_seconds = tick_seconds
        self.forced: dict[tuple[str, str], str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- thread -------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="sandbox-simulator", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self.tick_seconds):
            try:
                self.tick()
            except sqlite3.ProgrammingError:  # database closed under us at shutdown
                return

    # -- one step -----------------------------------------------------------------------------
    def tick(self, now: datetime | None = None) -> None:
        """Bring the world to ``now`` (default: the clock) in one transaction."""
        now = now or self.clock.now()
        with self.db.transaction() as c:
            self._advance(c, now)
            self._schedule(c, now)
            self._release(c, now)
            set_meta(c, "sim_now", iso(now))

    def _advance(self, c: sqlite3.Connection, now: datetime) -> None:
        rows = c.execute(
            "SELECT id, export_id, status, created_at, plan, events_done, records_completed, instance_id "
            "FROM runs WHERE active = 1"
        ).fetchall()
        for r in rows:
            plan = loads(r["plan"])
            created = parse_iso(r["created_at"])
            self._apply(c, r["id"], r["export_id"], r["instance_id"], created, plan, r["events_done"], now,
                        r["status"], r["records_completed"])

    def _apply(
        self,
        c: sqlite3.Connection,
        run_id: str,
        export_id: str,
        instance_id: str,
        created: datetime,
        plan: dict[str, Any],
        events_done: int,
        now: datetime,
        old_status: str | None,
        old_completed: int | None,
    ) -> None:
        st = state_at(plan, created, now)
        elapsed = (now - created).total_seconds()
        events = plan["events"]
        new = []
        i = events_done
        while i < len(events) and events[i][0] <= elapsed:
            new.append(events[i])
            i += 1
        if not new and st["status"] == old_status and st["records_completed"] == old_completed:
            return
        terminal = st["status"] in TERMINAL
        updated = st["finished_at"] if terminal else iso(now)
        c.execute(
            "UPDATE runs SET status=?, active=?, records_completed=?, records_total_count=?, latest_error=?, "
            "cursor=?, finished_at=?, last_updated_at=?, bytes_exported=?, events_done=? WHERE id=?",
            (st["status"], 0 if terminal else 1, st["records_completed"], st["records_total_count"],
             st["latest_error"], st["cursor"], st["finished_at"], updated, st["bytes_exported"], i, run_id),
        )
        if new:
            c.executemany(
                "INSERT INTO logs(export_id, run_id, instance_id, timestamp, level, message) "
                "VALUES(?,?,?,?,?,?)",
                [(export_id, run_id, instance_id, iso(created + timedelta(seconds=e[0])), e[1], e[2])
                 for e in new],
            )

    def _schedule(self, c: sqlite3.Connection, now: datetime) -> None:
        rows = c.execute(
            "SELECT id, paused, interval, start_at, end_at, next_end, profile, data FROM exports "
            "WHERE deleted = 0 AND next_end <= ?",
            (iso(now),),
        ).fetchall()
        for r in rows:
            interval = r["interval"]
            step = timedelta(seconds=INTERVALS[interval])
            if r["paused"]:
                c.execute("UPDATE exports SET next_end=? WHERE id=?",
                          (iso(floor_interval(now, interval) + step), r["id"]))
                continue
            data = loads(r["data"])
            start_at = parse_iso(r["start_at"]) if r["start_at"] else None
            end_at = parse_iso(r["end_at"]) if r["end_at"] else None
            next_end = parse_iso(r["next_end"])
            while next_end <= now:
                end_text = iso(next_end)
                delay = timedelta(seconds=derived_rng(self.seed, r["id"], end_text, "delay").uniform(1, 8))
                created = next_end + delay
                if created > now:
                    break
                in_window = (start_at is None or next_end >= start_at) and (end_at is None or next_end <= end_at)
                if in_window:
                    start_text = iso(next_end - step)
                    rng = derived_rng(self.seed, r["id"], end_text, "plan")
                    plan = make_plan(
                        rng, interval=interval, destination=data["destination"]["type"], model=data["model"],
                        profile=r["profile"], name=data["name"], interval_start=start_text,
                        interval_end=end_text, force=self.forced.get((r["id"], end_text)),
                    )
                    run_id = derived_uuid(self.seed, r["id"], end_text, "run")
                    self.insert_run(c, run_id, r["id"], created, start_text, end_text, plan, None, now)
                next_end += step
            c.execute("UPDATE exports SET next_end=? WHERE id=?", (iso(next_end), r["id"]))

    def _release(self, c: sqlite3.Connection, now: datetime) -> None:
        rows = c.execute(
            "SELECT p.id, p.export_id, p.backfill_id, p.created_at, p.data_interval_start, p.data_interval_end, "
            "p.plan, e.deleted FROM pending_runs p JOIN exports e ON e.id = p.export_id "
            "WHERE p.created_at <= ? ORDER BY p.created_at",
            (iso(now),),
        ).fetchall()
        for r in rows:
            c.execute("DELETE FROM pending_runs WHERE id=?", (r["id"],))
            if r["deleted"]:
                continue
            self.insert_run(c, r["id"], r["export_id"], parse_iso(r["created_at"]), r["data_interval_start"],
                            r["data_interval_end"], loads(r["plan"]), r["backfill_id"], now)

    def insert_run(
        self,
        c: sqlite3.Connection,
        run_id: str,
        export_id: str,
        created: datetime,
        interval_start: str | None,
        interval_end: str,
        plan: dict[str, Any],
        backfill_id: str | None,
        now: datetime,
    ) -> None:
        """Create a run and bring it straight to its state at ``now`` (failing if its destination is down)."""
        outage = failure_for(c, export_id, created)
        if outage is not None:
            plan = fail_plan(plan, outage.error, outage.after)
        instance_id = derived_uuid(self.seed, run_id, "instance")
        c.execute(
            "INSERT INTO runs(id, export_id, status, active, created_at, data_interval_start, data_interval_end, "
            "last_updated_at, backfill_id, instance_id, plan, events_done) VALUES(?,?,?,?,?,?,?,?,?,?,?,0)",
            (run_id, export_id, "Starting", 1, iso(created), interval_start, interval_end, iso(created),
             backfill_id, instance_id, dumps(plan)),
        )
        self._apply(c, run_id, export_id, instance_id, created, plan, 0, now, None, None)

    # -- backfills ----------------------------------------------------------------------------
    def queue_backfill(
        self,
        c: sqlite3.Connection,
        export: dict[str, Any],
        intervals: Sequence[tuple[str | None, str]],
        now: datetime,
        backfill_id: str,
        *,
        profile: str,
    ) -> None:
        """Queue one run per interval, one after another, each starting when the previous one ends."""
        t = now + timedelta(seconds=2)
        for index, (start, end) in enumerate(intervals):
            pending_id = derived_uuid(self.seed, backfill_id, index, "run")
            rng = derived_rng(self.seed, backfill_id, index, "plan")
            plan = make_plan(
                rng, interval=export["interval"], destination=export["destination"]["type"],
                model=export["model"], profile=profile, name=export["name"], interval_start=start,
                interval_end=end,
            )
            c.execute(
                "INSERT INTO pending_runs(id, export_id, backfill_id, created_at, data_interval_start, "
                "data_interval_end, plan) VALUES(?,?,?,?,?,?,?)",
                (pending_id, export["id"], backfill_id, iso(t), start, end, dumps(plan)),
            )
            t += timedelta(seconds=plan["start_delay"] + plan["duration"] + 2)
