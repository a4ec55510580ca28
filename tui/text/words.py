"""How watchdeck writes counts, durations and times: one style wherever one is shown."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import humanize


def counted(count: int, noun: str) -> str:
    """``1 line``, ``1,234 lines``: a count and its noun, in the plural unless the count is one."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def ago(when: datetime | None, now: datetime, *, coarse: bool = False) -> str:
    """``45s ago``, ``3m ago``, ``2h ago``, ``99d ago`` (or ``in 5m``): :func:`duration` from an instant, its largest
    unit alone (a cell of a time changes as seldom as it can); an em dash for no time.

    ``coarse`` says nothing finer than a minute (``<1m ago``), for cells refreshed once a minute.
    """
    if when is None:
        return "—"
    seconds = (now - when).total_seconds()
    size = abs(seconds)
    if size < 2 and not coarse:
        return "just now"
    words = duration(size, coarse=coarse, units=1)
    return f"in {words}" if seconds < 0 else f"{words} ago"


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


#: The units of :func:`duration`, largest first.
_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def duration(seconds: float | None, *, coarse: bool = False, round_up: bool = False, units: int = 2) -> str:
    """Every duration watchdeck shows, in one style: ``0s``, ``45s``, ``3m12s``, ``1h``, ``2h05m``, ``3d04h``.

    The largest unit and, when it is not zero, the next one (two digits), to the nearest second; a negative
    figure is ``0s``, none is an em dash. ``coarse``: nothing finer than a minute (``<1m``, ``35m``), for
    figures that age (lag, health reasons, times in cells): second resolution would change a cell at every
    poll, and each changed row costs a repaint. ``round_up``: a coarse figure that breaches a limit is rounded
    up to what is shown (the minute; the hour past a day), so 655 s over a 10-minute target reads ``11m``,
    never ``10m``, the limit itself. ``units=1``: the largest unit alone (``2h``, ``99d``), for how long ago.
    """
    if seconds is None or math.isnan(seconds):
        return "—"
    if math.isinf(seconds):
        return "forever" if seconds > 0 else "0s"
    if coarse and round_up:
        step = 3600 if seconds >= 86400 else 60
        seconds = math.ceil(seconds / step) * step
    tenths = round(seconds, 1)
    if 0 < tenths < 1 and not coarse:
        return f"{tenths:g}s"  # a timeout under a second: 0.5s, not 0s; under a twentieth of a second, 0s
    left = int(max(0.0, seconds)) if coarse else round(max(0.0, seconds))  # minutes are cut, seconds rounded
    if coarse and left < 60:
        return "<1m"
    for index, (unit, size) in enumerate(_UNITS):
        if left >= size or size == 1:
            text = f"{left // size}{unit}"
            if size > 1 and units > 1:
                next_unit, next_size = _UNITS[index + 1]
                rest = (left % size) // next_size
                if rest and not (coarse and next_unit == "s"):
                    text += f"{rest:02d}{next_unit}"
            return text
    raise AssertionError("unreachable")


def coarse_duration(seconds: float | None, *, round_up: bool = False) -> str:
    """:func:`duration` at minute resolution: ``<1m``, ``35m``, ``2h05m``, ``3d04h``."""
    return duration(seconds, coarse=True, round_up=round_up)


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
