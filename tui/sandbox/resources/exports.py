"""Batch exports: list, create, retrieve, update (PATCH and PUT), delete, pause and unpause."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox import shapes
from tui.sandbox.db import dumps, loads
from tui.sandbox.endpoint import Ctx, api, int_param, limit_offset, ok, routes
from tui.sandbox.resources.backfills import create_backfill
from tui.sandbox.resources.lookup import export_row
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso, parse_iso
from tui.sandbox.validation import export_write


@api("batch_export:read")
async def exports_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    limit = int_param(ctx.request, "limit", 100) or 100
    offset = int_param(ctx.request, "offset", 0)
    with ctx.state.db.read() as c:
        count = c.execute("SELECT count(*) FROM exports WHERE project_id = ? AND deleted = 0", (pid,)).fetchone()[0]
        rows = c.execute("SELECT * FROM exports WHERE project_id = ? AND deleted = 0 "
                         "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", (pid, limit, offset)).fetchall()
        results = [shapes.export(c, r) for r in rows]
    nxt, prev = limit_offset(ctx.request, count, limit, offset)
    return ok({"count": count, "next": nxt, "previous": prev, "results": results})


@api("batch_export:read")
async def export_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return ok(shapes.export(c, export_row(c, pid, ctx.param("id"))))


def _set_paused(c: Any, row: Any, paused: bool, now: datetime) -> None:
    """Pause or unpause; already so, nothing changes (not even ``last_updated_at``), as in the real service."""
    if bool(row["paused"]) == paused:
        return
    doc = loads(row["data"])
    if paused and not row["paused"]:
        doc["last_paused_at"] = iso(now)
    doc["last_updated_at"] = iso(now)
    step = timedelta(seconds=INTERVALS[row["interval"]])
    next_end = iso(floor_interval(now, row["interval"]) + step) if not paused else row["next_end"]
    c.execute("UPDATE exports SET paused = ?, next_end = ?, data = ? WHERE id = ?",
              (int(paused), next_end, dumps(doc), row["id"]))


def _write_options(ctx: Ctx, pid: int) -> dict[str, bool]:
    return {"newest": ctx.state.options.generation == "newest",
            "high_frequency": pid in ctx.state.options.high_frequency_projects}


@api("batch_export:write")
async def export_create(ctx: Ctx) -> Response:
    """products/batch_exports/backend/api/batch_export.py BatchExportSerializer.create: 201 and the export."""
    pid = ctx.project_id()
    body = await ctx.json()
    now = ctx.now
    fields = export_write(body, None, **_write_options(ctx, pid))
    dest = fields["destination"]
    interval = fields["interval"]
    eid = str(uuid.uuid4())
    doc = {"name": fields["name"], "model": fields.get("model", "events"),
           "destination": {"type": dest["type"], "config": dict(dest.get("config") or {})},
           "hogql_query": fields.get("hogql_query") or "", "last_paused_at": None, "last_updated_at": iso(now),
           "filters": body.get("filters"), "timezone": fields.get("timezone", "UTC"),
           "interval_offset": fields.get("interval_offset"),
           "integration": dest.get("integration_id", dest.get("integration"))}
    next_end = iso(floor_interval(now, interval) + timedelta(seconds=INTERVALS[interval]))
    with ctx.state.db.transaction() as c:
        c.execute("INSERT INTO exports(id, project_id, created_at, deleted, paused, interval, start_at, end_at, "
                  "next_end, profile, data) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                  (eid, pid, iso(now), 0, int(bool(fields.get("paused"))), interval, fields.get("start_at"),
                   fields.get("end_at"), next_end, "normal", dumps(doc)))
        return ok(shapes.export(c, export_row(c, pid, eid)), 201)


@api("batch_export:write")
async def export_update(ctx: Ctx) -> Response:
    """PATCH changes the fields given; PUT needs every required field (name, destination, interval)."""
    pid = ctx.project_id()
    eid = ctx.param("id")
    body = await ctx.json()
    now = ctx.now
    with ctx.state.db.transaction() as c:
        row = export_row(c, pid, eid)
        doc = loads(row["data"])
        current = {"start_at": row["start_at"], "end_at": row["end_at"], "destination": doc["destination"],
                   "interval": row["interval"], "interval_offset": shapes.interval_offset(doc),
                   "integration": doc.get("integration")}
        fields = export_write(body, current, full=ctx.request.method == "PUT", **_write_options(ctx, pid))
        if "paused" in fields:
            _set_paused(c, row, fields.pop("paused"), now)
            row = export_row(c, pid, eid)
            doc = loads(row["data"])
        for key in ("name", "model", "hogql_query", "last_paused_at", "timezone", "interval_offset"):
            if key in fields:
                doc[key] = fields[key]
        if "destination" in fields:
            dest = fields["destination"]
            if isinstance(dest.get("config"), dict):
                doc["destination"]["config"] = shapes.deep_merge(doc["destination"].get("config") or {},
                                                                 dest["config"])
            for key in ("integration", "integration_id"):
                if key in dest:
                    doc["integration"] = dest[key]
        doc["last_updated_at"] = iso(now)
        interval = fields.get("interval", row["interval"])
        next_end = row["next_end"]
        if interval != row["interval"]:
            next_end = iso(floor_interval(now, interval) + timedelta(seconds=INTERVALS[interval]))
        c.execute("UPDATE exports SET interval = ?, start_at = ?, end_at = ?, next_end = ?, data = ? WHERE id = ?",
                  (interval, fields.get("start_at", row["start_at"]), fields.get("end_at", row["end_at"]), next_end,
                   dumps(doc), eid))
        return ok(shapes.export(c, export_row(c, pid, eid)))


@api("batch_export:write")
async def export_delete(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("id")
    now = iso(ctx.now)
    with ctx.state.db.transaction() as c:
        export_row(c, pid, eid)
        c.execute("UPDATE exports SET deleted = 1, paused = 1 WHERE id = ?", (eid,))
        c.execute("UPDATE runs SET status = 'Cancelled', active = 0, finished_at = ?, last_updated_at = ?, "
                  "latest_error = 'Cancelled: the batch export was deleted' WHERE export_id = ? AND active = 1",
                  (now, now, eid))
        c.execute("DELETE FROM pending_runs WHERE export_id = ?", (eid,))
    return Response(status_code=204)


@api("batch_export:write")
async def export_pause(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    await ctx.json()
    with ctx.state.db.transaction() as c:
        _set_paused(c, export_row(c, pid, ctx.param("id")), True, ctx.now)
    return ok({"paused": True})


@api("batch_export:write")
async def export_unpause(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    now = ctx.now
    with ctx.state.db.transaction() as c:
        row = export_row(c, pid, ctx.param("id"))
        was_paused_at = loads(row["data"]).get("last_paused_at")
        _set_paused(c, row, False, now)
        if body.get("backfill") and row["paused"] and was_paused_at:
            start = parse_iso(was_paused_at)
            if start < now:
                create_backfill(ctx, c, export_row(c, pid, row["id"]), start, now)
    return ok({"paused": False})


EXPORT_PREFIXES = ("/api/environments/{project_id}", "/api/projects/{project_id}")


def export_routes() -> list[BaseRoute]:
    out: list[BaseRoute] = []
    for prefix in EXPORT_PREFIXES:
        b = prefix + "/batch_exports"
        out += routes(b, exports_list, ["GET"]) + routes(b, export_create, ["POST"])
        out += routes(b + "/{id}", export_retrieve, ["GET"]) + routes(b + "/{id}", export_update, ["PATCH", "PUT"])
        out += routes(b + "/{id}", export_delete, ["DELETE"])
        out += routes(b + "/{id}/pause", export_pause, ["POST"])
        out += routes(b + "/{id}/unpause", export_unpause, ["POST"])
    return out
