"""Strict checks of what watchdeck sends, done before anything leaves the machine.

The server's own validation is thin (it does not check a
question's type, branching or rating scale), so a bad edit would be stored and
break the survey for respondents. These functions refuse it first and name the
field path (``questions[2].branching.index``) so the form can show the message
next to the field.

They return plain JSON-ready dicts holding exactly the keys they were given:
a PATCH built from them carries only what changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse

from tui.api.errors import WriteValidationError
from tui.api.models import BranchingType, ExportModel, Interval, QuestionType, SurveyType
from tui.api.survey_rules import survey_refusals

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
RATING_SCALES = (3, 5, 7, 10)
RATING_DISPLAYS = ("number", "emoji")
CONTENT_TYPES = ("text", "html")
SURVEY_INT_FIELDS = ("responses_limit", "iteration_count", "iteration_frequency_days", "current_iteration")
SURVEY_DATE_FIELDS = ("start_date", "end_date", "current_iteration_start_date")
EXPORT_DATE_FIELDS = ("start_at", "end_at", "last_paused_at")
BRANCHING_ON_RESPONSE = (QuestionType.RATING, QuestionType.SINGLE_CHOICE)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_datetime(value: Any) -> datetime | None:
    """An aware datetime from an ISO string (naive taken as UTC); None when unparseable."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def iso(value: datetime) -> str:
    """The form watchdeck sends: UTC with an explicit offset (the real service refuses naive times).

    A naive value is taken as UTC, as the models read one; ``astimezone`` alone
    would take it as the machine's local time and shift the backfill window.
    """
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat()


def _check_int32(problems: dict[str, str], path: str, value: Any, *, minimum: int = INT32_MIN) -> None:
    if value is None:
        return
    if not _is_int(value):
        problems[path] = "must be a whole number"
    elif not minimum <= value <= INT32_MAX:
        problems[path] = f"must be between {minimum} and {INT32_MAX}"


def _check_date(problems: dict[str, str], path: str, value: Any) -> None:
    if value is not None and parse_datetime(value) is None:
        problems[path] = "must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z"


def valid_link(url: Any) -> bool:
    if not isinstance(url, str):
        return False
    parsed = urlparse(url.strip())
    if parsed.scheme in ("http", "https"):
        return bool(parsed.netloc)
    if parsed.scheme == "mailto":
        return "@" in parsed.path
    return False


def _check_branching(
    problems: dict[str, str], path: str, branching: Any, kind: str, index: int, count: int
) -> None:
    if branching is None:
        return
    if not isinstance(branching, Mapping):
        problems[path] = "must be an object"
        return
    btype = branching.get("type")
    if btype == BranchingType.SPECIFIC_QUESTION:
        target = branching.get("index")
        if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < count:
            problems[f"{path}.index"] = f"must point at a question (0 to {count - 1})"
        elif target == index:
            problems[f"{path}.index"] = "a question cannot branch to itself"
    elif btype == BranchingType.RESPONSE_BASED:
        if kind not in BRANCHING_ON_RESPONSE:
            problems[f"{path}.type"] = "response-based branching is only for rating and single choice questions"
            return
        values = branching.get("responseValues")
        if not isinstance(values, Mapping):
            problems[f"{path}.responseValues"] = "must map responses to a question or end"
            return
        for key, target in values.items():
            if target == "end":
                continue
            if not _is_int(target) or not 0 <= target < count:
                problems[f"{path}.responseValues.{key}"] = f"must be a question (0 to {count - 1}) or end"
    elif btype not in (BranchingType.NEXT_QUESTION, BranchingType.END):
        problems[f"{path}.type"] = f"unknown branching type {btype!r}"


def _check_question(problems: dict[str, str], index: int, question: Any, count: int) -> None:
    path = f"questions[{index}]"
    if not isinstance(question, Mapping):
        problems[path] = "must be an object"
        return
    kind = question.get("type")
    text = question.get("question")
    if not isinstance(text, str) or not text.strip():
        problems[f"{path}.question"] = "question text is required"
    if not isinstance(kind, str) or not kind:
        problems[f"{path}.type"] = "question type is required"
        return
    content_type = question.get("descriptionContentType")
    if content_type is not None and content_type not in CONTENT_TYPES:
        problems[f"{path}.descriptionContentType"] = "must be text or html"
    if kind == QuestionType.LINK:
        if not valid_link(question.get("link")):
            problems[f"{path}.link"] = "must be an http(s) URL with a host, or mailto:"
    elif kind == QuestionType.RATING:
        display = question.get("display")
        if display not in RATING_DISPLAYS:
            problems[f"{path}.display"] = "must be number or emoji"
        scale = question.get("scale")
        allowed = (3, 5) if display == "emoji" else RATING_SCALES
        if scale not in allowed or not _is_int(scale):
            problems[f"{path}.scale"] = "must be one of " + ", ".join(str(s) for s in allowed)
    elif kind in (QuestionType.SINGLE_CHOICE, QuestionType.MULTIPLE_CHOICE):
        choices = question.get("choices")
        if not isinstance(choices, list) or not choices:
            problems[f"{path}.choices"] = "needs at least one choice"
        else:
            for ci, choice in enumerate(choices):
                if not isinstance(choice, str) or not choice.strip():
                    problems[f"{path}.choices[{ci}]"] = "a choice cannot be empty"
    _check_branching(problems, f"{path}.branching", question.get("branching"), kind, index, count)


def check_survey_write(payload: Mapping[str, Any], *, creating: bool = False,
                       existing: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Validate a survey create/PATCH body; returns it as a plain dict or raises WriteValidationError.

    Besides watchdeck's own checks, every rule of the real service (``tui.api.survey_rules``), in its words;
    ``existing`` is the survey as stored (for the rules that depend on it; None: unknown, those are skipped).
    """
    problems: dict[str, str] = {}
    body = dict(payload)
    if creating or "name" in body:
        name = body.get("name")
        if not isinstance(name, str) or not name.strip():
            problems["name"] = "a name is required"
    if "type" in body and body["type"] not in {kind.value for kind in SurveyType}:
        problems["type"] = "must be one of " + ", ".join(kind.value for kind in SurveyType)
    for key in SURVEY_INT_FIELDS:
        _check_int32(problems, key, body.get(key), minimum=0)
    for key in SURVEY_DATE_FIELDS:
        _check_date(problems, key, body.get(key))
    start, end = parse_datetime(body.get("start_date")), parse_datetime(body.get("end_date"))
    if start and end and end < start:
        problems["end_date"] = "must not be before the start date"
    for key in ("targeting_flag_filters", "appearance"):
        if body.get(key) is not None and not isinstance(body[key], Mapping):
            problems[key] = "must be a JSON object"
    for key in ("linked_flag_id", "targeting_flag_id"):
        _check_int32(problems, key, body.get(key), minimum=0)
    for key in ("archived", "remove_targeting_flag"):
        if key in body and body[key] is not None and not isinstance(body[key], bool):
            problems[key] = "must be true or false"
    if "questions" in body and body["questions"] is not None:
        questions = body["questions"]
        if not isinstance(questions, list):
            problems["questions"] = "must be a list"
        else:
            for index, question in enumerate(questions):
                _check_question(problems, index, question, len(questions))
    for refusal in survey_refusals(body, {} if creating else existing):
        problems.setdefault(refusal.path, refusal.message)
    if problems:
        raise WriteValidationError(problems)
    return body


def check_export_write(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a batch export PATCH body (spec 4.2.1)."""
    problems: dict[str, str] = {}
    body = dict(payload)
    if "name" in body and (not isinstance(body["name"], str) or not body["name"].strip()):
        problems["name"] = "a name is required"
    if "model" in body and body["model"] not in tuple(ExportModel):
        problems["model"] = "must be events or persons"
    if "interval" in body and body["interval"] not in tuple(Interval):
        problems["interval"] = "must be one of " + ", ".join(Interval)
    if "paused" in body and not isinstance(body["paused"], bool):
        problems["paused"] = "must be true or false"
    for key in EXPORT_DATE_FIELDS:
        _check_date(problems, key, body.get(key))
    start, end = parse_datetime(body.get("start_at")), parse_datetime(body.get("end_at"))
    if start and end and end <= start:
        problems["end_at"] = "must be after start_at"
    if "destination" in body:
        dest = body["destination"]
        if not isinstance(dest, Mapping):
            problems["destination"] = "must be an object"
        elif "config" in dest and dest["config"] is not None and not isinstance(dest["config"], Mapping):
            problems["destination.config"] = "must be a JSON object"
    if "native_query" in body and body["native_query"] is not None and not isinstance(body["native_query"], str):
        problems["native_query"] = "must be text"
    if problems:
        raise WriteValidationError(problems)
    return body


EARLIEST_BACKFILL = datetime(2000, 1, 1, tzinfo=UTC)  # no export has data older than this
MAX_BACKFILL_RUNS = 100_000  # one backfill past this is a typo (1970 -> now on a 5-minute export is 5 M runs)


def check_backfill(
    start_at: datetime, end_at: datetime, *, now: datetime, export_end_at: datetime | None = None,
    interval_seconds: int | None = None, project_created_at: datetime | None = None,
) -> None:
    """End after start, not in the future, not past the export's own end; a start the data can have.

    A start before 2000, or before the project existed where that is known, cannot have data: it
    is a typo (a year of 0001 or 1970), and would schedule thousands of empty runs. More than
    :data:`MAX_BACKFILL_RUNS` runs in one backfill is refused for the same reason.
    """
    problems: dict[str, str] = {}
    if start_at < EARLIEST_BACKFILL:
        problems["start_at"] = f"before {EARLIEST_BACKFILL:%Y-%m-%d}: no export has data that old"
    elif project_created_at is not None and start_at < project_created_at:
        problems["start_at"] = f"before the project existed (created {project_created_at:%Y-%m-%d %H:%M} UTC)"
    else:
        runs = count_backfill_runs(start_at, end_at, interval_seconds)
        if runs is not None and runs > MAX_BACKFILL_RUNS:
            problems["start_at"] = f"this range makes {runs:,} runs; at most {MAX_BACKFILL_RUNS:,} in one backfill"
    if end_at <= start_at:
        problems["end_at"] = "must be after the start"
    if end_at > now:
        problems["end_at"] = "cannot be in the future"
    if export_end_at is not None and end_at > export_end_at:
        problems["end_at"] = "cannot be past the export's end_at"
    if problems:
        raise WriteValidationError(problems)


def count_backfill_runs(start_at: datetime, end_at: datetime, interval_seconds: int | None) -> int | None:
    """How many runs a backfill of [start_at, end_at) creates: one per whole or partial interval."""
    if not interval_seconds or end_at <= start_at:
        return None if not interval_seconds else 0
    span = (end_at - start_at).total_seconds()
    return int(-(-span // interval_seconds))


def check_run_counts(records_completed: Any, records_total_count: Any) -> None:
    """int32 range of run counters (spec 8), for a retry body."""
    problems: dict[str, str] = {}
    _check_int32(problems, "records_completed", records_completed)
    _check_int32(problems, "records_total_count", records_total_count)
    if problems:
        raise WriteValidationError(problems)
