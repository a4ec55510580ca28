"""Repair in bulk: which intervals to retry, which gaps to backfill, and sending them inside the budget.

Planning is pure: from the runs seen, the intervals whose latest attempt failed
within a window (by default since the current failure streak began), leaving
out any interval that a newer attempt completed or is working on. Sending is a
small loop that keeps at most two requests in flight, waits for room in the
operator's share of the rate limit, re-checks each interval just before sending
(a poll may have shown a new attempt meanwhile) and stops when asked, keeping
what was already sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Generic, TypeVar

from tui.api.models.batch_exports import BatchExportRun, RunStatus
from tui.state.budget import ActionBudget
from tui.state.intervals import by_interval, is_failed, is_in_progress
from tui.text.words import counted

TYPED_CONFIRM_ABOVE = 20
MAX_IN_FLIGHT = 2
GAP_GRACE_SECONDS = 600.0


@dataclass(frozen=True)
class ExportRef:
    """Which export a piece of repair belongs to, enough to send for it and to journal it."""

    key: str
    project_id: str
    export_id: str
    name: str


@dataclass(frozen=True)
class RetryTarget:
    export: ExportRef
    run_id: str
    start: datetime | None
    end: datetime

    def describe(self) -> str:
        return f"retry {self.export.name} {_span(self.start, self.end)}"


@dataclass(frozen=True)
class GapRange:
    export: ExportRef
    start: datetime
    end: datetime
    intervals: int

    def describe(self) -> str:
        return f"backfill {self.export.name} {_span(self.start, self.end)} ({counted(self.intervals, 'interval')})"


def _span(start: datetime | None, end: datetime) -> str:
    head = f"{start:%m-%d %H:%M}" if start is not None else "…"
    return f"{head}→{end:%m-%d %H:%M}"


# --------------------------------------------------------------------------- planning


def streak_start(runs: Iterable[BatchExportRun]) -> datetime | None:
    """Start of the oldest interval of the failure streak at the newest end of the history; None when not failing.

    Intervals in progress or cancelled neither extend nor break the streak; a completed one ends it.
    """
    start: datetime | None = None
    for group in reversed(by_interval(runs)):
        status = group.latest.status
        if is_failed(status):
            start = group.start or group.end
        elif status == RunStatus.COMPLETED:
            break
    return start


@dataclass
class RetryPlan:
    targets: list[RetryTarget] = field(default_factory=list)
    left_out: int = 0  # failed intervals in the window that a newer attempt completed or is running
    since: datetime | None = None

    @property
    def count(self) -> int:
        return len(self.targets)

    @property
    def exports(self) -> int:
        return len({t.export.key for t in self.targets})

    @property
    def first(self) -> RetryTarget | None:
        return min(self.targets, key=lambda t: t.end, default=None)

    @property
    def last(self) -> RetryTarget | None:
        return max(self.targets, key=lambda t: t.end, default=None)

    @property
    def needs_typed_count(self) -> bool:
        return self.count > TYPED_CONFIRM_ABOVE


def plan_export(export: ExportRef, runs: Sequence[BatchExportRun], since: datetime | None = None,
                run_ids: set[str] | None = None) -> RetryPlan:
    """The retries that would repair one export from ``since`` (default: its failure streak's start).

    ``run_ids`` limits the plan to those runs (a failure group's runs of this export).
    """
    window = since if since is not None else streak_start(runs)
    plan = RetryPlan(since=window)
    if window is None:
        return plan
    for group in by_interval(runs):
        begins = group.start or group.end
        if begins < window:
            continue
        latest = group.latest
        if is_failed(latest.status):
            if run_ids is None or latest.id in run_ids:
                plan.targets.append(RetryTarget(export, latest.id, group.start, group.end))
        elif (any(is_failed(a.status) for a in group.attempts)
              and (latest.status == RunStatus.COMPLETED or is_in_progress(latest.status))
              and (run_ids is None or any(a.id in run_ids for a in group.attempts))):
            plan.left_out += 1
    return plan


def merge_plans(plans: Iterable[RetryPlan]) -> RetryPlan:
    merged = RetryPlan()
    starts = []
    for plan in plans:
        merged.targets.extend(plan.targets)
        merged.left_out += plan.left_out
        if plan.since is not None:
            starts.append(plan.since)
    merged.since = min(starts) if starts else None
    merged.targets.sort(key=lambda t: (t.end, t.export.key))
    return merged


def recheck(target: RetryTarget, runs: Sequence[BatchExportRun]) -> str | None:
    """Just before sending: None when the interval still needs a retry, else why not ("already running")."""
    for group in by_interval(runs):
        if group.end != target.end or group.start != target.start:
            continue
        latest = group.latest
        if latest.id == target.run_id or is_failed(latest.status):
            return None
        if is_in_progress(latest.status):
            return "already running"
        if latest.status == RunStatus.COMPLETED:
            return "already completed"
        return None
    return None


def gap_ranges(export: ExportRef, runs: Sequence[BatchExportRun], step_seconds: int | None,
               start: datetime, now: datetime) -> list[GapRange]:
    """Intervals between ``start`` and ``now`` that no run covers at all, merged into contiguous ranges.

    Intervals are aligned like the export's own runs (any run's end modulo the step), or to the epoch. An
    interval that ended less than ``GAP_GRACE_SECONDS`` ago is not a gap yet: its scheduled run starts after its end.
    """
    if not step_seconds or start >= now:
        return []
    step = float(step_seconds)
    spans = sorted(
        ((r.data_interval_start or r.data_interval_end).timestamp(), r.data_interval_end.timestamp())
        for r in runs if r.data_interval_end is not None
    )
    anchor = spans[-1][1] % step if spans else 0.0
    t = start.timestamp()
    t = t - ((t - anchor) % step)
    if t < start.timestamp():
        t += step
    limit = now.timestamp() - GAP_GRACE_SECONDS
    ranges: list[GapRange] = []
    open_start: float | None = None
    count = 0
    index = 0
    while t + step <= limit:
        lo, hi = t, t + step
        # Runs are in order of their start, and the interval's start only grows: those ending by it are passed
        # for good. The first run left ends after the interval's start; it covers the interval if it starts before
        # its end, and no later run (starting later still) covers it if that one does not.
        while index < len(spans) and spans[index][1] <= lo:
            index += 1
        if index < len(spans) and spans[index][0] < hi:
            if open_start is not None:
                ranges.append(_gap(export, open_start, lo, count))
                open_start, count = None, 0
        else:
            if open_start is None:
                open_start = lo
            count += 1
        t = hi
    if open_start is not None:
        ranges.append(_gap(export, open_start, t, count))
    return ranges


def _gap(export: ExportRef, start: float, end: float, count: int) -> GapRange:
    return GapRange(export, datetime.fromtimestamp(start, tz=UTC), datetime.fromtimestamp(end, tz=UTC), count)


# --------------------------------------------------------------------------- sending

T = TypeVar("T")


@dataclass
class RepairProgress:
    total: int
    sent: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> how many ("already running": 2)
    errors: list[str] = field(default_factory=list)
    stopped: bool = False
    finished: bool = False

    @property
    def done(self) -> int:
        return self.sent + sum(self.skipped.values()) + len(self.errors)

    def summary(self, verb: str = "retried") -> str:
        """``14 retried, 2 already running, 1 failed`` (and ``stopped: 5 not sent`` when stopped)."""
        parts = [f"{self.sent} {verb}"]
        parts.extend(f"{n} {reason}" for reason, n in sorted(self.skipped.items()))
        if self.errors:
            parts.append(f"{len(self.errors)} failed")
        if self.stopped and self.done < self.total:
            parts.append(f"stopped: {self.total - self.done} not sent")
        return ", ".join(parts)


class RepairRunner(Generic[T]):
    """Sends ``items`` at most ``MAX_IN_FLIGHT`` at a time, each once the budget has room.

    ``stop`` ends it after the requests in flight; what was sent stays sent.

    ``send`` raises to report a failure (its message is kept); ``skip`` returns a reason to leave an item out.
    ``on_item`` is told of each outcome (for the journal), ``on_progress`` after each item (for the bar).
    """

    def __init__(self, items: Sequence[T], send: Callable[[T], Awaitable[object]], budget: ActionBudget, *,
                 skip: Callable[[T], str | None] = lambda _item: None,
                 on_item: Callable[[T, str], None] = lambda _item, _outcome: None,
                 on_progress: Callable[[RepairProgress], None] = lambda _progress: None,
                 describe_error: Callable[[Exception], str] = str,
                 in_flight: int = MAX_IN_FLIGHT) -> None:
        self.items = list(items)
        self.progress = RepairProgress(total=len(self.items))
        self._send = send
        self._budget = budget
        self._skip = skip
        self._on_item = on_item
        self._on_progress = on_progress
        self._describe_error = describe_error
        self._in_flight = max(1, in_flight)
        self._next = 0
        self._stop = False
        self.most_in_flight = 0
        self._now_in_flight = 0

    def stop(self) -> None:
        self._stop = True
        self.progress.stopped = True

    async def run(self) -> RepairProgress:
        try:
            await asyncio.gather(*(self._worker() for _ in range(min(self._in_flight, max(1, len(self.items))))))
        finally:
            self.progress.finished = True
            self._on_progress(self.progress)
        return self.progress

    async def _worker(self) -> None:
        while not self._stop and self._next < len(self.items):
            item = self.items[self._next]
            self._next += 1
            reason = self._skip(item)
            if reason is not None:
                self.progress.skipped[reason] = self.progress.skipped.get(reason, 0) + 1
                self._on_item(item, reason)
                self._on_progress(self.progress)
                continue
            await self._budget.acquire()
            if self._stop:  # asked to stop while waiting for room: this one was not sent
                break
            self._now_in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._now_in_flight)
            try:
                await self._send(item)
            except Exception as err:  # one failed send is reported, the rest go on
                message = self._describe_error(err)
                self.progress.errors.append(message)
                self._on_item(item, f"error: {message}")
            else:
                self.progress.sent += 1
                self._on_item(item, "sent")
            finally:
                self._now_in_flight -= 1
            self._on_progress(self.progress)


def since_default(plan_since: datetime | None, now: datetime) -> datetime:
    """The window's start shown in the preview when nothing is failing: the last day."""
    return plan_since if plan_since is not None else now - timedelta(days=1)
