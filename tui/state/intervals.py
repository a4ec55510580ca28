"""Runs seen as data intervals: which attempt of an interval counts, and which statuses count as failed.

An interval can be attempted several times (a retry, a backfill). What the
operator has to repair is an interval whose *latest* attempt failed: one that
was retried and completed is done, one with an attempt still running is in hand.
Every incident view (groups, timeline, repair) reads runs through these helpers
so that they agree on what is still broken.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from tui.api.models.batch_exports import IN_PROGRESS_STATUSES, BatchExportRun
from tui.state.health import is_failed, run_order_key

# What failed and which attempt of an interval is the latest are health's (tui.state.health): the incident
# views, the verdicts and `watchdeck status` then agree on both.
__all__ = ["IntervalAttempts", "by_interval", "is_failed", "is_in_progress", "latest_attempts", "merge_runs"]


def is_in_progress(status: str | None) -> bool:
    return status in IN_PROGRESS_STATUSES


@dataclass(frozen=True)
class IntervalAttempts:
    """One data interval and every attempt seen for it, oldest attempt first."""

    start: datetime | None
    end: datetime
    attempts: tuple[BatchExportRun, ...]

    @property
    def latest(self) -> BatchExportRun:
        return self.attempts[-1]


_NO_START = datetime.min.replace(tzinfo=UTC)  # sorts a "from the beginning" interval first among equal ends


def by_interval(runs: Iterable[BatchExportRun]) -> list[IntervalAttempts]:
    """Runs gathered per data interval, intervals oldest first; runs without an interval are left out.

    The same run may arrive twice (``latest_runs`` and a runs page): it counts once. Written for speed
    (datetimes as keys, sorting only intervals attempted more than once): grouping reads every run of
    every export at every poll.
    """
    groups: dict[tuple[datetime, datetime], list[BatchExportRun]] = {}
    for run in runs:
        end = run.data_interval_end
        if end is not None:
            key = (end, run.data_interval_start or _NO_START)
            found = groups.get(key)
            if found is None:
                groups[key] = [run]
            else:
                found.append(run)
    out: list[IntervalAttempts] = []
    for key in sorted(groups):
        attempts = groups[key]
        if len(attempts) > 1:
            attempts = sorted({r.id: r for r in attempts}.values(), key=run_order_key)
        first = attempts[0]
        out.append(IntervalAttempts(first.data_interval_start, key[0], tuple(attempts)))
    return out


def latest_attempts(runs: Iterable[BatchExportRun]) -> list[BatchExportRun]:
    """The latest attempt of every interval, intervals oldest first."""
    return [group.latest for group in by_interval(runs)]


def merge_runs(*sources: Iterable[BatchExportRun]) -> list[BatchExportRun]:
    """Runs from several answers (``latest_runs``, runs pages) with duplicates removed; a later source wins."""
    merged: dict[str, BatchExportRun] = {}
    for source in sources:
        for run in source:
            merged[run.id] = run
    return list(merged.values())
