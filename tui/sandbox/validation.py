"""Request validation as the real service does it (its survey and batch-export serializers).

Each check raises :class:`~tui.sandbox.errors.ServiceError` with the real envelope and the
offending field in ``attr`` (``None`` for the serializers' whole-object checks). Only the first
problem is reported, as drf-exceptions-hog does.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse
from zoneinfo import available_timezones

from tui.api.survey_html import stored_texts
from tui.api.survey_rules import Refusal, field_refusals, linked_variant_refusal
from tui.sandbox import hogql
from tui.sandbox.errors import ServiceError, validation_error
from tui.sandbox.timeutil import INTERVALS, iso, parse_input_datetime

INT32_MAX = 2_147_483_647
SURVEY_TYPES = ("popover", "widget", "external_survey", "api")
SCHEDULES = ("once", "recurring", "always")
MODELS = ("events", "persons")
DATETIME_FORMAT_ERROR = (
    "Datetime has wrong format. Use one of these formats instead: "
    "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
)
# Raised by the real serializer's whole-object validation, hence no field in ``attr``.
FULL_ROLLOUT = ("Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, "
                "delete this targeting")
SHUFFLE_AND_BRANCHING = ("Question shuffling and question branching cannot be used together. "
                         "Please disable one of these features.")

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


def _text_field(q: dict[str, Any], key: str, message: str) -> None:
    """A question's optional text: a string when set."""
    value = q.get(key)
    if value and not isinstance(value, str):
        raise validation_error(message, "questions")


def check_questions(questions: Any) -> list[dict[str, Any]] | None:
    """Validate questions as the real serializer does; returns them (their HTML is cleaned by the caller).

    Branching is not validated by the real service (an open question may carry ``response_based``
    branching, a ``specific_question`` index may point past the end); only the editor warns.
    """
    if questions is None:
        return None
    if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
        raise validation_error("Questions must be a list of objects", "questions")
    cleaned: list[dict[str, Any]] = []
    for index, raw in enumerate(questions):
        q = dict(raw)
        text = q.get("question")
        if not text:
            raise validation_error("Question text is required", "questions")
        if not isinstance(text, str):
            raise validation_error("Question text must be a string", "questions")
        _text_field(q, "description", "Question description must be a string")
        for key in ("buttonText", "lowerBoundLabel", "upperBoundLabel"):
            _text_field(q, key, f"Question {key} must be a string")
        choices = q.get("choices")
        if choices:
            if not isinstance(choices, list):
                raise validation_error("Question choices must be a list of strings", "questions")
            for choice in choices:
                if not isinstance(choice, str):
                    raise validation_error("Question choices must be strings", "questions")
                if not choice.strip():
                    raise validation_error("Question choices cannot be empty", "questions")
        content_type = q.get("descriptionContentType")
        if content_type and content_type not in ("text", "html"):
            raise validation_error("Question descriptionContentType must be one of ['text', 'html']", "questions")
        link = q.get("link")
        if link:
            if not isinstance(link, str):
                raise validation_error(f"Question {index + 1}: link must be a string", "questions")
            _check_link(link)
        cleaned.append(q)
    return cleaned


_MAILTO = re.compile(r"^mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$")


def _check_link(link: str) -> None:
    """https with a host, or a single well-formed mailto address; the real service's messages."""
    parsed = urlparse(link)
    if parsed.scheme not in ("https", "mailto"):
        raise validation_error("Link must be a URL with one of these schemes: [https, mailto]", "questions")
    if parsed.scheme == "mailto" and not _MAILTO.match(link):
        raise validation_error(
            "Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).", "questions")
    if parsed.scheme == "https" and not parsed.netloc:
        raise validation_error("Invalid HTTPS URL. Please enter a valid HTTPS link.", "questions")


def refuse(refusal: Refusal | None) -> None:
    """Raise a rule the body breaks (``tui.api.survey_rules``) as the real service reports it."""
    if refusal is not None:
        raise validation_error(refusal.message, refusal.attr)


def survey_payload(body: dict[str, Any], *, creating: bool, existing: dict[str, Any] | None = None,
                   newest: bool = True) -> dict[str, Any]:
    """Validate a survey create/PATCH body; returns the fields to store (unknown fields kept as sent).

    ``existing`` is the stored survey (empty when creating); ``newest`` turns on the rules only the newest
    generation has (questions' validation rules, translation language codes).
    """
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
    check_survey_model_choices(body)
    if "questions" in body:
        out["questions"] = check_questions(body["questions"])
    for obj_field in ("appearance", "conditions"):
        if obj_field in body and body[obj_field] is not None and not isinstance(body[obj_field], dict):
            raise validation_error(f"{obj_field.capitalize()} must be an object", obj_field)
    appearance = body.get("appearance")
    if isinstance(appearance, dict):
        out["appearance"] = appearance = dict(appearance)
        content_type = appearance.get("thankYouMessageDescriptionContentType")
        if content_type and content_type not in ("text", "html"):
            raise validation_error("thankYouMessageDescriptionContentType must be one of ['text', 'html']",
                                   "appearance")
        delay = appearance.get("surveyPopupDelaySeconds")
        if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int | float)):
            raise validation_error("A valid integer is required.", "appearance")
        if delay and delay < 0:
            raise validation_error("Survey popup delay seconds must be a positive integer", "appearance")
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
    refusals = field_refusals(body, {} if creating else existing, newest=newest)
    refuse(refusals[0] if refusals else None)
    refuse(linked_variant_refusal(body))
    tff = body.get("targeting_flag_filters")
    if tff is not None:
        if not isinstance(tff, dict):
            raise validation_error("Targeting flag filters must be an object", "targeting_flag_filters")
        groups = tff.get("groups") or []
        if isinstance(groups, list) and any(
            isinstance(g, dict) and not g.get("properties") and g.get("rollout_percentage") in (None, 100)
            for g in groups
        ):
            raise validation_error(FULL_ROLLOUT, None)
    # The texts the real service cleans of HTML, as it stores them (one place: tui.api.survey_html).
    return {**out, **{key: value for key, value in stored_texts(out).items()
                      if key in ("questions", "appearance", "translations")}}


SAMPLING_INTERVAL_TYPES = ("day", "week", "month")


def check_survey_model_choices(body: dict[str, Any]) -> None:
    """The model's choice fields beyond ``type``: ``response_sampling_interval_type`` (day, week or month)."""
    value = body.get("response_sampling_interval_type")
    if value is not None and value not in SAMPLING_INTERVAL_TYPES:
        raise _invalid_choice(value, "response_sampling_interval_type")


# Destination types a create may name, and the config keys each requires (the real workflow inputs' fields
# without a default).
DESTINATION_TYPES = ("S3", "AwsS3", "S3Compatible", "Snowflake", "Postgres", "Redshift", "BigQuery", "Databricks",
                     "AzureBlob", "HTTP")
REQUIRED_CONFIG = {
    "S3": ("bucket_name", "region", "prefix"), "AwsS3": ("bucket_name", "region", "prefix"),
    "S3Compatible": ("bucket_name", "region", "prefix"), "Snowflake": ("database", "warehouse", "schema"),
    "Postgres": ("database",), "Redshift": ("database",), "BigQuery": ("dataset_id",),
    "Databricks": ("http_path", "catalog", "schema", "table_name"), "AzureBlob": ("container_name",),
    "HTTP": ("url", "token"),
}
# Newest: credentials live in an Integration. (type, name in the message, needed on update too)
NEEDS_INTEGRATION = {
    "AwsS3": ("AwsS3", True), "S3Compatible": ("S3Compatible", True), "Snowflake": ("Snowflake", False),
    "Postgres": ("Postgres", False), "Redshift": ("Redshift", False), "BigQuery": ("BigQuery", True),
    "Databricks": ("Databricks", True), "AzureBlob": ("Azure Blob", True),
}
HTTP_URLS = ("https://us.i.posthog.com/batch/", "https://eu.i.posthog.com/batch/")
S3_DEPRECATED = ("The 'S3' destination type is deprecated and can no longer be used. "
                 "Use 'AwsS3' for AWS S3, or 'S3Compatible' for S3-compatible storage.")
HIGH_FREQUENCY = {"newest": "Higher frequency batch exports are not enabled for this team.",
                  "older": "Higher frequency exports are not enabled for this team."}


def _required(detail_attr: str) -> ServiceError:
    return validation_error("This field is required.", detail_attr, code="required")


def _check_destination(dest: Any, current: dict[str, Any] | None, *, full: bool, newest: bool) -> dict[str, Any]:
    """The ``destination`` of a create or PUT (``full``) or PATCH, as BatchExportDestinationSerializer and
    validate_destination check it (the newest generation; older servers only check its shape)."""
    if not isinstance(dest, dict):
        raise validation_error(f"Invalid data. Expected a dictionary, but got {type(dest).__name__}.",
                               "destination")
    old_type = current["destination"]["type"] if current else None
    kind = dest.get("type", old_type if not full else None)
    if full and kind is None:
        raise _required("destination__type")
    if full and kind not in DESTINATION_TYPES:
        raise _invalid_choice(kind, "destination__type")
    config = dest.get("config")
    if full and "config" not in dest:
        raise _required("destination__config")
    if config is not None and not isinstance(config, dict):
        raise validation_error("Configuration must be an object.", "destination__config")
    if full and newest:
        missing = [key for key in REQUIRED_CONFIG.get(str(kind), ()) if key not in (config or {})]
        if missing:
            raise validation_error(f"Configuration missing required field: '{missing[0]}'", "destination")
    if old_type is not None and "type" in dest and dest["type"] != old_type:
        raise validation_error(
            f"Cannot change destination type from '{old_type}' to '{dest['type']}'. Delete this batch export "
            "and create a new one with the new destination type.", "destination")
    if full and newest:
        if kind == "S3":
            raise validation_error(S3_DEPRECATED, "destination")
        integration = dest.get("integration_id", dest.get("integration"))
        if integration is None and current is not None and "integration_id" not in dest \
                and "integration" not in dest:
            integration = current.get("integration")
        named, always = NEEDS_INTEGRATION.get(str(kind), ("", False))
        if named and integration is None and (always or current is None):
            raise validation_error(f"Integration is required for {named} batch exports", "destination")
        url = (config or {}).get("url")
        if kind == "HTTP" and url and url not in HTTP_URLS:
            raise validation_error(f"Invalid destination URL: {url}", "destination")
    return dest


def export_write(body: dict[str, Any], current: dict[str, Any] | None, *, full: bool = False, newest: bool = True,
                 high_frequency: bool = True) -> dict[str, Any]:
    """Validate a batch-export create (``current`` None), PUT (``full``) or PATCH; returns normalised values for
    the fields given. A create or PUT needs ``name``, ``destination`` and ``interval``."""
    creating = current is None
    full = full or creating
    out: dict[str, Any] = {}
    if full:
        for required in ("name", "destination", "interval"):
            if required not in body:
                raise _required(required)
    if "name" in body:
        if not isinstance(body["name"], str) or not body["name"].strip():
            raise validation_error("This field may not be blank.", "name", code="blank")
        out["name"] = body["name"]
    if "model" in body:
        if body["model"] not in MODELS:
            raise _invalid_choice(body["model"], "model")
        out["model"] = body["model"]
    if "destination" in body:
        out["destination"] = _check_destination(body["destination"], current, full=full, newest=newest)
    if "interval" in body:
        if body["interval"] is None:
            raise validation_error("This field may not be null.", "interval", code="null")
        if body["interval"] not in INTERVALS:
            raise _invalid_choice(body["interval"], "interval")
        if body["interval"] not in ("hour", "day", "week") and not high_frequency and (newest or creating):
            raise ServiceError(403, "authentication_error", "permission_denied",
                               HIGH_FREQUENCY["newest" if newest else "older"])
        out["interval"] = body["interval"]
    _check_timing(body, current or {}, out, full=full)
    if "paused" in body:
        check_bool(body["paused"], "paused")
        out["paused"] = body["paused"]
    for field in ("start_at", "end_at", "last_paused_at"):
        if field in body:
            out[field] = check_datetime(body[field], field)
    start = out.get("start_at", (current or {}).get("start_at"))
    end = out.get("end_at", (current or {}).get("end_at"))
    if start and end and end <= start:
        raise validation_error("The end_at must be after the start_at.", "end_at")
    for query_field in ("hogql_query", "native_query"):
        if query_field in body:
            q = body[query_field]
            if not isinstance(q, str):
                raise validation_error("Not a valid string.", query_field)
            if q.strip():
                check_export_query(q, query_field)
            out["hogql_query"] = hogql.normalise(q) if q.strip() else q
    dest = out.get("destination") or {}
    kind = dest.get("type") or ((current or {}).get("destination") or {}).get("type")
    if newest and kind == "HTTP" and out.get("model", "events") != "events":
        raise validation_error("HTTP batch exports only support the events model", None)
    return out


TIMEZONES = frozenset(available_timezones()) | {"UTC"}


def _check_offset(body: dict[str, Any], field: str, maximum: int) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    check_int(value, field, minimum=0, maximum=maximum)
    return int(value)


def _check_timing(body: dict[str, Any], current: dict[str, Any], out: dict[str, Any], *, full: bool) -> None:
    """``timezone``, ``offset_day`` (0-6, weekly) and ``offset_hour`` (0-23, daily/weekly), kept as the real
    model keeps them: one ``interval_offset`` in seconds, reset when the interval changes to one without, and
    on a create or PUT that leaves the offsets out."""
    if "timezone" in body:
        tz = body["timezone"]
        if tz is not None and tz not in TIMEZONES:
            raise _invalid_choice(tz, "timezone")
        out["timezone"] = tz or "UTC"
    day = _check_offset(body, "offset_day", 6)
    hour = _check_offset(body, "offset_hour", 23)
    interval = out.get("interval", current.get("interval"))
    if day is not None and interval != "week":
        raise validation_error("offset_day is not applicable for non-weekly intervals", "offset_day")
    if hour is not None and interval not in ("day", "week"):
        raise validation_error("offset_hour is not applicable for non-daily/weekly intervals", "offset_hour")
    if "interval" not in out:
        if "offset_day" in body or "offset_hour" in body:
            old = current.get("interval_offset") or 0
            day = day if "offset_day" in body else (old // 86400 if interval == "week" else 0)
            hour = hour if "offset_hour" in body else old % 86400 // 3600
            out["interval_offset"] = ((day or 0) * 86400 if interval == "week" else 0) + (hour or 0) * 3600
        return
    if interval == "day":
        if "offset_hour" in body:
            out["interval_offset"] = None if hour is None else hour * 3600
        elif full:
            out["interval_offset"] = None
    elif interval == "week":
        if "offset_day" in body or "offset_hour" in body:
            out["interval_offset"] = (day or 0) * 86400 + (hour or 0) * 3600
        elif full:
            out["interval_offset"] = None
    else:
        out["interval_offset"] = None


# Functions a batch-export query may call (a sample of HogQL's; anything else is refused as unsupported).
QUERY_FUNCTIONS = frozenset({
    "tostring", "toint", "tofloat", "todate", "todatetime", "tounixtimestamp", "tostartofhour", "tostartofday",
    "lower", "upper", "trim", "length", "substring", "concat", "coalesce", "if", "ifnull", "replaceall",
    "jsonextractstring", "jsonextractint", "jsonextractraw", "jsonextract", "now", "round", "floor", "ceil",
    "abs", "md5", "sha256", "tojsonstring", "splitbychar", "arrayjoin", "nullif", "isnull", "isnotnull",
})
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def check_export_query(query: str, attr: str) -> None:
    """A single ``SELECT ... FROM events`` with known functions, refused as the real HogQL parser refuses."""
    text = re.sub(r"'(?:[^'\\]|\\.)*'", "''", query)
    if not re.match(r"(?is)^\s*select\b", text):
        raise validation_error("Failed to parse query", attr)
    if re.search(r"(?i)\bunion\b", text):
        raise validation_error("UNIONs are not supported", attr)
    if re.search(r"(?i)\bjoin\b", text):
        raise validation_error("JOINs are not supported", attr)
    source = re.search(r"(?is)\bfrom\s+([A-Za-z_][A-Za-z0-9_.]*|\()", text)
    if source is None:
        raise validation_error("Query must SELECT FROM events", attr)
    if source.group(1) not in ("events", "persons"):
        raise validation_error("Query must only SELECT FROM events", attr)
    for name in _CALL.findall(text):
        if name.lower() not in QUERY_FUNCTIONS and name.lower() not in ("select", "from", "where", "in", "and",
                                                                       "or", "not"):
            raise validation_error(f"Invalid HogQL query: Unsupported function call '{name}(...)'", attr)
