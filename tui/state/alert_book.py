"""Alerts that stay: opened from health verdicts, kept until they resolve or the operator acknowledges them.

The book does not judge exports: it turns each export's verdict (failing,
overdue, paused…) into an alert kind, opens an alert when the kind appears,
resolves it when the verdict no longer says so. Acknowledged and resolved
alerts move to a history kept for the session and written to the journal.

What is already broken at the first look is listed as open but is not *new*:
no toast and no hook for it, so restarting the dashboard does not page anyone.
Pauses and ends are alerts only as transitions seen while watching (a pause the
operator asked for from this screen is not one).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from tui.state.journal import ActionJournal, JournalEntry, wall_clock

TOAST_EVERY_SECONDS = 60.0


class AlertKind(StrEnum):
    FAILING = "failing"
    LAGGING = "lagging"
    AUTO_PAUSED = "auto-paused"
    STOPPED = "stopped"


@dataclass(frozen=True)
class Observation:
    """One export as judged this poll: the fields of its health verdict the book needs, and who it is."""

    key: str
    project_id: str
    export_id: str
    name: str
    state: str  # the verdict's state: "failing", "overdue", "paused", "ended", "ok"…
    reason: str
    failure_streak: int = 0
    since: datetime | None = None  # when the trouble began, where the verdict knows (first failed run…)
    # Or how to find it out: asked only when an alert opens (it reads the export's run history).
    since_of: Callable[[], datetime | None] | None = None

    def began(self, now: datetime) -> datetime:
        found = self.since if self.since is not None else (self.since_of() if self.since_of is not None else None)
        return found or now


@dataclass
class Alert:
    id: int
    key: str
    project_id: str
    export_id: str
    export_name: str
    kind: AlertKind
    detail: str
    since: datetime
    opened_at: datetime
    new: bool = True  # False for what was already wrong at the first look
    acknowledged_at: datetime | None = None
    resolved_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.acknowledged_at is None and self.resolved_at is None

    @property
    def state(self) -> str:
        if self.resolved_at is not None:
            return "resolved"
        if self.acknowledged_at is not None:
            return "acknowledged"
        return "open"

    def to_json(self, event: str) -> dict[str, Any]:
        """The object a hook receives: plain fields, no key and nothing else secret."""
        return {
            "event": event,
            "kind": str(self.kind),
            "state": self.state,
            "project": self.project_id,
            "export_id": self.export_id,
            "export": self.export_name,
            "detail": self.detail,
            "since": self.since.isoformat(),
            "opened_at": self.opened_at.isoformat(),
            "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
        }


def kinds_of(observation: Observation, was: Observation | None, expected_pause: bool | None) -> dict[AlertKind, str]:
    """The alert kinds an observation holds now, each with its detail in numbers."""
    kinds: dict[AlertKind, str] = {}
    if observation.state == "failing":
        streak = observation.failure_streak
        kinds[AlertKind.FAILING] = (f"{streak} failed runs in a row" if streak > 1 else observation.reason)
    elif observation.state == "overdue":
        kinds[AlertKind.LAGGING] = observation.reason
    paused_now = observation.state == "paused"
    if paused_now and was is not None and was.state != "paused" and expected_pause is not True:
        kinds[AlertKind.AUTO_PAUSED] = observation.reason
    if observation.state == "ended" and was is not None and was.state != "ended":
        kinds[AlertKind.STOPPED] = observation.reason
    return kinds


@dataclass
class AlertChanges:
    opened: list[Alert] = field(default_factory=list)
    resolved: list[Alert] = field(default_factory=list)


class AlertBook:
    """Open alerts, the session's history, and which new alerts deserve a toast."""

    def __init__(self, journal: ActionJournal | None = None, profile: str | None = None,
                 toast_every: float = TOAST_EVERY_SECONDS) -> None:
        self.journal = journal
        self.profile = profile
        self.toast_every = toast_every
        self._ids = itertools.count(1)
        self._current: dict[tuple[str, AlertKind], Alert] = {}  # unresolved (open or acknowledged)
        self.history: list[Alert] = []  # acknowledged or resolved, newest first
        self._last: dict[str, Observation] = {}
        self._expected_pause: dict[str, bool] = {}
        self._toasted: dict[str, datetime] = {}
        self._primed = False

    # ------------------------------------------------------------------ reading

    @property
    def open_alerts(self) -> list[Alert]:
        """Open alerts, the newest first."""
        return sorted((a for a in self._current.values() if a.is_open), key=lambda a: (-a.opened_at.timestamp(),
                                                                                           -a.id))

    @property
    def open_count(self) -> int:
        return sum(1 for a in self._current.values() if a.is_open)

    def open_for(self, key: str) -> list[Alert]:
        return [a for a in self._current.values() if a.key == key and a.is_open]

    def get(self, alert_id: int) -> Alert | None:
        for alert in (*self._current.values(), *self.history):
            if alert.id == alert_id:
                return alert
        return None

    # ------------------------------------------------------------------ changing

    def expect_pause_change(self, key: str, paused: bool) -> None:
        """The operator asked for this pause here: it is not an alert."""
        self._expected_pause[key] = paused

    def observe(self, observations: Iterable[Observation], now: datetime) -> AlertChanges:
        changes = AlertChanges()
        seen: set[tuple[str, AlertKind]] = set()
        first = not self._primed
        self._primed = True
        current: dict[str, Observation] = {}
        for observation in observations:
            current[observation.key] = observation
            was = self._last.get(observation.key)
            expected = self._expected_pause.get(observation.key)
            if expected is not None and expected == (observation.state == "paused"):
                self._expected_pause.pop(observation.key, None)
            for kind, detail in kinds_of(observation, was, expected).items():
                ident = (observation.key, kind)
                seen.add(ident)
                alert = self._current.get(ident)
                if alert is not None:
                    alert.detail = detail
                    alert.export_name = observation.name
                    continue
                alert = Alert(next(self._ids), observation.key, observation.project_id, observation.export_id,
                              observation.name, kind, detail, observation.began(now), now, new=not first)
                self._current[ident] = alert
                changes.opened.append(alert)
        # An export that left the list is no longer watched: its alerts resolve with it, except pauses and stops.
        for ident, alert in list(self._current.items()):
            if ident in seen:
                continue
            key, kind = ident
            if kind in (AlertKind.AUTO_PAUSED, AlertKind.STOPPED):
                still = current.get(key)
                holds = "paused" if kind is AlertKind.AUTO_PAUSED else "ended"
                if still is not None and still.state == holds:
                    continue
            alert.resolved_at = now
            del self._current[ident]
            self._to_history(alert)
            self._journal(alert, "alert resolved", now)
            changes.resolved.append(alert)
        self._last = current
        return changes

    def acknowledge(self, alert_id: int, now: datetime) -> Alert | None:
        """Move an open alert to the history; it stays known (not re-opened) until its cause resolves."""
        for alert in self._current.values():
            if alert.id == alert_id and alert.is_open:
                alert.acknowledged_at = now
                self._to_history(alert)
                self._journal(alert, "alert acknowledged", now)
                return alert
        return None

    def acknowledge_export(self, key: str, now: datetime) -> int:
        return sum(1 for alert in self.open_for(key) if self.acknowledge(alert.id, now) is not None)

    def toasts(self, opened: Iterable[Alert], now: datetime) -> list[Alert]:
        """The new alerts worth a toast: at most one per export per ``toast_every`` seconds."""
        chosen: list[Alert] = []
        for alert in opened:
            if not alert.new:
                continue
            last = self._toasted.get(alert.key)
            if last is not None and (now - last).total_seconds() < self.toast_every:
                continue
            self._toasted[alert.key] = now
            chosen.append(alert)
        return chosen

    def _to_history(self, alert: Alert) -> None:
        if alert in self.history:
            self.history.remove(alert)
        self.history.insert(0, alert)

    def _journal(self, alert: Alert, action: str, now: datetime) -> None:
        if self.journal is None:
            return
        # Real time first: ``now`` is the server's (the demo's simulated) clock, kept beside it where it differs.
        self.journal.append(JournalEntry(wall_clock(), action, alert.state, profile=self.profile,
                                         project=alert.project_id, export=alert.export_id, name=alert.export_name,
                                         server_time=now,
                                         detail={"kind": str(alert.kind), "detail": alert.detail,
                                                 "since": alert.since.isoformat()}))
