"""The incident desk: what the alerts, groups, timeline and repair views show, kept current by the monitor's poll.

The monitor hands each poll's exports (in the table's order) and their health
verdicts to :meth:`IncidentDesk.observe`; the views read from here and never
poll on their own. Their runs are the run history's
(:class:`tui.state.run_history.RunHistory`, shared with the monitor's board):
``latest_runs`` of every poll, the runs pane's pages, the reads made for the
verdicts, the timeline and repair, with the spans of the server's runs list
read, so every view sees the same runs and knows what it has not read.

Bounded by the exports of the last poll: per export its row (the watched export, verdict and runs of the run
history, shared with the board) and its failure-group signatures, one per failed interval among its runs held,
rebuilt only when its runs change; the run history's own bounds hold for the runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from tui.api.models.batch_exports import BatchExportRun
from tui.state.alert_book import AlertBook, AlertChanges, Observation
from tui.state.exports import WatchedExport
from tui.state.failure_groups import FailureGroup, SignaturePart, build_groups, export_failures, known_signatures
from tui.state.health import export_streak
from tui.state.intervals import by_interval, is_failed
from tui.state.repair import ExportRef, RetryPlan, merge_plans, plan_export
from tui.state.run_history import RunHistory, Span


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

    @property
    def failure_streak_is_lower_bound(self) -> bool: ...

    @property
    def allowed_lag_seconds(self) -> float | None: ...


def fell_behind(verdict: VerdictLike) -> datetime | None:
    """When an overdue export's data fell behind on the server's record: its newest completed end plus the lag
    allowed; None when it is not overdue or either is unknown."""
    if str(verdict.state) != "overdue" or verdict.last_completed_end is None or verdict.allowed_lag_seconds is None:
        return None
    return verdict.last_completed_end + timedelta(seconds=verdict.allowed_lag_seconds)


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
    def __init__(self, book: AlertBook | None = None, history: RunHistory | None = None) -> None:
        self.book = book or AlertBook()
        self.history = history if history is not None else RunHistory()
        self.order: list[str] = []
        self.exports: dict[str, DeskExport] = {}
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

    def marks_changed(self) -> None:
        """Acknowledgements or silences changed after the poll's observation (another screen's): views redraw."""
        self._changed()

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
        for watched in exports:  # every watched export's runs, the table's filter or not
            self.history.add_latest(watched.key, watched.export.latest_runs, now)
        self.history.keep_only(w.key for w in exports)
        self.exports = {key: self._desk_export(key, w) for key, w in keyed}
        observations = [self._observation(w, verdicts[w.key]) for w in exports if w.key in verdicts]
        changes = self.book.observe(observations, now)
        self._changed()
        return changes

    def _desk_export(self, key: str, watched: WatchedExport) -> DeskExport:
        runs = self.history.runs(key)
        return DeskExport(watched, runs if runs else watched.export.latest_runs)

    def _observation(self, watched: WatchedExport, verdict: VerdictLike) -> Observation:
        # A failure streak (failing, overdue or running after it) began where the streak did; an overdue export
        # without one when its data fell behind.
        streak = verdict.failure_streak > 0
        latest = verdict.latest_run
        return Observation(watched.key, watched.project_id, watched.export.id,
                           watched.export.name or watched.export.id, str(verdict.state), verdict.reason,
                           verdict.failure_streak, latest_status=latest.status if latest is not None else None,
                           completed_end=verdict.last_completed_end,
                           streak_is_lower_bound=verdict.failure_streak_is_lower_bound,
                           since_of=lambda: self.trouble_began(watched, verdict, streak))

    def trouble_began(self, watched: WatchedExport, verdict: VerdictLike, streak: bool) -> datetime | None:
        """When the export's trouble began on the server's record: the start of its failure streak, or the moment
        its data fell behind, whichever came first."""
        found = [when for when in (self.streak_start(watched.key, watched) if streak else None, fell_behind(verdict))
                 if when is not None]
        return min(found, default=None)

    def streak_start(self, key: str, watched: WatchedExport | None = None) -> datetime | None:
        """Where the export's failure streak begins on the server's record as far as it was read: the health
        model's one reading of the streak (:func:`tui.state.health.export_streak`) on the run history."""
        if watched is None:
            item = self.exports.get(key)
            if item is None:
                return None
            watched = item.watched
        return export_streak(watched.export, self.history.runs(key), self.history.read_since(key)).start

    def streak_reach(self, key: str, floor: datetime) -> datetime | None:
        """How far back the runs list must be read for the export's streak start to be known: to the creation
        of the run that ended the streak where it is known, else ``floor`` (the runs list's window); None when
        the streak is whole already (or there is none)."""
        item = self.exports.get(key)
        if item is None:
            return None
        record = export_streak(item.watched.export, self.history.runs(key), self.history.read_since(key))
        if record.whole or record.count == 0:
            return None
        ender = record.ender_created
        return max(floor, ender) if ender is not None else floor

    def incident_start(self) -> datetime | None:
        """Where the current incident starts: the earliest first failure of the exports with an episode in course
        (the start of each one's streak as the run history holds it, or its episode's start), None without one."""
        starts = []
        for alert in self.book.in_course:
            began = self.streak_start(alert.key)
            starts.append(min(alert.since, began) if began is not None else alert.since)
        return min(starts, default=None)

    def add_runs(self, key: str, runs: Iterable[BatchExportRun], read: Span | None = None) -> None:
        """Runs read for one export; ``read`` is the span of creation times of which they are all the server's runs."""
        if not self.history.add(key, runs, read):
            return
        self.runs_changed(key)

    def runs_changed(self, key: str) -> None:
        """The run history of ``key`` changed (a read): the views see it now, not at the next poll; an episode
        already open at the first look begins where the streak now read back begins."""
        item = self.exports.get(key)
        if item is not None:
            self.exports[key] = self._desk_export(key, item.watched)
            if self.book.episode(key) is not None:
                began = self.streak_start(key, item.watched)
                if began is not None:
                    self.book.began_earlier(key, began)
        self._changed()

    def unread(self, key: str, since: datetime, until: datetime | None = None) -> list[Span]:
        """The spans of creation times from ``since`` to ``until`` (default: the last poll) not read for ``key``."""
        end = until or self.now or since
        return self.history.unread(key, since, end) if since < end else []

    def needs_history(self, key: str, since: datetime) -> bool:
        """Whether runs created since ``since`` may be missing for ``key`` (that span should be read)."""
        return bool(self.unread(key, since))

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
                    known = known_signatures(cached[1]) if cached is not None else None
                    cached = (item.fingerprint, export_failures(key, item.runs, known))
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
        """Every failed interval of every export of the group inside one window (default: from the group's first
        failed interval), exports that recovered since included: their failed intervals are still holes."""
        window = since if since is not None else group.first_interval
        plans = []
        for key in group.export_keys:
            item = self.exports.get(key)
            if item is None or window is None:
                continue
            plans.append(plan_export(item.ref, item.runs, window))
        merged = merge_plans(plans)
        merged.since = window
        return merged

    def name_of(self, key: str) -> str:
        item = self.exports.get(key)
        return (item.watched.export.name or item.watched.export.id) if item is not None else key
