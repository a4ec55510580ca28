"""Which exports are watched, one poll of them, and the figures on-call cares about.

One list call per project per cycle where the server has the (real-service)
list endpoint; where it answers 404/405 (the spec has none) the given ids are
fetched one by one. The client caps requests in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tui.api.cache_context import bypass_cache, collect_answer_times
from tui.api.client import ApiClient
from tui.api.errors import MethodNotAllowed, NotFound
from tui.api.models import (
    FAILED_STATUSES,
    BatchExport,
    BatchExportRun,
    ItemError,
    RunStatus,
)
from tui.state.poller import describe_failure


@dataclass(frozen=True)
class WatchedExport:
    project_id: str
    export: BatchExport

    @property
    def key(self) -> str:
        """Row key: unique across projects."""
        return f"{self.project_id}:{self.export.id}"


@dataclass
class ExportsSnapshot:
    """One successful poll: the exports, in a stable order, and what could not be read."""

    exports: list[WatchedExport] = field(default_factory=list)
    item_errors: list[ItemError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Seconds the oldest answer in it had already aged when the poll ended (answers shared through the cache).
    answer_age: float = 0.0

    def by_key(self) -> dict[str, WatchedExport]:
        return {w.key: w for w in self.exports}


class ExportsSource:
    """Fetches the watched exports of every project; remembers whether the list endpoint exists."""

    def __init__(self, clients: Sequence[ApiClient], extra_ids: Sequence[str] = ()) -> None:
        self.clients = list(clients)
        self.extra_ids = list(dict.fromkeys(extra_ids))
        self._list_supported: dict[str, bool] = {}
        self._last_good: dict[str, ExportsSnapshot] = {}
        self.bypass_next = False  # the next poll asks the server, not the shared cache (ctrl+r)

    @property
    def requests_per_cycle(self) -> int:
        """For the rate-limit budget: one per project with a list endpoint, else one per export."""
        total = 0
        for client in self.clients:
            if self._list_supported.get(client.project_id, True):
                total += 1
            else:
                total += len(self.extra_ids)
        return max(total, 1)

    def answers_waiting(self) -> bool:
        """Every watched project's list was fetched while the app loaded (tui.api.prefetch)."""
        return all(client.prefetched_answer_ready for client in self.clients)

    async def fetch(self) -> ExportsSnapshot:
        """One poll of every project. One project failing does not blank the others: its last good
        exports stay, with a note saying why they are old; only when every project fails does the poll fail."""
        bypass, self.bypass_next = self.bypass_next, False
        with collect_answer_times() as answered, bypass_cache() if bypass else contextlib.nullcontext():
            results = await asyncio.gather(*(self._fetch_project(c) for c in self.clients), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        for failure in failures:
            if not isinstance(failure, Exception):  # cancellation and the like are not ours to absorb
                raise failure
        if failures and len(failures) == len(results):
            raise failures[0]
        snapshot = ExportsSnapshot()
        for client, result in zip(self.clients, results, strict=True):
            pid = client.project_id
            if isinstance(result, BaseException):
                snapshot.notes.append(f"project {pid}: {describe_failure(result)}, showing its last good data")
                part = self._last_good.get(pid)
                if part is None:
                    continue
            else:
                part = self._last_good[pid] = result
            snapshot.exports.extend(part.exports)
            snapshot.item_errors.extend(part.item_errors)
            snapshot.notes.extend(part.notes)
        snapshot.exports.sort(key=lambda w: (w.project_id, w.export.name.lower(), w.export.id))
        snapshot.answer_age = time.time() - min(answered) if answered else 0.0
        return snapshot

    async def _fetch_project(self, client: ApiClient) -> ExportsSnapshot:
        snapshot = ExportsSnapshot()
        exports: dict[str, BatchExport] = {}
        pid = client.project_id
        if self._list_supported.get(pid, True):
            try:
                page = await client.batch_exports.list()
            except (NotFound, MethodNotAllowed):
                self._list_supported[pid] = False
            else:
                self._list_supported[pid] = True
                exports.update((e.id, e) for e in page.results)
                snapshot.item_errors.extend(page.errors)
        if not self._list_supported.get(pid, True):
            snapshot.notes.append("no export list on this server: watching the given ids only")
        missing = [i for i in self.extra_ids if i not in exports]
        if missing and (len(self.clients) == 1 or not self._list_supported.get(pid, True)):
            fetched = await asyncio.gather(*(client.batch_exports.get(i) for i in missing), return_exceptions=True)
            for export_id, result in zip(missing, fetched, strict=True):
                if isinstance(result, BatchExport):
                    exports[result.id] = result
                elif isinstance(result, NotFound):
                    snapshot.notes.append(f"export {export_id} not found")
                elif isinstance(result, BaseException):
                    raise result
        snapshot.exports = [WatchedExport(pid, e) for e in exports.values()]
        return snapshot


# --------------------------------------------------------------------------- derived figures


def _ts(when: datetime | None) -> float:
    return when.timestamp() if when is not None else 0.0


def runs_oldest_first(export: BatchExport) -> list[BatchExportRun]:
    """``latest_runs`` sorted by data interval then creation, oldest first (servers differ in order)."""
    return sorted(export.latest_runs, key=lambda r: (_ts(r.data_interval_end), _ts(r.created_at)))


def latest_run(export: BatchExport) -> BatchExportRun | None:
    """The newest run by creation time (a retry of an old interval is still the latest thing that happened)."""
    if not export.latest_runs:
        return None
    return max(export.latest_runs, key=lambda r: (_ts(r.created_at), _ts(r.data_interval_end)))


def newest_completed_end(export: BatchExport) -> datetime | None:
    ends = [r.data_interval_end for r in export.latest_runs
            if r.status == RunStatus.COMPLETED and r.data_interval_end is not None]
    return max(ends) if ends else None


def lag_seconds(export: BatchExport, now: datetime) -> float | None:
    """How far the exported data is behind: now minus the end of the newest Completed interval."""
    end = newest_completed_end(export)
    return None if end is None else max(0.0, (now - end).total_seconds())


def lag_exceeds(lag: float | None, step: int | None, paused: bool, threshold_intervals: float) -> bool:
    """Lag past ``threshold_intervals`` intervals; a paused export is expected to lag and is not flagged."""
    return not paused and lag is not None and step is not None and lag > threshold_intervals * step


def is_lagging(export: BatchExport, now: datetime, threshold_intervals: float = 2.0) -> bool:
    return lag_exceeds(lag_seconds(export, now), export.interval_seconds, export.paused, threshold_intervals)


def due_anchor(export: BatchExport) -> datetime | None:
    """The end of the interval after the newest scheduled run (backfills do not move the schedule)."""
    step = export.interval_seconds
    ends = [r.data_interval_end for r in export.latest_runs if r.data_interval_end is not None and r.backfill is None]
    return max(ends) + timedelta(seconds=step) if ends and step else None


def due_at(anchor: datetime | None, step: int | None, paused: bool, end_at: datetime | None,
           now: datetime) -> datetime | None:
    """When the next scheduled run should start; None when paused, unknown or past the export's end."""
    if paused or not step:
        return None
    if anchor is not None:
        due = anchor
    else:
        epoch = now.timestamp()
        due = datetime.fromtimestamp(epoch - epoch % step + step, tz=now.tzinfo)
    if end_at is not None and due > end_at + timedelta(seconds=step):
        return None
    return due


def next_run_due(export: BatchExport, now: datetime) -> datetime | None:
    return due_at(due_anchor(export), export.interval_seconds, export.paused, export.end_at, now)


def is_failing(export: BatchExport) -> bool:
    run = latest_run(export)
    return run is not None and run.status in FAILED_STATUSES


def consecutive_failures(export: BatchExport) -> int:
    """Failed runs in a row at the newest end of the history."""
    streak = 0
    for run in reversed(runs_oldest_first(export)):
        if run.status in FAILED_STATUSES or run.status == RunStatus.FAILED_RETRYABLE:
            streak += 1
        elif run.status in (RunStatus.COMPLETED,):
            break
    return streak
