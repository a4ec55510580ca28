"""Surveys, their lifecycle state, linked flags, activity, stats and response summaries."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, field_validator

from tui.api.models.common import ReadModel, SurveyId, Timestamp
from tui.api.models.projects import User
from tui.api.models.questions import Question, read_question


class SurveyType(StrEnum):
    POPOVER = "popover"
    WIDGET = "widget"
    EXTERNAL_SURVEY = "external_survey"
    API = "api"


class Flag(ReadModel):
    id: int | None = None
    team_id: int | None = None
    name: str | None = None
    key: str | None = None
    filters: dict[str, Any] | None = None
    deleted: bool | None = None
    active: bool | None = None
    ensure_experience_continuity: bool | None = None


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
    id: SurveyId
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


class SurveyStats(ReadModel):
    """``surveys/:id/stats/``: counts per survey event ("survey shown", "survey dismissed", "survey sent") and rates."""

    stats: dict[str, dict[str, Any]] = Field(default_factory=dict)
    rates: dict[str, float | int | None] = Field(default_factory=dict)

    def count(self, event: str) -> int | None:
        value = self.stats.get(event, {}).get("total_count")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def rate(self, key: str) -> float | None:
        """A percentage of ``rates`` (``response_rate``, ``dismissal_rate``...), None where the server sent none."""
        value = self.rates.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    @property
    def response_rate(self) -> float | None:
        return self.rate("response_rate")

    @property
    def dismissal_rate(self) -> float | None:
        return self.rate("dismissal_rate")

    @property
    def unique_respondents(self) -> int | None:
        """People who sent a response (``survey sent``'s ``unique_persons``)."""
        value = self.stats.get("survey sent", {}).get("unique_persons")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class ResponseSummary(ReadModel):
    """The summarize_responses body: unknown in the spec, so everything is kept as extras too."""

    content: str | None = None
