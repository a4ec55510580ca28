"""Destination outages: every run of every export of one destination type fails between two times.

An outage is stored (so the simulator thread and a saved database see it) as a destination type, a
start, an optional end (open until ended), optionally the error to report, and optionally how long an
attempt runs before it fails (``fails_after``, simulated seconds: a destination that hangs until a
timeout rather than refusing at once; by default an attempt fails within 20 s of starting). Runs are
judged when they are created: a run created inside the window ends ``Failed`` with an error naming the
export's own bucket, host or dataset, as the real destination would; runs created after the end are
normal again, so retries succeed once the outage is over.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from tui.sandbox.db import loads
from tui.sandbox.timeutil import iso, parse_iso

DESTINATIONS = ("S3", "AwsS3", "S3Compatible", "Snowflake", "Postgres", "Redshift", "BigQuery", "HTTP",
                "Databricks", "AzureBlob")
# The demo's outage: the destination with the most frequent exports in the seed, so failures show at once.
DEMO_DESTINATION = "Postgres"
DEMO_STARTED = timedelta(minutes=45)  # before the seed time
# In total, in the sandbox's time: the demo's clock runs 60 times faster than the wall's, so ten hours keep the
# outage going for the demo's first ten minutes, long enough for a newcomer to reach !, g, t and R.
DEMO_LASTS = DEMO_STARTED + timedelta(hours=10)


def outage_error(destination: str, config: dict[str, Any]) -> str:
    """What the destination itself says while it is down, naming the export's own target."""
    if destination in ("S3", "AwsS3", "S3Compatible"):
        bucket = config.get("bucket_name") or "the bucket"
        return (f"ClientError: An error occurred (AccessDenied) when calling the PutObject operation: "
                f"Access Denied (bucket '{bucket}')")
    if destination == "Snowflake":
        return (f"OperationalError: 250001: Could not connect to Snowflake backend after 2 attempt(s). "
                f"Aborting (account '{config.get('account', '?')}')")
    if destination in ("Postgres", "Redshift"):
        host, port = config.get("host") or "?", config.get("port") or (5432 if destination == "Postgres" else 5439)
        return (f'OperationalError: connection to server at "{host}", port {port} failed: Connection refused. '
                "Is the server running on that host and accepting TCP/IP connections?")
    if destination == "BigQuery":
        table = f"{config.get('project_id', '?')}:{config.get('dataset_id', '?')}.{config.get('table_id', 'events')}"
        return f"Forbidden: 403 Access Denied: Table {table}: Permission bigquery.tables.updateData denied"
    if destination == "HTTP":
        return f"RetryableResponseError: 503 Service Unavailable from {config.get('url', 'the endpoint')}"
    if destination == "Databricks":
        return f"DatabricksConnectionError: Failed to connect to SQL warehouse {config.get('http_path', '?')}"
    return f"{destination} destination unavailable"


MAX_FAILS_AFTER = 24 * 3600.0  # simulated seconds: longer than any run's time limit


@dataclass(frozen=True)
class Failure:
    """How a run created inside an outage fails: the error, and after how long (None: the usual 20 s at most)."""

    error: str
    after: float | None = None


def add_outage(c: sqlite3.Connection, destination: str, start: datetime, end: datetime | None,
               error: str | None = None, fails_after: float | None = None) -> dict[str, Any]:
    cur = c.execute("INSERT INTO outages(destination, start_at, end_at, error, fails_after) VALUES(?,?,?,?,?)",
                    (destination, iso(start), iso(end) if end else None, error, fails_after))
    return {"id": int(cur.lastrowid or 0), "destination": destination, "start_at": iso(start),
            "end_at": iso(end) if end else None, "error": error, "fails_after": fails_after}


def keep_demo_outage_going(c: sqlite3.Connection, seeded_at: datetime, now: datetime) -> None:
    """A world seeded earlier (at the hour) and opened now: its demo outage still goes on DEMO_LASTS after it
    started as seen from now, so every demo opens on it, however late in the hour."""
    seeded_end = seeded_at - DEMO_STARTED + DEMO_LASTS
    wanted_end = now - DEMO_STARTED + DEMO_LASTS
    if wanted_end > seeded_end:
        c.execute("UPDATE outages SET end_at = ? WHERE destination = ? AND end_at = ?",
                  (iso(wanted_end), DEMO_DESTINATION, iso(seeded_end)))


def list_outages(c: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = c.execute("SELECT id, destination, start_at, end_at, error, fails_after FROM outages ORDER BY id").fetchall()
    return [dict(r) for r in rows]


def end_outages(c: sqlite3.Connection, now: datetime) -> int:
    """End every outage still going on at ``now`` (and drop those not yet started)."""
    c.execute("DELETE FROM outages WHERE start_at > ?", (iso(now),))
    cur = c.execute("UPDATE outages SET end_at = ? WHERE end_at IS NULL OR end_at > ?", (iso(now), iso(now)))
    return cur.rowcount


def failure_for(c: sqlite3.Connection, export_id: str, created: datetime) -> Failure | None:
    """How a run of this export created at ``created`` fails, or None outside every outage."""
    at = iso(created)
    down = c.execute("SELECT destination, error, fails_after FROM outages WHERE start_at <= ? "
                     "AND (end_at IS NULL OR end_at > ?) ORDER BY id DESC", (at, at)).fetchall()
    if not down:  # the usual case, decided without reading the export
        return None
    row = c.execute("SELECT data FROM exports WHERE id = ?", (export_id,)).fetchone()
    if row is None:
        return None
    doc = loads(row["data"])
    dest = doc["destination"]["type"]
    hit = next((d for d in down if d["destination"] == dest), None)
    if hit is None:
        return None
    return Failure(str(hit["error"] or outage_error(dest, doc["destination"].get("config") or {})), hit["fails_after"])


OutageSpec = tuple[str, datetime, datetime | None, str | None, float | None]


def parse_outage(data: dict[str, Any], now: datetime) -> OutageSpec:
    """The JSON body of ``POST /_sandbox/outages``: destination, start, end, error and ``fails_after``; raises
    ``ValueError`` with a readable message."""
    dest = data.get("destination")
    if dest not in DESTINATIONS:
        raise ValueError(f"destination must be one of {', '.join(DESTINATIONS)}")
    start = parse_iso(str(data["start"])) if data.get("start") else now
    end: datetime | None = None
    if data.get("end"):
        end = parse_iso(str(data["end"]))
    elif data.get("minutes") is not None:
        end = start + timedelta(minutes=float(data["minutes"]))
    if end is not None and end <= start:
        raise ValueError("end must be after start")
    error = data.get("error")
    if error is not None and not isinstance(error, str):
        raise ValueError("error must be a string")
    after = data.get("fails_after")
    if after is not None:
        if isinstance(after, bool) or not isinstance(after, int | float) or not math.isfinite(after) \
                or not 0 < after <= MAX_FAILS_AFTER:
            raise ValueError(f"fails_after must be a number of seconds above 0, at most {MAX_FAILS_AFTER:g}")
        after = float(after)
    return str(dest), start, end, error, after
