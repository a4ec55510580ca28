"""The sandbox's HTTP surface: every operation of the spec plus the real service's list endpoints.

Handlers are thin: authenticate, check the scope, resolve the project, validate, then one
transaction against the store. Errors always use the real envelope (see ``errors.py``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
import uuid
from collections.abc import Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from tui.clock import Clock
from tui.sandbox import shapes
from tui.sandbox.auth import ApiKey, KeyStore, require_scope
from tui.sandbox.db import Database, dumps, loads, set_meta
from tui.sandbox.errors import ApiError, method_not_allowed, not_found, parse_error, validation_error
from tui.sandbox.faults import FaultRegistry, RequestLog, SandboxMiddleware, parse_fault, parse_fault_spec
from tui.sandbox.openapi import build_schema
from tui.sandbox.options import SandboxOptions
from tui.sandbox.seed import flag_doc, internal_flag_filters, seed_database
from tui.sandbox.simulator import Simulator
from tui.sandbox.summaries import summarize
from tui.sandbox.timeutil import INTERVALS, floor_interval, iso, parse_input_datetime, parse_iso, parse_window_bound
from tui.sandbox.validation import backfill_bounds, export_patch, survey_payload

RUN_STATUSES = ("Cancelled", "Completed", "ContinuedAsNew", "Failed", "FailedRetryable", "FailedBilling",
                "Terminated", "TimedOut", "Running", "Starting")
LOG_LEVELS = ("DEBUG", "LOG", "INFO", "WARN", "WARNING", "ERROR")
RUNS_PAGE = 100
MAX_BACKFILL_RUNS = 10_000
SQL_INT_MAX = 2**63 - 1  # the largest value SQLite binds; larger ints raise OverflowError


class SandboxState:
    """Everything a request handler needs; one per app."""

    def __init__(self, options: SandboxOptions, clock: Clock) -> None:
        self.options = options
        self.clock = clock
        self.keys = KeyStore(options.keys)
        self.faults = FaultRegistry(options.seed)
        for spec in options.faults:
            self.faults.add(parse_fault_spec(spec))
        self.requests = RequestLog()
        self.db = Database(options.db_path)
        self.simulator = Simulator(self.db, clock, options.seed)
        self.rng = random.Random(options.seed)
        if self.db.get_meta("seeded") is None:
            self.seed_now()
        else:
            saved = self.db.get_meta("sim_now")
            jump = getattr(clock, "jump_to", None)
            if saved and callable(jump) and clock.now() < parse_iso(saved):
                jump(parse_iso(saved))
        self.seeded_at = parse_iso(self.db.get_meta("seeded_at") or iso(clock.now()))

    def seed_now(self) -> None:
        now = self.clock.now()
        seed_database(self.db, self.simulator, now, self.options.seed, self.options.surveys, self.options.exports)
        self.seeded_at = now

    def reset(self) -> None:
        """Wipe and reseed at the current simulated time (holds the lock so the simulator waits)."""
        with self.db.lock:
            with self.db.transaction() as c:
                for table in ("meta", "projects", "users", "flags", "surveys", "activity", "exports", "runs",
                              "pending_runs", "backfills", "logs"):
                    c.execute(f"DELETE FROM {table}")
                c.execute("DELETE FROM sqlite_sequence")
            self.seed_now()


@dataclass
class Ctx:
    request: Request
    state: SandboxState
    key: ApiKey

    @property
    def now(self) -> datetime:
        return self.state.clock.now()

    def param(self, name: str) -> str:
        return str(self.request.path_params[name])

    def project_id(self) -> int:
        raw = self.param("project_id")
        if raw == "@current":
            return 1
        # ASCII digits only ("²".isdigit() is true but int() refuses it) and within SQLite's integer range.
        if not re.fullmatch(r"[0-9]{1,18}", raw):
            raise not_found("Project not found.")
        pid = int(raw)
        with self.state.db.read() as c:
            if c.execute("SELECT 1 FROM projects WHERE id = ?", (pid,)).fetchone() is None:
                raise not_found("Project not found.")
        return pid

    async def json(self) -> dict[str, Any]:
        raw = await self.request.body()
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
            # Lone surrogates ("\\ud800") parse but cannot be stored as UTF-8 text in SQLite.
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except (ValueError, UnicodeError) as exc:
            raise parse_error(str(exc)) from exc
        except RecursionError as exc:
            raise parse_error("nested too deeply") from exc
        if not isinstance(data, dict):
            raise validation_error(f"Invalid data. Expected a dictionary, but got {type(data).__name__}.", None)
        return data


Handler = Callable[[Ctx], Awaitable[Response]]


def api(scope: str | None) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler with authentication, the scope check and error rendering."""

    def wrap(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            state: SandboxState = request.app.state.sandbox
            try:
                key = state.keys.authenticate(request.headers.get("authorization"),
                                              request.query_params.get("personal_api_key"))
                if scope:
                    require_scope(key, scope)
                return await fn(Ctx(request, state, key))
            except ApiError as exc:
                return exc.response()

        endpoint.__name__ = fn.__name__
        return endpoint

    return wrap


def _int_param(request: Request, name: str, default: int) -> int:
    """DRF's limit/offset paginator ignores unusable values and falls back to the default.

    There is no server maximum; values are only clamped to what SQLite can bind.
    """
    raw = request.query_params.get(name)
    try:
        value = int(raw) if raw is not None else default
    except ValueError:
        return default
    return min(value, SQL_INT_MAX) if value >= 0 else default


def _limit_offset(request: Request, count: int, limit: int, offset: int) -> tuple[str | None, str | None]:
    url = request.url
    nxt = str(url.include_query_params(limit=limit, offset=offset + limit)) if offset + limit < count else None
    prev: str | None = None
    if offset > 0 and limit > 0:
        if offset - limit <= 0:
            prev = str(url.remove_query_params("offset").include_query_params(limit=limit))
        else:
            prev = str(url.include_query_params(limit=limit, offset=offset - limit))
    return nxt, prev


def _ok(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status)


# ---------------------------------------------------------------------------------------------
# Projects
# ---------------------------------------------------------------------------------------------
@api("project:read")
async def projects_list(ctx: Ctx) -> Response:
    limit = _int_param(ctx.request, "limit", 100) or 100
    offset = _int_param(ctx.request, "offset", 0)
    with ctx.state.db.read() as c:
        rows = c.execute("SELECT data FROM projects ORDER BY id").fetchall()
    items = [loads(r["data"]) for r in rows]
    search = ctx.request.query_params.get("search")
    if search:
        items = [p for p in items if search.lower() in p["name"].lower()]
    nxt, prev = _limit_offset(ctx.request, len(items), limit, offset)
    return _ok({"count": len(items), "next": nxt, "previous": prev, "results": items[offset:offset + limit]})


@api("project:read")
async def project_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        row = c.execute("SELECT data FROM projects WHERE id = ?", (pid,)).fetchone()
    return _ok(loads(row["data"]))


# ---------------------------------------------------------------------------------------------
# Surveys
# ---------------------------------------------------------------------------------------------
def _survey_row(c: Any, pid: int, sid: str) -> Any:
    row = c.execute("SELECT * FROM surveys WHERE id = ? AND project_id = ?", (sid, pid)).fetchone()
    if row is None:
        raise not_found()
    return row


@api("survey:read")
async def surveys_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    q = ctx.request.query_params
    limit = _int_param(ctx.request, "limit", 100) or 100
    offset = _int_param(ctx.request, "offset", 0)
    where: list[str] = ["project_id = ?"]
    args: list[Any] = [pid]
    if q.get("search"):
        where.append("name LIKE ? ESCAPE '\\'")
        term = q["search"].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args.append(f"%{term}%")
    archived = q.get("archived")
    if archived is not None and archived.lower() in ("true", "false", "1", "0"):
        where.append("archived = ?")
        args.append(1 if archived.lower() in ("true", "1") else 0)
    clause = " AND ".join(where)
    with ctx.state.db.read() as c:
        count = c.execute(f"SELECT count(*) FROM surveys WHERE {clause}", args).fetchone()[0]
        rows = c.execute(
            f"SELECT * FROM surveys WHERE {clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
            [*args, limit, offset],
        ).fetchall()
        results = [shapes.survey(c, r) for r in rows]
    nxt, prev = _limit_offset(ctx.request, count, limit, offset)
    return _ok({"count": count, "next": nxt, "previous": prev, "results": results})


@api("survey:read")
async def survey_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return _ok(shapes.survey(c, _survey_row(c, pid, ctx.param("id"))))


def _flag_in_project(c: Any, pid: int, flag_id: Any, attr: str) -> int | None:
    if flag_id is None:
        return None
    row = c.execute("SELECT data FROM flags WHERE id = ? AND team_id = ?", (int(flag_id), pid)).fetchone()
    if row is None or loads(row["data"]).get("deleted"):
        raise validation_error("Feature Flag with this ID does not exist", attr)
    return int(flag_id)


def _ensure_question_ids(doc: dict[str, Any]) -> None:
    questions = doc.get("questions")
    if isinstance(questions, list):
        for q in questions:
            if isinstance(q, dict) and not q.get("id"):
                q["id"] = str(uuid.uuid4())


def _add_flag(c: Any, doc: dict[str, Any]) -> int:
    cur = c.execute("INSERT INTO flags(team_id, data) VALUES(?, ?)", (doc["team_id"], dumps(doc)))
    return int(cur.lastrowid)


def _set_flag_deleted(c: Any, flag_id: int | None) -> None:
    if flag_id is None:
        return
    row = c.execute("SELECT data FROM flags WHERE id = ?", (flag_id,)).fetchone()
    if row is not None:
        doc = loads(row["data"])
        doc["deleted"], doc["active"] = True, False
        c.execute("UPDATE flags SET data = ? WHERE id = ?", (dumps(doc), flag_id))


def _apply_flags(c: Any, pid: int, sid: str, name: str, body: dict[str, Any], doc: dict[str, Any]) -> None:
    """linked/targeting flags from the write-only inputs; an internal flag once the survey has a start."""
    if "linked_flag_id" in body:
        doc["linked_flag_id"] = _flag_in_project(c, pid, body["linked_flag_id"], "linked_flag_id")
    if body.get("targeting_flag_id") is not None:
        doc["__targeting_flag"] = _flag_in_project(c, pid, body["targeting_flag_id"], "targeting_flag_id")
    if body.get("targeting_flag_filters") is not None:
        existing = doc.get("__targeting_flag")
        row = c.execute("SELECT data FROM flags WHERE id = ?", (existing,)).fetchone() if existing else None
        if row is not None:
            fdoc = loads(row["data"])
            fdoc["filters"] = body["targeting_flag_filters"]
            c.execute("UPDATE flags SET data = ? WHERE id = ?", (dumps(fdoc), existing))
        else:
            doc["__targeting_flag"] = _add_flag(c, flag_doc(pid, f"survey-targeting-{uuid.uuid4().hex[:8]}",
                                                            f"Targeting flag for survey {name}",
                                                            body["targeting_flag_filters"]))
    if body.get("remove_targeting_flag"):
        _set_flag_deleted(c, doc.get("__targeting_flag"))
        doc["__targeting_flag"] = None
    if doc.get("start_date") and not doc.get("__internal_flag"):
        doc["__internal_flag"] = _add_flag(c, flag_doc(pid, f"survey-targeting-{sid[:8]}-custom",
                                                       f"Internal targeting flag for survey {name}",
                                                       internal_flag_filters(sid)))


def _activity(c: Any, pid: int, item_id: str, name: str, user_id: int, activity: str,
              changes: list[dict[str, Any]] | None, at: datetime) -> None:
    entry = {"id": str(uuid.uuid4()), "user_id": user_id, "activity": activity, "scope": "Survey",
             "item_id": item_id, "detail": {"id": None, "name": name, "short_id": None, "type": None,
                                            "changes": changes, "merge": None, "trigger": None}}
    c.execute("INSERT INTO activity(project_id, item_id, created_at, data) VALUES(?,?,?,?)",
              (pid, item_id, iso(at), dumps(entry)))


@api("survey:write")
async def survey_create(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    fields = survey_payload(body, creating=True)
    now = ctx.now
    sid = str(uuid.uuid4())
    with ctx.state.db.transaction() as c:
        if c.execute("SELECT 1 FROM surveys WHERE project_id = ? AND name = ?", (pid, fields["name"])).fetchone():
            raise validation_error("There is already a survey with this name.", "name", code="unique")
        doc: dict[str, Any] = {**shapes.SURVEY_DEFAULTS, **fields, "created_at": iso(now),
                               "__created_by": ctx.key.user_id, "__targeting_flag": None, "__internal_flag": None}
        _ensure_question_ids(doc)
        _apply_flags(c, pid, sid, fields["name"], body, doc)
        c.execute(
            "INSERT INTO surveys(id, project_id, name, created_at, archived, responses_base, responses_rate, data) "
            "VALUES(?,?,?,?,?,0,0,?)",
            (sid, pid, fields["name"], iso(now), int(bool(doc.get("archived"))), dumps(doc)),
        )
        _activity(c, pid, sid, fields["name"], ctx.key.user_id, "created", None, now)
        row = _survey_row(c, pid, sid)
        return _ok(shapes.survey(c, row, write_response=True), 201)


@api("survey:write")
async def survey_update(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    sid = ctx.param("id")
    with ctx.state.db.read() as c:
        _survey_row(c, pid, sid)
    fields = survey_payload(body, creating=False)
    now = ctx.now
    with ctx.state.db.transaction() as c:
        row = _survey_row(c, pid, sid)
        doc = loads(row["data"])
        name = fields.get("name", row["name"])
        if "name" in fields and c.execute(
            "SELECT 1 FROM surveys WHERE project_id = ? AND name = ? AND id != ?", (pid, name, sid)
        ).fetchone():
            raise validation_error("There is already another survey with this name.", "name", code="unique")
        before = dict(doc)
        doc.update(fields)
        _ensure_question_ids(doc)
        _apply_flags(c, pid, sid, name, body, doc)
        changes = [
            {"type": "Survey", "action": "changed", "field": k, "before": before.get(k), "after": doc.get(k)}
            for k in list(fields) + (["linked_flag_id"] if "linked_flag_id" in body else [])
            if before.get(k) != doc.get(k)
        ]
        if before.get("__targeting_flag") != doc.get("__targeting_flag") or "targeting_flag_filters" in body:
            changes.append({"type": "Survey", "action": "changed", "field": "targeting_flag",
                            "before": before.get("__targeting_flag"), "after": doc.get("__targeting_flag")})
        c.execute("UPDATE surveys SET name = ?, archived = ?, data = ? WHERE id = ?",
                  (name, int(bool(doc.get("archived"))), dumps(doc), sid))
        if changes:
            _activity(c, pid, sid, name, ctx.key.user_id, "updated", changes, now)
        return _ok(shapes.survey(c, _survey_row(c, pid, sid), write_response=True))


@api("survey:write")
async def survey_delete(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    sid = ctx.param("id")
    with ctx.state.db.transaction() as c:
        row = _survey_row(c, pid, sid)
        doc = loads(row["data"])
        _set_flag_deleted(c, doc.get("__targeting_flag"))
        _set_flag_deleted(c, doc.get("__internal_flag"))
        c.execute("DELETE FROM surveys WHERE id = ?", (sid,))
        _activity(c, pid, sid, row["name"], ctx.key.user_id, "deleted", None, ctx.now)
    return Response(status_code=204)


def _page_param(request: Request, name: str, default: int, maximum: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise validation_error("A valid integer is required.", name) from exc
    if value < 1 or (maximum is not None and value > maximum):
        raise validation_error(f"Ensure {name} is between 1 and {maximum or 'any'}.", name)
    return value


async def _activity_page(ctx: Ctx, pid: int, item_id: str | None) -> Response:
    page = _page_param(ctx.request, "page", 1)
    limit = _page_param(ctx.request, "limit", 10, 1000)
    where = "project_id = ?"
    args: list[Any] = [pid]
    if item_id is not None:
        where += " AND item_id = ?"
        args.append(item_id)
    with ctx.state.db.read() as c:
        total = c.execute(f"SELECT count(*) FROM activity WHERE {where}", args).fetchone()[0]
        rows = c.execute(f"SELECT created_at, data FROM activity WHERE {where} ORDER BY created_at DESC, seq DESC "
                         "LIMIT ? OFFSET ?", [*args, limit, min((page - 1) * limit, SQL_INT_MAX)]).fetchall()
        results = []
        for r in rows:
            entry = loads(r["data"])
            u = shapes.user(c, entry.pop("user_id", None)) or {"first_name": "System", "email": None,
                                                                "is_system": True}
            results.append({"id": entry["id"], "user": u, "activity": entry["activity"], "scope": entry["scope"],
                            "item_id": entry["item_id"], "detail": entry["detail"], "created_at": r["created_at"]})
    url = ctx.request.url
    nxt = str(url.include_query_params(page=page + 1, limit=limit)) if page * limit < total else None
    prev = str(url.include_query_params(page=page - 1, limit=limit)) if page > 1 else None
    return _ok({"results": results, "next": nxt, "previous": prev, "total_count": total})


@api("activity_log:read")
async def surveys_activity(ctx: Ctx) -> Response:
    return await _activity_page(ctx, ctx.project_id(), None)


@api("activity_log:read")
async def survey_activity(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    sid = ctx.param("id")
    with ctx.state.db.read() as c:
        _survey_row(c, pid, sid)
    return await _activity_page(ctx, pid, sid)


@api("survey:read")
async def surveys_responses_count(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    now = ctx.now
    out: dict[str, int] = {}
    with ctx.state.db.read() as c:
        for row in c.execute("SELECT * FROM surveys WHERE project_id = ?", (pid,)).fetchall():
            n = shapes.responses_count(row, loads(row["data"]), now, ctx.state.seeded_at)
            if n > 0:
                out[row["id"]] = n
    return _ok(out)


@api("survey:read")
async def survey_summarize(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    sid = ctx.param("id")
    await ctx.json()
    with ctx.state.db.read() as c:
        row = _survey_row(c, pid, sid)
    doc = loads(row["data"])
    questions = doc.get("questions") or []
    q = ctx.request.query_params
    index: int | None = None
    if q.get("question_index") is not None:
        try:
            index = int(q["question_index"])
        except ValueError as exc:
            raise validation_error("A valid integer is required.", "question_index") from exc
        if not 0 <= index < len(questions):
            raise validation_error("Question index out of range.", "question_index")
    elif q.get("question_id"):
        ids = [qq.get("id") for qq in questions if isinstance(qq, dict)]
        if q["question_id"] not in ids:
            raise validation_error("Question not found.", "question_id")
        index = ids.index(q["question_id"])
    lo, hi = ctx.state.options.summary_delay
    await asyncio.sleep(ctx.state.rng.uniform(lo, hi) if hi > 0 else 0)
    count = shapes.responses_count(row, doc, ctx.now, ctx.state.seeded_at)
    body = summarize(doc, index, count, ctx.state.options.seed)
    body["generated_at"] = iso(ctx.now)
    return _ok(body)


# ---------------------------------------------------------------------------------------------
# Batch exports
# ---------------------------------------------------------------------------------------------
def _export_row(c: Any, pid: int, eid: str) -> Any:
    row = c.execute("SELECT * FROM exports WHERE id = ? AND project_id = ? AND deleted = 0", (eid, pid)).fetchone()
    if row is None:
        raise not_found()
    return row


def _export_doc(row: Any) -> dict[str, Any]:
    doc = loads(row["data"])
    doc["id"] = row["id"]
    doc["interval"] = row["interval"]
    return dict(doc)


@api("batch_export:read")
async def exports_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    limit = _int_param(ctx.request, "limit", 100) or 100
    offset = _int_param(ctx.request, "offset", 0)
    with ctx.state.db.read() as c:
        count = c.execute("SELECT count(*) FROM exports WHERE project_id = ? AND deleted = 0", (pid,)).fetchone()[0]
        rows = c.execute("SELECT * FROM exports WHERE project_id = ? AND deleted = 0 "
                         "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", (pid, limit, offset)).fetchall()
        results = [shapes.export(c, r) for r in rows]
    nxt, prev = _limit_offset(ctx.request, count, limit, offset)
    return _ok({"count": count, "next": nxt, "previous": prev, "results": results})


@api("batch_export:read")
async def export_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return _ok(shapes.export(c, _export_row(c, pid, ctx.param("id"))))


def _set_paused(c: Any, row: Any, paused: bool, now: datetime) -> None:
    doc = loads(row["data"])
    if paused and not row["paused"]:
        doc["last_paused_at"] = iso(now)
    doc["last_updated_at"] = iso(now)
    step = timedelta(seconds=INTERVALS[row["interval"]])
    next_end = iso(floor_interval(now, row["interval"]) + step) if not paused else row["next_end"]
    c.execute("UPDATE exports SET paused = ?, next_end = ?, data = ? WHERE id = ?",
              (int(paused), next_end, dumps(doc), row["id"]))


@api("batch_export:write")
async def export_update(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("id")
    body = await ctx.json()
    now = ctx.now
    with ctx.state.db.transaction() as c:
        row = _export_row(c, pid, eid)
        doc = loads(row["data"])
        current = {"start_at": row["start_at"], "end_at": row["end_at"], "destination": doc["destination"]}
        fields = export_patch(body, current)
        if "paused" in fields:
            _set_paused(c, row, fields.pop("paused"), now)
            row = _export_row(c, pid, eid)
            doc = loads(row["data"])
        for key in ("name", "model", "hogql_query", "last_paused_at"):
            if key in fields:
                doc[key] = fields[key]
        if "destination" in fields:
            dest = fields["destination"]
            if isinstance(dest.get("config"), dict):
                doc["destination"]["config"] = shapes.deep_merge(doc["destination"].get("config") or {},
                                                                 dest["config"])
            if "integration_id" in dest:
                doc["integration"] = dest["integration_id"]
        doc["last_updated_at"] = iso(now)
        interval = fields.get("interval", row["interval"])
        next_end = row["next_end"]
        if interval != row["interval"]:
            next_end = iso(floor_interval(now, interval) + timedelta(seconds=INTERVALS[interval]))
        c.execute("UPDATE exports SET interval = ?, start_at = ?, end_at = ?, next_end = ?, data = ? WHERE id = ?",
                  (interval, fields.get("start_at", row["start_at"]), fields.get("end_at", row["end_at"]), next_end,
                   dumps(doc), eid))
        return _ok(shapes.export(c, _export_row(c, pid, eid)))


@api("batch_export:write")
async def export_delete(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("id")
    now = iso(ctx.now)
    with ctx.state.db.transaction() as c:
        _export_row(c, pid, eid)
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
        _set_paused(c, _export_row(c, pid, ctx.param("id")), True, ctx.now)
    return _ok({"paused": True})


@api("batch_export:write")
async def export_unpause(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    now = ctx.now
    with ctx.state.db.transaction() as c:
        row = _export_row(c, pid, ctx.param("id"))
        was_paused_at = loads(row["data"]).get("last_paused_at")
        _set_paused(c, row, False, now)
        if body.get("backfill") and row["paused"] and was_paused_at:
            start = parse_iso(was_paused_at)
            if start < now:
                _create_backfill(ctx, c, _export_row(c, pid, row["id"]), start, now)
    return _ok({"paused": False})


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


def _create_backfill(ctx: Ctx, c: Any, row: Any, start: datetime, end: datetime,
                     intervals: list[tuple[str | None, str]] | None = None) -> str:
    now = ctx.now
    if intervals is None:
        intervals = list(_backfill_intervals(row["interval"], start, end, now))
    backfill_id = str(uuid.uuid4())
    c.execute("INSERT INTO backfills(id, export_id, start_at, end_at, created_at, total_runs) VALUES(?,?,?,?,?,?)",
              (backfill_id, row["id"], iso(start), iso(end), iso(now), len(intervals)))
    ctx.state.simulator.queue_backfill(c, _export_doc(row), intervals, now, backfill_id, profile=row["profile"])
    return backfill_id


async def _backfill(ctx: Ctx, status: int) -> Response:
    pid = ctx.project_id()
    body = await ctx.json()
    with ctx.state.db.transaction() as c:
        row = _export_row(c, pid, ctx.param("id"))
        doc = loads(row["data"])
        start, end = backfill_bounds(body, ctx.now, require_end=doc["destination"]["type"] != "HTTP")
        backfill_id = _create_backfill(ctx, c, row, start, end)
    return _ok({"backfill_id": backfill_id}, status)


@api("batch_export:write")
async def export_backfill(ctx: Ctx) -> Response:
    return await _backfill(ctx, 200)


@api("batch_export:write")
async def export_backfills(ctx: Ctx) -> Response:
    return await _backfill(ctx, 201)


def _log_query(ctx: Ctx, column: str, value: str) -> Response:
    if ctx.state.options.logs_forbidden:
        raise ApiError(403, "authentication_error", "permission_denied",
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
    return _ok({"results": [{"timestamp": r["timestamp"], "level": r["level"], "message": r["message"],
                             "log_source_id": r["export_id"], "instance_id": r["instance_id"]} for r in rows]})


@api("batch_export:read")
async def export_logs(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    eid = ctx.param("id")
    with ctx.state.db.read() as c:
        _export_row(c, pid, eid)
    return _log_query(ctx, "export_id", eid)


def _run_row(c: Any, pid: int, eid: str, rid: str) -> Any:
    _export_row(c, pid, eid)
    row = c.execute(f"SELECT {shapes.RUN_COLUMNS} FROM runs WHERE id = ? AND export_id = ?", (rid, eid)).fetchone()
    if row is None:
        raise not_found()
    return row


@api("batch_export:read")
async def run_logs(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        _run_row(c, pid, ctx.param("export_id"), ctx.param("id"))
    return _log_query(ctx, "run_id", ctx.param("id"))


@api("batch_export:read")
async def run_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return _ok(shapes.run(_run_row(c, pid, ctx.param("export_id"), ctx.param("id"))))


@api("batch_export:write")
async def run_retry(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    await ctx.json()
    with ctx.state.db.transaction() as c:
        run = _run_row(c, pid, ctx.param("export_id"), ctx.param("id"))
        row = _export_row(c, pid, ctx.param("export_id"))
        end = parse_iso(run["data_interval_end"])
        start = parse_iso(run["data_interval_start"]) if run["data_interval_start"] else end
        backfill_id = _create_backfill(ctx, c, row, start, end,
                                       [(run["data_interval_start"], run["data_interval_end"])])
    return _ok({"backfill_id": backfill_id})


def _cursor_encode(values: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(values, separators=(",", ":")).encode()).decode().rstrip("=")


def _cursor_decode(raw: str) -> dict[str, Any]:
    try:
        data = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        if not isinstance(data, dict) or not all(isinstance(data.get(k, ""), str) for k in ("v", "id")):
            raise ValueError
        return data
    except (ValueError, RecursionError) as exc:
        raise ApiError(404, "invalid_request", "not_found", "Invalid cursor") from exc


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
        _export_row(c, pid, eid)
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
    return _ok({"next": nxt, "previous": prev, "results": [shapes.run(r) for r in rows]})


# ---------------------------------------------------------------------------------------------
# Admin (no auth, never faulted)
# ---------------------------------------------------------------------------------------------
def _state(request: Request) -> SandboxState:
    state: SandboxState = request.app.state.sandbox
    return state


async def admin_faults(request: Request) -> Response:
    state = _state(request)
    if request.method == "GET":
        return _ok({"results": state.faults.list()})
    if request.method == "DELETE":
        state.faults.clear()
        return Response(status_code=204)
    try:
        data = json.loads(await request.body() or b"{}")
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        fault = state.faults.add(parse_fault(data))
    except (ValueError, TypeError) as exc:
        return validation_error(str(exc), None).response()
    return _ok(fault.to_dict(), 201)


async def admin_requests(request: Request) -> Response:
    state = _state(request)
    if request.method == "DELETE":
        state.requests.clear()
        return Response(status_code=204)
    return _ok({"results": state.requests.list()})


async def admin_clock(request: Request) -> Response:
    state = _state(request)
    return _ok({"now": iso(state.clock.now()), "speed": getattr(state.clock, "speed", 0.0)})


async def admin_reset(request: Request) -> Response:
    state = _state(request)
    state.reset()
    state.requests.clear()
    return _ok({"reset": True, "now": iso(state.clock.now())})


async def admin_tick(request: Request) -> Response:
    state = _state(request)
    state.simulator.tick()
    return _ok({"now": iso(state.clock.now())})


async def openapi_schema(request: Request) -> Response:
    return _ok(build_schema(str(request.base_url).rstrip("/")))


# ---------------------------------------------------------------------------------------------
# Routing
# ---------------------------------------------------------------------------------------------
def _routes(path: str, endpoint: Callable[[Request], Awaitable[Response]], methods: Iterable[str]) -> list[Route]:
    """The path with and without its trailing slash (the real router accepts both)."""
    return [Route(path + "/", endpoint, methods=list(methods)), Route(path, endpoint, methods=list(methods))]


def build_routes() -> list[BaseRoute]:
    s = "/api/projects/{project_id}/surveys"
    routes: list[BaseRoute] = []
    routes += _routes("/api/projects", projects_list, ["GET"])
    routes += _routes(s, surveys_list, ["GET"]) + _routes(s, survey_create, ["POST"])
    routes += _routes(s + "/activity", surveys_activity, ["GET"])
    routes += _routes(s + "/responses_count", surveys_responses_count, ["GET"])
    routes += _routes(s + "/{id}", survey_retrieve, ["GET"]) + _routes(s + "/{id}", survey_update, ["PATCH"])
    routes += _routes(s + "/{id}", survey_delete, ["DELETE"])
    routes += _routes(s + "/{id}/activity", survey_activity, ["GET"])
    routes += _routes(s + "/{id}/summarize_responses", survey_summarize, ["POST"])
    for prefix in ("/api/environments/{project_id}", "/api/projects/{project_id}"):
        b = prefix + "/batch_exports"
        routes += _routes(b, exports_list, ["GET"])
        routes += _routes(b + "/{id}", export_retrieve, ["GET"]) + _routes(b + "/{id}", export_update, ["PATCH"])
        routes += _routes(b + "/{id}", export_delete, ["DELETE"])
        routes += _routes(b + "/{id}/pause", export_pause, ["POST"])
        routes += _routes(b + "/{id}/unpause", export_unpause, ["POST"])
        routes += _routes(b + "/{id}/backfill", export_backfill, ["POST"])
        routes += _routes(b + "/{id}/backfills", export_backfills, ["POST"])
        routes += _routes(b + "/{id}/logs", export_logs, ["GET"])
        routes += _routes(b + "/{export_id}/runs", runs_list, ["GET"])
        routes += _routes(b + "/{export_id}/runs/{id}", run_retrieve, ["GET"])
        routes += _routes(b + "/{export_id}/runs/{id}/logs", run_logs, ["GET"])
        routes += _routes(b + "/{export_id}/runs/{id}/retry", run_retry, ["POST"])
    routes += _routes("/api/projects/{project_id}", project_retrieve, ["GET"])
    routes += _routes("/api/schema", openapi_schema, ["GET"])
    routes += _routes("/_sandbox/faults", admin_faults, ["GET", "POST", "DELETE"])
    routes += _routes("/_sandbox/requests", admin_requests, ["GET", "DELETE"])
    routes += _routes("/_sandbox/clock", admin_clock, ["GET"])
    routes += _routes("/_sandbox/reset", admin_reset, ["POST"])
    routes += _routes("/_sandbox/tick", admin_tick, ["POST"])
    return routes


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (one route per method, so Starlette's own Allow is partial)."""
    path = request.url.path
    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            methods |= route.methods
    return sorted(methods)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        error = method_not_allowed(request.method)
        error.headers["Allow"] = ", ".join(_allowed_methods(request))
        return error.response()
    if exc.status_code == 404:
        return not_found().response()
    return ApiError(exc.status_code, "invalid_request", "error", str(exc.detail)).response()


async def _server_error(request: Request, exc: Exception) -> Response:
    return ApiError(500, "server_error", "error", "A server error occurred.").response()


class _SandboxStarlette(Starlette):
    """Starlette with the fault/recording middleware *outside* the error middleware.

    Faults must see uvicorn's own ``send`` to be able to hang up on a client.
    """

    def build_middleware_stack(self) -> Any:
        inner = super().build_middleware_stack()
        state: SandboxState = self.state.sandbox
        return SandboxMiddleware(inner, state.faults, state.requests, state.keys.key_id_for_header)


def create_app(options: SandboxOptions, clock: Clock) -> Starlette:
    """Build the ASGI app (opens/seeds the database; the simulator thread runs with the app's lifespan)."""
    state = SandboxState(options, clock)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if options.simulate:
            state.simulator.start()
        try:
            yield
        finally:
            state.simulator.stop()
            if options.simulate:
                state.simulator.tick()
            with state.db.transaction() as c:
                set_meta(c, "sim_now", iso(state.clock.now()))

    app = _SandboxStarlette(
        routes=build_routes(),
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        lifespan=lifespan,
    )
    app.state.sandbox = state
    return app
