"""The incident timeline: every watched export on one time axis, one cell per time bucket.

A cell holds the worst status among the runs whose data interval overlaps the
bucket, taking each interval's latest attempt (a failed interval that was
retried and completed is drawn completed: the timeline shows what is still
broken, and a repaired outage leaves the column). A destination outage reads as
a column of failures across rows.

The model is recomputed per row only when that row's runs changed or the axis
moved, and it reports which rows changed so the widget repaints only those.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tui.api.models.batch_exports import BatchExportRun, RunStatus
from tui.state.health import CANCELLED_GROUP, FAILED_GROUP
from tui.state.intervals import is_in_progress, latest_attempts


@dataclass(frozen=True)
class Zoom:
    label: str
    span: timedelta
    bucket: timedelta

    @property
    def buckets(self) -> int:
        return int(self.span / self.bucket)


ZOOMS: tuple[Zoom, ...] = (
    Zoom("6h", timedelta(hours=6), timedelta(minutes=15)),
    Zoom("24h", timedelta(hours=24), timedelta(minutes=30)),
    Zoom("7d", timedelta(days=7), timedelta(hours=4)),
)
DEFAULT_ZOOM = 1
# A cell's length when the screen has room for more cells than a zoom's own: the shortest that still shows the
# zoom's whole span, so the cells fill the width at every zoom.
NICE_BUCKETS = tuple(timedelta(minutes=m) for m in (1, 2, 5, 10, 15, 30, 60, 120, 240, 360, 720, 1440))


def severity(status: str | None) -> int:
    """How bad a status is for the timeline.

    Failed > retryable > timed out or terminated (no data arrived, though the service files them as cancelled)
    > unknown > running > cancelled > completed.
    """
    if status is None:
        return -1
    if status in FAILED_GROUP and status != RunStatus.FAILED_RETRYABLE:
        return 6
    if status == RunStatus.FAILED_RETRYABLE:
        return 5
    if status in (RunStatus.TIMED_OUT, RunStatus.TERMINATED):
        return 4
    if is_in_progress(status):
        return 2
    if status in CANCELLED_GROUP:
        return 1
    if status == RunStatus.COMPLETED:
        return 0
    return 3  # a status this version does not know: worth a look, not an alarm


@dataclass(frozen=True)
class Axis:
    """The buckets on screen: ``count`` buckets of ``bucket`` seconds, the last one holding ``now``."""

    origin: float  # epoch seconds of the first bucket's start
    bucket: float
    count: int

    @classmethod
    def ending_at(cls, zoom: Zoom, now: datetime, cells: int | None = None) -> Axis:
        """The zoom's axis; with room for ``cells`` cells, that many, each as short as still shows the zoom's span."""
        bucket, count = zoom.bucket, zoom.buckets
        if cells is not None and cells > count:
            fits = [nice for nice in NICE_BUCKETS if nice * cells >= zoom.span and nice <= zoom.bucket]
            bucket, count = (fits[0] if fits else zoom.bucket), cells
        size = bucket.total_seconds()
        last_start = now.timestamp() - now.timestamp() % size
        return cls(last_start - size * (count - 1), size, count)

    @property
    def start(self) -> datetime:
        return datetime.fromtimestamp(self.origin, tz=UTC)

    @property
    def end(self) -> datetime:
        return datetime.fromtimestamp(self.origin + self.bucket * self.count, tz=UTC)

    def bucket_start(self, index: int) -> datetime:
        return datetime.fromtimestamp(self.origin + self.bucket * index, tz=UTC)

    def span_of(self, start: float, end: float) -> range:
        """Indexes of the buckets that the half-open interval [start, end) overlaps."""
        first = max(0, int((start - self.origin) // self.bucket))
        last = min(self.count - 1, int(-(-(end - self.origin) // self.bucket)) - 1)
        if end <= start:
            last = min(self.count - 1, int((start - self.origin) // self.bucket))
        return range(first, last + 1)


@dataclass(frozen=True)
class TimelineRow:
    key: str
    statuses: tuple[str | None, ...]  # worst status per bucket; None where no run overlaps
    runs: tuple[tuple[BatchExportRun, ...], ...]  # the runs behind each cell, worst first
    fingerprint: tuple[object, ...]


def _fingerprint(runs: Sequence[BatchExportRun]) -> tuple[object, ...]:
    """Ids and statuses: a run's interval and creation never change, so these say whether a row must be rebuilt."""
    return tuple([(r.id, r.status) for r in runs])


def build_row(key: str, runs: Sequence[BatchExportRun], axis: Axis,
              fingerprint: tuple[object, ...] | None = None) -> TimelineRow:
    cells: list[list[BatchExportRun]] = [[] for _ in range(axis.count)]
    window_end = axis.origin + axis.bucket * axis.count
    for run in latest_attempts(runs):
        assert run.data_interval_end is not None
        end = run.data_interval_end.timestamp()
        start = run.data_interval_start.timestamp() if run.data_interval_start is not None else end
        if end <= axis.origin or start >= window_end:
            continue
        for index in axis.span_of(start, end):
            cells[index].append(run)
    statuses: list[str | None] = []
    ordered: list[tuple[BatchExportRun, ...]] = []
    for cell in cells:
        if not cell:
            statuses.append(None)
            ordered.append(())
            continue
        cell.sort(key=lambda r: -severity(r.status))
        statuses.append(cell[0].status)
        ordered.append(tuple(cell))
    return TimelineRow(key, tuple(statuses), tuple(ordered),
                       fingerprint if fingerprint is not None else _fingerprint(runs))


class TimelineModel:
    """Rows of the timeline, rebuilt only where runs changed or the axis moved."""

    def __init__(self, zoom_index: int = DEFAULT_ZOOM) -> None:
        self.zoom_index = zoom_index
        self.cells: int | None = None  # how many cells the screen has room for (None: the zoom's own count)
        self.axis: Axis | None = None
        self.order: list[str] = []
        self.rows: dict[str, TimelineRow] = {}
        self._failed_columns: list[int] = []

    @property
    def zoom(self) -> Zoom:
        return ZOOMS[self.zoom_index]

    def set_zoom(self, index: int) -> bool:
        index = max(0, min(len(ZOOMS) - 1, index))
        if index == self.zoom_index:
            return False
        self.zoom_index = index
        self.axis = None
        return True

    def set_cells(self, cells: int | None) -> bool:
        """The room on screen changed: True when the axis must be rebuilt."""
        if cells == self.cells:
            return False
        self.cells = cells
        self.axis = None
        return True

    def update(self, order: Sequence[str], runs_by_export: Mapping[str, Sequence[BatchExportRun]],
               now: datetime, fingerprints: Mapping[str, tuple[object, ...]] | None = None) -> set[str]:
        """Recompute what changed; return the keys of rows whose cells changed (all of them when the axis moved).

        ``fingerprints`` (one per export, equal while its runs did not change) saves working them out again.
        """
        axis = Axis.ending_at(self.zoom, now, self.cells)
        moved = axis != self.axis
        self.axis = axis
        changed: set[str] = set()
        rows: dict[str, TimelineRow] = {}
        for key in order:
            runs = runs_by_export.get(key, ())
            fingerprint = fingerprints[key] if fingerprints is not None and key in fingerprints else _fingerprint(runs)
            old = self.rows.get(key)
            if old is not None and not moved and old.fingerprint == fingerprint:
                rows[key] = old
                continue
            row = build_row(key, runs, axis, fingerprint)
            rows[key] = row
            if old is None or old.statuses != row.statuses or old.runs != row.runs:
                changed.add(key)
        if list(order) != self.order:
            changed.update(k for k in order if k not in self.rows)
        if moved or list(order) != self.order:
            self._failed_columns = _count_failed(rows.values(), axis.count)
        else:
            for key in changed:  # only rows that changed move the counts
                _add_failed(self._failed_columns, self.rows.get(key), -1)
                _add_failed(self._failed_columns, rows.get(key), 1)
        self.order = list(order)
        self.rows = rows
        return changed

    def row_at(self, index: int) -> TimelineRow | None:
        if 0 <= index < len(self.order):
            return self.rows.get(self.order[index])
        return None

    def runs_at(self, row: int, column: int) -> tuple[BatchExportRun, ...]:
        found = self.row_at(row)
        if found is None or not 0 <= column < len(found.runs):
            return ()
        return found.runs[column]

    @property
    def failed_columns(self) -> list[int]:
        """Per bucket, how many rows show a failed status there (an outage is a column with a high count)."""
        return self._failed_columns


def _add_failed(counts: list[int], row: TimelineRow | None, sign: int) -> None:
    if row is None:
        return
    for index, status in enumerate(row.statuses):
        if status in FAILED_GROUP and index < len(counts):
            counts[index] += sign


def _count_failed(rows: Iterable[TimelineRow], buckets: int) -> list[int]:
    counts = [0] * buckets
    for row in rows:
        _add_failed(counts, row, 1)
    return counts


def covers(runs: Sequence[BatchExportRun], since: datetime) -> bool:
    """Whether ``runs`` reach back to ``since`` (an interval starting at or before it is among them)."""
    starts = sorted(r.data_interval_start.timestamp() for r in runs if r.data_interval_start is not None)
    return bool(starts) and bisect.bisect_right(starts, since.timestamp()) > 0
