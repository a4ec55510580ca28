"""Backfills: create (older ``backfill/`` and ``backfills/``), list, get with progress, cancel.

Which generation of the real service the sandbox answers as (``SandboxOptions.generation``) decides
the create rules (see ``backfill_rules``), the status code (200 older, 201 newest), the id a create answers
with (the older Temporal workflow id ``<export>-Backfill-<start>-<end>``, or the backfill's UUID) and whether
``backfill/`` exists at all (removed in the newest). The backfill itself is named by a UUID in every generation
(the real ``BatchExportBackfill`` is a ``UUIDModel``): in the list, in its runs' ``backfill``, in its paths.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox.backfill_rules import ExportTiming, backfill_bounds
from tui.sandbox.db import loads
from tui.sandbox.endpoint import Ctx, api, ok, routes
from tui.sandbox.errors import ServiceError, not_found, validation_error
from tui.sandbox.resources.lookup import export_doc, export_row
from tui.sandbox.simulator import TERMINAL
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso

MAX_BACKFILL_RUNS = 10_000
BACKFILLS_PAGE = 50
FAILED = frozenset({"Failed", "FailedRetryable", "FailedBilling", "TimedOut", "Terminated"})


def _backfill_intervals(interval: str, start: datetime, end: datetime, now: datetime) -> list[tuple[str, str]]:
    step = timedelta(seconds=INTERVALS[interval])
    out = []
    t = floor_interval(start, interval)
    while t < end and t + step <= now:
        out.append((iso(t), iso(t + step)))
        t += step
        if len(out) > MAX_BACKFILL_RUNS:
            raise validation_error(f"A backfill may cover at most {MAX_BACKFILL_RUNS} intervals.", "start_at")
    return out


def workflow_id(export_id: str, start: datetime, end: datetime) -> str:
    """The older service's backfill id: the Temporal workflow id built from the bounds."""
    return f"{export_id}-Backfill-{start.isoformat()}-{end.isoformat()}"


def create_backfill(ctx: Ctx, c: Any, row: Any, start: datetime, end: datetime,
                    intervals: list[tuple[str | None, str]] | None = None) -> str:
    """Make the backfill and queue its runs; returns the ``backfill_id`` the create answers with."""
    now = ctx.now
    if intervals is None:
        intervals = list(_backfill_intervals(row["interval"], start, end, now))
    backfill_id = str(uuid.uuid4())
    c.execute("INSERT INTO backfills(id, export_id, start_at, end_at, created_at, total_runs) VALUES(?,?,?,?,?,?)",
              (backfill_id, row["id"], iso(start), iso(end), iso(now), len(intervals)))
    ctx.state.simulator.queue_backfill(c, export_doc(row), intervals, now, backfill_id, profile=row["profile"])
    if ctx.state.options.generation == "older":
        return workflow_id(row["id"], start, end)
    return backfill_id


def created_status(ctx: Ctx) -> int:
    return 201 if ctx.state.options.generation == "newest" else 200


async def _create(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    with ctx.state.db.transaction() as c:
        row = export_row(c, pid, ctx.param("id"))
        timing = ExportTiming.of(loads(row["data"]), row["interval"])
        start, end = backfill_bounds(body, ctx.now, timing, generation=ctx.state.options.generation)
        backfill_id = create_backfill(ctx, c, row, start, end)
    return ok({"backfill_id": backfill_id}, created_status(ctx))


@api("batch_export:write")
async def export_backfill(ctx: Ctx) -> Response:
    """The deprecated singular form; the newest service no longer has it."""
    if ctx.state.options.generation == "newest":
        raise not_found()
    return await _create(ctx)


@api("batch_export:write")
async def backfill_create(ctx: Ctx) -> Response:
    return await _create(ctx)


def backfill_state(c: Any, row: Any) -> dict[str, Any]:
    """Status, finish time and progress, from the backfill's runs (queued, in flight, finished)."""
    runs = c.execute("SELECT status, finished_at, last_updated_at FROM runs WHERE backfill_id = ?",
                     (row["id"],)).fetchall()
    pending = c.execute("SELECT count(*) FROM pending_runs WHERE backfill_id = ?", (row["id"],)).fetchone()[0]
    finished = [r for r in runs if r["status"] in TERMINAL]
    finished_at = max((r["finished_at"] or r["last_updated_at"] for r in finished), default=None)
    if row["cancelled_at"]:
        status, finished_at = "Cancelled", row["cancelled_at"]
    elif pending or len(finished) < len(runs):
        status, finished_at = ("Running" if runs else "Starting"), None
    elif any(r["status"] in FAILED for r in finished):
        status = "Failed"
    else:
        status = "Completed"
    total = int(row["total_runs"])
    progress: dict[str, Any] | None = None
    if status == "Completed":
        progress = {"total_runs": total, "finished_runs": total, "progress": 1.0}
    elif status in ("Running", "Starting") and total and row["start_at"]:
        done = len(finished)
        total = max(total, done)
        progress = {"total_runs": total, "finished_runs": done, "progress": round(done / total, 1)}
    updated = max([row["created_at"], *(r["last_updated_at"] for r in runs), row["cancelled_at"] or ""])
    return {"status": status, "finished_at": finished_at, "last_updated_at": updated, "progress": progress}


def backfill_shape(c: Any, row: Any, team_id: int, generation: str) -> dict[str, Any]:
    out = {"id": row["id"], "batch_export": row["export_id"], "team": team_id, "start_at": row["start_at"],
           "end_at": row["end_at"], "created_at": row["created_at"], **backfill_state(c, row)}
    if generation == "newest":
        out["adjusted_start_at"] = None
        out["total_records_count"] = None
    return out


def _backfill_row(c: Any, eid: str, bid: str) -> Any:
    row = c.execute("SELECT * FROM backfills WHERE id = ? AND export_id = ?", (bid, eid)).fetchone()
    if row is None:
        raise not_found()
    return row


def _cursor(raw: str | None) -> int:
    if not raw:
        return 0
    try:
        offset = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))["o"]
        if not isinstance(offset, int) or offset < 0:
            raise ValueError
        return offset
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise ServiceError(404, "invalid_request", "not_found", "Invalid cursor") from exc


def _cursor_url(ctx: Ctx, offset: int) -> str:
    token = base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode().rstrip("=")
    return str(ctx.request.url.include_query_params(cursor=token))


@api("batch_export:read")
async def backfills_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("id")
    ordering = ctx.request.query_params.get("ordering", "-created_at")
    if ordering not in ("created_at", "-created_at", "start_at", "-start_at"):
        ordering = "-created_at"
    column, desc = ordering.lstrip("-"), ordering.startswith("-")
    offset = _cursor(ctx.request.query_params.get("cursor"))
    with ctx.state.db.read() as c:
        export_row(c, pid, eid)
        rows = c.execute(f"SELECT * FROM backfills WHERE export_id = ? ORDER BY {column} {'DESC' if desc else 'ASC'}, "
                         "id LIMIT ? OFFSET ?", (eid, BACKFILLS_PAGE + 1, offset)).fetchall()
        results = [backfill_shape(c, r, pid, ctx.state.options.generation) for r in rows[:BACKFILLS_PAGE]]
    nxt = _cursor_url(ctx, offset + BACKFILLS_PAGE) if len(rows) > BACKFILLS_PAGE else None
    prev = _cursor_url(ctx, max(0, offset - BACKFILLS_PAGE)) if offset > 0 else None
    return ok({"next": nxt, "previous": prev, "results": results})


@api("batch_export:read")
async def backfill_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        export_row(c, pid, ctx.param("id"))
        row = _backfill_row(c, ctx.param("id"), ctx.param("backfill_id"))
        return ok(backfill_shape(c, row, pid, ctx.state.options.generation))


@api("batch_export:write")
async def backfill_cancel(ctx: Ctx) -> Response:
    """Only a Running or Starting backfill; its queued runs are dropped and its runs in flight cancelled."""
    pid = ctx.project_id()
    await ctx.json()
    now = iso(ctx.now)
    with ctx.state.db.transaction() as c:
        export_row(c, pid, ctx.param("id"))
        row = _backfill_row(c, ctx.param("id"), ctx.param("backfill_id"))
        status = backfill_state(c, row)["status"]
        if status not in ("Running", "Starting"):
            raise validation_error(f"Cannot cancel a backfill that is in '{status}' status", None)
        c.execute("UPDATE backfills SET cancelled_at = ? WHERE id = ?", (now, row["id"]))
        c.execute("DELETE FROM pending_runs WHERE backfill_id = ?", (row["id"],))
        c.execute("UPDATE runs SET status = 'Cancelled', active = 0, finished_at = ?, last_updated_at = ? "
                  "WHERE backfill_id = ? AND active = 1", (now, now, row["id"]))
    return ok({"cancelled": True})


def backfill_routes(prefixes: tuple[str, ...]) -> list[BaseRoute]:
    out: list[BaseRoute] = []
    for prefix in prefixes:
        b = prefix + "/batch_exports/{id}"
        out += routes(b + "/backfill", export_backfill, ["POST"])
        out += routes(b + "/backfills", backfills_list, ["GET"]) + routes(b + "/backfills", backfill_create, ["POST"])
        out += routes(b + "/backfills/{backfill_id}", backfill_retrieve, ["GET"])
        out += routes(b + "/backfills/{backfill_id}/cancel", backfill_cancel, ["POST"])
    return out

