"""The runs seen per watched export, and the time ranges over which the server's runs list was read. Pure.

Runs come from ``latest_runs`` at each poll, from the runs pane, and from the
reads made for the verdicts, the timeline and repair. A range of creation
times is *read* when every run the server created in it is held here:

* ``latest_runs`` (the ten newest) covers from its oldest run's creation to the poll;
* a runs page, newest first, covers from its oldest run's creation to when it was
  asked, or from the asked ``after`` when it was the last page.

So a view can tell "no run for this interval" (the range was read and holds
none) from "not read yet".

Bounded. Each export keeps its newest runs: ``PER_EXPORT`` of them (what the
monitor needs while no view is open), and more where something needs them:

* the verdict: the runs back to the newest Completed run (the failure streak and
  the lag), at most ``VERDICT_KEEP``; past that, the newest Completed run alone
  (the runs between are then unread, and the verdict says the streak is longer);
  and always the Completed run with the newest interval end (the lag's), so a
  burst of newer runs (a bulk repair's retries of old intervals) never makes the
  lag look worse than what was seen: one run per export;
* an open view (timeline, failure groups, repair) holds the runs created since
  the start of its window (:meth:`RunHistory.hold`) until it lets go.

Past ``TOTAL`` runs in all, each export is cut to an equal share of it (never
under one ``latest_runs``), with the same exceptions. Cutting the oldest runs
cuts the read ranges with them, so a range never claims runs that are no longer
held: a view that needs them again reads them again; past ``SPANS_KEPT`` ranges
an export forgets its oldest.

In bytes (a run with a line of error text is about 2 KB): ``PER_EXPORT`` about
85 KB per export, ``VERDICT_KEEP`` about 660 KB, ``TOTAL`` about 64 MB; a read
range about 120 bytes, 2 KB per export at most.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from tui.api.models.batch_exports import BatchExportRun, RunStatus
from tui.state.health import run_created as created
from tui.state.health import run_order_key

PER_EXPORT = 40  # four ``latest_runs``: the monitor's own need while no view is open
VERDICT_KEEP = 310  # what one read for a verdict brings: three pages of 100 runs and ``latest_runs``
TOTAL = 30_000
PER_EXPORT_FLOOR = 10  # never under one ``latest_runs``
SPANS_KEPT = 16  # read ranges per export (the newest; two datetimes each)

Span = tuple[datetime, datetime]


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Overlapping or touching spans joined, oldest first."""
    out: list[Span] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def subtract(lo: datetime, hi: datetime, spans: Sequence[Span]) -> list[Span]:
    """The parts of ``[lo, hi]`` that ``spans`` (merged, oldest first) leave out."""
    missing: list[Span] = []
    cursor = lo
    for s_lo, s_hi in spans:
        if s_hi <= cursor:
            continue
        if s_lo >= hi:
            break
        if s_lo > cursor:
            missing.append((cursor, s_lo))
        cursor = max(cursor, s_hi)
        if cursor >= hi:
            break
    if cursor < hi:
        missing.append((cursor, hi))
    return missing


def page_span(runs: Sequence[BatchExportRun], newest: datetime, *, after: datetime | None,
              last_page: bool) -> Span | None:
    """The creation times that pages of the runs list, read newest first from ``newest``, cover: from ``after``
    when the last page was read, else from their oldest run."""
    if last_page and after is not None:
        lo: datetime | None = after
    else:
        stamps = [c for c in (created(r) for r in runs) if c is not None]
        lo = min(stamps) if stamps else None
    return (lo, newest) if lo is not None and lo <= newest else None


def newest_completed(runs: Iterable[BatchExportRun]) -> BatchExportRun | None:
    """The Completed run with the newest interval end: the one the lag is measured from."""
    done = [run for run in runs if run.status == RunStatus.COMPLETED and run.data_interval_end is not None]
    return max(done, key=lambda run: (run.data_interval_end, run_order_key(run))) if done else None


@dataclass
class _Held:
    runs: dict[str, BatchExportRun] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    version: int = 0
    ordered: list[BatchExportRun] | None = None  # newest first, made when asked


class RunHistory:
    """Per export key: runs by id, and the creation-time spans read from the server."""

    def __init__(self, *, per_export: int = PER_EXPORT, total: int = TOTAL) -> None:
        self.per_export = per_export
        self.total = total
        self._held: dict[str, _Held] = {}
        self._count = 0
        # By holder: runs created since then are kept, of the exports named (of every export where None).
        self._holds: dict[str, tuple[datetime, frozenset[str] | None]] = {}

    # ------------------------------------------------------------------ adding

    def add(self, key: str, runs: Iterable[BatchExportRun], read: Span | None = None) -> bool:
        """Runs of one export, and the span they are all the server's runs of (if they are); True when it changed."""
        held = self._held.setdefault(key, _Held())
        changed = False
        for run in runs:
            old = held.runs.get(run.id)
            # The fields compared as a dict: what the model's own == compares first, at a fraction of its cost
            # (a quiet poll of 200 exports compares 2,000 runs).
            if old is None or old.__dict__ != run.__dict__:
                if old is None:
                    self._count += 1
                held.runs[run.id] = run
                changed = True
        if changed:
            held.version += 1
        if read is not None and read[0] <= read[1]:
            spans = merge_spans([*held.spans, read])[-SPANS_KEPT:]  # the oldest forgotten: read again if needed
            if spans != held.spans:
                if not held.spans or spans[-1][0] != held.spans[-1][0]:
                    held.version += 1  # where the newest read span begins changed: verdicts may change
                held.spans = spans
                changed = True
        if changed:
            held.ordered = None
            self._trim(key, held, self.per_export)
            if self._count > self.total:
                self._trim_all()
        return changed

    def add_latest(self, key: str, latest_runs: Sequence[BatchExportRun], polled_at: datetime) -> bool:
        """An export's ``latest_runs`` at a poll: its runs, and the span from its oldest run's creation to the poll."""
        stamps = [c for c in (created(r) for r in latest_runs) if c is not None]
        read = (min(stamps), max(polled_at, max(stamps))) if stamps else None
        return self.add(key, latest_runs, read)

    def add_page(self, key: str, runs: Sequence[BatchExportRun], asked_at: datetime, *,
                 after: datetime | None, last_page: bool) -> bool:
        """One or more pages of the runs list, newest first from ``asked_at``: the span they cover is read."""
        return self.add(key, runs, page_span(runs, asked_at, after=after, last_page=last_page))

    def _trim(self, key: str, held: _Held, cap: int) -> None:
        if len(held.runs) <= cap:
            return
        ordered = sorted(held.runs.values(), key=run_order_key, reverse=True)
        keep = self._keep_count(key, ordered, cap)
        if keep >= len(ordered):
            return
        kept, dropped = ordered[:keep], ordered[keep:]
        done = next((run for run in dropped if run.status == RunStatus.COMPLETED), None)
        if done is not None and not any(run.status == RunStatus.COMPLETED for run in kept):
            dropped.remove(done)  # the streak's end stays, alone: the runs between it and the kept ones are unread
        lag_run = newest_completed(ordered)
        if lag_run is not None and lag_run in dropped:
            dropped.remove(lag_run)  # the lag's run stays too, whatever newer runs (retries of old intervals) came
        for run in dropped:
            del held.runs[run.id]
        self._count -= len(dropped)
        cut = created(kept[-1]) if kept else None
        if cut is not None:
            held.spans = [(max(lo, cut), hi) for lo, hi in held.spans if hi >= cut]
        held.ordered = None
        held.version += 1

    def _keep_count(self, key: str, ordered: Sequence[BatchExportRun], cap: int) -> int:
        """How many of the newest runs (newest first) stay: ``cap``, or back to the newest Completed run (at most
        ``VERDICT_KEEP``), or back to the earliest start a view holds, whichever is more."""
        keep = cap
        if not any(run.status == RunStatus.COMPLETED for run in ordered[:keep]):
            done = next((i for i, run in enumerate(ordered) if run.status == RunStatus.COMPLETED), len(ordered))
            keep = max(keep, min(done + 1, VERDICT_KEEP))
        holds = [since for since, keys in self._holds.values() if keys is None or key in keys]
        if holds:
            since = min(holds)
            while keep < len(ordered) and (when := created(ordered[keep])) is not None and when >= since:
                keep += 1
        return keep

    def _trim_all(self) -> None:
        share = max(PER_EXPORT_FLOOR, self.total // max(1, len(self._held)))
        for key, held in self._held.items():
            self._trim(key, held, share)

    def hold(self, holder: str, since: datetime | None, keys: Iterable[str] | None = None) -> None:
        """A view keeps the runs created since ``since`` (of the exports ``keys``, of all where None) while it is
        open; ``since`` None lets go, and the store is cut back to its bounds."""
        if since is None:
            if self._holds.pop(holder, None) is None:
                return
            for key, held in self._held.items():
                self._trim(key, held, self.per_export)
            if self._count > self.total:
                self._trim_all()
        else:
            self._holds[holder] = (since, frozenset(keys) if keys is not None else None)

    def keep_only(self, keys: Iterable[str]) -> None:
        """Forget the exports no longer watched."""
        wanted = set(keys)
        for key in [k for k in self._held if k not in wanted]:
            self._count -= len(self._held.pop(key).runs)

    def clear(self) -> None:
        self._held.clear()
        self._count = 0

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        """Runs held across every export."""
        return self._count

    def runs(self, key: str) -> list[BatchExportRun]:
        """The export's runs, newest first (health's one ordering)."""
        held = self._held.get(key)
        if held is None:
            return []
        if held.ordered is None:
            held.ordered = sorted(held.runs.values(), key=run_order_key, reverse=True)
        return held.ordered

    def version(self, key: str) -> int:
        """Changes when the export's runs change or its newest read span begins elsewhere (not as it grows newer)."""
        held = self._held.get(key)
        return held.version if held is not None else 0

    def spans(self, key: str) -> list[Span]:
        held = self._held.get(key)
        return list(held.spans) if held is not None else []

    def read_since(self, key: str) -> datetime | None:
        """Where the newest read span begins: every run created from then to the last look is held."""
        held = self._held.get(key)
        return held.spans[-1][0] if held is not None and held.spans else None

    def unread(self, key: str, lo: datetime, hi: datetime) -> list[Span]:
        """The parts of ``[lo, hi]`` (creation times) whose runs have not been read."""
        held = self._held.get(key)
        return subtract(lo, hi, held.spans if held is not None else [])

    def covers(self, key: str, lo: datetime, hi: datetime) -> bool:
        return not self.unread(key, lo, hi)
