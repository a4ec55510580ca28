"""Rows to JSON objects shaped like the real service's serializers.

Kept apart from the routes so that the field lists (which follow the published OpenAPI
components ``Survey``, ``SurveySerializerCreateUpdateOnly``, ``BatchExport`` and
``BatchExportRun``) live in one place.
"""

from __future__ import annotations

import math
import sqlite3
from datetime import datetime
from typing import Any

from tui.sandbox import hogql
from tui.sandbox.db import loads
from tui.sandbox.seed import SECRET_KEYS
from tui.sandbox.timeutil import parse_iso

SURVEY_FIELDS = (
    "id", "name", "description", "type", "schedule", "linked_flag", "linked_flag_id", "linked_insight_id",
    "targeting_flag", "internal_targeting_flag", "questions", "conditions", "appearance", "created_at",
    "created_by", "start_date", "end_date", "archived", "responses_limit", "feature_flag_keys", "iteration_count",
    "iteration_frequency_days", "iteration_start_dates", "current_iteration", "current_iteration_start_date",
    "response_sampling_start_date", "response_sampling_interval_type", "response_sampling_interval",
    "response_sampling_limit", "response_sampling_daily_limits", "enable_partial_responses",
    "enable_iframe_embedding", "translations", "base_language", "user_access_level", "form_content",
)
# The create/update serializer has no feature_flag_keys / user_access_level and does not echo linked_flag_id.
WRITE_RESPONSE_OMITS = ("feature_flag_keys", "user_access_level", "linked_flag_id")
SURVEY_DEFAULTS: dict[str, Any] = {
    "description": "", "schedule": "once", "linked_flag_id": None, "linked_insight_id": None, "questions": [],
    "conditions": None, "appearance": None, "start_date": None, "end_date": None, "archived": False,
    "responses_limit": None, "iteration_count": None, "iteration_frequency_days": None,
    "iteration_start_dates": [], "current_iteration": None, "current_iteration_start_date": None,
    "response_sampling_start_date": None, "response_sampling_interval_type": "week",
    "response_sampling_interval": None, "response_sampling_limit": None, "response_sampling_daily_limits": None,
    "enable_partial_responses": False, "enable_iframe_embedding": False, "translations": None,
    "base_language": "en", "form_content": None,
}
RUN_FIELDS = (
    "id", "status", "records_completed", "records_failed", "latest_error", "data_interval_start",
    "data_interval_end", "cursor", "created_at", "finished_at", "last_updated_at", "records_total_count",
    "bytes_exported", "batch_export", "backfill",
)
RUN_COLUMNS = (
    "id, export_id, status, records_completed, latest_error, data_interval_start, data_interval_end, cursor, "
    "created_at, finished_at, last_updated_at, records_total_count, bytes_exported, backfill_id"
)


def flag(c: sqlite3.Connection, flag_id: int | None) -> dict[str, Any] | None:
    if flag_id is None:
        return None
    row = c.execute("SELECT id, data FROM flags WHERE id = ?", (flag_id,)).fetchone()
    if row is None:
        return None
    return {"id": row["id"], **loads(row["data"])}


def user(c: sqlite3.Connection, user_id: int | None) -> dict[str, Any] | None:
    if user_id is None:
        return None
    row = c.execute("SELECT data FROM users WHERE id = ?", (user_id,)).fetchone()
    return None if row is None else dict(loads(row["data"]))


def _with_trickle(base: int, row: sqlite3.Row, doc: dict[str, Any], start_dt: datetime, stop: datetime,
                  seeded_at: datetime) -> int:
    """``base`` plus the responses trickling in from the seeding (or the start) to ``stop``, within the limit."""
    grown = 0
    if row["responses_rate"] and stop > seeded_at:
        grown = math.floor((stop - max(start_dt, seeded_at)).total_seconds() / 3600 * float(row["responses_rate"]))
    total = base + max(0, grown)
    limit = doc.get("responses_limit")
    return min(total, limit) if isinstance(limit, int) and limit > 0 else total


def responses_count(row: sqlite3.Row, doc: dict[str, Any], now: datetime, seeded_at: datetime) -> int:
    """Seeded base plus a steady trickle since seeding while the survey runs (a pure function of time)."""
    base = int(row["responses_base"])
    start = doc.get("start_date")
    if not start:
        return 0
    start_dt = parse_iso(start)
    if start_dt > now:
        return 0
    end = doc.get("end_date")
    stop = min(now, parse_iso(end)) if end else now
    return _with_trickle(base, row, doc, start_dt, stop, seeded_at)


def responses_by(row: sqlite3.Row, doc: dict[str, Any], at: datetime, now: datetime, seeded_at: datetime) -> int:
    """Responses received up to ``at``: the seeded base spread evenly from the start to the seeding, then the
    trickle; at ``now`` (or later) exactly :func:`responses_count`, so windows of the stats add up to it."""
    if at >= now:
        return responses_count(row, doc, now, seeded_at)
    start = doc.get("start_date")
    if not start or parse_iso(start) > at:
        return 0
    start_dt = parse_iso(start)
    end = doc.get("end_date")
    stop = min(at, parse_iso(end)) if end else at
    base = int(row["responses_base"])
    if seeded_at > start_dt:
        share = min(1.0, max(0.0, (stop - start_dt).total_seconds() / (seeded_at - start_dt).total_seconds()))
        base = math.floor(base * share)
    return _with_trickle(base, row, doc, start_dt, stop, seeded_at)


def responses_between(row: sqlite3.Row, doc: dict[str, Any], since: datetime | None, until: datetime | None,
                      now: datetime, seeded_at: datetime) -> int:
    """Responses received in ``[since, until)`` (open ends: from the start, up to now)."""
    high = responses_by(row, doc, until if until is not None else now, now, seeded_at)
    low = responses_by(row, doc, since, now, seeded_at) if since is not None else 0
    return max(0, high - low)


def survey(c: sqlite3.Connection, row: sqlite3.Row, *, write_response: bool = False) -> dict[str, Any]:
    doc = loads(row["data"])
    linked_id = doc.get("linked_flag_id")
    linked = flag(c, linked_id)
    targeting = flag(c, doc.get("__targeting_flag"))
    internal = flag(c, doc.get("__internal_flag"))
    out: dict[str, Any] = {}
    for key in SURVEY_FIELDS:
        if key == "id":
            out[key] = row["id"]
        elif key == "linked_flag":
            out[key] = linked
        elif key == "targeting_flag":
            out[key] = targeting
        elif key == "internal_targeting_flag":
            out[key] = internal
        elif key == "created_by":
            out[key] = user(c, doc.get("__created_by"))
        elif key == "feature_flag_keys":
            out[key] = [
                {"key": "linked_flag_key", "value": linked["key"] if linked else None},
                {"key": "targeting_flag_key", "value": targeting["key"] if targeting else None},
                {"key": "internal_targeting_flag_key", "value": internal["key"] if internal else None},
                {"key": "internal_response_sampling_flag_key", "value": None},
            ]
        elif key == "user_access_level":
            out[key] = "editor"
        else:
            out[key] = doc.get(key, SURVEY_DEFAULTS.get(key))
    for key, value in doc.items():
        if key not in out and not key.startswith("__"):
            out[key] = value
    if write_response:
        for key in WRITE_RESPONSE_OMITS:
            out.pop(key, None)
    return out


def strip_secrets(dest_type: str, config: Any) -> Any:
    """Remove secret keys (recursively), as the real service does; never mask them."""
    secrets = set(SECRET_KEYS.get(dest_type, ()))
    if dest_type == "Redshift":
        secrets |= {"aws_access_key_id", "aws_secret_access_key"}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k not in secrets}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(config)


def deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def run(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"], "status": row["status"], "records_completed": row["records_completed"],
        "records_failed": None, "latest_error": row["latest_error"],
        "data_interval_start": row["data_interval_start"], "data_interval_end": row["data_interval_end"],
        "cursor": row["cursor"], "created_at": row["created_at"], "finished_at": row["finished_at"],
        "last_updated_at": row["last_updated_at"], "records_total_count": row["records_total_count"],
        "bytes_exported": row["bytes_exported"], "batch_export": row["export_id"], "backfill": row["backfill_id"],
    }


def export(c: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    doc = loads(row["data"])
    runs = c.execute(
        f"SELECT {RUN_COLUMNS} FROM runs WHERE export_id = ? ORDER BY created_at DESC, id DESC LIMIT 10",
        (row["id"],),
    ).fetchall()
    dest = doc["destination"]
    query = doc.get("hogql_query") or ""
    return {
        "id": row["id"], "team_id": row["project_id"], "name": doc["name"], "model": doc["model"],
        "destination": {"type": dest["type"], "config": strip_secrets(dest["type"], dest.get("config")),
                        "integration": doc.get("integration")},
        "interval": row["interval"], "paused": bool(row["paused"]), "created_at": row["created_at"],
        "last_updated_at": doc.get("last_updated_at") or row["created_at"],
        "last_paused_at": doc.get("last_paused_at"), "start_at": row["start_at"], "end_at": row["end_at"],
        "latest_runs": [run(r) for r in runs], "hogql_query": query, "native_query": query,
        "schema": hogql.schema(query) if query else None,
        "filters": doc.get("filters"), "timezone": doc.get("timezone") or "UTC",
        **offsets(row["interval"], interval_offset(doc)),
    }


def interval_offset(doc: dict[str, Any]) -> int | None:
    """Seconds into the day or week at which a day/week export's interval starts (the real model's field).

    Documents written before the field existed carry ``offset_day``/``offset_hour`` instead.
    """
    if "interval_offset" in doc:
        value = doc["interval_offset"]
        return None if value is None else int(value)
    if doc.get("offset_day") is None and doc.get("offset_hour") is None:
        return None
    return int(doc.get("offset_day") or 0) * 86400 + int(doc.get("offset_hour") or 0) * 3600


def offsets(interval: str, offset: int | None) -> dict[str, int | None]:
    """``offset_day`` (weekly only) and ``offset_hour`` (daily and weekly) read back from the offset, as the real
    model's properties do: no offset is Sunday at midnight."""
    if interval not in ("day", "week"):
        return {"offset_day": None, "offset_hour": None}
    offset = offset or 0
    return {"offset_day": offset // 86400 if interval == "week" else None, "offset_hour": offset % 86400 // 3600}
