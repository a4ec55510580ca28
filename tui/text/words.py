"""How watchdeck writes counts, durations and times: one style wherever one is shown."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import humanize


def counted(count: int, noun: str) -> str:
    """``1 line``, ``1,234 lines``: a count and its noun, in the plural unless the count is one."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def ago(when: datetime | None, now: datetime, *, coarse: bool = False) -> str:
    """"3 minutes ago" (or "in 5 minutes"); an em dash for no time.

    ``coarse`` says nothing finer than a minute, for cells refreshed once a minute.
    """
    if when is None:
        return "—"
    delta = now - when
    if coarse and abs(delta) < timedelta(minutes=1):
        return "in <1 min" if delta < timedelta(0) else "<1 min ago"
    if delta < timedelta(0):
        return "in " + humanize.naturaldelta(-delta)
    if delta < timedelta(seconds=2):
        return "just now"
    return humanize.naturaltime(delta)


def past_ago(when: datetime, now: datetime, *, coarse: bool = False) -> str:
    """:func:`ago` for something that has happened (a run finished, an export was created): never "in …".

    Server stamps are read against an estimate of the server's clock; one a moment ahead of it (or any stamp under
    skew the estimate has not caught yet) is "just now", not a time in the future.
    """
    return ago(min(when, now), now, coarse=coarse)


def when_text(when: datetime, now: datetime) -> str:
    """An instant as a person says it: ``now, Tue 24 Nov 04:26 UTC``, ``in 3 days, Fri 27 Nov 09:00 UTC``."""
    relative = "now" if abs((when - now).total_seconds()) < 60 else ago(when, now)
    return f"{relative}, {date_text(when, now.year)}"


def date_text(when: datetime, this_year: int | None = None) -> str:
    """``Tue 24 Nov 04:26 UTC`` (the year too when it is not ``this_year``)."""
    utc = when.astimezone(UTC)
    return f"{utc:%a} {utc.day} {utc:%b %H:%M} UTC" + (f" {utc.year}" if utc.year != this_year else "")


def duration(seconds: float | None) -> str:
    """Compact durations for tables: ``45s``, ``3m12s``, ``2h05m``, ``3d04h``."""
    if seconds is None:
        return "—"
    s = int(max(0, seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d{(s % 86400) // 3600:02d}h"


def coarse_duration(seconds: float | None, *, round_up: bool = False) -> str:
    """Minute resolution for figures that age (lag, health reasons): ``<1m``, ``35m``, ``2h05m``, ``3d04h``.

    Second resolution would change every row's cell at every poll, and each
    changed row costs a repaint; a lag figure does not need seconds.
    ``round_up``: for a figure that breaches a limit, rounded up to what is
    shown (the minute; the hour past a day), so 655 s over a 10-minute target
    reads ``11m``, never ``10m``, the limit itself.
    """
    if seconds is None:
        return "—"
    if round_up:
        step = 3600 if seconds >= 86400 else 60
        seconds = math.ceil(seconds / step) * step
    if seconds < 60:
        return "<1m"
    if seconds < 3600:
        return f"{int(seconds) // 60}m"
    return duration(seconds)


def count(value: int | None) -> str:
    return "—" if value is None else humanize.intcomma(value)


def short_count(value: int | None) -> str:
    """A count that fits a narrow cell whole: ``987``, ``12.3k``, ``1.55M``, ``2.1B`` (three significant digits)."""
    if value is None:
        return "—"
    if abs(value) < 1000:
        return str(value)
    for limit, suffix in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "B")):
        text = f"{value / limit:.3g}"
        if suffix == "B" or ("e" not in text and abs(float(text)) < 1000):
            return text + suffix
    raise AssertionError("unreachable")
