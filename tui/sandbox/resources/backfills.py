"""Backfills: the older ``backfill/`` and the newest ``backfills/``, and the runs they queue."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox.db import loads
from tui.sandbox.endpoint import Ctx, api, ok, routes
from tui.sandbox.errors import validation_error
from tui.sandbox.resources.lookup import export_doc, export_row
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso
from tui.sandbox.validation import backfill_bounds

MAX_BACKFILL_RUNS = 10_000


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


def create_backfill(ctx: Ctx, c: Any, row: Any, start: datetime, end: datetime,
                    intervals: list[tuple[str | None, str]] | None = None) -> str:
    now = ctx.now
    if intervals is None:
        intervals = list(_backfill_intervals(row["interval"], start, end, now))
    backfill_id = str(uuid.uuid4())
    c.execute("INSERT INTO backfills(id, export_id, start_at, end_at, created_at, total_runs) VALUES(?,?,?,?,?,?)",
              (backfill_id, row["id"], iso(start), iso(end), iso(now), len(intervals)))
    ctx.state.simulator.queue_backfill(c, export_doc(row), intervals, now, backfill_id, profile=row["profile"])
    return backfill_id


async def _backfill(ctx: Ctx, status: int) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    with ctx.state.db.transaction() as c:
        row = export_row(c, pid, ctx.param("id"))
        doc = loads(row["data"])
        start, end = backfill_bounds(body, ctx.now, require_end=doc["destination"]["type"] != "HTTP")
        backfill_id = create_backfill(ctx, c, row, start, end)
    return ok({"backfill_id": backfill_id}, status)


@api("batch_export:write")
async def export_backfill(ctx: Ctx) -> Response:
    return await _backfill(ctx, 200)


@api("batch_export:write")
async def export_backfills(ctx: Ctx) -> Response:
    return await _backfill(ctx, 201)


def backfill_routes(prefixes: tuple[str, ...]) -> list[BaseRoute]:
    out: list[BaseRoute] = []
    for prefix in prefixes:
        b = prefix + "/batch_exports/{id}"
        out += routes(b + "/backfill", export_backfill, ["POST"])
        out += routes(b + "/backfills", export_backfills, ["POST"])
    return out
