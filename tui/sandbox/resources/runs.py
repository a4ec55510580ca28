"""Runs and logs: the runs list (cursor paging), one run, retry, and export/run logs."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox import shapes
from tui.sandbox.endpoint import Ctx, api, ok, routes
from tui.sandbox.errors import ServiceError, validation_error
from tui.sandbox.resources.backfills import create_backfill, created_status
from tui.sandbox.resources.lookup import export_row, run_row
from tui.sandbox.timeutil import iso, parse_input_datetime, parse_iso, parse_window_bound

RUN_STATUSES = ("Cancelled", "Completed", "ContinuedAsNew", "Failed", "FailedRetryable", "FailedBilling",
                "Terminated", "TimedOut", "Running", "Starting")
LOG_LEVELS = ("DEBUG", "LOG", "INFO", "WARN", "WARNING", "ERROR")
RUNS_PAGE = 100


def _log_query(ctx: Ctx, column: str, value: str) -> Response:
    if ctx.state.options.logs_forbidden:
        raise ServiceError(403, "authentication_error", "permission_denied",
                           "This action does not support personal API key access")
    q = ctx.request.query_params
    where: list[str] = [f"{column} = ?"]
    args: list[Any] = [value]
    levels: list[str] = []
    for raw in q.getlist("level"):
        levels += [lv.strip().upper() for lv in raw.split(",") if lv.strip()]
    for lv in levels:
        if lv not in LOG_LEVELS:
            raise validation_error(f'"{lv}" is not a valid choice.', "level", code="invalid_choice")
    if levels:
        wanted = set(levels)
        if wanted & {"WARN", "WARNING"}:
            wanted |= {"WARN", "WARNING"}
        where.append(f"level IN ({','.join('?' * len(wanted))})")
        args += sorted(wanted)
    if q.get("search"):
        where.append("lower(message) LIKE ? ESCAPE '\\'")
        term = q["search"].lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args.append(f"%{term}%")
    ignore_paging = ctx.state.options.logs_ignore_paging
    for bound, op in (("after", ">"), ("before", "<")):
        if q.get(bound) and not ignore_paging:
            try:
                args.append(iso(parse_input_datetime(q[bound], allow_naive=True)))
            except ValueError as exc:
                raise validation_error("Datetime has wrong format.", bound) from exc
            where.append(f"timestamp {op} ?")
    if q.get("instance_id"):
        where.append("instance_id = ?")
        args.append(q["instance_id"])
    raw_limit = q.get("limit", "50")
    try:
        limit = int(raw_limit)
    except ValueError as exc:
        raise validation_error("A valid integer is required.", "limit") from exc
    if not 1 <= limit <= 500:
        raise validation_error("Ensure this value is between 1 and 500.", "limit",
                               code="max_value" if limit > 500 else "min_value")
    with ctx.state.db.read() as c:
        rows = c.execute(
            f"SELECT timestamp, level, message, export_id, instance_id FROM logs WHERE {' AND '.join(where)} "
            "ORDER BY timestamp DESC, seq DESC LIMIT ?", [*args, -1 if ignore_paging else limit]).fetchall()
    if ctx.state.options.generation == "older":
        # older servers serialise their BatchExportLogEntry dataclass (team, export and run ids) and page it
        # through the default limit/offset paginator, which also reads ``limit``: the count never exceeds the
        # limit and there is never a next page
        older = [{"team_id": ctx.project_id(), "batch_export_id": r["export_id"], "run_id": r["instance_id"],
                  "timestamp": r["timestamp"], "level": r["level"], "message": r["message"]} for r in rows]
        return ok({"count": len(older), "next": None, "previous": None, "results": older})
    return ok({"results": [{"timestamp": r["timestamp"], "level": r["level"], "message": r["message"],
                            "log_source_id": r["export_id"], "instance_id": r["instance_id"]} for r in rows]})


@api("batch_export:read")
async def export_logs(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("id")
    with ctx.state.db.read() as c:
        export_row(c, pid, eid)
    return _log_query(ctx, "export_id", eid)


@api("batch_export:read")
async def run_logs(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        run_row(c, pid, ctx.param("export_id"), ctx.param("id"))
    return _log_query(ctx, "run_id", ctx.param("id"))


@api("batch_export:read")
async def run_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return ok(shapes.run(run_row(c, pid, ctx.param("export_id"), ctx.param("id"))))


@api("batch_export:write")
async def run_retry(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    await ctx.json()
    with ctx.state.db.transaction() as c:
        run = run_row(c, pid, ctx.param("export_id"), ctx.param("id"))
        row = export_row(c, pid, ctx.param("export_id"))
        end = parse_iso(run["data_interval_end"])
        start = parse_iso(run["data_interval_start"]) if run["data_interval_start"] else end
        backfill_id = create_backfill(ctx, c, row, start, end,
                                      [(run["data_interval_start"], run["data_interval_end"])])
    return ok({"backfill_id": backfill_id}, created_status(ctx))


@api("batch_export:write")
async def run_cancel(ctx: Ctx) -> Response:
    """Only a Running or Starting run may be cancelled; it ends Cancelled at once."""
    pid = ctx.project_id()
    await ctx.json()
    now = iso(ctx.now)
    with ctx.state.db.transaction() as c:
        run = run_row(c, pid, ctx.param("export_id"), ctx.param("id"))
        if run["status"] not in ("Running", "Starting"):
            raise validation_error(f"Cannot cancel a run that is in '{run['status']}' status", None)
        c.execute("UPDATE runs SET status = 'Cancelled', active = 0, finished_at = ?, last_updated_at = ?, "
                  "latest_error = 'Cancelled: cancelled by an operator' WHERE id = ?", (now, now, run["id"]))
    return ok({"cancelled": True})


def _cursor_encode(values: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(values, separators=(",", ":")).encode()).decode().rstrip("=")


def _cursor_decode(raw: str) -> dict[str, Any]:
    try:
        data = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        if not isinstance(data, dict) or not all(isinstance(data.get(k, ""), str) for k in ("v", "id")):
            raise ValueError
        return data
    except (ValueError, RecursionError) as exc:
        raise ServiceError(404, "invalid_request", "not_found", "Invalid cursor") from exc


@api("batch_export:read")
async def runs_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("export_id")
    q = ctx.request.query_params
    now = ctx.now
    ordering = q.get("ordering", "-created_at")
    if ordering not in ("-created_at", "created_at", "data_interval_start", "-data_interval_start"):
        raise validation_error(f'"{ordering}" is not a valid ordering.', "ordering")
    column = ordering.lstrip("-")
    desc = ordering.startswith("-")
    lo_name, hi_name = ("after", "before") if column == "created_at" else ("start", "end")
    try:
        lo = parse_window_bound(q[lo_name], now) if q.get(lo_name) else now - timedelta(days=7)
        hi = parse_window_bound(q[hi_name], now) if q.get(hi_name) else now
    except ValueError as exc:
        bad = lo_name if q.get(lo_name) else hi_name
        raise validation_error("Datetime has wrong format.", bad) from exc
    expr = f"COALESCE({column}, '')"
    where = ["export_id = ?", f"{expr} >= ?", f"{expr} <= ?"]
    args: list[Any] = [eid, iso(lo), iso(hi)]
    statuses = q.getlist("status")
    for s in statuses:
        if s not in RUN_STATUSES:
            raise validation_error(f'"{s}" is not a valid choice.', "status", code="invalid_choice")
    if statuses:
        where.append(f"status IN ({','.join('?' * len(statuses))})")
        args += statuses
    cursor = _cursor_decode(q["cursor"]) if q.get("cursor") else None
    reverse = bool(cursor and cursor.get("r"))
    forward_desc = desc != reverse
    if cursor is not None:
        op = "<" if forward_desc else ">"
        where.append(f"({expr}, id) {op} (?, ?)")
        args += [cursor.get("v", ""), cursor.get("id", "")]
    order = "DESC" if forward_desc else "ASC"
    with ctx.state.db.read() as c:
        export_row(c, pid, eid)
        rows = c.execute(
            f"SELECT {shapes.RUN_COLUMNS}, {expr} AS k FROM runs WHERE {' AND '.join(where)} "
            f"ORDER BY {expr} {order}, id {order} LIMIT ?", [*args, RUNS_PAGE + 1]).fetchall()
    more = len(rows) > RUNS_PAGE
    rows = rows[:RUNS_PAGE]
    if reverse:
        rows.reverse()
    url = ctx.request.url.remove_query_params("cursor")
    nxt = prev = None
    if rows:
        first, last = rows[0], rows[-1]
        has_next = more if not reverse else True
        has_prev = (cursor is not None) if not reverse else more
        if has_next:
            nxt = str(url.include_query_params(cursor=_cursor_encode({"v": last["k"], "id": last["id"]})))
        if has_prev:
            prev = str(url.include_query_params(cursor=_cursor_encode({"v": first["k"], "id": first["id"], "r": 1})))
    return ok({"next": nxt, "previous": prev, "results": [shapes.run(r) for r in rows]})


def run_routes(prefixes: tuple[str, ...]) -> list[BaseRoute]:
    out: list[BaseRoute] = []
    for prefix in prefixes:
        b = prefix + "/batch_exports"
        out += routes(b + "/{id}/logs", export_logs, ["GET"])
        out += routes(b + "/{export_id}/runs", runs_list, ["GET"])
        out += routes(b + "/{export_id}/runs/{id}", run_retrieve, ["GET"])
        out += routes(b + "/{export_id}/runs/{id}/logs", run_logs, ["GET"])
        out += routes(b + "/{export_id}/runs/{id}/retry", run_retry, ["POST"])
        out += routes(b + "/{export_id}/runs/{id}/cancel", run_cancel, ["POST"])
    return out
