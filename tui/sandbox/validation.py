"""Request validation as the real service does it (api-facts.md 3.4, 4.2, 4.7).

Each check raises :class:`~tui.sandbox.errors.ServiceError` with the real envelope and the
offending field in ``attr``. Only the first problem is reported, as drf-exceptions-hog does.
"""

from __future__ import annotations

import re
from typing import Any

from tui.sandbox.errors import ServiceError, validation_error
from tui.sandbox.timeutil import INTERVALS, iso, parse_input_datetime

INT32_MAX = 2_147_483_647
SURVEY_TYPES = ("popover", "widget", "external_survey", "api")
SCHEDULES = ("once", "recurring", "always")
MODELS = ("events", "persons")
BRANCHING_TYPES = ("next_question", "end", "response_based", "specific_question")
DATETIME_FORMAT_ERROR = (
    "Datetime has wrong format. Use one of these formats instead: "
    "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

# Keys a client may write that are not stored as survey fields.
SURVEY_WRITE_ONLY = ("linked_flag_id", "targeting_flag_id", "targeting_flag_filters", "remove_targeting_flag")
SURVEY_READ_ONLY = (
    "id", "created_at", "created_by", "linked_flag", "targeting_flag", "internal_targeting_flag",
    "feature_flag_keys", "user_access_level",
)


def _invalid_choice(value: Any, attr: str) -> ServiceError:
    return validation_error(f'"{value}" is not a valid choice.', attr, code="invalid_choice")


def check_int(value: Any, attr: str, *, minimum: int = 0, maximum: int = INT32_MAX, nullable: bool = True) -> None:
    if value is None and nullable:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            value = int(value)
        else:
            raise validation_error("A valid integer is required.", attr)
    if value > maximum:
        raise validation_error(f"Ensure this value is less than or equal to {maximum}.", attr, code="max_value")
    if value < minimum:
        raise validation_error(f"Ensure this value is greater than or equal to {minimum}.", attr, code="min_value")


def check_datetime(value: Any, attr: str, *, nullable: bool = True) -> str | None:
    """Validate a writable datetime field; returns the normalised stored form."""
    if value is None and nullable:
        return None
    try:
        return iso(parse_input_datetime(value, allow_naive=True))
    except (ValueError, TypeError) as exc:
        raise validation_error(DATETIME_FORMAT_ERROR, attr) from exc


def check_bool(value: Any, attr: str, *, nullable: bool = False) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, bool):
        raise validation_error("Must be a valid boolean.", attr)


def check_questions(questions: Any) -> list[dict[str, Any]] | None:
    """Validate questions as the real serializer does, plus branching structure."""
    if questions is None:
        return None
    if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
        raise validation_error("Questions must be a list of objects", "questions")
    for q in questions:
        text = q.get("question")
        if not isinstance(text, str) or not text.strip():
            raise validation_error("Question text is required", "questions")
        qtype = q.get("type")
        if "choices" in q or qtype in ("single_choice", "multiple_choice"):
            choices = q.get("choices")
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
                raise validation_error("Question choices must be a list of strings", "questions")
            if not choices or any(not c.strip() for c in choices):
                raise validation_error("Question choices cannot be empty", "questions")
        if "link" in q and q["link"] not in (None, ""):
            _check_link(q["link"])
        if "descriptionContentType" in q and q["descriptionContentType"] not in ("text", "html", None):
            raise validation_error("Question descriptionContentType must be one of ['text', 'html']", "questions")
        if qtype == "rating" and q.get("display") not in (None, "number", "emoji"):
            raise validation_error("Rating question display must be one of ['number', 'emoji']", "questions")
        if qtype == "rating" and "scale" in q and (isinstance(q["scale"], bool)
                                                   or not isinstance(q["scale"], int | float)):
            raise validation_error("Rating question scale must be a number", "questions")
        if q.get("branching") is not None:
            _check_branching(q["branching"], qtype, len(questions))
    return questions


def _check_link(link: Any) -> None:
    message = "Link must be a URL with one of these schemes: [https, mailto]"
    if not isinstance(link, str):
        raise validation_error(message, "questions")
    scheme, sep, rest = link.partition(":")
    if not sep or scheme.lower() not in ("https", "mailto"):
        raise validation_error(message, "questions")
    if scheme.lower() == "https" and not re.match(r"^//[^/\s]+", rest):
        raise validation_error(message, "questions")
    if scheme.lower() == "mailto" and not _EMAIL.match(rest.split("?", 1)[0]):
        raise validation_error(message, "questions")


def _check_branching(branching: Any, qtype: Any, count: int) -> None:
    if not isinstance(branching, dict):
        raise validation_error("Question branching must be an object", "questions")
    btype = branching.get("type")
    if btype not in BRANCHING_TYPES:
        raise validation_error(f"Question branching type '{btype}' is not valid", "questions")
    if btype == "response_based":
        if qtype not in ("rating", "single_choice"):
            raise validation_error(
                "Response-based branching is only available for rating and single choice questions", "questions"
            )
        values = branching.get("responseValues")
        if not isinstance(values, dict):
            raise validation_error("Response-based branching must have responseValues", "questions")
        for target in values.values():
            if target != "end" and (isinstance(target, bool) or not isinstance(target, int)
                                    or not 0 <= target < count):
                raise validation_error("Response-based branching targets must be question indexes or 'end'",
                                       "questions")
    if btype == "specific_question":
        index = branching.get("index")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise validation_error("The branching question index must be a valid question index", "questions")


def survey_payload(body: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """Validate a survey create/PATCH body; returns the fields to store (unknown fields kept as sent)."""
    if creating:
        for required in ("name", "type"):
            if body.get(required) is None:
                raise validation_error("This field is required.", required, code="required")
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key in SURVEY_READ_ONLY or key in SURVEY_WRITE_ONLY or key.startswith("__"):
            continue
        out[key] = value
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str):
            raise validation_error("Not a valid string.", "name")
        if not name.strip():
            raise validation_error("This field may not be blank.", "name", code="blank")
        if len(name) > 400:
            raise validation_error("Ensure this field has no more than 400 characters.", "name", code="max_length")
    if "description" in body and not isinstance(body["description"], str):
        raise validation_error("Not a valid string.", "description")
    if "type" in body and body["type"] not in SURVEY_TYPES:
        raise _invalid_choice(body["type"], "type")
    if "schedule" in body and body["schedule"] is not None and body["schedule"] not in SCHEDULES:
        raise validation_error("Schedule must be one of: once, recurring, always", "schedule")
    if "questions" in body:
        check_questions(body["questions"])
    for obj_field in ("appearance", "conditions"):
        if obj_field in body and body[obj_field] is not None and not isinstance(body[obj_field], dict):
            raise validation_error(f"{obj_field.capitalize()} must be an object", obj_field)
    appearance = body.get("appearance")
    if isinstance(appearance, dict) and "surveyPopupDelaySeconds" in appearance:
        delay = appearance["surveyPopupDelaySeconds"]
        if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0):
            raise validation_error("Survey popup delay seconds must be a positive integer.", "appearance")
    for int_field in ("responses_limit", "iteration_frequency_days", "current_iteration",
                      "response_sampling_interval", "response_sampling_limit"):
        if int_field in body:
            check_int(body[int_field], int_field)
    if "iteration_count" in body:
        check_int(body["iteration_count"], "iteration_count", maximum=500)
    for dt_field in ("start_date", "end_date", "current_iteration_start_date", "response_sampling_start_date"):
        if dt_field in body:
            out[dt_field] = check_datetime(body[dt_field], dt_field)
    if "iteration_start_dates" in body:
        dates = body["iteration_start_dates"]
        if dates is not None:
            if not isinstance(dates, list):
                raise validation_error('Expected a list of items but got type "str".', "iteration_start_dates",
                                       code="not_a_list")
            out["iteration_start_dates"] = [check_datetime(d, "iteration_start_dates") for d in dates]
    for bool_field in ("archived", "enable_partial_responses", "enable_iframe_embedding"):
        if bool_field in body:
            check_bool(body[bool_field], bool_field, nullable=bool_field != "archived")
    for id_field in ("linked_flag_id", "targeting_flag_id", "linked_insight_id"):
        if id_field in body:
            check_int(body[id_field], id_field, minimum=-INT32_MAX - 1)
    if "remove_targeting_flag" in body:
        check_bool(body["remove_targeting_flag"], "remove_targeting_flag", nullable=True)
    tff = body.get("targeting_flag_filters")
    if tff is not None:
        if not isinstance(tff, dict):
            raise validation_error("Targeting flag filters must be an object", "targeting_flag_filters")
        groups = tff.get("groups")
        if isinstance(groups, list) and groups and all(
            isinstance(g, dict) and not g.get("properties") and g.get("rollout_percentage") in (None, 100)
            for g in groups
        ):
            raise validation_error(
                "Invalid operation: User targeting rolls out to everyone. If you want all users to see the "
                "survey, please remove the targeting flag.",
                "targeting_flag_filters",
            )
    return out


def export_patch(body: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """Validate a batch-export PATCH; returns normalised values for the fields present."""
    out: dict[str, Any] = {}
    if "name" in body:
        if not isinstance(body["name"], str) or not body["name"].strip():
            raise validation_error("This field may not be blank.", "name", code="blank")
        out["name"] = body["name"]
    if "model" in body:
        if body["model"] not in MODELS:
            raise _invalid_choice(body["model"], "model")
        out["model"] = body["model"]
    if "interval" in body:
        if body["interval"] not in INTERVALS:
            raise _invalid_choice(body["interval"], "interval")
        out["interval"] = body["interval"]
    if "paused" in body:
        check_bool(body["paused"], "paused")
        out["paused"] = body["paused"]
    for field in ("start_at", "end_at", "last_paused_at"):
        if field in body:
            out[field] = check_datetime(body[field], field)
    start = out.get("start_at", current.get("start_at"))
    end = out.get("end_at", current.get("end_at"))
    if start and end and end <= start:
        raise validation_error("The end_at must be after the start_at.", "end_at")
    for query_field in ("hogql_query", "native_query"):
        if query_field in body:
            q = body[query_field]
            if not isinstance(q, str):
                raise validation_error("Not a valid string.", query_field)
            if q.strip() and not re.match(r"(?is)^\s*select\b", q):
                raise validation_error("Only SELECT queries are supported.", query_field)
            out["hogql_query"] = q
    if "destination" in body:
        dest = body["destination"]
        if not isinstance(dest, dict):
            raise validation_error('Invalid data. Expected a dictionary, but got str.', "destination")
        if "type" in dest and dest["type"] != current["destination"]["type"]:
            raise validation_error("The destination type of a batch export cannot be changed.", "destination")
        config = dest.get("config")
        if config is not None and not isinstance(config, dict):
            raise validation_error("Configuration must be an object.", "destination__config")
        out["destination"] = dest
    return out
