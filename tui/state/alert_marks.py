"""Acknowledgements and silences that outlive a screen, and the alerts pane's history: the rules, no effects.

A *mark* is kept per scope: one export (project id, export id), or every export
of a project (project id, ``""``). A scope's mark holds at most

* an **acknowledgement** of the export's episode: the episode's id and start
  and when it was acknowledged (both on the server's clock, as the episode's
  times are), and by whom;
* a **silence**: until when (on the wall clock: the operator's time), why,
  when and by whom.

Marks come from this screen (a key), from the state folder at start, and from
the other dashboards of the same server and key through the shared store; they
merge the same way wherever they come from (:meth:`Mark.merged`): the silence
lasting longest, the newest acknowledgement. What comes from a file or the
store is checked first (:func:`mark_from_json`): anything malformed or out of
range is dropped, never believed.

An acknowledgement holds for the export's episode in course when it names that
episode, or was made while it was open (at or after its start), or, for an
episode already open at the first look whose start this screen only knows as
the moment it looked, when the acknowledged episode began no later.

A silenced export keeps its verdict and its alert; what it holds back are the
announcements: :class:`HeldEvents` keeps its hook events until the silence ends
(an episode that opened and ended inside the silence is never sent), and the
bell and the toasts stay quiet (:mod:`tui.state.alert_outlets`).

The history (:func:`history_to_json`, :func:`history_from_json`) is the
alerts pane's: the last :data:`HISTORY_KEEP` episodes, none older than
:data:`HISTORY_MAX_AGE_SECONDS` on the wall clock.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from tui.state.alert_book import HISTORY_KEEP, Alert, AlertKind
from tui.text.clean import clean
from tui.text.words import coarse_duration

#: The longest silence: past it an export pages again, whatever was typed.
MAX_SILENCE_SECONDS = 30 * 86400.0
MIN_SILENCE_SECONDS = 60.0
REASON_LIMIT = 200
BY_LIMIT = 64
ID_LIMIT = 200
#: An acknowledgement is kept this long after it was made (its episode has ended long before, or will be new).
ACK_KEEP_SECONDS = 7 * 86400.0
#: The alerts pane's history: at most HISTORY_KEEP episodes, none older than this (wall clock).
HISTORY_MAX_AGE_SECONDS = 7 * 86400.0
#: How far ahead of this host's clock another host's times may lie (the hosts sharing Redis may disagree a little).
CLOCK_SLACK_SECONDS = 300.0
#: The latest server time believed in an acknowledgement (year 9999).
SERVER_TIME_LIMIT = 253402300799.0
#: Hook events held for one silenced export (an episode's opened and resolved cancel each other).
HELD_PER_EXPORT = 4
HELD_EXPORTS = 10_000
#: Marks read from the state folder at most (one per export and project watched, and a few more).
MARKS_KEPT = 10_000

Scope = tuple[str, str]  # (project id, export id); export id "" for every export of the project


def project_scope(project_id: str) -> Scope:
    return (project_id, "")


def slot_of(scope: Scope) -> str:
    """The shared store's slot of a scope's marks: a digest, so no server id is ever part of a store key."""
    digest = hashlib.sha256("\x1f".join(scope).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return f"marks:{digest}"


@dataclass(frozen=True)
class Ack:
    episode_id: str
    since: float  # the episode's start, Unix seconds on the server's clock
    at: float  # when it was acknowledged, on the server's clock
    by: str
    noted: float  # when it was acknowledged, on the wall clock (how long it is kept)

    def holds_for(self, alert: Alert) -> bool:
        if self.episode_id == alert.episode_id:
            return True
        since = alert.since.timestamp()
        # An episode open at the first look whose start was not known then began, to this screen, when it looked.
        unknown_start = not alert.new and alert.since == alert.opened_at
        return self.at >= since or (unknown_start and self.since <= since)


@dataclass(frozen=True)
class Silence:
    until: float  # Unix seconds on the wall clock
    at: float
    reason: str
    by: str

    def active(self, wall: float) -> bool:
        return self.until > wall

    def words(self, wall: float | None = None) -> str:
        """``silenced 2h by ops: warehouse maintenance`` (the time left when ``wall`` is given, else its length)."""
        seconds = self.until - (self.at if wall is None else wall)
        span = coarse_duration(max(0.0, seconds))
        who = f" by {self.by}" if self.by else ""
        why = f": {self.reason}" if self.reason else ""
        left = " left" if wall is not None else ""
        return clean(f"silenced {span}{left}{who}{why}", limit=REASON_LIMIT + BY_LIMIT + 40)


@dataclass(frozen=True)
class Mark:
    ack: Ack | None = None
    silence: Silence | None = None

    def merged(self, other: Mark) -> Mark:
        """The longest silence and the newest acknowledgement of the two."""
        silence = self.silence
        if other.silence is not None and (silence is None or (other.silence.until, other.silence.at)
                                          > (silence.until, silence.at)):
            silence = other.silence
        ack = self.ack
        if other.ack is not None and (ack is None or other.ack.at > ack.at):
            ack = other.ack
        return Mark(ack, silence)

    def pruned(self, wall: float) -> Mark | None:
        """Without a lapsed silence or an acknowledgement past its keep; None when nothing is left."""
        silence = self.silence if self.silence is not None and self.silence.active(wall) else None
        ack = self.ack if self.ack is not None and self.ack.noted >= wall - ACK_KEEP_SECONDS else None
        return Mark(ack, silence) if ack is not None or silence is not None else None

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if self.ack is not None:
            found["ack"] = {"episode": self.ack.episode_id, "since": self.ack.since, "at": self.ack.at,
                            "by": self.ack.by, "noted": self.ack.noted}
        if self.silence is not None:
            found["silence"] = {"until": self.silence.until, "at": self.silence.at, "reason": self.silence.reason,
                                "by": self.silence.by}
        return found


def _number(value: object, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) if low <= value <= high else None


def _text(value: object, limit: int) -> str | None:
    return value if isinstance(value, str) and len(value) <= limit else None


def mark_from_json(value: object, wall: float) -> Mark | None:
    """A mark read from a file or the shared store, or None when any part is malformed or out of range.

    Times may lie at most :data:`CLOCK_SLACK_SECONDS` ahead of ``wall`` (a silence: its longest length more).
    """
    if not isinstance(value, dict) or not set(value) <= {"ack", "silence"} or not value:
        return None
    ack = silence = None
    ahead = wall + CLOCK_SLACK_SECONDS
    raw = value.get("ack")
    if raw is not None:
        if not isinstance(raw, dict) or set(raw) != {"episode", "since", "at", "by", "noted"}:
            return None
        episode, by = _text(raw["episode"], ID_LIMIT), _text(raw["by"], BY_LIMIT)
        # The episode's times are the server's clock (a demo's runs far ahead of this host's): only finite.
        since, at = _number(raw["since"], 0, SERVER_TIME_LIMIT), _number(raw["at"], 0, SERVER_TIME_LIMIT)
        noted = _number(raw["noted"], 0, ahead)
        if episode is None or by is None or since is None or at is None or noted is None:
            return None
        ack = Ack(episode, since, at, by, noted)
    raw = value.get("silence")
    if raw is not None:
        if not isinstance(raw, dict) or set(raw) != {"until", "at", "reason", "by"}:
            return None
        reason, by = _text(raw["reason"], REASON_LIMIT), _text(raw["by"], BY_LIMIT)
        at = _number(raw["at"], 0, ahead)
        until = _number(raw["until"], 0, ahead + MAX_SILENCE_SECONDS)
        if reason is None or by is None or at is None or until is None or until < at:
            return None
        silence = Silence(until, at, reason, by)
    return Mark(ack, silence)


def plausible_mark(wall: Callable[[], float]) -> Callable[[object], bool]:
    """The shared store's plausibility test for a mark entry."""
    return lambda value: mark_from_json(value, wall()) is not None


class AlertMarks:
    """Every mark known, by scope: made here, read from the state folder, or from the other dashboards."""

    def __init__(self) -> None:
        self.marks: dict[Scope, Mark] = {}
        self.version = 0  # grows at each change: what the file and the store are written after

    def merge(self, scope: Scope, mark: Mark) -> bool:
        """Add a mark to the scope's; whether that changed anything."""
        old = self.marks.get(scope)
        new = mark if old is None else old.merged(mark)
        if new == old:
            return False
        self.marks[scope] = new
        self.version += 1
        return True

    def prune(self, wall: float) -> None:
        for scope, mark in list(self.marks.items()):
            kept = mark.pruned(wall)
            if kept is None:
                del self.marks[scope]
            elif kept != mark:
                self.marks[scope] = kept

    def acknowledge(self, alert: Alert, at: datetime, by: str, wall: float) -> None:
        self.merge((alert.project_id, alert.export_id),
                   Mark(ack=Ack(alert.episode_id, alert.since.timestamp(), at.timestamp(), clean(by, limit=BY_LIMIT),
                                wall)))

    def silence(self, scope: Scope, seconds: float, reason: str, by: str, wall: float) -> Silence:
        made = Silence(wall + seconds, wall, clean(reason, limit=REASON_LIMIT), clean(by, limit=BY_LIMIT))
        self.merge(scope, Mark(silence=made))
        return made

    def silence_for(self, project_id: str, export_id: str, wall: float) -> Silence | None:
        """The silence over an export now (its own or its project's, whichever lasts longer)."""
        found = [mark.silence for scope in ((project_id, export_id), project_scope(project_id))
                 if (mark := self.marks.get(scope)) is not None and mark.silence is not None
                 and mark.silence.active(wall)]
        return max(found, key=lambda s: s.until, default=None)

    def silenced(self, wall: float) -> Callable[[Alert], bool]:
        return lambda alert: self.silence_for(alert.project_id, alert.export_id, wall) is not None

    def ack_for(self, alert: Alert) -> Ack | None:
        mark = self.marks.get((alert.project_id, alert.export_id))
        return mark.ack if mark is not None and mark.ack is not None and mark.ack.holds_for(alert) else None

    def to_json(self) -> list[dict[str, Any]]:
        return [{"project": p, "export": e, **mark.to_json()} for (p, e), mark in sorted(self.marks.items())]

    def load(self, items: object, wall: float) -> None:
        """Marks from the state folder; malformed ones are dropped."""
        if not isinstance(items, list):
            return
        for item in items[:MARKS_KEPT]:
            if not isinstance(item, dict):
                continue
            project, export = _text(item.get("project"), ID_LIMIT), _text(item.get("export"), ID_LIMIT)
            mark = mark_from_json({k: v for k, v in item.items() if k in ("ack", "silence")}, wall)
            if project and export is not None and mark is not None:
                self.merge((project, export), mark)
        self.prune(wall)


# ---------------------------------------------------------------------- the silence dialog's input

DURATION = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$")
UNIT_SECONDS = {"m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}


def parse_duration(text: str) -> tuple[float | None, str]:
    """``30m``, ``2h``, ``1d`` or ``1w`` in seconds, or None and what is wrong."""
    found = DURATION.match(text.lower())
    if found is None:
        return None, "a number and m, h, d or w: 30m, 2h, 1d"
    seconds = int(found.group(1)) * UNIT_SECONDS[found.group(2)]
    if seconds < MIN_SILENCE_SECONDS:
        return None, "at least 1m"
    if seconds > MAX_SILENCE_SECONDS:
        return None, "at most 30d"
    return seconds, ""


def check_reason(text: str) -> str:
    """What is wrong with a silence's reason ("" when nothing is)."""
    if not text.strip():
        return "say why (the other screens show it)"
    if len(text) > REASON_LIMIT:
        return f"at most {REASON_LIMIT} characters"
    return ""


# ---------------------------------------------------------------------- hook events held while silenced

class HeldEvents:
    """The hook events of silenced exports, held until their silence ends.

    An episode that opens and ends inside the silence is never sent (its "resolved"
    takes its "opened" away); one still open when the silence ends is sent as
    "opened" then, and the "resolved" of an episode announced before the silence
    when the silence ends. Bounded: a few events per export, a bounded number of exports.
    """

    def __init__(self) -> None:
        self._held: dict[str, list[tuple[str, Alert]]] = {}

    def __len__(self) -> int:
        return sum(len(events) for events in self._held.values())

    def route(self, events: Iterable[tuple[str, Alert]], silenced: Callable[[Alert], bool]) -> list[tuple[str, Alert]]:
        """The events to send now: those held whose silence ended, then this poll's that are not silenced."""
        out: list[tuple[str, Alert]] = []
        for key in list(self._held):
            held = self._held[key]
            if not silenced(held[-1][1]):
                out.extend(self._held.pop(key))
        for event, alert in events:
            if alert.key in self._held or silenced(alert):
                self._hold(event, alert)
            else:
                out.append((event, alert))
        return out

    def _hold(self, event: str, alert: Alert) -> None:
        held = self._held.setdefault(alert.key, [])
        if event == "resolved" and any(e == "opened" and a is alert for e, a in held):
            held[:] = [(e, a) for e, a in held if a is not alert]
            if not held:
                del self._held[alert.key]
            return
        held.append((event, alert))
        del held[:-HELD_PER_EXPORT]
        while len(self._held) > HELD_EXPORTS:
            del self._held[next(iter(self._held))]


# ---------------------------------------------------------------------- the alerts pane's history

def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def history_to_json(history: Sequence[Alert]) -> list[dict[str, Any]]:
    return [{"episode_id": a.episode_id, "project": a.project_id, "export_id": a.export_id, "key": a.key,
             "name": a.export_name, "kind": str(a.kind), "detail": a.detail, "since": _iso(a.since),
             "opened_at": _iso(a.opened_at), "acknowledged_at": _iso(a.acknowledged_at),
             "resolved_at": _iso(a.resolved_at), "resolution": a.resolution, "silence": a.silence,
             "noted": a.noted} for a in history[:HISTORY_KEEP]]


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def history_from_json(items: object, wall: float, ids: Iterable[int]) -> list[Alert]:
    """The history kept in the state folder (newest first), malformed or too old entries dropped; ``ids`` numbers
    them as the book numbers its alerts."""
    if not isinstance(items, list):
        return []
    found: list[Alert] = []
    numbers = iter(ids)
    for item in items[:HISTORY_KEEP]:
        if not isinstance(item, dict):
            continue
        texts = {name: _text(item.get(name), ID_LIMIT if name != "detail" else 1000)
                 for name in ("project", "export_id", "key", "name", "kind", "detail", "resolution", "silence")}
        since, opened = _moment(item.get("since")), _moment(item.get("opened_at"))
        acked, resolved = _moment(item.get("acknowledged_at")), _moment(item.get("resolved_at"))
        noted = _number(item.get("noted"), wall - HISTORY_MAX_AGE_SECONDS, wall + CLOCK_SLACK_SECONDS)
        if any(v is None for v in texts.values()) or since is None or opened is None or noted is None \
                or (acked is None and resolved is None) or texts["kind"] not in set(AlertKind):
            continue
        alert = Alert(next(numbers), str(texts["key"]), str(texts["project"]), str(texts["export_id"]),
                      str(texts["name"]), AlertKind(str(texts["kind"])), str(texts["detail"]), since, opened,
                      new=False, acknowledged_at=acked, resolved_at=resolved, resolution=str(texts["resolution"]))
        found.append(replace(alert, silence=str(texts["silence"]), noted=noted))
    return found


def prune_history(history: list[Alert], wall: float) -> None:
    """Keep the last :data:`HISTORY_KEEP` episodes, none noted longer than :data:`HISTORY_MAX_AGE_SECONDS` ago."""
    del history[HISTORY_KEEP:]
    history[:] = [a for a in history if a.noted == 0.0 or a.noted >= wall - HISTORY_MAX_AGE_SECONDS]


def marks_of(values: Mapping[str, object], wall: float) -> list[Mark]:
    """The checked marks among one slot's entries (every writer's)."""
    return [mark for value in values.values() if (mark := mark_from_json(value, wall)) is not None]
