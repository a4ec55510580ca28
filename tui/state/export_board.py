"""The monitor's state, without Textual: what the exports screen shows and what it is waiting for.

The snapshot of the last good poll, the operator's optimistic pauses, the
actions in flight, the retries whose new run is awaited, the filter, the
cache of run histories, and per row the facts a row is drawn from (its
verdict among them) with the diff against the last drawing. The screen
renders a board and turns keys into board calls; the verdicts come from
:mod:`tui.state.health` (so the cells, the alerts and ``watchdeck status``
agree) and the row marks from the one alert model (:mod:`tui.state.alert_book`).

Bounded: one verdict and one row's facts per export of the last poll (about 8 KB each, replaced at every poll),
the run history's own bounds (:mod:`tui.state.run_history`), and the runs page of the last ``RUNS_EXPORTS_KEPT``
exports read for the runs pane (``RUNS_KEPT`` runs, about 210 KB each).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tui.api.models.batch_exports import BatchExportRun
from tui.state.exports import ExportsSnapshot, MissingRoutes, WatchedExport, latest_run, runs_oldest_first
from tui.state.health import (
    DEFAULT_GRACE_SECONDS,
    DEFAULT_LAG_INTERVALS,
    Verdict,
    judge,
    runs_newest_first,
    target_for,
)
from tui.state.run_history import RunHistory

RUNS_KEPT = 100  # runs of one export's runs page kept for its runs pane (about 190 KB)
RUNS_EXPORTS_KEPT = 4  # exports whose runs page is kept: the selected one and the last few before it


@dataclass(frozen=True)
class RowFacts:
    """What one row is drawn from: the export as shown (an optimistic pause applied), its alert mark and
    its verdict. ``fingerprint`` is everything but the clock; ``minute`` is when the verdict was judged."""

    watched: WatchedExport
    marked: bool
    fingerprint: tuple[Any, ...]
    verdict: Verdict
    minute: int
    silenced: bool = False  # the export is silenced: its alert and verdict stay, its announcements wait

    @property
    def key(self) -> str:
        return self.watched.key


@dataclass
class RowsDiff:
    """The visible rows in order, and which of them changed since the last :meth:`ExportBoard.rows`."""

    rows: list[RowFacts] = field(default_factory=list)
    rebuilt: set[str] = field(default_factory=set)  # new rows, or rows whose data changed: every cell
    retimed: set[str] = field(default_factory=set)  # same data, a new minute: the time cells only


@dataclass(frozen=True)
class AwaitedRetry:
    """A retry was asked for: its new run covers this interval and is none of the runs known then."""

    start: datetime | None
    end: datetime | None
    known_run_ids: frozenset[str]


def row_fingerprint(watched: WatchedExport, marked: bool) -> tuple[Any, ...]:
    """Everything a row and its verdict depend on except the clock; cheap to build and compare."""
    export = watched.export
    return (
        export.name, export.model, export.destination.type, export.interval, export.paused, export.end_at,
        export.start_at, export.created_at, export.last_paused_at, marked, watched.project_id,
        tuple((r.id, r.status, r.records_completed, r.records_total_count, r.created_at, r.finished_at,
               r.last_updated_at, r.data_interval_end, r.backfill) for r in export.latest_runs),
    )


class ExportBoard:
    """The monitor's state. Every method is plain Python: tests drive it without an app."""

    def __init__(self, *, lag_intervals: float = DEFAULT_LAG_INTERVALS,
                 grace_seconds: float = DEFAULT_GRACE_SECONDS, freshness: Mapping[str, float] | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.lag_intervals = lag_intervals
        self.grace_seconds = grace_seconds
        self.freshness = dict(freshness or {})  # export id or name -> freshness target, seconds
        self.snapshot: ExportsSnapshot | None = None
        self.filter = ""
        self.key_filter: tuple[tuple[str, ...], str] | None = None  # a failure group's exports, and its name
        self.pause_listeners: list[Callable[[str, bool], None]] = []  # told of each pause asked from this screen
        self.selected_key: str | None = None
        self.selected_run_id: str | None = None
        self.cancelling: set[str] = set()  # runs sent a cancel that the server still shows in progress
        self._missing_runs_lists = MissingRoutes(monotonic)  # projects whose runs list answered 404/405
        # Projects whose runs list answered 404/405 at the last ask: their verdicts say what is only a bound. Kept
        # while the route is asked again (after a while, or ctrl+r), so a verdict does not flicker meanwhile.
        self._no_runs_list: set[str] = set()
        self._optimistic_paused: dict[str, bool] = {}
        self._pending: set[tuple[str, str]] = set()
        self._awaited_retries: dict[str, AwaitedRetry] = {}
        self._runs: dict[str, list[BatchExportRun]] = {}
        self._facts: dict[str, RowFacts] = {}
        self._by_key: dict[str, WatchedExport] = {}
        self._judged: dict[str, tuple[tuple[Any, ...], Verdict]] = {}  # this poll's verdicts, by row key
        self._judged_at: datetime | None = None
        self.history = RunHistory()  # the runs the verdicts are judged on; the incident desk shares it
        self._record_asked: dict[str, tuple[str, ...]] = {}  # the latest_runs ids when the record was last read

    # ------------------------------------------------------------------ verdicts

    def judge(self, watched: WatchedExport, now: datetime) -> Verdict:
        """The one verdict, with this board's allowance (the same :func:`tui.state.health.judge` as ``status``),
        on the runs of the run history (``latest_runs`` and what was read of the runs list)."""
        key = watched.key
        return judge(watched.export, now, runs=self.history.runs(key), read_since=self.history.read_since(key),
                     lag_intervals=self.lag_intervals, grace_seconds=self.grace_seconds,
                     target_seconds=target_for(watched.export, self.freshness),
                     runs_list=watched.project_id not in self._no_runs_list)

    def _fingerprint(self, watched: WatchedExport, marked: bool) -> tuple[Any, ...]:
        """The row's fingerprint with what the run history adds to its verdict: its runs (version) and where its
        newest read span begins."""
        key = watched.key
        return (*row_fingerprint(watched, marked), self.history.version(key), self.history.read_since(key),
                watched.project_id in self._no_runs_list)

    def records_wanted(self, keys: list[str]) -> list[WatchedExport]:
        """Of these rows, those whose verdict needs the runs list read further back (``Verdict.record_short``),
        not read already since their ``latest_runs`` last changed."""
        wanted = []
        for key in keys:
            facts = self._facts.get(key)
            watched = self._by_key.get(key)
            if facts is None or watched is None or not facts.verdict.record_short:
                continue
            if self._record_asked.get(key) == tuple(r.id for r in watched.export.latest_runs):
                continue
            wanted.append(watched)
        return wanted

    def record_asked(self, key: str) -> None:
        watched = self._by_key.get(key)
        if watched is not None:
            self._record_asked[key] = tuple(r.id for r in watched.export.latest_runs)

    @property
    def failing_count(self) -> int:
        """Exports whose verdict at the last poll was failing."""
        return sum(1 for _, verdict in self._judged.values() if verdict.failing)

    # ------------------------------------------------------------------ snapshots

    def apply_snapshot(self, snapshot: ExportsSnapshot, now: datetime) -> dict[str, Verdict]:
        """A new poll arrived: settle optimistic pauses the server now shows; returns every export's verdict."""
        self.snapshot = snapshot
        self._by_key = snapshot.by_key()
        for watched in snapshot.exports:
            expected = self._optimistic_paused.get(watched.key)
            if expected is not None and watched.export.paused == expected:
                del self._optimistic_paused[watched.key]
            self.history.add_latest(watched.key, watched.export.latest_runs, now)
        self.history.keep_only(self._by_key)
        for key in [k for k in self._record_asked if k not in self._by_key]:
            del self._record_asked[key]
        return self.verdicts(now)

    def verdicts(self, now: datetime) -> dict[str, Verdict]:
        """Every export's verdict at ``now`` (an operator's pause applied), in the snapshot's order.

        A verdict judged this minute on exactly the same data is reused: a quiet poll of 200 exports judges
        nothing again, and the rows drawn after it reuse these (each export is judged once per poll).
        """
        if self.snapshot is None:
            return {}
        minute = int(now.timestamp() // 60)
        old_minute = int(self._judged_at.timestamp() // 60) if self._judged_at is not None else None
        judged: dict[str, tuple[tuple[Any, ...], Verdict]] = {}
        for raw in self.snapshot.exports:
            watched = self.with_optimistic(raw)
            fingerprint = self._fingerprint(watched, False)
            old = self._judged.get(watched.key)
            if old is not None and old[0] == fingerprint and old_minute == minute:
                judged[watched.key] = old
            else:
                judged[watched.key] = (fingerprint, self.judge(watched, now))
        self._judged, self._judged_at = judged, now
        return {key: verdict for key, (_, verdict) in judged.items()}

    def _verdict(self, watched: WatchedExport, now: datetime) -> Verdict:
        """This poll's verdict of the export where it was judged at ``now`` on the same data; else judged now."""
        old = self._judged.get(watched.key)
        if old is not None and now == self._judged_at and old[0] == self._fingerprint(watched, False):
            return old[1]
        return self.judge(watched, now)

    def take_started_retries(self) -> list[tuple[str, BatchExportRun]]:
        """The awaited retries whose new run has appeared (row key, run); each is reported once."""
        started: list[tuple[str, BatchExportRun]] = []
        if self.snapshot is None:
            return started
        for watched in self.snapshot.exports:
            awaited = self._awaited_retries.get(watched.key)
            if awaited is None:
                continue
            for run in watched.export.latest_runs:
                if (run.id not in awaited.known_run_ids and run.data_interval_start == awaited.start
                        and run.data_interval_end == awaited.end):
                    del self._awaited_retries[watched.key]
                    self._runs.pop(watched.key, None)
                    started.append((watched.key, run))
                    break
        return started

    def forget(self) -> None:
        """Another project is shown: nothing of the last one stays."""
        self.snapshot = None
        self._by_key = {}
        self._facts = {}
        self._judged = {}
        self._runs = {}
        self.history.clear()
        self._record_asked = {}
        self.selected_key = None
        self.selected_run_id = None

    # ------------------------------------------------------------------ rows

    def with_optimistic(self, watched: WatchedExport) -> WatchedExport:
        paused = self._optimistic_paused.get(watched.key)
        if paused is None or paused == watched.export.paused:
            return watched
        return WatchedExport(watched.project_id, watched.export.model_copy(update={"paused": paused}))

    def visible(self) -> list[WatchedExport]:
        """The exports the filter lets through: by name, latest run status, verdict state or ``paused``."""
        if self.snapshot is None:
            return []
        if self.key_filter is not None:
            keys = set(self.key_filter[0])
            return [w for w in self.snapshot.exports if w.key in keys]
        if not self.filter:
            return self.snapshot.exports
        needle = self.filter.lower()
        shown = []
        for watched in self.snapshot.exports:
            export = watched.export
            latest = latest_run(export)
            status = latest.status.lower() if latest else ""
            facts = self._facts.get(watched.key)
            state = facts.verdict.state.value if facts is not None else ""
            if (needle in export.name.lower() or needle in status or (needle == "paused" and export.paused)
                    or (state and needle == state)):
                shown.append(watched)
        return shown

    def rows(self, now: datetime, marked: Collection[str] = frozenset(),
             silenced: Collection[str] = frozenset()) -> RowsDiff:
        """The visible rows' facts at ``now``, and which changed since the last call; ``marked`` are the rows
        with an open alert (the alert book's), ``silenced`` those of silenced exports.

        A row whose data did not change keeps its facts within a minute (time
        cells have minute resolution), so a quiet poll of 200 exports judges
        nothing again and a changed row costs one verdict. Rows the filter
        hides are judged too: the filter can ask for a state ("overdue").
        """
        diff = RowsDiff()
        if self.snapshot is None:
            return diff
        minute = int(now.timestamp() // 60)
        fresh: dict[str, RowFacts] = {}
        for raw in self.snapshot.exports:
            watched = self.with_optimistic(raw)
            key = watched.key
            mark = key in marked
            quiet = key in silenced
            fingerprint = (*self._fingerprint(watched, mark), quiet)
            old = self._facts.get(key)
            if old is None or old.fingerprint != fingerprint:
                fresh[key] = RowFacts(watched, mark, fingerprint, self._verdict(watched, now), minute, quiet)
                diff.rebuilt.add(key)
            elif old.minute != minute:
                fresh[key] = RowFacts(watched, mark, fingerprint, self._verdict(watched, now), minute, quiet)
                diff.retimed.add(key)
            else:
                fresh[key] = old
        self._facts = fresh
        diff.rows = [fresh[w.key] for w in self.visible()]
        return diff

    def facts(self, key: str) -> RowFacts | None:
        return self._facts.get(key)

    def set_filter(self, text: str) -> bool:
        """A new filter; True when it changed (the rows are then drawn afresh)."""
        if text == self.filter:
            return False
        self.filter = text
        self.selected_key = None
        return True

    # ------------------------------------------------------------------ selection and runs

    def watched(self, key: str | None) -> WatchedExport | None:
        watched = self._by_key.get(key) if key is not None else None
        return self.with_optimistic(watched) if watched is not None else None

    def selected(self) -> WatchedExport | None:
        return self.watched(self.selected_key)

    def runs_for(self, key: str | None) -> list[BatchExportRun]:
        """The export's run history, newest first: ``latest_runs`` with the older runs of the runs page when loaded.

        A run in both reads as in ``latest_runs``, the record the export's row and verdict show, so the runs
        pane's progress agrees with the row's until the next poll brings both the newer figures.
        """
        watched = self.watched(key)
        if watched is None:
            return []
        latest = list(reversed(runs_oldest_first(watched.export)))
        runs = self._runs.get(watched.key)
        return latest if runs is None else runs_newest_first([*latest, *runs])[:RUNS_KEPT]

    def selected_runs(self) -> list[BatchExportRun]:
        return self.runs_for(self.selected_key)

    def selected_run(self) -> BatchExportRun | None:
        """The run under the runs table's cursor (the first when the cursor names none shown)."""
        runs = self.selected_runs()
        for run in runs:
            if run.id == self.selected_run_id:
                return run
        return runs[0] if runs else None

    def runs_list_missing(self, project_id: str) -> bool:
        """The project's runs list answered 404/405 lately: show ``latest_runs`` until the next look (ctrl+r)."""
        return self._missing_runs_lists.missing(project_id)

    def runs_list_not_offered(self, project_id: str) -> None:
        self._missing_runs_lists.not_offered(project_id)
        self._no_runs_list.add(project_id)

    def runs_list_read(self, project_id: str) -> None:
        """The project's runs list answered: its verdicts read further back than ``latest_runs`` again."""
        self._no_runs_list.discard(project_id)

    def look_again_for_runs(self) -> None:
        """Ask the runs list again at the next load (ctrl+r)."""
        self._missing_runs_lists.look_again()

    def cancelling_among(self, runs: Iterable[BatchExportRun]) -> set[str]:
        """The runs sent a cancel that the server still shows in progress: a run among ``runs`` that ended is no
        longer cancelling."""
        if self.cancelling:
            self.cancelling -= {run.id for run in runs if not run.is_in_progress}
        return self.cancelling

    def store_runs(self, key: str, runs: list[BatchExportRun]) -> None:
        """The runs page read for an export's runs pane; kept for the last ``RUNS_EXPORTS_KEPT`` exports read."""
        self._runs.pop(key, None)
        self._runs[key] = runs_newest_first(runs)[:RUNS_KEPT]  # health's one ordering, as the verdicts use
        for old in list(self._runs)[:-RUNS_EXPORTS_KEPT]:
            del self._runs[old]

    def known_run_ids(self, key: str) -> frozenset[str]:
        watched = self.watched(key)
        ids = {r.id for r in watched.export.latest_runs} if watched is not None else set()
        return frozenset(ids | {r.id for r in self._runs.get(key, [])})

    # ------------------------------------------------------------------ actions

    def begin(self, action: str, key: str) -> bool:
        """Mark an action pending; False when the same one is already in flight."""
        if (action, key) in self._pending:
            return False
        self._pending.add((action, key))
        return True

    def end(self, action: str, key: str) -> None:
        self._pending.discard((action, key))

    def is_pending(self, action: str, key: str) -> bool:
        return (action, key) in self._pending

    def paused_by_operator(self, key: str, paused: bool) -> None:
        """The server accepted a pause or unpause: show it now; the listeners (the alert book) are told."""
        self._optimistic_paused[key] = paused
        for listener in self.pause_listeners:
            listener(key, paused)

    def await_retry(self, key: str, run: BatchExportRun) -> None:
        self._awaited_retries[key] = AwaitedRetry(run.data_interval_start, run.data_interval_end,
                                                  self.known_run_ids(key))

    def deleted(self, key: str) -> None:
        """The export is gone: drop its row now rather than at the next poll."""
        if self.snapshot is not None:
            self.snapshot.exports = [w for w in self.snapshot.exports if w.key != key]
            self._by_key.pop(key, None)
        self._facts.pop(key, None)
        self._judged.pop(key, None)
        if self.selected_key == key:
            self.selected_key = None

