"""Typed models of every resource the dashboard reads.

Reading is tolerant on purpose: the real service grows new fields, run
statuses, question kinds and intervals between releases, and a dashboard that
refuses a whole page because of one new enum value is useless at 3 a.m. So:

* unknown fields are kept (``extra="allow"``) and go back unchanged when an
  object is written again;
* enumerations are typed as plain strings, with ``StrEnum`` classes naming the
  known values; an unknown value stays visible as its raw string;
* a malformed item in a list fails that item only (see :func:`parse_items`).

Writing is strict; see :mod:`tui.api.writes`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)


def _to_aware(value: Any) -> Any:
    """Accept ISO strings with or without a zone; a naive time is taken as UTC.

    The first branch is the common case, and fast: a 200-export poll reads ~11,000 of them.
    """
    if type(value) is str:
        try:
            parsed = datetime.fromisoformat(value)  # reads a trailing Z too
        except ValueError:
            pass
        else:
            return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError as err:
            raise ValueError(f"not an ISO 8601 date-time: {value!r}") from err
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


Timestamp = Annotated[datetime | None, BeforeValidator(_to_aware)]


def _object_or_none(value: Any) -> Any:
    """The published schema allows any JSON in some object fields (``destination.config``, ``schema``).

    The real serializers always send an object or null; anything else is read as
    "not given" rather than failing the whole export over a field no screen edits.
    """
    return value if isinstance(value, Mapping) else None


JsonObject = Annotated[dict[str, Any] | None, BeforeValidator(_object_or_none)]


class ReadModel(BaseModel):
    """Base of every model read from the server: keeps unknown fields."""

    # defer_build: a model is built on first use, so start-up does not pay for the survey models
    # while the monitor only reads exports.
    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=(), defer_build=True)

    @property
    def extra_fields(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


# --------------------------------------------------------------------------- enums


class RunStatus(StrEnum):
    """The run statuses the spec names (section 3.2) plus the real ``FailedBilling``."""

    CANCELLED = "Cancelled"
    COMPLETED = "Completed"
    CONTINUED_AS_NEW = "ContinuedAsNew"
    FAILED = "Failed"
    FAILED_RETRYABLE = "FailedRetryable"
    TERMINATED = "Terminated"
    TIMED_OUT = "TimedOut"
    RUNNING = "Running"
    STARTING = "Starting"
    FAILED_BILLING = "FailedBilling"


SPEC_RUN_STATUSES: tuple[str, ...] = tuple(s.value for s in RunStatus if s is not RunStatus.FAILED_BILLING)
IN_PROGRESS_STATUSES = frozenset({RunStatus.STARTING, RunStatus.RUNNING, RunStatus.CONTINUED_AS_NEW})


class ExportModel(StrEnum):
    EVENTS = "events"
    PERSONS = "persons"


class Interval(StrEnum):
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    EVERY_5_MINUTES = "every 5 minutes"
    EVERY_15_MINUTES = "every 15 minutes"


INTERVAL_SECONDS: dict[str, int] = {
    Interval.HOUR: 3600,
    Interval.DAY: 86400,
    Interval.WEEK: 7 * 86400,
    Interval.EVERY_5_MINUTES: 300,
    Interval.EVERY_15_MINUTES: 900,
}


def interval_seconds(interval: str | None) -> int | None:
    """Seconds in an export interval, also for forms like ``every 10 minutes``; None when unknown."""
    if not interval:
        return None
    if interval in INTERVAL_SECONDS:
        return INTERVAL_SECONDS[interval]
    parts = interval.split()
    if len(parts) == 3 and parts[0] == "every" and parts[1].isdigit():
        unit = {"minute": 60, "minutes": 60, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400}
        if parts[2] in unit:
            return int(parts[1]) * unit[parts[2]]
    return None


class QuestionType(StrEnum):
    OPEN = "open"
    LINK = "link"
    RATING = "rating"
    SINGLE_CHOICE = "single_choice"
    MULTIPLE_CHOICE = "multiple_choice"


class BranchingType(StrEnum):
    NEXT_QUESTION = "next_question"
    END = "end"
    RESPONSE_BASED = "response_based"
    SPECIFIC_QUESTION = "specific_question"


class SurveyType(StrEnum):
    POPOVER = "popover"
    WIDGET = "widget"
    EXTERNAL_SURVEY = "external_survey"
    API = "api"


# --------------------------------------------------------------------------- nested objects


class User(ReadModel):
    id: int | None = None
    uuid: str | None = None
    distinct_id: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    is_email_verified: bool | None = None
    hedgehog_config: dict[str, Any] | None = None

    @property
    def display_name(self) -> str:
        name = " ".join(p for p in (self.first_name, self.last_name) if p)
        return str(name or self.email or "unknown")


class Flag(ReadModel):
    id: int | None = None
    team_id: int | None = None
    name: str | None = None
    key: str | None = None
    filters: dict[str, Any] | None = None
    deleted: bool | None = None
    active: bool | None = None
    ensure_experience_continuity: bool | None = None


# --------------------------------------------------------------------------- branching


class NextQuestionBranching(ReadModel):
    type: Literal["next_question"] = "next_question"


class EndBranching(ReadModel):
    type: Literal["end"] = "end"


class ResponseBasedBranching(ReadModel):
    type: Literal["response_based"] = "response_based"
    # response key -> question index, or "end"
    responseValues: dict[str, int | str] = Field(default_factory=dict)


class SpecificQuestionBranching(ReadModel):
    type: Literal["specific_question"] = "specific_question"
    index: int


class UnknownBranching(ReadModel):
    """A branching kind this version does not know; kept verbatim."""

    type: str


def _branching_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    # isinstance first: an unhashable ``type`` (a list) must not raise TypeError out of validation
    return kind if isinstance(kind, str) and kind in BranchingType._value2member_map_ else "unknown"


Branching = Annotated[
    Annotated[NextQuestionBranching, Tag("next_question")]
    | Annotated[EndBranching, Tag("end")]
    | Annotated[ResponseBasedBranching, Tag("response_based")]
    | Annotated[SpecificQuestionBranching, Tag("specific_question")]
    | Annotated[UnknownBranching, Tag("unknown")],
    Discriminator(_branching_tag),
]


# --------------------------------------------------------------------------- questions


class QuestionBase(ReadModel):
    """Fields common to every question kind (spec 2.4)."""

    type: str
    question: str = ""
    id: str | None = None  # the real service attaches responses to it: never drop it
    description: str | None = None
    descriptionContentType: str | None = None
    optional: bool | None = None
    buttonText: str | None = None
    branching: Branching | None = None


class OpenQuestion(QuestionBase):
    type: Literal["open"] = "open"


class LinkQuestion(QuestionBase):
    type: Literal["link"] = "link"
    link: str | None = None


class RatingQuestion(QuestionBase):
    type: Literal["rating"] = "rating"
    display: str | None = None
    scale: int | None = None
    lowerBoundLabel: str | None = None
    upperBoundLabel: str | None = None


class ChoiceQuestion(QuestionBase):
    """single_choice and multiple_choice share one model (spec 2.4)."""

    type: Literal["single_choice", "multiple_choice"] = "single_choice"
    choices: list[str] = Field(default_factory=list)
    shuffleOptions: bool | None = None
    hasOpenChoice: bool | None = None


class UnknownQuestion(QuestionBase):
    """A question kind this version does not know; kept verbatim."""


class InvalidQuestion(UnknownQuestion):
    """A question that could not be read as any kind (e.g. a rating whose ``scale`` is text).

    The published schema types ``questions`` as any JSON, so one malformed question
    must not hide the whole survey: it fails alone, like a bad item of a page.
    Every field is kept as it came (typed ``Any``) so that sending the survey back
    loses nothing; ``problem`` says what was wrong, for the screen. A subclass of
    :class:`UnknownQuestion` so screens treat it as "not editable here".
    """

    type: Any = ""
    question: Any = ""
    id: Any = None
    description: Any = None
    descriptionContentType: Any = None
    optional: Any = None
    buttonText: Any = None
    branching: Any = None
    _problem: str = PrivateAttr(default="")

    @property
    def problem(self) -> str:
        return self._problem

    @classmethod
    def from_raw(cls, raw: Any, problem: str) -> InvalidQuestion:
        """Keep a dict as it came; anything else (a bare string, a number) under ``value``."""
        made = cls.model_validate(raw if isinstance(raw, Mapping) else {"value": raw})
        made._problem = problem
        return made


def _question_tag(value: Any) -> str:
    if isinstance(value, InvalidQuestion):  # only ever an instance: dumping routes it to its own all-Any schema
        return "invalid"
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return "unknown"
    if kind in ("single_choice", "multiple_choice"):
        return "choice"
    return kind if kind in ("open", "link", "rating") else "unknown"


Question = Annotated[
    Annotated[OpenQuestion, Tag("open")]
    | Annotated[LinkQuestion, Tag("link")]
    | Annotated[RatingQuestion, Tag("rating")]
    | Annotated[ChoiceQuestion, Tag("choice")]
    | Annotated[UnknownQuestion, Tag("unknown")]
    | Annotated[InvalidQuestion, Tag("invalid")],
    Discriminator(_question_tag),
]
QuestionAdapter: TypeAdapter[Question] = TypeAdapter(Question, config=ConfigDict(defer_build=True))
BranchingAdapter: TypeAdapter[Branching] = TypeAdapter(Branching, config=ConfigDict(defer_build=True))


def read_question(raw: Any) -> QuestionBase:
    """One question as its kind's model, or an :class:`InvalidQuestion` holding it verbatim; never raises."""
    if isinstance(raw, QuestionBase):
        return raw
    try:
        return QuestionAdapter.validate_python(raw)
    except ValidationError as err:
        return InvalidQuestion.from_raw(raw, describe_validation_error(err))


# --------------------------------------------------------------------------- surveys


class SurveyStatus(StrEnum):
    """The states the real service's UI and SDK show (spec 3.1 has no state field)."""

    DRAFT = "draft"
    RUNNING = "running"
    COMPLETE = "complete"
    ARCHIVED = "archived"


def survey_status(archived: bool, start_date: datetime | None, end_date: datetime | None,
                  now: datetime | None = None) -> SurveyStatus:
    """The lifecycle state as respondents meet it: the SDK shows a survey that has a start date and no end date.

    The dates' values do not matter: a start date in the future shows the survey at once, and any end
    date, even a future one, hides it. ``now`` is accepted for callers that pass it; it changes nothing.
    """
    del now
    if archived:
        return SurveyStatus.ARCHIVED
    if start_date is None:
        return SurveyStatus.DRAFT
    if end_date is None:
        return SurveyStatus.RUNNING
    return SurveyStatus.COMPLETE


def survey_notes(start_date: datetime | None, end_date: datetime | None, responses_limit: int | None,
                 responses: int | None, now: datetime) -> list[str]:
    """What the status alone does not say: dates that schedule nothing, a limit reached."""
    notes: list[str] = []
    if start_date is not None and start_date > now:
        notes.append("start date in the future: it schedules nothing, respondents see the survey now"
                     if end_date is None else "start date in the future: it schedules nothing")
    if end_date is not None and end_date > now:
        notes.append("end date in the future: it schedules nothing, respondents no longer see the survey")
    if responses_limit and responses is not None and responses >= responses_limit:
        notes.append(f"limit reached: {responses:,} of {responses_limit:,} responses")
    return notes


class Survey(ReadModel):
    id: str
    name: str = ""
    description: str | None = None
    type: str | None = None
    linked_flag: Flag | None = None
    linked_flag_id: int | None = None
    targeting_flag: Flag | None = None
    targeting_flag_id: int | None = None
    internal_targeting_flag: Flag | None = None
    targeting_flag_filters: dict[str, Any] | None = None
    remove_targeting_flag: bool | None = None
    questions: list[Question] | None = None
    conditions: Any = None
    appearance: Any = None
    created_at: Timestamp = None
    created_by: User | None = None
    start_date: Timestamp = None
    end_date: Timestamp = None
    archived: bool = False
    responses_limit: int | None = None
    iteration_count: int | None = None
    iteration_frequency_days: int | None = None
    iteration_start_dates: list[Any] | None = None
    current_iteration: int | None = None
    current_iteration_start_date: Timestamp = None
    schedule: str | None = None  # once, recurring or always
    response_sampling_start_date: Timestamp = None
    response_sampling_interval_type: str | None = None  # day, week or month
    response_sampling_interval: int | None = None
    response_sampling_limit: int | None = None
    response_sampling_daily_limits: Any = None
    enable_partial_responses: bool | None = None
    enable_iframe_embedding: bool | None = None  # newest servers
    linked_insight_id: int | None = None  # newest servers
    translations: Any = None  # newest servers: language code -> translated texts
    # The language the survey is written in (newest servers, default "en"); older servers leave it out.
    base_language: str | None = None

    @field_validator("base_language", mode="before")
    @classmethod
    def _read_base_language(cls, value: Any) -> str | None:
        """Anything but a non-empty string reads as unknown: a field for display must not hide the survey."""
        return value if isinstance(value, str) and value else None

    @field_validator("schedule", "response_sampling_start_date", "response_sampling_interval_type",
                     "response_sampling_interval", "response_sampling_limit", "enable_partial_responses",
                     "enable_iframe_embedding", "linked_insight_id", mode="wrap")
    @classmethod
    def _read_setting(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """A setting of the wrong shape reads as unknown: one odd value must not hide the survey."""
        try:
            return handler(value)
        except ValidationError:
            return None

    @field_validator("questions", mode="wrap")
    @classmethod
    def _read_questions(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """Each question fails alone (as :class:`InvalidQuestion`); a non-list reads as no questions.

        The real schema types ``questions`` as any JSON; the real service sends a
        list of objects. Refusing the whole survey over one question would hide it
        from the operator who most needs to see it.
        """
        if value is None:
            return None
        if not isinstance(value, list):
            return None
        try:
            return handler(value)
        except ValidationError:
            return [read_question(item) for item in value]

    def status_at(self, now: datetime) -> SurveyStatus:
        """The lifecycle state derived from archived, start_date and end_date (spec 3.1 has no field)."""
        return survey_status(self.archived, self.start_date, self.end_date, now)


# --------------------------------------------------------------------------- batch exports


class Destination(ReadModel):
    type: str = ""
    config: JsonObject = None


class BatchExportRun(ReadModel):
    id: str
    status: str = ""
    records_completed: int | None = None
    latest_error: str | None = None
    data_interval_start: Timestamp = None
    data_interval_end: Timestamp = None
    cursor: str | None = None
    created_at: Timestamp = None
    finished_at: Timestamp = None
    last_updated_at: Timestamp = None
    records_total_count: int | None = None
    batch_export: str | None = None
    backfill: str | None = None

    @property
    def is_in_progress(self) -> bool:
        return self.status in IN_PROGRESS_STATUSES


class BatchExport(ReadModel):
    id: str
    team_id: int | None = None
    name: str = ""
    model: str | None = None
    destination: Destination = Field(default_factory=Destination)
    interval: str = ""
    paused: bool = False
    created_at: Timestamp = None
    last_updated_at: Timestamp = None
    last_paused_at: Timestamp = None
    start_at: Timestamp = None
    end_at: Timestamp = None
    latest_runs: list[BatchExportRun] = Field(default_factory=list)
    native_query: str | None = None
    hogql_query: str | None = None
    schema_: JsonObject = Field(default=None, alias="schema")
    # Day and week boundaries: the export's IANA timezone, weekday (0 = Sunday) and hour.
    timezone: str | None = None
    offset_day: int | None = None
    offset_hour: int | None = None

    @property
    def query(self) -> str | None:
        """The export's query under any name the service has used: native_query, hogql_query, schema.hogql_query."""
        if self.native_query:
            return self.native_query
        if self.hogql_query:
            return self.hogql_query
        if isinstance(self.schema_, dict):
            nested = self.schema_.get("hogql_query")
            if isinstance(nested, str) and nested:
                return nested
        return None

    @property
    def interval_seconds(self) -> int | None:
        return interval_seconds(self.interval)


class BackfillResult(ReadModel):
    """What backfill and retry answer: the real service sends ``{"backfill_id": ...}``; the spec no body."""

    backfill_id: str | None = None


class BackfillProgress(ReadModel):
    total_runs: int | None = None
    finished_runs: int | None = None
    progress: float | None = None


def _backfill_progress(value: Any) -> Any:
    """The real service sends ``{total_runs, finished_runs, progress}`` while running, ``1.0`` when done, else null."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return {"progress": float(value)}
    return value if isinstance(value, Mapping) else None


class BatchExportBackfill(ReadModel):
    id: str
    batch_export: str | None = None
    status: str = ""
    start_at: Timestamp = None
    end_at: Timestamp = None
    adjusted_start_at: Timestamp = None
    created_at: Timestamp = None
    finished_at: Timestamp = None
    last_updated_at: Timestamp = None
    total_records_count: int | None = None
    progress: Annotated[BackfillProgress | None, BeforeValidator(_backfill_progress)] = None

    @property
    def is_in_progress(self) -> bool:
        return self.status in IN_PROGRESS_STATUSES


class CancelResult(ReadModel):
    cancelled: bool | None = None


class PauseResult(ReadModel):
    paused: bool | None = None


class LogEntry(ReadModel):
    timestamp: Timestamp = None
    level: str = ""
    message: str = ""
    log_source_id: str | None = None
    instance_id: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _older_names(cls, data: Any) -> Any:
        """Older servers name the export ``batch_export_id`` and the workflow run ``run_id``."""
        if isinstance(data, Mapping) and "log_source_id" not in data and "batch_export_id" in data:
            data = {**data, "log_source_id": data["batch_export_id"], "instance_id": data.get("run_id")}
        return data


# --------------------------------------------------------------------------- activity, projects, responses


class ActivityChange(ReadModel):
    type: str | None = None
    action: str | None = None
    field: str | None = None
    before: Any = None
    after: Any = None


class ActivityDetail(ReadModel):
    name: str | None = None
    changes: list[ActivityChange] | None = None


class ActivityEntry(ReadModel):
    id: str | int | None = None
    user: User | None = None
    activity: str = ""
    scope: str | None = None
    item_id: str | None = None
    detail: ActivityDetail | None = None
    created_at: Timestamp = None


class Project(ReadModel):
    """A project; ``created_at`` comes with the full project (``projects/:id/``), not with the basic list."""

    id: int | str
    uuid: str | None = None
    organization: str | None = None
    name: str = ""
    timezone: str | None = None
    created_at: Timestamp = None  # a backfill starting before it can have no data


class ApiKeyInfo(ReadModel):
    """``personal_api_keys/@current/``: the key's own label and scopes (``["*"]`` is every scope)."""

    id: str | None = None
    label: str | None = None
    mask_value: str | None = None
    scopes: list[str] = Field(default_factory=list)
    scoped_teams: list[int] | None = None
    scoped_organizations: list[str] | None = None
    created_at: Timestamp = None
    last_used_at: Timestamp = None


class SurveyStats(ReadModel):
    """``surveys/:id/stats/``: counts per survey event ("survey shown", "survey dismissed", "survey sent") and rates."""

    stats: dict[str, dict[str, Any]] = Field(default_factory=dict)
    rates: dict[str, float | int | None] = Field(default_factory=dict)

    def count(self, event: str) -> int | None:
        value = self.stats.get(event, {}).get("total_count")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def response_rate(self) -> float | None:
        value = self.rates.get("response_rate")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class ResponseSummary(ReadModel):
    """The summarize_responses body: unknown in the spec, so everything is kept as extras too."""

    content: str | None = None


# --------------------------------------------------------------------------- envelopes

T = TypeVar("T", bound=BaseModel)


class ItemError(BaseModel):
    """One list item that did not parse; the rest of the page still shows."""

    index: int
    id: str | None = None
    message: str


class Page(BaseModel, Generic[T]):
    """A page of a list: limit/offset (count), cursor (no count) or page-number (total_count)."""

    count: int | None = None
    next: str | None = None
    previous: str | None = None
    results: list[T] = Field(default_factory=list)
    errors: list[ItemError] = Field(default_factory=list)


def describe_validation_error(err: ValidationError) -> str:
    """One line naming the first bad field, for an operator rather than a developer."""
    first = err.errors()[0] if err.errors() else None
    if first is None:
        return "invalid object"
    loc = ".".join(str(part) for part in first.get("loc", ()))
    return f"{loc or 'object'}: {first.get('msg', 'invalid')}"


def parse_items(items: Iterable[Any], model: type[T] | Callable[[Any], T]) -> tuple[list[T], list[ItemError]]:
    """Validate each item on its own, so one malformed item fails alone."""
    validate: Callable[[Any], T] = (
        model.model_validate if isinstance(model, type) and issubclass(model, BaseModel) else model  # type: ignore[assignment]
    )
    good: list[T] = []
    bad: list[ItemError] = []
    for index, raw in enumerate(items):
        try:
            good.append(validate(raw))
        except ValidationError as err:
            item_id = raw.get("id") if isinstance(raw, Mapping) else None
            bad.append(ItemError(index=index, id=str(item_id) if item_id is not None else None,
                                 message=describe_validation_error(err)))
    return good, bad


def parse_page(data: Any, model: type[T]) -> Page[T]:
    """Read any of the three list envelopes (or a bare list) into a :class:`Page`."""
    if isinstance(data, list):
        items, errors = parse_items(data, model)
        return Page[model](count=len(data), results=items, errors=errors)  # type: ignore[valid-type]
    if not isinstance(data, Mapping):
        raise ValueError("expected a JSON object with results")
    raw_results = data.get("results")
    if not isinstance(raw_results, list):
        raise ValueError("the response has no results list")
    items, errors = parse_items(raw_results, model)
    count = data.get("count", data.get("total_count"))
    return Page[model](  # type: ignore[valid-type]
        count=count if isinstance(count, int) else None,
        next=data.get("next") if isinstance(data.get("next"), str) else None,
        previous=data.get("previous") if isinstance(data.get("previous"), str) else None,
        results=items,
        errors=errors,
    )
