"""An OpenAPI 3 description of what the sandbox serves (``GET /api/schema/``).

Hand-written rather than generated so it documents the sandbox's actual shapes, including the
real service's behaviour where our interface spec is silent (cursor runs list, logs envelope,
``{"paused": bool}``, ``{"backfill_id"}``).
"""

from __future__ import annotations

from typing import Any

STR = {"type": "string"}
NSTR = {"type": "string", "nullable": True}
DT = {"type": "string", "format": "date-time"}
NDT = {"type": "string", "format": "date-time", "nullable": True}
INT = {"type": "integer"}
NINT = {"type": "integer", "nullable": True}
BOOL = {"type": "boolean"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": True}
    if required:
        out["required"] = required
    return out


def _components() -> dict[str, Any]:
    flag = _obj({"id": INT, "team_id": INT, "name": STR, "key": STR, "filters": {"type": "object"},
                 "deleted": BOOL, "active": BOOL, "ensure_experience_continuity": {"type": "boolean",
                                                                                   "nullable": True}},
                ["id", "team_id", "key"])
    user = _obj({"id": INT, "uuid": {"type": "string", "format": "uuid"}, "distinct_id": NSTR, "first_name": STR,
                 "last_name": STR, "email": STR, "is_email_verified": {"type": "boolean", "nullable": True},
                 "hedgehog_config": {"type": "object", "nullable": True}}, ["id", "uuid", "email"])
    nflag = {"allOf": [_ref("MinimalFeatureFlag")], "nullable": True}
    survey = _obj({
        "id": {"type": "string", "format": "uuid"}, "name": STR, "description": STR,
        "type": {"type": "string", "enum": ["popover", "widget", "external_survey", "api"]}, "schedule": NSTR,
        "linked_flag": nflag, "linked_flag_id": NINT, "targeting_flag": nflag, "internal_targeting_flag": nflag,
        "questions": {"type": "array", "items": {"type": "object"}, "nullable": True},
        "conditions": {"type": "object", "nullable": True}, "appearance": {"type": "object", "nullable": True},
        "created_at": DT, "created_by": {"allOf": [_ref("UserBasic")], "nullable": True}, "start_date": NDT,
        "end_date": NDT, "archived": BOOL,
        "responses_limit": {"type": "integer", "minimum": 0, "maximum": 2147483647, "nullable": True},
        "feature_flag_keys": {"type": "array", "items": {"type": "object"}},
        "iteration_count": {"type": "integer", "minimum": 0, "maximum": 500, "nullable": True},
        "iteration_frequency_days": NINT, "iteration_start_dates": {"type": "array", "items": DT, "nullable": True},
        "current_iteration": NINT, "current_iteration_start_date": NDT, "user_access_level": NSTR,
        "base_language": STR,
    }, ["id", "name", "type", "created_at", "created_by", "linked_flag", "targeting_flag",
        "internal_targeting_flag", "conditions", "feature_flag_keys", "user_access_level"])
    write_required = [r for r in survey["required"] if r not in ("feature_flag_keys", "user_access_level")]
    survey_write = {**survey, "required": write_required}
    status_enum = ["Cancelled", "Completed", "ContinuedAsNew", "Failed", "FailedRetryable", "FailedBilling",
                   "Terminated", "TimedOut", "Running", "Starting"]
    run = _obj({
        "id": {"type": "string", "format": "uuid"}, "status": {"type": "string", "enum": status_enum},
        "records_completed": NINT, "records_failed": NINT, "latest_error": NSTR, "data_interval_start": NDT,
        "data_interval_end": DT, "cursor": NSTR, "created_at": DT, "finished_at": NDT, "last_updated_at": DT,
        "records_total_count": NINT, "bytes_exported": NINT, "batch_export": {"type": "string", "format": "uuid"},
        "backfill": {"type": "string", "format": "uuid", "nullable": True},
    }, ["id", "status", "data_interval_end", "created_at", "last_updated_at", "batch_export"])
    export = _obj({
        "id": {"type": "string", "format": "uuid"}, "team_id": INT, "name": STR,
        "model": {"type": "string", "enum": ["events", "persons"]},
        "destination": _obj({"type": STR, "config": {"type": "object", "nullable": True},
                             "integration": NINT}, ["type"]),
        "interval": {"type": "string", "enum": ["hour", "day", "week", "every 5 minutes", "every 15 minutes"]},
        "paused": BOOL, "created_at": DT, "last_updated_at": DT, "last_paused_at": NDT, "start_at": NDT,
        "end_at": NDT, "latest_runs": {"type": "array", "items": _ref("BatchExportRun")}, "hogql_query": STR,
        "native_query": STR, "schema": {"type": "object", "nullable": True}, "timezone": NSTR,
        "offset_day": NINT, "offset_hour": NINT,
    }, ["id", "team_id", "name", "destination", "interval", "created_at", "last_updated_at", "latest_runs",
        "schema"])

    def page(item: str) -> dict[str, Any]:
        return _obj({"count": INT, "next": NSTR, "previous": NSTR, "results": {"type": "array",
                                                                               "items": _ref(item)}},
                    ["count", "results"])

    return {
        "MinimalFeatureFlag": flag, "UserBasic": user, "Survey": survey, "PaginatedSurveyList": page("Survey"),
        # Create/PATCH answers omit feature_flag_keys and user_access_level (the create/update serializer).
        "SurveyWrite": survey_write,
        "BatchExportRun": run, "BatchExport": export, "PaginatedBatchExportList": page("BatchExport"),
        "PaginatedBatchExportRunList": _obj({"next": NSTR, "previous": NSTR,
                                             "results": {"type": "array", "items": _ref("BatchExportRun")}},
                                            ["results"]),
        "Project": _obj({"id": INT, "uuid": STR, "organization": STR, "name": STR, "timezone": STR,
                         "api_token": STR, "created_at": DT}, ["id", "name"]),
        "PaginatedProjectList": page("Project"),
        # newest: log_source_id and instance_id; older: team_id, batch_export_id and run_id
        "LogEntry": _obj({"timestamp": DT, "level": STR, "message": STR, "log_source_id": STR,
                          "instance_id": STR, "team_id": INT, "batch_export_id": STR, "run_id": NSTR},
                         ["timestamp", "level", "message"]),
        "LogEntryList": _obj({"results": {"type": "array", "items": _ref("LogEntry")}}, ["results"]),
        "ActivityLogPage": _obj({"results": {"type": "array", "items": {"type": "object"}}, "next": NSTR,
                                 "previous": NSTR, "total_count": INT}, ["results", "total_count"]),
        "Paused": _obj({"paused": BOOL}, ["paused"]),
        "Cancelled": _obj({"cancelled": BOOL}, ["cancelled"]),
        "BatchExportBackfill": _obj({
            "id": STR, "batch_export": STR, "team": INT, "start_at": NDT, "end_at": NDT,
            "status": {"type": "string", "enum": [s for s in status_enum if s != "FailedBilling"]},
            "created_at": DT, "finished_at": NDT, "last_updated_at": DT, "adjusted_start_at": NDT,
            "total_records_count": NINT,
            "progress": {"type": "object", "nullable": True, "properties": {
                "total_runs": NINT, "finished_runs": NINT, "progress": {"type": "number", "nullable": True}}},
        }, ["id", "batch_export", "status", "created_at", "progress"]),
        "PaginatedBatchExportBackfillList": _obj({"next": NSTR, "previous": NSTR, "results": {
            "type": "array", "items": _ref("BatchExportBackfill")}}, ["results"]),
        "SurveyStats": _obj({"stats": {"type": "object", "additionalProperties": _obj({
            "total_count": INT, "unique_persons": INT, "first_seen": NDT, "last_seen": NDT,
            "unique_persons_only_seen": INT, "total_count_only_seen": INT})},
            "rates": {"type": "object", "additionalProperties": {"type": "number"}}}, ["stats", "rates"]),
        "PersonalAPIKey": _obj({"id": STR, "label": STR, "value": NSTR, "mask_value": NSTR, "created_at": DT,
                                "last_used_at": NDT, "user_id": INT, "scopes": {"type": "array", "items": STR},
                                "scoped_teams": {"type": "array", "items": INT, "nullable": True},
                                "scoped_organizations": {"type": "array", "items": STR, "nullable": True}},
                               ["id", "scopes"]),
        "CurrentUser": _obj({"id": INT, "uuid": STR, "email": STR, "first_name": STR, "last_name": STR,
                             "team": {"type": "object", "nullable": True},
                             "organization": {"type": "object", "nullable": True}}, ["id", "email"]),
        "BackfillId": _obj({"backfill_id": STR}, ["backfill_id"]),
        "Summary": _obj({"content": STR, "question_index": NINT, "responses_sampled": INT}, ["content"]),
        "ResponsesCount": {"type": "object", "additionalProperties": INT},
        "Error": _obj({"type": STR, "code": STR, "detail": STR, "attr": NSTR}, ["type", "code", "detail"]),
    }


def _survey_write_body(creating: bool) -> dict[str, Any]:
    """What a client may send to create/PATCH a survey (unknown keys are kept, as the real serializer does)."""
    question = _obj({"type": {"type": "string", "enum": ["open", "link", "rating", "single_choice",
                                                          "multiple_choice"]},
                     "question": {"type": "string", "minLength": 1}, "description": STR,
                     "choices": {"type": "array", "items": STR}, "branching": {"type": "object"}},
                    ["type", "question"])
    props = {
        "name": {"type": "string", "minLength": 1, "maxLength": 400}, "description": STR,
        "type": {"type": "string", "enum": ["popover", "widget", "external_survey", "api"]},
        "schedule": {"type": "string", "enum": ["once", "recurring", "always"], "nullable": True},
        "questions": {"type": "array", "items": question, "nullable": True},
        "conditions": {"type": "object", "nullable": True}, "appearance": {"type": "object", "nullable": True},
        "start_date": NDT, "end_date": NDT, "archived": BOOL,
        "responses_limit": {"type": "integer", "minimum": 0, "maximum": 2147483647, "nullable": True},
        "iteration_count": {"type": "integer", "minimum": 0, "maximum": 500, "nullable": True},
        "iteration_frequency_days": {"type": "integer", "minimum": 0, "maximum": 2147483647, "nullable": True},
        "linked_flag_id": NINT, "targeting_flag_id": NINT,
        "targeting_flag_filters": {"type": "object", "nullable": True},
        "remove_targeting_flag": {"type": "boolean", "nullable": True},
    }
    return _obj(props, ["name", "type"] if creating else None)


def _request_bodies() -> dict[str, Any]:
    patched_export = _obj({
            "name": {"type": "string", "minLength": 1}, "model": {"type": "string", "enum": ["events", "persons"]},
            "interval": {"type": "string", "enum": ["hour", "day", "week", "every 5 minutes", "every 15 minutes"]},
            "paused": BOOL, "start_at": NDT, "end_at": NDT, "hogql_query": STR, "timezone": NSTR,
            "offset_day": {"type": "integer", "minimum": 0, "maximum": 6, "nullable": True},
            "offset_hour": {"type": "integer", "minimum": 0, "maximum": 23, "nullable": True},
            "destination": _obj({"type": STR, "config": {"type": "object", "nullable": True},
                                 "integration_id": NINT}),
        })
    return {
        "SurveyCreate": _survey_write_body(True),
        "PatchedSurvey": _survey_write_body(False),
        "PatchedBatchExport": patched_export,
        # a create, and a PUT, carry at least these
        "BatchExportWrite": {**patched_export, "required": ["name", "destination", "interval"]},
        # a date (YYYY-MM-DD) for day and week exports on the newest backfills/, else a datetime with offset
        "BackfillRequest": _obj({"start_at": STR, "end_at": NSTR}, ["start_at"]),
        "UnpauseRequest": _obj({"backfill": BOOL}),
        "Empty": {"type": "object"},
    }


# Every authenticated operation can answer these (bad/missing key, missing scope, injected throttling).
_AUTH_ERRORS = ("401", "403", "429")
_ERROR_TEXT = {"400": "Invalid input (the field is in attr)", "401": "Missing or unknown API key",
               "403": "The key lacks the scope (or logs are forbidden for personal keys)",
               "404": "Unknown id, or an id of another project", "429": "Throttled (fault injection)"}


def _error(code: str) -> dict[str, Any]:
    out: dict[str, Any] = {"description": _ERROR_TEXT[code],
                           "content": {"application/json": {"schema": _ref("Error")}}}
    if code == "401":
        out["headers"] = {"WWW-Authenticate": {"required": True, "schema": STR}}
    if code == "429":
        out["headers"] = {"Retry-After": {"required": True, "schema": STR}}
    return out


def _op(op_id: str, response: str | None, status: int = 200, scope: str | None = None,
        params: list[dict[str, Any]] | None = None, body: str | None = None, bad_input: bool = False,
        missing: bool = True) -> dict[str, Any]:
    """One operation; ``bad_input``: it validates a body or query (400); ``missing``: it looks ids up (404)."""
    responses: dict[str, Any] = {}
    if response is None:
        responses[str(status)] = {"description": "No response body"}
    else:
        responses[str(status)] = {"description": "OK", "content": {"application/json": {"schema": _ref(response)}}}
    codes = (["400"] if bad_input or body else []) + list(_AUTH_ERRORS) + (["404"] if missing else [])
    for code in sorted(codes):
        responses[code] = _error(code)
    out: dict[str, Any] = {"operationId": op_id, "responses": responses, "parameters": params or []}
    if scope:
        out["x-required-scope"] = scope
    if body:
        out["requestBody"] = {"required": False, "content": {"application/json": {"schema": _ref(body)}}}
    return out


def _p(name: str, where: str = "path", schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": where, "required": where == "path", "schema": schema or STR}


def build_schema(base_url: str, generation: str = "newest") -> dict[str, Any]:
    """The document for the generation served: the newest answers 201 to backfill and retry (and 404 to the
    removed ``backfill/``), older servers 200."""
    created = 201 if generation == "newest" else 200
    pid, sid, eid, rid = _p("project_id"), _p("id"), _p("id"), _p("id")
    bfid = _p("backfill_id")
    bid = _p("batch_export_id")
    lim, off = _p("limit", "query", INT), _p("offset", "query", INT)
    log_params = [_p("level", "query"), _p("search", "query"), _p("after", "query"), _p("before", "query"),
                  _p("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500})]
    act = [_p("page", "query", {"type": "integer", "minimum": 1}),
           _p("limit", "query", {"type": "integer", "minimum": 1, "maximum": 1000})]
    s = "/api/projects/{project_id}/surveys/"
    stat_dates = [_p("date_from", "query"), _p("date_to", "query")]
    paths: dict[str, Any] = {
        "/api/users/@me/": {"get": _op("users_me", "CurrentUser", scope="user:read", missing=False)},
        "/api/personal_api_keys/@current/": {"get": _op("personal_api_keys_current", "PersonalAPIKey",
                                                        missing=False)},
        s + "stats/": {"get": _op("surveys_stats", "SurveyStats", scope="survey:read", params=[pid, *stat_dates],
                                  bad_input=True)},
        s + "{id}/stats/": {"get": _op("surveys_stats_retrieve", "SurveyStats", scope="survey:read",
                                       params=[pid, sid, *stat_dates], bad_input=True)},
        "/api/projects/": {"get": _op("projects_list", "PaginatedProjectList", scope="project:read",
                                      params=[lim, off, _p("search", "query")], missing=False)},
        "/api/projects/{project_id}/": {"get": _op("projects_retrieve", "Project", scope="project:read",
                                                   params=[pid])},
        s: {"get": _op("surveys_list", "PaginatedSurveyList", scope="survey:read",
                       params=[pid, lim, off, _p("search", "query"), _p("archived", "query")]),
            "post": _op("surveys_create", "SurveyWrite", 201, "survey:write", [pid], "SurveyCreate")},
        s + "activity/": {"get": _op("surveys_all_activity", "ActivityLogPage", scope="activity_log:read",
                                     params=[pid, *act], bad_input=True)},
        s + "responses_count/": {"get": _op("surveys_responses_count", "ResponsesCount", scope="survey:read",
                                            params=[pid])},
        s + "{id}/": {"get": _op("surveys_retrieve", "Survey", scope="survey:read", params=[pid, sid]),
                      "patch": _op("surveys_partial_update", "SurveyWrite", scope="survey:write", params=[pid, sid],
                                   body="PatchedSurvey"),
                      "delete": _op("surveys_destroy", None, 204, "survey:write", [pid, sid])},
        s + "{id}/activity/": {"get": _op("surveys_activity", "ActivityLogPage", scope="activity_log:read",
                                          params=[pid, sid, *act], bad_input=True)},
        s + "{id}/summarize_responses/": {"post": _op("surveys_summarize_responses", "Summary",
                                                      scope="survey:read",
                                                      params=[pid, sid, _p("question_index", "query", INT),
                                                              _p("question_id", "query")],
                                                      body="Empty")},
    }
    if generation == "newest":  # the lifecycle actions exist on the newest service only
        for action in ("launch", "stop"):
            paths[s + "{id}/" + action + "/"] = {"post": _op(f"surveys_{action}", "Survey", scope="survey:write",
                                                             params=[pid, sid], body="Empty", bad_input=True)}
    for prefix, tag in (("/api/environments/{project_id}", "environments_"), ("/api/projects/{project_id}", "")):
        b = prefix + "/batch_exports/"
        paths[b] = {"get": _op(f"{tag}batch_exports_list", "PaginatedBatchExportList", scope="batch_export:read",
                               params=[pid, lim, off]),
                    "post": _op(f"{tag}batch_exports_create", "BatchExport", 201, "batch_export:write", [pid],
                                "BatchExportWrite")}
        paths[b + "{id}/"] = {
            "get": _op(f"{tag}batch_exports_retrieve", "BatchExport", scope="batch_export:read", params=[pid, eid]),
            "patch": _op(f"{tag}batch_exports_partial_update", "BatchExport", scope="batch_export:write",
                         params=[pid, eid], body="PatchedBatchExport"),
            "put": _op(f"{tag}batch_exports_update", "BatchExport", scope="batch_export:write",
                       params=[pid, eid], body="BatchExportWrite"),
            "delete": _op(f"{tag}batch_exports_destroy", None, 204, "batch_export:write", [pid, eid]),
        }
        paths[b + "{id}/pause/"] = {"post": _op(f"{tag}batch_exports_pause", "Paused", scope="batch_export:write",
                                                params=[pid, eid], body="Empty")}
        paths[b + "{id}/unpause/"] = {"post": _op(f"{tag}batch_exports_unpause", "Paused",
                                                  scope="batch_export:write", params=[pid, eid],
                                                  body="UnpauseRequest")}
        paths[b + "{id}/backfill/"] = {"post": _op(f"{tag}batch_exports_backfill", "BackfillId",
                                                   scope="batch_export:write", params=[pid, eid],
                                                   body="BackfillRequest")}
        paths[b + "{id}/backfills/"] = {
            "post": _op(f"{tag}batch_exports_backfills_create", "BackfillId", created, "batch_export:write",
                        [pid, eid], "BackfillRequest"),
            "get": _op(f"{tag}batch_exports_backfills_list", "PaginatedBatchExportBackfillList",
                       scope="batch_export:read", params=[pid, eid, _p("cursor", "query"), _p("ordering", "query")])}
        paths[b + "{id}/backfills/{backfill_id}/"] = {"get": _op(
            f"{tag}batch_exports_backfills_retrieve", "BatchExportBackfill", scope="batch_export:read",
            params=[pid, eid, bfid])}
        paths[b + "{id}/backfills/{backfill_id}/cancel/"] = {"post": _op(
            f"{tag}batch_exports_backfills_cancel", "Cancelled", scope="batch_export:write",
            params=[pid, eid, bfid], body="Empty")}
        paths[b + "{id}/logs/"] = {"get": _op(f"{tag}batch_exports_logs", "LogEntryList",
                                              scope="batch_export:read", params=[pid, eid, *log_params],
                                              bad_input=True)}
        paths[b + "{batch_export_id}/runs/"] = {"get": _op(
            f"{tag}batch_exports_runs_list", "PaginatedBatchExportRunList", scope="batch_export:read",
            params=[pid, bid, _p("cursor", "query"), _p("ordering", "query"), _p("after", "query"),
                    _p("before", "query"), _p("start", "query"), _p("end", "query"), _p("status", "query")],
            bad_input=True)}
        paths[b + "{batch_export_id}/runs/{id}/"] = {"get": _op(f"{tag}batch_exports_runs_retrieve",
                                                                "BatchExportRun", scope="batch_export:read",
                                                                params=[pid, bid, rid])}
        paths[b + "{batch_export_id}/runs/{id}/logs/"] = {"get": _op(
            f"{tag}batch_exports_runs_logs", "LogEntryList", scope="batch_export:read",
            params=[pid, bid, rid, *log_params], bad_input=True)}
        paths[b + "{batch_export_id}/runs/{id}/retry/"] = {"post": _op(
            f"{tag}batch_exports_runs_retry", "BackfillId", created, scope="batch_export:write",
            params=[pid, bid, rid], body="Empty")}
        paths[b + "{batch_export_id}/runs/{id}/cancel/"] = {"post": _op(
            f"{tag}batch_exports_runs_cancel", "Cancelled", scope="batch_export:write", params=[pid, bid, rid],
            body="Empty")}
    return {
        "openapi": "3.0.3",
        "info": {"title": "watchdeck sandbox", "version": "1.0.0",
                 "description": "A local stand-in for the surveys and batch-exports API."},
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {"schemas": {**_components(), **_request_bodies()},
                       "securitySchemes": {"PersonalAPIKeyAuth": {"type": "http", "scheme": "bearer"}}},
        "security": [{"PersonalAPIKeyAuth": []}],
    }
