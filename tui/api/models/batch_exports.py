"""Batch exports, their runs, backfills and logs, with the run statuses and intervals they use."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from tui.api.models.common import BackfillId, ExportId, JsonObject, ReadModel, RunId, Timestamp


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


class Destination(ReadModel):
    type: str = ""
    config: JsonObject = None


class BatchExportRun(ReadModel):
    id: RunId
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
    id: ExportId
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
    id: BackfillId
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
