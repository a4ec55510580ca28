"""The runs pane's views of one export's runs: a status filter, grouping by data interval, older pages.

The real service's own runs view groups runs by data interval with the number
of attempts and filters by status group (failed: Failed, FailedRetryable,
FailedBilling; cancelled: Cancelled, Terminated, TimedOut); these are the same
choices, kept here so the screen only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tui.api.models.batch_exports import BatchExportRun, RunStatus
from tui.state.health import CANCELLED_GROUP, FAILED_GROUP
from tui.state.intervals import by_interval, is_in_progress


@dataclass(frozen=True)
class StatusFilter:
    label: str
    statuses: frozenset[str] | None  # None: every run

    def keeps(self, status: str) -> bool:
        if self.statuses is None:
            return True
        return status in self.statuses


RUNNING_GROUP = frozenset({RunStatus.STARTING, RunStatus.RUNNING, RunStatus.CONTINUED_AS_NEW})
STATUS_FILTERS: tuple[StatusFilter, ...] = (
    StatusFilter("all", None),
    StatusFilter("failed", FAILED_GROUP),
    StatusFilter("running", RUNNING_GROUP),
    StatusFilter("completed", frozenset({RunStatus.COMPLETED})),
    StatusFilter("cancelled", CANCELLED_GROUP),
)


def next_filter(index: int) -> int:
    return (index + 1) % len(STATUS_FILTERS)


@dataclass(frozen=True)
class IntervalRow:
    """One data interval: its latest attempt (what the row shows) and how many attempts there were."""

    latest: BatchExportRun
    attempts: int

    @property
    def key(self) -> str:
        return self.latest.id


def filtered(runs: Sequence[BatchExportRun], status_filter: StatusFilter) -> list[BatchExportRun]:
    """Runs newest first as given, keeping those of the filter's status group."""
    return [run for run in runs if status_filter.keeps(run.status)]


def by_interval_newest_first(runs: Sequence[BatchExportRun], status_filter: StatusFilter) -> list[IntervalRow]:
    """One row per data interval, newest interval first; the filter applies to each interval's latest attempt."""
    rows = [IntervalRow(group.latest, len(group.attempts)) for group in by_interval(runs)]
    rows.reverse()
    return [row for row in rows if status_filter.keeps(row.latest.status)]


OLDER_RUNS_KEPT = 1000  # older runs one export's runs pane pages back to, past its window (about 1.9 MB)


@dataclass
class RunPages:
    """Older runs of one export, page after page as the operator scrolls past the last one."""

    runs: list[BatchExportRun] = field(default_factory=list)
    next_url: str | None = None
    exhausted: bool = False
    loading: bool = False

    def first_page(self, runs: Sequence[BatchExportRun], next_url: str | None) -> None:
        self.runs = list(runs)
        self.next_url = next_url
        self.exhausted = next_url is None

    def add_page(self, runs: Sequence[BatchExportRun], next_url: str | None) -> int:
        """Append an older page; returns how many runs were new (a page may overlap what is known). Past
        ``OLDER_RUNS_KEPT`` runs no further page is read (the timeline and the logs reach further back)."""
        known = {run.id for run in self.runs}
        fresh = [run for run in runs if run.id not in known][:max(0, OLDER_RUNS_KEPT - len(self.runs))]
        self.runs.extend(fresh)
        self.next_url = next_url
        self.exhausted = next_url is None or len(self.runs) >= OLDER_RUNS_KEPT
        return len(fresh)

    @property
    def can_load_more(self) -> bool:
        return not self.exhausted and not self.loading and self.next_url is not None


def has_running(runs: Sequence[BatchExportRun]) -> bool:
    return any(is_in_progress(run.status) for run in runs)
