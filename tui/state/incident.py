"""The incident desk: what the alerts, groups, timeline and repair views show, kept current by the monitor's poll.

The monitor hands each poll's exports (in the table's order) and their health
verdicts to :meth:`IncidentDesk.observe`; the views read from here and never
poll on their own. Run history beyond ``latest_runs`` (the selected export's
runs page, older runs the timeline fetched for rows on screen) is merged in
per export, so every view sees the same runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from tui.api.models import BatchExportRun
from tui.state.alert_book import AlertBook, AlertChanges, Observation
from tui.state.exports import WatchedExport
from tui.state.failure_groups import FailureGroup, SignaturePart, build_groups, export_failures
from tui.state.intervals import by_interval, is_failed, merge_runs
from tui.state.repair import ExportRef, RetryPlan, merge_plans, plan_export, streak_start
from tui.state.timeline import covers

HISTORY_KEEP = 2000  # runs kept per export from fetched pages (7 days of 5-minute runs)


class VerdictLike(Protocol):
    """What the book needs of a health verdict."""

    @property
    def state(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def failure_streak(self) -> int: ...

    @property
    def latest_run(self) -> BatchExportRun | None: ...

    @property
    def last_completed_end(self) -> datetime | None: ...


def runs_fingerprint(runs: Sequence[BatchExportRun]) -> tuple[tuple[str, str], ...]:
    """What tells whether an export's runs changed: their ids and statuses (a run's interval never changes)."""
    return tuple([(r.id, r.status) for r in runs])


@dataclass
class DeskExport:
    watched: WatchedExport
    runs: Sequence[BatchExportRun]  # never changed in place: a new poll makes a new DeskExport
    _fingerprint: tuple[tuple[str, str], ...] | None = None

    @property
    def fingerprint(self) -> tuple[tuple[str, str], ...]:
        """Worked out when a view asks (groups, timeline), not at every poll."""
        if self._fingerprint is None:
            self._fingerprint = runs_fingerprint(self.runs)
        return self._fingerprint

    @property
    def key(self) -> str:
        return self.watched.key

    @property
    def ref(self) -> ExportRef:
        export = self.watched.export
        return ExportRef(self.watched.key, self.watched.project_id, export.id, export.name or export.id)


class IncidentDesk:
    def __init__(self, book: AlertBook | None = None) -> None:
        self.book = book or AlertBook()
        self.order: list[str] = []
        self.exports: dict[str, DeskExport] = {}
        self._history: dict[str, list[BatchExportRun]] = {}
        self._covered: dict[str, datetime] = {}
        self._groups: list[FailureGroup] | None = None
        self._failed: dict[str, tuple[tuple[tuple[str, str], ...], dict[str, SignaturePart]]] = {}
        self.version = 0
        self.now: datetime | None = None
        self._listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ feeding

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after each change; returns the function that unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        self.version += 1
        self._groups = None
        for listener in list(self._listeners):
            listener()

    def observe(self, exports: Sequence[WatchedExport], verdicts: Mapping[str, VerdictLike],
                now: datetime, *, shown: Collection[str] | None = None) -> AlertChanges:
        """One poll: every watched export in the table's order and each one's verdict; returns the alerts opened,
        updated and resolved. The alert book sees every export; the views only those ``shown`` (the table's
        filter), all when None."""
        self.now = now
        keyed = [(w.key, w) for w in exports if shown is None or w.key in shown]
        self.order = [key for key, _ in keyed]
        self.exports = {key: self._desk_export(key, w) for key, w in keyed}
        for key in list(self._history):
            if key not in self.exports:
                del self._history[key]
                self._covered.pop(key, None)
        observations = [self._observation(w, verdicts[w.key]) for w in exports if w.key in verdicts]
        changes = self.book.observe(observations, now)
        self._changed()
        return changes

    def _desk_export(self, key: str, watched: WatchedExport) -> DeskExport:
        history = self._history.get(key)
        runs = merge_runs(history, watched.export.latest_runs) if history else watched.export.latest_runs
        return DeskExport(watched, runs)

    def _observation(self, watched: WatchedExport, verdict: VerdictLike) -> Observation:
        item = self.exports.get(watched.key)
        runs = item.runs if item is not None else watched.export.latest_runs
        failing = str(verdict.state) == "failing"
        latest = verdict.latest_run
        return Observation(watched.key, watched.project_id, watched.export.id,
                           watched.export.name or watched.export.id, str(verdict.state), verdict.reason,
                           verdict.failure_streak, latest_status=latest.status if latest is not None else None,
                           completed_end=verdict.last_completed_end,
                           since_of=(lambda: streak_start(runs)) if failing else None)

    def add_runs(self, key: str, runs: Iterable[BatchExportRun], covered_since: datetime | None = None) -> None:
        """Runs fetched for one export (a runs page); ``covered_since`` when the page reaches back to there."""
        merged = merge_runs(self._history.get(key, ()), runs)
        merged.sort(key=lambda r: r.data_interval_end.timestamp() if r.data_interval_end else 0.0)
        self._history[key] = merged[-HISTORY_KEEP:]
        if covered_since is not None:
            before = self._covered.get(key)
            self._covered[key] = covered_since if before is None else min(before, covered_since)
        item = self.exports.get(key)
        if item is not None:
            self.exports[key] = self._desk_export(key, item.watched)
        self._changed()

    def needs_history(self, key: str, since: datetime) -> bool:
        """Whether the runs known for ``key`` may not reach back to ``since`` (older runs should be fetched)."""
        covered = self._covered.get(key)
        if covered is not None and covered <= since:
            return False
        item = self.exports.get(key)
        return item is None or not covers(item.runs, since)

    # ------------------------------------------------------------------ reading

    def runs_by_export(self) -> dict[str, Sequence[BatchExportRun]]:
        return {key: item.runs for key, item in self.exports.items()}

    def fingerprints(self) -> dict[str, tuple[tuple[str, str], ...]]:
        return {key: item.fingerprint for key, item in self.exports.items()}

    def groups(self) -> list[FailureGroup]:
        """Failure groups of every export; an export whose runs did not change since the last poll reuses its part."""
        if self._groups is None:
            entries: dict[str, dict[str, SignaturePart]] = {}
            cache: dict[str, tuple[tuple[tuple[str, str], ...], dict[str, SignaturePart]]] = {}
            for key, item in self.exports.items():
                cached = self._failed.get(key)
                if cached is None or cached[0] != item.fingerprint:
                    cached = (item.fingerprint, export_failures(key, item.runs))
                cache[key] = cached
                entries[key] = cached[1]
            self._failed = cache
            self._groups = build_groups(entries, self.order)
        return self._groups

    def failing_keys(self) -> list[str]:
        return [key for key in self.order
                if any(is_failed(g.latest.status) for g in by_interval(self.exports[key].runs))]

    def plan_for_export(self, key: str, since: datetime | None = None) -> RetryPlan:
        item = self.exports[key]
        return plan_export(item.ref, item.runs, since)

    def plan_for_group(self, group: FailureGroup, since: datetime | None = None) -> RetryPlan:
        plans = []
        for key in group.export_keys:
            item = self.exports.get(key)
            if item is None:
                continue
            ids = {run.id for run in group.runs_of(key)}
            plans.append(plan_export(item.ref, item.runs, since, run_ids=ids))
        return merge_plans(plans)

    def name_of(self, key: str) -> str:
        item = self.exports.get(key)
        return (item.watched.export.name or item.watched.export.id) if item is not None else key
