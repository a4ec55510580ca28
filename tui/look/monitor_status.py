"""The monitor's status line as a function of plain facts: how fresh the data is, what is shown, what is wrong.

The screen gathers :class:`StatusFacts` (from its poller, its board, the alert
book, the clock and the shared cache) once a second and shows what
:func:`monitor_status` returns; every rule of what the line says, and in which
order, lives here and is tested without an app.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from tui.look.palette import Tone
from tui.look.status_line import STATUS_FILTER, STATUS_NOTE, STATUS_POLL, STATUS_REFRESHING, status_line
from tui.state.freshness import Freshness
from tui.state.io.shared import IGNORED_NOTE
from tui.text.clean import clean
from tui.text.words import counted, duration


@dataclass(frozen=True)
class ExportCounts:
    """What the last good poll holds: its exports, how many the filter shows, failing, alerts, its notes."""

    total: int
    shown: int | None = None  # with a name filter: the exports it shows
    failing: int = 0
    alerts: int = 0  # open (unacknowledged) alert episodes
    note: str | None = None  # the first of the snapshot's notes (server text)
    unreadable: int = 0  # exports the answer held but that could not be read
    incomplete: int = 0  # export answers that came back incomplete


@dataclass(frozen=True)
class StatusFacts:
    """Everything the status line says, as plain values."""

    freshness: Freshness
    age: float | None  # seconds since the data on screen was fetched (None: no data yet)
    interval: float  # seconds between polls
    project: str = ""
    frozen: bool = False
    read_only: bool = False
    stretch_note: str | None = None  # why the interval is not the one asked for
    failures: int = 0  # polls failed in a row
    reason: str = ""  # a few words on why they fail (a 403's scope is the server's)
    next_poll_in: float | None = None  # seconds until the next poll is due
    in_flight: bool = False
    skew: str | None = None  # the server's clock differs from this machine's
    exports: ExportCounts | None = None  # None until a poll succeeded
    filter: str = ""  # the name filter (server text when pasted)
    group: str | None = None  # the failure group the table is filtered to
    cache_problem: str | None = None  # why the shared cache is off
    viewers: int = 1  # dashboards sharing the cache's answers
    ignoring: bool = False  # entries in the shared store fail this key's check: ignored


def alert_words(count: int) -> str:
    """``3 alerts``; nothing when there is none (the status line, the screen's and the terminal's title)."""
    return counted(count, "alert") if count else ""


def is_stale(freshness: Freshness) -> bool:
    """The data on screen is dimmed: polls missed or failing."""
    return freshness in (Freshness.STALE, Freshness.OFFLINE)


def monitor_status(facts: StatusFacts, width: int) -> Text:
    """The status line in ``width`` cells: badges (freshness, project, FROZEN, READ-ONLY), then phrases."""
    # (priority, text, style): the lower the number, the longer it stays on a narrow line (fit_status).
    phrases: list[tuple[int, str, str]] = []
    if facts.stretch_note:  # a warning: why the interval is not the one asked for; kept as long as the notes
        phrases.append((STATUS_NOTE, f"every {duration(facts.interval)} ({facts.stretch_note})", Tone.NOTE.style))
    else:
        phrases.append((STATUS_POLL, f"every {duration(facts.interval)}", ""))
    if facts.failures:
        wait = facts.next_poll_in
        retry = f", retry in {duration(wait)}" if wait is not None and not facts.in_flight else ""
        phrases.append((0, f"{clean(facts.reason, limit=120)}{retry}", Tone.ERROR.style))
    if facts.in_flight:
        phrases.append((STATUS_REFRESHING, "⟳ refreshing", Tone.MUTED.style))
    if facts.skew:
        phrases.append((STATUS_NOTE, facts.skew, Tone.WARNING.style))
    counts = facts.exports
    if counts is not None:
        shown = f"{counts.shown} of " if counts.shown is not None else ""
        phrases.append((0, f"{shown}{counted(counts.total, 'export')}", ""))
        if counts.failing:
            phrases.append((0, f"{counts.failing} failing", Tone.FAILURE.style))
        if counts.alerts:
            phrases.append((0, alert_words(counts.alerts), Tone.FAILURE.style))
        if counts.note:
            phrases.append((STATUS_NOTE, clean(counts.note, limit=80), Tone.NOTE.style))
        if counts.unreadable:
            phrases.append((STATUS_NOTE, f"{counts.unreadable} unreadable", Tone.NOTE.style))
        if counts.incomplete:
            phrases.append((STATUS_NOTE, f"{counted(counts.incomplete, 'export answer')}"
                                         " incomplete", Tone.NOTE.style))
    if facts.filter:
        phrases.append((STATUS_FILTER, f"filter: {clean(facts.filter, limit=30)}", Tone.ACCENT.style))
    if facts.group is not None:
        phrases.append((STATUS_FILTER, f"group: {clean(facts.group, limit=40)} (esc shows all)", Tone.ACCENT.style))
    if facts.cache_problem:
        phrases.append((STATUS_NOTE, f"cache off ({facts.cache_problem}): asking the server", Tone.NOTE.style))
    elif facts.viewers > 1:
        phrases.append((STATUS_NOTE, f"shared cache: {facts.viewers} viewers", Tone.ACCENT.style))
    if facts.ignoring and not facts.cache_problem:
        phrases.append((STATUS_NOTE, IGNORED_NOTE, Tone.NOTE.style))
    return status_line(facts.freshness, phrases, width, project=facts.project, age=facts.age, frozen=facts.frozen,
                       read_only=facts.read_only)
