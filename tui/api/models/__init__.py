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

One module per resource: :mod:`~tui.api.models.common` (the base model, times, pages),
:mod:`~tui.api.models.projects`, :mod:`~tui.api.models.questions`, :mod:`~tui.api.models.surveys`
and :mod:`~tui.api.models.batch_exports`. This package names them all.
"""

from tui.api.models.batch_exports import (
    IN_PROGRESS_STATUSES,
    INTERVAL_SECONDS,
    SPEC_RUN_STATUSES,
    BackfillProgress,
    BackfillResult,
    BatchExport,
    BatchExportBackfill,
    BatchExportRun,
    CancelResult,
    Destination,
    ExportModel,
    Interval,
    LogEntry,
    PauseResult,
    RunStatus,
    interval_seconds,
)
from tui.api.models.common import (
    ItemError,
    JsonObject,
    Page,
    ReadModel,
    Timestamp,
    describe_validation_error,
    parse_items,
    parse_page,
)
from tui.api.models.projects import (
    ApiKeyInfo,
    Project,
    User,
)
from tui.api.models.questions import (
    Branching,
    BranchingAdapter,
    BranchingType,
    ChoiceQuestion,
    EndBranching,
    InvalidQuestion,
    LinkQuestion,
    NextQuestionBranching,
    OpenQuestion,
    Question,
    QuestionAdapter,
    QuestionBase,
    QuestionType,
    RatingQuestion,
    ResponseBasedBranching,
    SpecificQuestionBranching,
    UnknownBranching,
    UnknownQuestion,
    read_question,
)
from tui.api.models.surveys import (
    ActivityChange,
    ActivityDetail,
    ActivityEntry,
    Flag,
    ResponseSummary,
    Survey,
    SurveyStats,
    SurveyStatus,
    SurveyType,
    survey_notes,
    survey_status,
)

__all__ = [
    "INTERVAL_SECONDS",
    "IN_PROGRESS_STATUSES",
    "SPEC_RUN_STATUSES",
    "ActivityChange",
    "ActivityDetail",
    "ActivityEntry",
    "ApiKeyInfo",
    "BackfillProgress",
    "BackfillResult",
    "BatchExport",
    "BatchExportBackfill",
    "BatchExportRun",
    "Branching",
    "BranchingAdapter",
    "BranchingType",
    "CancelResult",
    "ChoiceQuestion",
    "Destination",
    "EndBranching",
    "ExportModel",
    "Flag",
    "Interval",
    "InvalidQuestion",
    "ItemError",
    "JsonObject",
    "LinkQuestion",
    "LogEntry",
    "NextQuestionBranching",
    "OpenQuestion",
    "Page",
    "PauseResult",
    "Project",
    "Question",
    "QuestionAdapter",
    "QuestionBase",
    "QuestionType",
    "RatingQuestion",
    "ReadModel",
    "ResponseBasedBranching",
    "ResponseSummary",
    "RunStatus",
    "SpecificQuestionBranching",
    "Survey",
    "SurveyStats",
    "SurveyStatus",
    "SurveyType",
    "Timestamp",
    "UnknownBranching",
    "UnknownQuestion",
    "User",
    "describe_validation_error",
    "interval_seconds",
    "parse_items",
    "parse_page",
    "read_question",
    "survey_notes",
    "survey_status",
]
