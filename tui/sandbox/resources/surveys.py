"""Surveys: list, CRUD, activity, response counts and summaries."""

from __future__ import annotations

import asyncio
import re
import uuid
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from tui.api.survey_rules import SEARCH_MAX, external_survey_refusals, linked_variant_refusal, search_refusal
from tui.sandbox import shapes
from tui.sandbox.db import dumps, loads
from tui.sandbox.endpoint import SQL_INT_MAX, Ctx, api, int_param, limit_offset, ok, routes
from tui.sandbox.errors import not_found, validation_error
from tui.sandbox.seed import flag_doc, internal_flag_filters
from tui.sandbox.summaries import summarize
from tui.sandbox.timeutil import iso, parse_iso
from tui.sandbox.validation import SHUFFLE_AND_BRANCHING, refuse, survey_payload


def _survey_row(c: Any, pid: int, sid: str) -> Any:
    row = c.execute("SELECT * FROM surveys WHERE id = ? AND project_id = ?", (sid, pid)).fetchone()
    if row is None:
        raise not_found()
    return row


@api("survey:read")
async def surveys_list(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    q = ctx.request.query_params
    if _newest(ctx):
        refuse(search_refusal(q.get("search")))
    limit = int_param(ctx.request, "limit", 100) or 100
    offset = int_param(ctx.request, "offset", 0)
    where: list[str] = ["project_id = ?"]
    args: list[Any] = [pid]
    # DRF's SearchFilter over name and description: every term (split on spaces and commas) must match
    # one of them; older servers cut the search at 200 characters (the newest refuse a longer one).
    for term in re.split(r"[\s,]+", (q.get("search") or "")[:SEARCH_MAX].strip()):
        if term:
            like = "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where.append("(name LIKE ? ESCAPE '\\' OR json_extract(data, '$.description') LIKE ? ESCAPE '\\')")
            args += [like, like]
    ids = [i.strip() for i in (q.get("ids") or "").split(",") if i.strip()]
    if ids:
        where.append(f"id IN ({','.join('?' * len(ids))})")
        args += ids
    if q.get("type"):
        where.append("json_extract(data, '$.type') = ?")
        args.append(q["type"])
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


def _newest(ctx: Ctx) -> bool:
    return ctx.state.options.generation == "newest"


@api("survey:read")
async def survey_retrieve(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    with ctx.state.db.read() as c:
        return ok(shapes.survey(c, _survey_row(c, pid, ctx.param("id"))))


def _flag_in_project(c: Any, pid: int, flag_id: Any, message: str) -> int | None:
    """A flag of this project; the real serializer checks it in its whole-object validation (``attr`` null)."""
    if flag_id is None:
        return None
    row = c.execute("SELECT data FROM flags WHERE id = ? AND team_id = ?", (int(flag_id), pid)).fetchone()
    if row is None or loads(row["data"]).get("deleted"):
        raise validation_error(message, None)
    return int(flag_id)


def _flag_variants(c: Any, pid: int, flag_id: Any) -> list[str] | None:
    """The variant keys of a flag of this project (None when there is no such flag)."""
    if not flag_id or isinstance(flag_id, bool) or not isinstance(flag_id, int):
        return None
    row = c.execute("SELECT data FROM flags WHERE id = ? AND team_id = ?", (flag_id, pid)).fetchone()
    if row is None:
        return None
    multivariate = (loads(row["data"]).get("filters") or {}).get("multivariate") or {}
    return [str(v.get("key")) for v in multivariate.get("variants") or [] if isinstance(v, dict)]


def _check_rules(c: Any, pid: int, body: dict[str, Any]) -> None:
    """Whole-body rules the real serializer checks (tui.api.survey_rules): the linked flag's variant exists
    (its flag is looked up first), then what an external survey may not carry."""
    if "linked_flag_id" in body:
        _flag_in_project(c, pid, body["linked_flag_id"], "Feature Flag with this ID does not exist")
    refuse(linked_variant_refusal(body, _flag_variants(c, pid, body.get("linked_flag_id"))))
    refusals = external_survey_refusals(body)
    refuse(refusals[0] if refusals else None)


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
        doc["linked_flag_id"] = _flag_in_project(c, pid, body["linked_flag_id"],
                                                 "Feature Flag with this ID does not exist")
    if body.get("targeting_flag_id") is not None:
        doc["__targeting_flag"] = _flag_in_project(c, pid, body["targeting_flag_id"],
                                                   "Targeting Feature Flag with this ID does not exist")
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
    active = bool(doc.get("start_date")) and not doc.get("end_date") and not doc.get("archived")
    if not doc.get("__internal_flag"):
        # the real service adds the internal targeting flag on create already, inactive until launched
        doc["__internal_flag"] = _add_flag(c, flag_doc(pid, f"survey-targeting-{sid[:8]}-custom",
                                                       f"Targeting flag for survey {name}",
                                                       internal_flag_filters(sid), active=active))
    else:
        _set_flag_active(c, doc["__internal_flag"], active)
    if doc.get("__targeting_flag"):
        _set_flag_active(c, doc["__targeting_flag"], active)


def _set_flag_active(c: Any, flag_id: int, active: bool) -> None:
    row = c.execute("SELECT data FROM flags WHERE id = ?", (flag_id,)).fetchone()
    if row is not None:
        fdoc = loads(row["data"])
        if fdoc.get("active") != active and not fdoc.get("deleted"):
            fdoc["active"] = active
            c.execute("UPDATE flags SET data = ? WHERE id = ?", (dumps(fdoc), flag_id))


def _check_shuffle_and_branching(doc: dict[str, Any]) -> None:
    """Question shuffling and branching together are refused, whichever was set first."""
    appearance: dict[str, Any] = doc["appearance"] if isinstance(doc.get("appearance"), dict) else {}
    questions: list[Any] = doc["questions"] if isinstance(doc.get("questions"), list) else []
    if appearance.get("shuffleQuestions") and any(
            isinstance(q, dict) and q.get("branching") is not None for q in questions):
        raise validation_error(SHUFFLE_AND_BRANCHING, None)


def _apply_iterations(doc: dict[str, Any]) -> None:
    """A recurring survey's iteration dates, recomputed on every save as the real model does."""
    count, every = doc.get("iteration_count"), doc.get("iteration_frequency_days")
    if not count or not every:
        doc["iteration_start_dates"], doc["current_iteration"], doc["current_iteration_start_date"] = [], None, None
        return
    if not doc.get("start_date"):
        doc["iteration_start_dates"] = None
        return
    start = parse_iso(doc["start_date"])
    doc["iteration_start_dates"] = [iso(start + timedelta(days=every * k)) for k in range(min(count, 500))]
    if not doc.get("current_iteration"):
        doc["current_iteration"], doc["current_iteration_start_date"] = 1, doc["start_date"]


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
    fields = survey_payload(body, creating=True, newest=_newest(ctx))
    now = ctx.now
    sid = str(uuid.uuid4())
    with ctx.state.db.transaction() as c:
        _check_rules(c, pid, body)
        if c.execute("SELECT 1 FROM surveys WHERE project_id = ? AND name = ?", (pid, fields["name"])).fetchone():
            raise validation_error("There is already a survey with this name.", None, code="unique")
        doc: dict[str, Any] = {**shapes.SURVEY_DEFAULTS, **fields, "created_at": iso(now),
                               "__created_by": ctx.key.user_id, "__targeting_flag": None, "__internal_flag": None}
        _ensure_question_ids(doc)
        _check_shuffle_and_branching(doc)
        _apply_iterations(doc)
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
        stored = loads(_survey_row(c, pid, sid)["data"])
    fields = survey_payload(body, creating=False, existing=stored, newest=_newest(ctx))
    now = ctx.now
    with ctx.state.db.transaction() as c:
        _check_rules(c, pid, body)
        row = _survey_row(c, pid, sid)
        doc = loads(row["data"])
        name = fields.get("name", row["name"])
        if "name" in fields and c.execute(
            "SELECT 1 FROM surveys WHERE project_id = ? AND name = ? AND id != ?", (pid, name, sid)
        ).fetchone():
            raise validation_error("There is already another survey with this name.", None, code="unique")
        before = dict(doc)
        count, current = fields.get("iteration_count"), doc.get("current_iteration")
        if current is not None and count is not None and current > count > 0:
            raise validation_error(
                f"Cannot change survey recurrence to {count}, should be at least {current}", None)
        doc.update(fields)
        _ensure_question_ids(doc)
        _check_shuffle_and_branching(doc)
        _apply_iterations(doc)
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


async def _lifecycle(ctx: Ctx, field: str, activity: str, archived: str, past: str | None) -> Response:
    """``launch`` (start_date) and ``stop`` (end_date), newest only: set the date to now unless it has passed.

    ``past`` is the refusal when the other date has passed (launching an ended survey); None: nothing to do.
    """
    if not _newest(ctx):
        raise not_found()
    pid = ctx.project_id()
    sid = ctx.param("id")
    now = ctx.now
    with ctx.state.db.transaction() as c:
        row = _survey_row(c, pid, sid)
        doc = loads(row["data"])
        if doc.get("archived") or row["archived"]:
            raise validation_error(archived, None)
        end = doc.get("end_date")
        if past is not None and end and parse_iso(end) <= now:
            raise validation_error(past, None)
        current = doc.get(field)
        if not (current and parse_iso(current) <= now):
            doc[field] = iso(now)
            _apply_iterations(doc)
            _apply_flags(c, pid, sid, row["name"], {}, doc)
            c.execute("UPDATE surveys SET data = ? WHERE id = ?", (dumps(doc), sid))
            _activity(c, pid, sid, row["name"], ctx.key.user_id, activity,
                      [{"type": "Survey", "action": "changed", "field": field, "before": current,
                        "after": doc[field]}], now)
        return ok(shapes.survey(c, _survey_row(c, pid, sid)))


@api("survey:write")
async def survey_launch(ctx: Ctx) -> Response:
    """products/surveys/backend/api/survey.py ``launch``: start_date = now; a launched survey is left as it is."""
    return await _lifecycle(ctx, "start_date", "launched", "Cannot launch an archived survey. Unarchive it first.",
                            "Cannot launch a survey with end_date in the past. Extend the end_date first.")


@api("survey:write")
async def survey_stop(ctx: Ctx) -> Response:
    """products/surveys/backend/api/survey.py ``stop``: end_date = now; a stopped survey is left as it is."""
    return await _lifecycle(ctx, "end_date", "stopped",
                            "Cannot stop an archived survey. Unarchive it first if needed.", None)


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


STAT_EVENTS = ("survey shown", "survey dismissed", "survey sent")


def _event_stats(total: int, unique: int, first: str | None, last: str | None) -> dict[str, Any]:
    return {"total_count": total, "unique_persons": unique, "first_seen": first if total else None,
            "last_seen": last if total else None, "unique_persons_only_seen": 0, "total_count_only_seen": 0}


def _reach(survey_id: str) -> int:
    """How many times a survey is shown per response it gets: 2 to 8, fixed per survey, so rates differ."""
    return 2 + zlib.crc32(survey_id.encode()) % 7


def _stats_body(surveys: list[tuple[Any, dict[str, Any]]], ctx: Ctx) -> dict[str, Any]:
    """Shown, dismissed and sent counts in the ``date_from``/``date_to`` window (sent = the responses received in
    it, so the windows add up to the response count), and the rates derived from them."""
    since, until = _stat_dates(ctx)
    shown = dismissed = sent = 0
    starts: list[str] = []
    for row, doc in surveys:
        n = shapes.responses_between(row, doc, since, until, ctx.now, ctx.state.seeded_at)
        sent += n
        shown += n * _reach(row["id"]) + (n and 7)
        dismissed += n // 2
        if n and doc.get("start_date"):
            starts.append(doc["start_date"])
    first, last = (min(starts), iso(ctx.now)) if starts else (None, None)
    counts = {"survey shown": shown, "survey dismissed": dismissed, "survey sent": sent}
    stats = {e: _event_stats(counts[e], counts[e] * 4 // 5, first, last) for e in STAT_EVENTS}
    seen = stats["survey shown"]
    seen["unique_persons_only_seen"] = max(0, seen["unique_persons"] - stats["survey dismissed"]["unique_persons"]
                                           - stats["survey sent"]["unique_persons"])
    seen["total_count_only_seen"] = max(0, shown - dismissed - sent)
    rates = {"response_rate": 0.0, "dismissal_rate": 0.0, "unique_users_response_rate": 0.0,
             "unique_users_dismissal_rate": 0.0}
    if shown:
        u_shown = seen["unique_persons"] or 1
        rates = {"response_rate": round(sent / shown * 100, 2), "dismissal_rate": round(dismissed / shown * 100, 2),
                 "unique_users_response_rate": round(stats["survey sent"]["unique_persons"] / u_shown * 100, 2),
                 "unique_users_dismissal_rate": round(
                     stats["survey dismissed"]["unique_persons"] / u_shown * 100, 2)}
    return {"stats": stats, "rates": rates}


def _stat_dates(ctx: Ctx) -> tuple[datetime | None, datetime | None]:
    """The window asked for (checked before by :func:`_check_stat_dates`); a date without a zone is UTC."""
    q = ctx.request.query_params
    out: list[datetime | None] = []
    for key in ("date_from", "date_to"):
        value = datetime.fromisoformat(q[key]) if q.get(key) else None
        out.append(value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value)
    return out[0], out[1]


def _check_stat_dates(ctx: Ctx) -> None:
    q = ctx.request.query_params
    try:
        lo = datetime.fromisoformat(q["date_from"]) if q.get("date_from") else None
        hi = datetime.fromisoformat(q["date_to"]) if q.get("date_to") else None
    except ValueError as exc:
        raise validation_error("Invalid date format. Please use ISO 8601 format with timezone info (e.g. "
                               "2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)", None) from exc
    try:
        if lo and hi and lo > hi:
            raise validation_error("date_from must be before date_to", None)
    except TypeError as exc:  # one naive, one aware
        raise validation_error("date_from must be before date_to", None) from exc


@api("survey:read")
async def surveys_stats(ctx: Ctx) -> Response:
    """All the project's surveys that are not archived."""
    pid = ctx.project_id()
    _check_stat_dates(ctx)
    with ctx.state.db.read() as c:
        rows = c.execute("SELECT * FROM surveys WHERE project_id = ? AND archived = 0", (pid,)).fetchall()
    return ok(_stats_body([(r, loads(r["data"])) for r in rows], ctx))


@api("survey:read")
async def survey_stats(ctx: Ctx) -> Response:
    pid = ctx.project_id()
    _check_stat_dates(ctx)
    with ctx.state.db.read() as c:
        row = _survey_row(c, pid, ctx.param("id"))
    body = _stats_body([(row, loads(row["data"]))], ctx)
    return ok({"survey_id": row["id"], **body})


def survey_routes() -> list[BaseRoute]:
    s = "/api/projects/{project_id}/surveys"
    out: list[BaseRoute] = []
    out += routes(s, surveys_list, ["GET"]) + routes(s, survey_create, ["POST"])
    out += routes(s + "/activity", surveys_activity, ["GET"])
    out += routes(s + "/responses_count", surveys_responses_count, ["GET"])
    out += routes(s + "/stats", surveys_stats, ["GET"])
    out += routes(s + "/{id}", survey_retrieve, ["GET"]) + routes(s + "/{id}", survey_update, ["PATCH"])
    out += routes(s + "/{id}", survey_delete, ["DELETE"])
    out += routes(s + "/{id}/activity", survey_activity, ["GET"])
    out += routes(s + "/{id}/summarize_responses", survey_summarize, ["POST"])
    out += routes(s + "/{id}/stats", survey_stats, ["GET"])
    out += routes(s + "/{id}/launch", survey_launch, ["POST"]) + routes(s + "/{id}/stop", survey_stop, ["POST"])
    return out
