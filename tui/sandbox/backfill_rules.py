"""Backfill bounds as each generation of the real service validates them.

Older servers (``backfill/`` and ``backfills/``) take ISO datetimes with an offset for every
interval. The newest (``backfills/`` only) take **dates** for day and week exports, weekly dates on
the export's configured weekday, combined with the export's ``offset_hour`` in its timezone.
Errors are raised from the view in both, so they carry ``attr: null``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tui.sandbox.errors import validation_error
from tui.sandbox.shapes import interval_offset, offsets

WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


@dataclass(frozen=True)
class ExportTiming:
    """The parts of an export that decide how its backfill bounds are read."""

    interval: str
    timezone: str = "UTC"
    offset_day: int | None = None
    offset_hour: int | None = None
    destination: str = "S3"

    @property
    def zone(self) -> tzinfo:
        try:
            return ZoneInfo(self.timezone or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            return UTC

    @classmethod
    def of(cls, doc: dict[str, Any], interval: str) -> ExportTiming:
        offset = offsets(interval, interval_offset(doc))
        return cls(interval, doc.get("timezone") or "UTC", offset["offset_day"], offset["offset_hour"],
                   doc["destination"]["type"])


def _parse_datetime(value: Any) -> datetime:
    """``datetime.fromisoformat`` as the real views call it; garbage and naive inputs refused."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise validation_error(f"Input {value} is not a valid ISO formatted datetime.", None) from exc
    if parsed.tzinfo is None:
        raise validation_error(f"Input {value} is naive.", None)
    return parsed


def _parse_newest(value: Any, timing: ExportTiming) -> datetime:
    if timing.interval not in ("day", "week"):
        return _parse_datetime(value)
    try:
        day = date.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        try:
            datetime.fromisoformat(value)
        except (TypeError, ValueError):
            raise validation_error(f"Input '{value}' is not a valid ISO formatted date.", None) from exc
        raise validation_error(
            f"Input '{value}' is not a valid ISO formatted date. Daily or weekly batch export backfills expect "
            "only the date component, but a time was included.", None) from exc
    if timing.interval == "week":
        weekday = day.isoweekday() % 7  # Sunday 0 ... Saturday 6, as the export's offset_day counts
        expected = timing.offset_day or 0
        if weekday != expected:
            raise validation_error(
                f"Input {value} is not on the correct day of the week for this batch export. {value} is a "
                f"{WEEKDAYS[weekday]} but this batch export is configured to run weekly on {WEEKDAYS[expected]}.",
                None)
    at = time(hour=timing.offset_hour or 0)
    return datetime.combine(day, at).replace(tzinfo=timing.zone)


def backfill_bounds(body: dict[str, Any], now: datetime, timing: ExportTiming, *,
                    generation: str) -> tuple[datetime, datetime]:
    """``start_at``/``end_at`` of a backfill request, validated as ``generation`` does."""
    newest = generation == "newest"
    raw_start, raw_end = body.get("start_at"), body.get("end_at")
    if raw_start is None:
        raise validation_error("Backfilling from the beginning of time is not enabled for this team.", None)
    start = _parse_newest(raw_start, timing) if newest else _parse_datetime(raw_start)
    if raw_end is None:
        if timing.destination != "HTTP":
            raise validation_error("Backfilling a BatchExport with no end date is not allowed", None)
        return start, now
    end = _parse_newest(raw_end, timing) if newest else _parse_datetime(raw_end)
    if start >= end:
        message = ("The initial backfill datetime 'start_at' must be before 'end_at'" if newest
                   else "The initial backfill datetime 'start_at' happens after 'end_at'")
        raise validation_error(message, None)
    if end > now:
        raise validation_error(f"The provided 'end_at' ({end.isoformat()}) is in the future", None)
    return start.astimezone(UTC), end.astimezone(UTC)
