"""Alerts: what changed for the worse since the last poll, and what is still unacknowledged.

Only transitions alert (a run that turns up in the failed group, an export
that keeps failing, an export turning overdue, ``paused`` flipping without an
operator), so a dashboard started on an already-broken project does not ring
for history; those exports are still marked as failing from the first poll.
Whether an export is failing or overdue is the verdict of
:mod:`tui.state.health`, the same one the monitor's cells and ``status`` show.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from tui.state.exports import ExportsSnapshot, WatchedExport
from tui.state.health import (
    DEFAULT_GRACE_SECONDS,
    DEFAULT_LAG_INTERVALS,
    HealthState,
    Verdict,
    is_failed,
    judge,
)

REPEATED_FAILURES = 3


class AlertKind(StrEnum):
    RUN_FAILED = "run failed"
    REPEATED_FAILURES = "failing repeatedly"
    OVERDUE = "overdue"
    LAGGING = "overdue"  # another name of the same alert
    PAUSED_BY_SYSTEM = "paused without an operator"
    UNPAUSED_BY_SYSTEM = "unpaused without an operator"


@dataclass(frozen=True)
class Alert:
    key: str  # the export's row key
    kind: AlertKind
    export_name: str
    detail: str = ""


@dataclass
class AlertTracker:
    lag_threshold_intervals: float = DEFAULT_LAG_INTERVALS
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    unacknowledged: dict[str, list[Alert]] = field(default_factory=dict)
    _seen_failed_runs: set[str] = field(default_factory=set)
    _overdue: set[str] = field(default_factory=set)
    _repeating: set[str] = field(default_factory=set)
    _paused: dict[str, bool] = field(default_factory=dict)
    _expected_pause: dict[str, bool] = field(default_factory=dict)
    _failing: set[str] = field(default_factory=set)
    _primed: bool = False
    #: The verdict of each export of the last snapshot observed, judged at the time it was observed.
    judged: dict[str, Verdict] = field(default_factory=dict)

    def expect_pause_change(self, key: str, paused: bool) -> None:
        """An operator asked for this: the next flip of ``paused`` to this value is not an alert."""
        self._expected_pause[key] = paused

    def judge(self, watched: WatchedExport, now: datetime) -> Verdict:
        return judge(watched.export, now, lag_intervals=self.lag_threshold_intervals,
                     grace_seconds=self.grace_seconds)

    def observe(self, snapshot: ExportsSnapshot, now: datetime,
                verdicts: Mapping[str, Verdict] | None = None) -> list[Alert]:
        """Compare with what was seen before; return the new alerts (none on the first poll).

        ``verdicts`` (row key -> verdict at ``now``) spares judging again what the caller judged already.
        """
        alerts: list[Alert] = []
        failing: set[str] = set()
        self.judged = {}
        for watched in snapshot.exports:
            verdict = (verdicts or {}).get(watched.key) or self.judge(watched, now)
            self.judged[watched.key] = verdict
            if verdict.failing:
                failing.add(watched.key)
            alerts.extend(self._observe_one(watched, verdict))
        self._failing = failing
        first = not self._primed
        self._primed = True
        if first:
            return []
        for alert in alerts:
            self.unacknowledged.setdefault(alert.key, []).append(alert)
        return alerts

    def _observe_one(self, watched: WatchedExport, verdict: Verdict) -> list[Alert]:
        export, key = watched.export, watched.key
        name = export.name
        found: list[Alert] = []
        for run in export.latest_runs:
            if is_failed(run.status) and run.id not in self._seen_failed_runs:
                self._seen_failed_runs.add(run.id)
                found.append(Alert(key, AlertKind.RUN_FAILED, name, f"{run.status}: {run.latest_error or ''}".strip()))
        streak = verdict.failure_streak
        if streak >= REPEATED_FAILURES and key not in self._repeating:
            self._repeating.add(key)
            found.append(Alert(key, AlertKind.REPEATED_FAILURES, name, f"{streak} failed runs in a row"))
        elif streak < REPEATED_FAILURES:
            self._repeating.discard(key)
        if verdict.state is HealthState.OVERDUE and key not in self._overdue:
            self._overdue.add(key)
            found.append(Alert(key, AlertKind.OVERDUE, name, verdict.reason))
        elif verdict.state is not HealthState.OVERDUE:
            self._overdue.discard(key)
        before = self._paused.get(key)
        self._paused[key] = export.paused
        if before is not None and before != export.paused:
            expected = self._expected_pause.pop(key, None)
            if expected != export.paused:
                kind = AlertKind.PAUSED_BY_SYSTEM if export.paused else AlertKind.UNPAUSED_BY_SYSTEM
                found.append(Alert(key, kind, name))
        return found

    def acknowledge(self, key: str) -> int:
        return len(self.unacknowledged.pop(key, []))

    def is_marked(self, key: str) -> bool:
        return bool(self.unacknowledged.get(key))

    @property
    def failing_count(self) -> int:
        """Exports whose verdict at the last observation was failing."""
        return len(self._failing)
