"""Time helpers shared by the store, the simulator and validation.

All timestamps are stored as fixed-width ISO strings (``...%fZ``) so that SQLite can
compare and sort them as text; the same form is what DRF renders.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

INTERVALS: dict[str, int] = {
    "hour": 3600,
    "day": 86400,
    "week": 7 * 86400,
    "every 5 minutes": 300,
    "every 15 minutes": 900,
}

# 1970-01-04 was a Sunday; weekly exports start on Sundays (offset_day 0) as in the real service.
_WEEK_ANCHOR = datetime(1970, 1, 4, tzinfo=UTC)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso(dt: datetime) -> str:
    """Render an aware datetime in the stored/served form."""
    if dt.tzinfo is not UTC:
        dt = dt.astimezone(UTC)
    return dt.isoformat(timespec="microseconds")[:-6] + "Z"  # "+00:00" written as "Z"


def iso_opt(dt: datetime | None) -> str | None:
    return None if dt is None else iso(dt)


def parse_iso(text: str) -> datetime:
    """Parse a timestamp this module wrote (or any aware ISO string)."""
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


class NaiveDatetime(ValueError):
    """An input datetime without an offset, which the backfill API refuses."""


def parse_input_datetime(value: object, *, allow_naive: bool, allow_date: bool = True) -> datetime:
    """Parse a client-supplied datetime as DRF would.

    Raises ``ValueError`` for garbage and :class:`NaiveDatetime` when no offset is given and
    ``allow_naive`` is false. A bare date means midnight UTC (newer servers want dates for day/week).
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError("not a string")
    text = value.strip()
    if allow_date and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        d = date.fromisoformat(text)
        return datetime(d.year, d.month, d.day, tzinfo=UTC)
    if not re.match(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", text):
        raise ValueError("bad format")
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if dt.tzinfo is None:
        if not allow_naive:
            raise NaiveDatetime(text)
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except OverflowError as exc:  # 0001-01-01T00:00+01:00 / 9999-12-31T23:59-01:00 leave datetime's range
        raise ValueError("datetime out of range") from exc


_RELATIVE = re.compile(r"^-(\d+)([hdwm])$")


def parse_window_bound(value: str, now: datetime) -> datetime:
    """Runs-list bounds accept ISO strings or relative ones such as ``-7d``, ``-12h``."""
    m = _RELATIVE.match(value.strip())
    if m:
        n, unit = int(m.group(1)), m.group(2)
        seconds = {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 60}[unit]
        try:
            return now - timedelta(seconds=n * seconds)
        except OverflowError as exc:  # "-99999999999d" reaches before year 1
            raise ValueError("relative bound out of range") from exc
    return parse_input_datetime(value, allow_naive=True)


def floor_interval(dt: datetime, interval: str) -> datetime:
    """The start of the interval that contains ``dt`` (boundaries as Temporal schedules lay them out)."""
    seconds = INTERVALS[interval]
    anchor = _WEEK_ANCHOR if interval == "week" else _EPOCH
    elapsed = int((dt - anchor).total_seconds())
    return anchor + timedelta(seconds=elapsed - elapsed % seconds)


def ceil_interval(dt: datetime, interval: str) -> datetime:
    start = floor_interval(dt, interval)
    return start if start == dt else start + timedelta(seconds=INTERVALS[interval])
