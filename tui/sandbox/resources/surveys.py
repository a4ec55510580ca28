"""Surveys: list, CRUD, activity, response counts and summaries."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.sandbox import shapes
from tui.sandbox.db import dumps, loads
from tui.sandbox.endpoint import SQL_INT_MAX, Ctx, api, int_param, limit_offset, ok, routes
from tui.sandbox.errors import not_found, validation_error
from tui.sandbox.seed import flag_doc, internal_flag_filters
from tui.sandbox.summaries import summarize
from tui.sandbox.timeutil import iso
from tui.sandbox.validation import survey_payload


def _survey_row(c: Any, pid: int, sid: str) -> Any:
    row = c.execute("SELECT * FROM surveys WHERE id = ? AND project_id = ?", (sid, pid)).fetchone()
    if row is None:
        raise not_found()
    return row


@api("survey:read")
async def surveys_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    q = ctx.request.query_params
    limit = int_param(ctx.request, "limit", 100) or 100
    offset = int_param(ctx.request, "offset", 0)
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
    nxt, prev = limit_offset(ctx.request, count, limit, offset)
    return ok({"count": count, "next": nxt, "previous": prev, "results": results})


@api("survey:read")
async def survey_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return ok(shapes.survey(c, _survey_row(c, pid, ctx.param("id"))))


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
        return ok(shapes.survey(c, row, write_response=True), 201)


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
        return ok(shapes.survey(c, _survey_row(c, pid, sid), write_response=True))


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
    return ok({"results": results, "next": nxt, "previous": prev, "total_count": total})


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
    return ok(out)


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
    return ok(body)


def survey_routes() -> list[BaseRoute]:
    s = "/api/projects/{project_id}/surveys"
    out: list[BaseRoute] = []
    out += routes(s, surveys_list, ["GET"]) + routes(s, survey_create, ["POST"])
    out += routes(s + "/activity", surveys_activity, ["GET"])
    out += routes(s + "/responses_count", surveys_responses_count, ["GET"])
    out += routes(s + "/{id}", survey_retrieve, ["GET"]) + routes(s + "/{id}", survey_update, ["PATCH"])
    out += routes(s + "/{id}", survey_delete, ["DELETE"])
    out += routes(s + "/{id}/activity", survey_activity, ["GET"])
    out += routes(s + "/{id}/summarize_responses", survey_summarize, ["POST"])
    return out
