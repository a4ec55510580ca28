"""Checks of what watchdeck sends, done before anything leaves the machine.

The ``check_*_write`` functions refuse what the real service refuses, and name the field path
(``questions[2].branching.index``) so the form can show the message next to the field. What the service stores
but a respondent's browser cannot use (a rating scale the SDK does not draw, a recurring schedule without a
frequency, an unknown key), and texts it stores cleaned of HTML, are :func:`survey_notes`: said beside the field
and before sending, never a reason to refuse.

They return plain JSON-ready dicts holding exactly the keys they were given:
a PATCH built from them carries only what changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse

from tui.api.errors import WriteValidationError
from tui.api.models.batch_exports import ExportModel, Interval
from tui.api.models.questions import BranchingType, QuestionType
from tui.api.models.surveys import SurveyType
from tui.api.survey_html import rewrites, stored_as
from tui.api.survey_keys import unknown_key_notes
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
    elif kind in (QuestionType.SINGLE_CHOICE, QuestionType.MULTIPLE_CHOICE):
        choices = question.get("choices")
        if isinstance(choices, list):
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
    check_survey_model_fields(problems, body)
    check_survey_appearance_values(problems, body)
    if problems:
        raise WriteValidationError(problems)
    return body


def survey_notes(payload: Mapping[str, Any], *, creating: bool = False,
                 existing: Mapping[str, Any] | None = None) -> dict[str, str]:
    """What watchdeck says about a survey body without refusing it, by field path: the real service stores it.

    Texts the service will store cleaned of HTML (``stored as: …``), keys it does not know inside appearance,
    conditions and questions, and watchdeck's own checks (values the SDK cannot use, a rating scale it does not
    draw, a recurring schedule that repeats nothing, an end before the start).
    """
    notes: dict[str, str] = {}
    body = dict(payload)
    for path, text in rewrites(body).items():
        notes[path] = stored_as(text)
    for path, message in unknown_key_notes(body).items():
        notes.setdefault(path, message)
    start, end = parse_datetime(body.get("start_date")), parse_datetime(body.get("end_date"))
    if start and end and end < start:
        notes["end_date"] = "before the start date: the survey is shown as complete from its start"
    questions = body.get("questions")
    if isinstance(questions, list):
        for index, question in enumerate(questions):
            if isinstance(question, Mapping):
                _question_notes(notes, f"questions[{index}]", question)
    check_survey_recurrence(notes, body, existing, creating=creating)
    check_survey_display_values(notes, body)
    return notes


def _question_notes(notes: dict[str, str], path: str, question: Mapping[str, Any]) -> None:
    """A question's values the SDK cannot draw (the real service stores them: it checks neither)."""
    kind = question.get("type")
    if kind == QuestionType.RATING:
        display = question.get("display")
        if display not in RATING_DISPLAYS:
            notes.setdefault(f"{path}.display", "the SDK draws number or emoji ratings (stored as it is)")
        scale = question.get("scale")
        allowed = (3, 5) if display == "emoji" else RATING_SCALES
        if scale not in allowed or not _is_int(scale):
            notes.setdefault(f"{path}.scale", "the SDK draws scales " + ", ".join(str(s) for s in allowed)
                             + " (the service stores this one as it is)")
    elif kind in (QuestionType.SINGLE_CHOICE, QuestionType.MULTIPLE_CHOICE):
        choices = question.get("choices")
        if not isinstance(choices, list) or not choices:
            notes.setdefault(f"{path}.choices", "no choices: respondents have nothing to pick")


# --------------------------------------------------------------------------- survey model fields and display values

SURVEY_SCHEDULES = ("once", "recurring", "always")
SAMPLING_INTERVAL_TYPES = ("day", "week", "month")
MAX_ITERATION_COUNT = 500  # the real model's MAX_ITERATION_COUNT
# What the real SDK (posthog-js) understands: its SurveyMatchType, SurveyPosition and SurveyWidgetType values.
URL_MATCH_TYPES = ("regex", "not_regex", "exact", "is_not", "icontains", "not_icontains")
SURVEY_POSITIONS = ("top_left", "top_center", "top_right", "middle_left", "middle_center", "middle_right",
                    "left", "center", "right", "next_to_trigger")
WIDGET_TYPES = ("button", "tab", "selector")
_CSS_COLOUR_WORDS = """
aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood
cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray
darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue
firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew
hotpink indianred indigo ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray
lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine mediumblue
mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise mediumvioletred
midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid
palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple
rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue
slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white
whitesmoke yellow yellowgreen transparent currentcolor
"""
CSS_COLOUR_NAMES = frozenset(_CSS_COLOUR_WORDS.split())
_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_FUNCTION_COLOUR = re.compile(r"(?:rgba?|hsla?|var)\([^()]*\)", re.IGNORECASE)


def valid_colour(value: Any) -> bool:
    """A CSS colour the SDK can draw: #hex, rgb()/hsl() (and their a forms), var(), or a CSS colour name."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    return bool(_HEX_COLOUR.fullmatch(text) or _FUNCTION_COLOUR.fullmatch(text)) or text.lower() in CSS_COLOUR_NAMES


def is_colour_key(key: str) -> bool:
    """Appearance keys holding a colour (``backgroundColor``, ``ratingButtonActiveColor``, ``inputBackground``)."""
    return key.endswith("Color") or key == "inputBackground"


def _check_choice(problems: dict[str, str], path: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        problems[path] = "must be one of " + ", ".join(allowed)


def _check_non_negative(problems: dict[str, str], path: str, value: Any, *, whole: bool) -> None:
    if value is None:
        return
    number = _is_int(value) or (not whole and isinstance(value, float))
    if not number or value < 0:
        problems[path] = "must be a whole number, 0 or more" if whole else "must be a number, 0 or more"


def check_survey_model_fields(problems: dict[str, str], body: Mapping[str, Any]) -> None:
    """The model's fields beyond the spec's list (schedule, sampling, partial responses, languages...)."""
    _check_choice(problems, "schedule", body.get("schedule"), SURVEY_SCHEDULES)
    _check_choice(problems, "response_sampling_interval_type", body.get("response_sampling_interval_type"),
                  SAMPLING_INTERVAL_TYPES)
    count = body.get("iteration_count")
    if isinstance(count, int) and count > MAX_ITERATION_COUNT:
        problems["iteration_count"] = f"must be at most {MAX_ITERATION_COUNT}"
    for key in ("response_sampling_limit", "linked_insight_id"):
        _check_int32(problems, key, body.get(key), minimum=0)
    interval = body.get("response_sampling_interval")
    if interval is not None and (not _is_int(interval) or not 0 < interval <= INT32_MAX):
        problems["response_sampling_interval"] = "must be a whole number above 0"
    _check_date(problems, "response_sampling_start_date", body.get("response_sampling_start_date"))
    for key in ("enable_partial_responses", "enable_iframe_embedding"):
        if body.get(key) is not None and not isinstance(body[key], bool):
            problems[key] = "must be true or false"
    language = body.get("base_language")
    if language is not None and (not isinstance(language, str) or not language.strip()):
        problems["base_language"] = "must be a language code, e.g. en"
    if body.get("translations") is not None and not isinstance(body["translations"], Mapping):
        problems["translations"] = "must be a JSON object (language code -> texts)"


RECURRENCE_FIELDS = ("schedule", "iteration_count", "iteration_frequency_days")
NEEDS_ITERATION_COUNT = ("a recurring schedule without an iteration count runs once: how many times, 1 or more "
                         "(the service stores it)")
NEEDS_FREQUENCY = ("a recurring schedule without a frequency runs once: every how many days, 1 or more "
                   "(the service stores it)")


def check_survey_recurrence(notes: dict[str, str], body: Mapping[str, Any],
                            existing: Mapping[str, Any] | None, *, creating: bool = False) -> None:
    """A recurring schedule with no iteration count or no frequency repeats nothing: a note at those fields.

    The real serializer stores it (it checks only the schedule's value and the count's range), and the survey
    then runs once, so this is watchdeck's own check, not the service's: it warns, never refuses. The schedule,
    count and frequency are what they will be after the write: the body's where it carries them, else the stored
    survey's. When a write touches none of them, or the stored value it depends on is not known, nothing is
    judged.
    """
    if not any(key in body for key in RECURRENCE_FIELDS):
        return
    stored: Mapping[str, Any] | None = {} if creating else existing
    after: dict[str, Any] = {}
    for key in RECURRENCE_FIELDS:
        if key in body:
            after[key] = body[key]
        elif stored is None:
            return
        else:
            after[key] = stored.get(key)
    if after["schedule"] != "recurring":
        return
    for key, message in (("iteration_count", NEEDS_ITERATION_COUNT), ("iteration_frequency_days", NEEDS_FREQUENCY)):
        value = after[key]
        if value is None or (_is_int(value) and value == 0):
            notes.setdefault(key, message)


def check_survey_appearance_values(problems: dict[str, str], body: Mapping[str, Any]) -> None:
    """Appearance values the real service refuses: a negative popup delay; thank-you texts that are not text."""
    appearance = body.get("appearance")
    if not isinstance(appearance, Mapping):
        return
    _check_non_negative(problems, "appearance.surveyPopupDelaySeconds", appearance.get("surveyPopupDelaySeconds"),
                        whole=False)
    for key in ("thankYouMessageHeader", "thankYouMessageDescription"):
        value = appearance.get(key)
        if value is not None and not isinstance(value, str):
            problems[f"appearance.{key}"] = "must be text"


def check_survey_display_values(notes: dict[str, str], body: Mapping[str, Any]) -> None:
    """Display and targeting values the SDK does not understand (a URL match type, a position, a colour): notes,
    as the real service stores them."""
    conditions = body.get("conditions")
    if isinstance(conditions, Mapping):
        _note_choice(notes, "conditions.urlMatchType", conditions.get("urlMatchType"), URL_MATCH_TYPES)
        _note_choice(notes, "conditions.deviceTypesMatchType", conditions.get("deviceTypesMatchType"),
                     URL_MATCH_TYPES)
        wait = conditions.get("seenSurveyWaitPeriodInDays")
        if wait is not None and (not _is_int(wait) or wait < 0):
            notes["conditions.seenSurveyWaitPeriodInDays"] = "the SDK reads a whole number of days, 0 or more"
        url = conditions.get("url")
        if url is not None and not isinstance(url, str):
            notes["conditions.url"] = "the SDK matches text URLs only"
    elif conditions is not None:
        notes["conditions"] = "the SDK reads conditions from a JSON object only"
    appearance = body.get("appearance")
    if not isinstance(appearance, Mapping):
        return
    _note_choice(notes, "appearance.position", appearance.get("position"), SURVEY_POSITIONS)
    _note_choice(notes, "appearance.widgetType", appearance.get("widgetType"), WIDGET_TYPES)
    for key, value in appearance.items():
        if isinstance(key, str) and is_colour_key(key) and value not in (None, "") and not valid_colour(value):
            notes[f"appearance.{key}"] = ("not a colour the SDK can draw (#rrggbb, rgb(...), hsl(...) or a CSS "
                                          "colour name)")


def _note_choice(notes: dict[str, str], path: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        notes[path] = "the SDK knows " + ", ".join(allowed) + " (the service stores this one as it is)"


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
