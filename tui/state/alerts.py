"""Alerts: what changed for the worse since the last poll, and what is still unacknowledged.

Only transitions alert (a run that turns Failed/TimedOut/Terminated, an export
that keeps failing, lag crossing the threshold, ``paused`` flipping without an
operator), so a dashboard started on an already-broken project does not ring
for history; those exports are still marked as failing from the first poll.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from tui.api.models import FAILED_STATUSES
from tui.state.exports import ExportsSnapshot, WatchedExport, consecutive_failures, is_failing, is_lagging

REPEATED_FAILURES = 3


class AlertKind(StrEnum):
    RUN_FAILED = "run failed"
    REPEATED_FAILURES = "failing repeatedly"
    LAGGING = "lagging"
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
    lag_threshold_intervals: float = 2.0
    unacknowledged: dict[str, list[Alert]] = field(default_factory=dict)
    _seen_failed_runs: set[str] = field(default_factory=set)
    _lagging: set[str] = field(default_factory=set)
    _repeating: set[str] = field(default_factory=set)
    _paused: dict[str, bool] = field(default_factory=dict)
    _expected_pause: dict[str, bool] = field(default_factory=dict)
    _primed: bool = False

    def expect_pause_change(self, key: str, paused: bool) -> None:
        """An operator asked for this: the next flip of ``paused`` to this value is not an alert."""
        self._expected_pause[key] = paused

    def observe(self, snapshot: ExportsSnapshot, now: datetime) -> list[Alert]:
        """Compare with what was seen before; return the new alerts (none on the first poll)."""
        alerts: list[Alert] = []
        for watched in snapshot.exports:
            alerts.extend(self._observe_one(watched, now))
        first = not self._primed
        self._primed = True
        if first:
            return []
        for alert in alerts:
            self.unacknowledged.setdefault(alert.key, []).append(alert)
        return alerts

    def _observe_one(self, watched: WatchedExport, now: datetime) -> list[Alert]:
        export, key = watched.export, watched.key
        name = export.name
        found: list[Alert] = []
        for run in export.latest_runs:
            if run.status in FAILED_STATUSES and run.id not in self._seen_failed_runs:
                self._seen_failed_runs.add(run.id)
                found.append(Alert(key, AlertKind.RUN_FAILED, name, f"{run.status}: {run.latest_error or ''}".strip()))
        streak = consecutive_failures(export)
        if streak >= REPEATED_FAILURES and key not in self._repeating:
            self._repeating.add(key)
            found.append(Alert(key, AlertKind.REPEATED_FAILURES, name, f"{streak} failed runs in a row"))
        elif streak < REPEATED_FAILURES:
            self._repeating.discard(key)
        lagging = is_lagging(export, now, self.lag_threshold_intervals)
        if lagging and key not in self._lagging:
            self._lagging.add(key)
            found.append(Alert(key, AlertKind.LAGGING, name, "exported data is behind"))
        elif not lagging:
            self._lagging.discard(key)
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

    @staticmethod
    def failing_count(snapshot: ExportsSnapshot) -> int:
        return sum(1 for w in snapshot.exports if is_failing(w.export))
