"""The one alert model: an alert is an episode of one export being unhealthy.

An episode opens when an export's health verdict turns failing or overdue, or
its record shows failed runs in a row behind an attempt in progress or a
cancelled one (the failure streak: what a poll between two attempts would have
seen failing), or the export pauses without the operator asking here. Inside the episode the
kind may change (failing, overdue, auto-paused, as new attempts start and
fail): that updates the open alert; it is no new alert, so no new toast, bell
or page. The episode ends only when it is over on the server's record:

* a run completed (the verdict is healthy again and its latest run is
  Completed, or the newest completed interval moved on): a running attempt,
  or a cancelled one, does not end it;
* the operator paused the export from this dashboard;
* the export's end passed, or it is no longer watched (deleted, another project).

An acknowledgement holds for the whole episode, whatever its kind becomes.
The book does not judge exports: the verdicts are :mod:`tui.state.health`'s.
Acknowledged and resolved alerts move to a history, written to the journal;
the history and the acknowledgements outlive the screen through
:mod:`tui.state.alert_marks` (its rules) and the state folder.

What is already broken at the first look is listed as open but is not *new*:
no toast, bell or hook for it, so restarting the dashboard does not page anyone.

:func:`kind_of` is the one decision of whether an export is in an episode and of
which kind; the table's marks, the alerts pane, ``status``, the hook and the
exporter all read the book it feeds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from tui.state.journal_entry import JournalEntry, JournalWriter, wall_clock
from tui.text.clean import clean

TOAST_EVERY_SECONDS = 60.0
# Acknowledged and resolved episodes kept: what the pane lists, also kept across restarts (the journal has them
# all); about 0.7 KB each, about 3.7 KB of the process's memory with what drawing them keeps. Under steady alert
# churn (30 episodes a minute) the bound is reached within minutes. Per export the book keeps its episode in
# course, its last observation and its last toast's time (about 1.4 KB), for the exports of the last poll only.
HISTORY_KEEP = 200
SUMMARY_LIMIT = 1024  # PagerDuty Events v2 cuts a summary at 1024 characters


class AlertKind(StrEnum):
    FAILING = "failing"
    OVERDUE = "overdue"
    AUTO_PAUSED = "auto-paused"


# What a pager makes of each kind (PagerDuty Events v2's severities).
SEVERITY: dict[AlertKind, str] = {
    AlertKind.FAILING: "error",
    AlertKind.OVERDUE: "warning",
    AlertKind.AUTO_PAUSED: "warning",
}


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
    latest_status: str | None = None  # the status of the verdict's latest run
    completed_end: datetime | None = None  # the end of the newest completed interval
    since: datetime | None = None  # when the trouble began, where the verdict knows (first failed run…)
    # Or how to find it out: asked when an alert opens, and at each poll while one open at the first look lasts (it
    # reads the export's run history, which may reach further back since).
    since_of: Callable[[], datetime | None] | None = None
    streak_is_lower_bound: bool = False  # the streak is longer than the runs known: "10+"

    def began(self, now: datetime) -> datetime:
        found = self.since if self.since is not None else (self.since_of() if self.since_of is not None else None)
        return found or now


@dataclass
class Alert:
    """One episode of one export being unhealthy."""

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
    resolution: str = ""  # why the episode ended: "a run completed", "paused by the operator"…
    completed_end: datetime | None = None  # the newest completed interval's end when the episode opened
    silence: str = ""  # "silenced 2h by ops: warehouse maintenance" while (or when last) its export was silenced
    noted: float = 0.0  # when it went to the history, Unix seconds on the wall clock (its age bound)

    @property
    def episode_id(self) -> str:
        """Stable for the episode (opened, updated, resolved): project, export and when the trouble began."""
        return f"watchdeck:{self.project_id}:{self.export_id}:{self.since:%Y%m%dT%H%M%SZ}"

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

    @property
    def severity(self) -> str:
        return SEVERITY.get(self.kind, "warning")

    @property
    def summary(self) -> str:
        """One line for a pager or a chat: the export, the kind and how much."""
        detail = f", {self.detail}" if self.detail else ""
        return clean(f"{self.export_name}: {self.kind}{detail}", limit=SUMMARY_LIMIT)

    def to_json(self, event: str) -> dict[str, Any]:
        """The object a hook receives: plain fields, no key and nothing else secret."""
        return {
            "event": event,
            "episode_id": self.episode_id,
            "dedup_key": self.episode_id,
            "severity": self.severity,
            "summary": self.summary,
            "kind": str(self.kind),
            "state": self.state,
            "project": self.project_id,
            "export_id": self.export_id,
            "export": clean(self.export_name, limit=SUMMARY_LIMIT),  # as the summary shows it: `jq -r` prints it
            "detail": self.detail,
            "since": self.since.isoformat(),
            "opened_at": self.opened_at.isoformat(),
            "acknowledged_at": self.acknowledged_at.isoformat() if self.acknowledged_at else None,
            "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
            "resolution": self.resolution or None,
        }


QUIET_STATES = frozenset({"paused", "ended"})  # no runs are scheduled: a failure streak left behind pages nobody


def kind_of(observation: Observation, was: Observation | None, operator_paused: bool) -> AlertKind | None:
    """The alert kind an observation holds now; None when nothing on the export's record is wrong.

    Failed runs in a row behind an attempt in progress (or a cancelled one) are a failing export whose next
    attempt has not finished: the verdict reads ``running``, the record still fails. A poll made then, a first
    look included, sees the episode a poll a minute earlier saw open.
    """
    if observation.state == "failing":
        return AlertKind.FAILING
    if observation.state == "overdue":
        return AlertKind.OVERDUE
    if observation.state == "paused" and not operator_paused and was is not None and was.state != "paused":
        return AlertKind.AUTO_PAUSED
    if observation.failure_streak > 0 and observation.state not in QUIET_STATES:
        return AlertKind.FAILING
    return None


def detail_of(observation: Observation) -> str:
    """The alert's detail in numbers."""
    streak = observation.failure_streak
    bound = "+" if observation.streak_is_lower_bound else ""
    runs = f"{streak}{bound} failed run{'s' if streak != 1 else ''} in a row"
    if observation.state == "failing" and streak > 1:
        return runs
    if observation.state not in ("failing", "overdue") and streak > 0:
        return f"{runs}; {observation.reason}" if observation.reason else runs
    return observation.reason


def completed_since(alert: Alert, observation: Observation) -> bool:
    """A run completed since the episode opened: the latest run is Completed, or the newest completed
    interval moved on (a completed retry of an older interval does not move it)."""
    if observation.latest_status == "Completed":
        return True
    end = observation.completed_end
    return end is not None and (alert.completed_end is None or end > alert.completed_end)


@dataclass
class AlertChanges:
    opened: list[Alert] = field(default_factory=list)
    updated: list[Alert] = field(default_factory=list)  # the kind changed inside the episode: no new page
    resolved: list[Alert] = field(default_factory=list)

    def announced(self) -> list[tuple[str, Alert]]:
        """What the ``on_alert`` hook is sent: each new episode as "opened", and as "resolved" when it ends.

        Only what was announced ends: an alert already open at the first look was never sent as opened
        (``new`` is False), so its end would page someone about a start they never heard of. A kind changing
        inside an episode (``updated``) is sent neither way.
        """
        return [("opened", a) for a in self.opened if a.new] + [("resolved", a) for a in self.resolved if a.new]


class AlertBook:
    """The episodes in course (one per export at most), the session's history, and which deserve a toast."""

    def __init__(self, journal: JournalWriter | None = None, profile: str | None = None,
                 toast_every: float = TOAST_EVERY_SECONDS) -> None:
        self.journal = journal
        self.profile = profile
        self.toast_every = toast_every
        self._ids = itertools.count(1)
        #: Told of each acknowledgement made on this screen (not of one another screen made, applied here).
        self.acknowledged: list[Callable[[Alert], None]] = []
        self._current: dict[str, Alert] = {}  # row key -> its episode in course (open or acknowledged)
        self.history: list[Alert] = []  # acknowledged or resolved, newest first, at most HISTORY_KEEP
        self.history_total = 0  # how many alerts went to the history this session (the list keeps the newest)
        self._last: dict[str, Observation] = {}
        self._expected_pause: dict[str, bool] = {}
        self._toasted: dict[str, float] = {}  # row key -> elapsed seconds (the app's monotonic clock) of its toast
        self._primed = False

    # ------------------------------------------------------------------ reading

    @property
    def open_alerts(self) -> list[Alert]:
        """Open (unacknowledged) alerts, the newest first."""
        return sorted((a for a in self._current.values() if a.is_open),
                      key=lambda a: (-a.opened_at.timestamp(), -a.id))

    @property
    def in_course(self) -> list[Alert]:
        """The episodes in course, acknowledged or not (one per export)."""
        return list(self._current.values())

    @property
    def open_count(self) -> int:
        return sum(1 for a in self._current.values() if a.is_open)

    def open_for(self, key: str) -> list[Alert]:
        alert = self._current.get(key)
        return [alert] if alert is not None and alert.is_open else []

    def is_marked(self, key: str) -> bool:
        """Whether the export's row carries the alert mark: an episode in course, not acknowledged."""
        alert = self._current.get(key)
        return alert is not None and alert.is_open

    def episode(self, key: str) -> Alert | None:
        """The export's episode in course, acknowledged or not."""
        return self._current.get(key)

    def get(self, alert_id: int) -> Alert | None:
        for alert in (*self._current.values(), *self.history):
            if alert.id == alert_id:
                return alert
        return None

    # ------------------------------------------------------------------ changing

    def expect_pause_change(self, key: str, paused: bool) -> None:
        """The operator asked for this pause here: it is not an alert, and a pause ends the episode."""
        self._expected_pause[key] = paused

    def observe(self, observations: Iterable[Observation], now: datetime) -> AlertChanges:
        changes = AlertChanges()
        first = not self._primed
        self._primed = True
        current: dict[str, Observation] = {}
        for observation in observations:
            key = observation.key
            current[key] = observation
            was = self._last.get(key)
            expected = self._expected_pause.get(key)
            paused = observation.state == "paused"
            operator_paused = expected is True and paused
            if expected is not None and expected == paused:
                del self._expected_pause[key]
            kind = kind_of(observation, was, operator_paused)
            alert = self._current.get(key)
            if alert is None:
                if kind is not None:
                    changes.opened.append(self._open(observation, kind, now, new=not first))
                continue
            alert.export_name = observation.name
            if kind is not None and not alert.new and observation.since_of is not None:
                self.began_earlier(key, observation.began(now))
            if kind is not None:
                alert.detail = detail_of(observation)
                if kind is not alert.kind:
                    alert.kind = kind
                    changes.updated.append(alert)
                continue
            ending = ("paused by the operator" if operator_paused
                      else "the export's end passed" if observation.state == "ended"
                      else "a run completed" if not paused and completed_since(alert, observation)
                      else "")
            if ending:
                self._resolve(alert, ending, now)
                changes.resolved.append(alert)
        for key in [k for k in self._current if k not in current]:
            alert = self._current[key]
            self._resolve(alert, "no longer watched", now)
            changes.resolved.append(alert)
        for key in [k for k in self._expected_pause if k not in current]:
            del self._expected_pause[key]
        for key in [k for k in self._toasted if k not in current]:
            del self._toasted[key]
        self._last = current
        return changes

    def _open(self, observation: Observation, kind: AlertKind, now: datetime, *, new: bool) -> Alert:
        alert = Alert(next(self._ids), observation.key, observation.project_id, observation.export_id,
                      observation.name, kind, detail_of(observation), observation.began(now), now, new=new,
                      completed_end=observation.completed_end)
        self._current[observation.key] = alert
        return alert

    def _resolve(self, alert: Alert, why: str, now: datetime) -> None:
        alert.resolved_at = now
        alert.resolution = why
        del self._current[alert.key]
        self._to_history(alert)
        self._journal(alert, "alert resolved", now)

    def began_earlier(self, key: str, since: datetime) -> None:
        """The server's record, read further back, shows the export's episode began at ``since``: an episode open
        at the first look moves its start there. One announced (a hook was sent its start) keeps it."""
        alert = self._current.get(key)
        if alert is not None and not alert.new and since < alert.since:
            alert.since = since

    def acknowledge(self, alert_id: int, now: datetime, *, here: bool = True) -> Alert | None:
        """Acknowledge an open alert: it moves to the history, and stays quiet until its episode ends.

        ``here`` is False for an acknowledgement made on another screen (or before a restart), applied here."""
        for alert in self._current.values():
            if alert.id == alert_id and alert.is_open:
                alert.acknowledged_at = now
                self._to_history(alert)
                self._journal(alert, "alert acknowledged" if here else "alert acknowledged elsewhere", now)
                if here:
                    for listener in list(self.acknowledged):
                        listener(alert)
                return alert
        return None

    def new_id(self) -> int:
        return next(self._ids)

    def restore(self, history: Iterable[Alert]) -> None:
        """The history kept from before (newest first), behind this session's."""
        self.history.extend(history)
        del self.history[HISTORY_KEEP:]

    def acknowledge_export(self, key: str, now: datetime) -> int:
        return sum(1 for alert in self.open_for(key) if self.acknowledge(alert.id, now) is not None)

    def toasts(self, opened: Iterable[Alert], elapsed: float) -> list[Alert]:
        """The new alerts worth a toast: at most one per export per ``toast_every`` seconds of the operator's time
        (``elapsed``, the app's monotonic clock: the server's runs sixty times faster under ``--demo``)."""
        chosen: list[Alert] = []
        for alert in opened:
            if not alert.new:
                continue
            last = self._toasted.get(alert.key)
            if last is not None and elapsed - last < self.toast_every:
                continue
            self._toasted[alert.key] = elapsed
            chosen.append(alert)
        return chosen

    def _to_history(self, alert: Alert) -> None:
        if alert in self.history:
            self.history.remove(alert)
        elif alert.acknowledged_at is None or alert.resolved_at is None:
            self.history_total += 1  # its first move (one acknowledged, then resolved, was counted when acknowledged)
        alert.noted = wall_clock().timestamp()
        self.history.insert(0, alert)
        del self.history[HISTORY_KEEP:]

    def _journal(self, alert: Alert, action: str, now: datetime) -> None:
        if self.journal is None:
            return
        # Real time first: ``now`` is the server's (the demo's simulated) clock, kept beside it where it differs.
        self.journal.append(JournalEntry(wall_clock(), action, alert.state, profile=self.profile,
                                         project=alert.project_id, export=alert.export_id, name=alert.export_name,
                                         server_time=now,
                                         detail={"kind": str(alert.kind), "detail": alert.detail,
                                                 "since": alert.since.isoformat(), "episode_id": alert.episode_id,
                                                 **({"resolution": alert.resolution} if alert.resolution else {})}))
