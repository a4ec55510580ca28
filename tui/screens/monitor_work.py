"""The monitor's background work: its polls (and what judges their answers), the reads of the server's record its
verdicts need, the runs pane's loads, the watched projects' labels, and the facts the status line shows.

A plain object the :class:`~tui.screens.monitor.MonitorScreen` makes and holds. Each read runs in a worker of the
screen (workers end with it; modes keep the screen alive while the operator is on the surveys, so polls and
alerts go on), and what it finds is handed to the screen to draw (:class:`MonitorView`). What is watched is one
:class:`~tui.state.io.project_watch.ProjectWatch`, replaced whole when the operator switches project. One poll
at a time: the next is armed only when the last one has finished, however it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from datetime import datetime
from functools import partial
from typing import Any, Protocol

from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.worker import Worker, WorkerError

from tui.api.errors import ApiError
from tui.look.monitor_status import ExportCounts, StatusFacts
from tui.screens import debounce
from tui.screens.base import WatchdeckScreen
from tui.screens.monitor_actions import BoardChanged, PollWanted
from tui.screens.monitor_incident import IncidentKeysController
from tui.state.budget import poll_step
from tui.state.exports import ExportsSnapshot, WatchedExport
from tui.state.health import unmatched_targets_warning
from tui.state.io.export_actions import Change
from tui.state.io.project_names import fetch_project_label
from tui.state.io.project_watch import ProjectWatch, WatchParts
from tui.state.run_list import RunPages
from tui.state.runs_pane import ProjectLabels
from tui.text.clean import clean

FIRST_FRAME_WAIT_SECONDS = 0.5


class MonitorView(Protocol):
    """Where the monitor's work hands what it found: the screen, which draws it."""

    @property
    def frozen(self) -> bool:
        """The operator froze the view: data keeps arriving, the rows stay as they are."""
        ...

    def now(self) -> datetime:
        """The server's time: what health is judged on."""
        ...

    def apply_snapshot(self, snapshot: ExportsSnapshot) -> None:
        """A poll's answer: judged, alerted on and drawn."""
        ...

    def show_empty_state(self, shown: int) -> None:
        """Say why the exports table is empty, when it is."""
        ...

    def refresh_status(self) -> None:
        """Show the status line as it is now."""
        ...

    def render_exports(self, now: datetime) -> None:
        """Draw the board's rows, then the runs pane."""
        ...

    def render_selected(self, now: datetime) -> None:
        """Draw the selected export's runs and details."""
        ...


class MonitorWork:
    """What one monitor screen watches, and the workers that read it."""

    def __init__(self, host: WatchdeckScreen[None], view: MonitorView, *,
                 incident_keys: IncidentKeysController) -> None:
        wd, settings = host.wd, host.wd.settings
        self._host = host
        self._view = view
        self._incident_keys = incident_keys
        incident = self._incident = incident_keys.incident
        self.asked_interval = settings.poll_seconds
        self.stretch_note: str | None = None  # why the interval is longer than the one asked for
        self.labels = ProjectLabels()
        self._timer: Timer | None = None
        self._reading_records = False
        self._freshness_checked = False
        self._frozen_at: tuple[float, float] | None = None  # (data age, monotonic time) when the view froze
        self._parts = WatchParts(
            client_for=wd.api_for, export_ids=settings.export_ids, monotonic=lambda: host.wd.monotonic(),
            jitter=wd.jitter, lag_intervals=settings.lag_alert_intervals, freshness=settings.freshness,
            desk=incident.desk, take=incident.budget.try_take, journal=incident.journal, profile=settings.profile,
            clock=wd.clock, server_clock=wd.server_clock, notify=self._say, changed=self._action_changed,
            unsupported=incident.unsupported, paused_here=self._paused_here)
        self.watch = self._new_watch()

    def _run(self, work: Callable[[], Coroutine[Any, Any, None]], name: str, group: str, *,
             exclusive: bool = False) -> Worker[None]:
        """``work`` in a worker of the screen (ended with it; an error ends the worker, not the app)."""
        return self._host.run_worker(work, name=name, group=group, exclusive=exclusive, exit_on_error=False)

    def project_ids(self) -> list[str]:
        """Every configured project when several are watched at once; else the project shown."""
        configured = self._host.wd.settings.project_ids
        return list(configured) if len(configured) > 1 else [self._host.wd.project_id]

    def _new_watch(self) -> ProjectWatch:
        ids = self.project_ids()
        return ProjectWatch(ids, self._parts, interval=self.asked_interval,
                            first_poll=self._host.wd.take_first_poll(ids))

    def switch_project(self) -> bool:
        """The operator picked another project: watch it from a clean slate (none of the old watch kept); False
        when every configured project is watched at once and nothing changes."""
        if len(self._host.wd.settings.project_ids) > 1:
            return False
        self._host.workers.cancel_group(self._host, "monitor-poll")
        self._stop_timer()
        self.watch = self._new_watch()
        return True

    # ------------------------------------------------------------------ polls

    async def start(self) -> None:
        """The first poll. When its answer is already in memory (fetched while the app loaded), wait for it, so
        the first frame shows the exports rather than an empty table (no network wait; bounded anyway)."""
        answers_waiting = self.watch.source.answers_waiting()
        worker = self.poll_now()
        if answers_waiting and worker is not None:
            with contextlib.suppress(TimeoutError, WorkerError):
                await asyncio.wait_for(worker.wait(), FIRST_FRAME_WAIT_SECONDS)

    def poll_now(self) -> Worker[None] | None:
        """Poll now, as the armed timer does when it fires (none while one is in flight: None then)."""
        if self.watch.poller.in_flight:
            return None
        self._stop_timer()
        return self._run(self._poll, "poll", "monitor-poll")

    async def _poll(self) -> None:
        try:
            outcome = await self.watch.poller.run_once()
            if outcome.value is not None:  # first: the shared figures' sync then counts forged marks too
                await self._incident_keys.sync_marks(outcome.value.exports)
            await self._host.wd.shared.sync(self.watch.poller.interval)
            if outcome.value is not None:
                self._pace()
                self._view.apply_snapshot(outcome.value)
                self.schedule_runs_load()
                if not self._reading_records:
                    self._reading_records = True
                    self._run(self._read_records, "records", "monitor-records")
            elif self.watch.board.snapshot is None:
                self._view.show_empty_state(0)
        finally:
            self._view.refresh_status()
            self._timer = self._host.set_timer(self.watch.poller.next_delay(), self.poll_now)

    def judge(self, snapshot: ExportsSnapshot, now: datetime) -> list[str]:
        """A poll's answer: the board judges it and the alert book follows. A retry's new run appears a poll or
        more after the retry: each that started is said, and its id returned (the screen goes to it)."""
        board = self.watch.board
        verdicts = board.apply_snapshot(snapshot, now)
        # The alert book sees every export (a filter hides rows, it does not resolve their alerts); the incident
        # views follow the table's filter. The rows are drawn after, so their marks are this poll's alerts.
        shown = {w.key for w in board.visible()} if board.filter or board.key_filter else None
        self._incident_keys.poll(snapshot.exports, verdicts, now, shown=shown)
        started = [run for _, run in board.take_started_retries()]
        for run in started:
            self._say(f"The retry's new run has started ({clean(run.status, limit=30)}).", title="Retry")
        return [run.id for run in started]

    @property
    def next_poll_armed(self) -> bool:
        """A timer will start the next poll (every poll, however it ended, arms the next)."""
        return self._timer is not None

    def disarm(self) -> None:
        """No next poll until one is asked for (``poll_now``)."""
        self._stop_timer()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _pace(self) -> None:
        self.stretch_note = self.watch.pace(self.asked_interval, self._host.wd.shared.interval)

    def step_interval(self, *, slower: bool) -> None:
        """Poll less (``slower``) or more often: the next step of the asked interval."""
        step = poll_step(self.asked_interval, slower)
        if step is None:
            return
        self.asked_interval = step
        self._pace()
        # The poll already planned follows the new interval too: the status line's "every N s" holds at once.
        delay = self.watch.poller.interval_changed()
        if delay is not None and self._timer is not None:
            self._stop_timer()
            if delay > 0:
                self._timer = self._host.set_timer(delay, self.poll_now)
            else:
                self.poll_now()
        self._view.refresh_status()

    def refresh(self) -> None:
        """Poll now, past the shared cache (refreshing it for the other viewers), and look again for the export
        and runs list routes where they were found missing; the runs load that follows asks the server too."""
        watch = self.watch
        watch.source.look_again()
        watch.board.look_again_for_runs()
        watch.source.bypass_next = True
        watch.runs.pane.bypass_next = True
        self.poll_now()

    async def _read_records(self) -> None:
        try:
            if await self.watch.read_records(self._view.now) and self._host.is_attached and not self._view.frozen:
                self._view.render_exports(self._view.now())
        finally:
            self._reading_records = False

    # ------------------------------------------------------------------ the runs pane

    def schedule_runs_load(self) -> None:
        """Ask for the selected export's run history once the cursor rests and the frame is painted.

        Holding a key through 200 rows asks once, not 200 times (each move cancels the wait before
        it); after a poll, the new rows are on screen before the request (the first of a session also
        loads httpx's transport). Meanwhile the runs shown are the export's own ``latest_runs``.
        The wait is a worker rather than a timer so that a load about to start counts as work in
        progress for whoever waits for the app to finish its work (``make screenshots``, the tests),
        and ends with the screen like any worker. A load already asking goes on until the next one starts.
        """
        self._run(self._runs_rest, "runs rest", "monitor-runs-rest", exclusive=True)

    async def _runs_rest(self) -> None:
        await asyncio.sleep(debounce.DEBOUNCE.runs)
        self._run(self._load_selected_runs, "runs", "monitor-runs", exclusive=True)

    async def _load_selected_runs(self) -> None:
        """One extra request per cycle, for the selected export's fuller run history."""
        view = self._view
        key = await self.watch.runs.load_selected(view.now)
        if key is not None and not view.frozen and key == self.watch.board.selected_key:
            view.render_selected(view.now())
            self._host.refresh_bindings()  # the selected run may have ended: cancel no longer applies

    def load_older_runs(self) -> None:
        """The cursor is past the last run: the next page of older runs, where the server pages them."""
        watched = self.watch.board.selected()
        pages = self.watch.runs.pane.take_older(watched.key) if watched is not None else None
        if watched is not None and pages is not None:
            self._run(partial(self._load_older_runs, watched, pages), "older runs", "monitor-older-runs")

    async def _load_older_runs(self, watched: WatchedExport, pages: RunPages) -> None:
        try:
            older = await self.watch.runs.load_older(watched, pages)
        except ApiError as err:
            self._say(clean(f"Older runs: {err}", limit=200), severity="warning", timeout=5)
            return
        if older is None:
            return
        self._say(f"{older.added} older runs loaded" + ("; that is all of them." if older.last else ""), timeout=3)
        if watched.key == self.watch.board.selected_key:
            self._view.render_selected(self._view.now())

    # ------------------------------------------------------------------ what the status line says

    def freeze(self, frozen: bool) -> None:
        """The view froze (or went live again): the age of what a frozen view shows keeps growing; the polls'
        newer data is not on screen."""
        age = self.watch.poller.age()
        self._frozen_at = (age, self._host.wd.monotonic()) if frozen and age is not None else None

    def project_title(self) -> str:
        """``Acme · production``, or the labels of every watched project."""
        return self.labels.title(self.project_ids())

    def status_facts(self, *, frozen: bool, alerts: int) -> StatusFacts:
        """What the status line says, gathered from the poller, the board, the shared cache and the clock, with
        the view's open ``alerts`` and whether it is ``frozen``."""
        wd = self._host.wd
        poller, board, shared = self.watch.poller, self.watch.board, wd.shared
        age = poller.age()
        if frozen and self._frozen_at is not None:
            age = self._frozen_at[0] + (wd.monotonic() - self._frozen_at[1])
        snapshot = board.snapshot
        counts = None if snapshot is None else ExportCounts(
            total=len(snapshot.exports), shown=len(board.visible()) if board.filter else None,
            failing=board.failing_count, alerts=alerts, note=snapshot.notes[0] if snapshot.notes else None,
            unreadable=len(snapshot.item_errors), incomplete=len(snapshot.incomplete))
        return StatusFacts(
            freshness=poller.freshness(), age=age, interval=poller.interval, project=self.project_title(),
            frozen=frozen, read_only=wd.settings.read_only, stretch_note=self.stretch_note,
            failures=poller.failures, reason=poller.reason() if poller.failures else "",
            next_poll_in=poller.seconds_until_next(), in_flight=poller.in_flight,
            skew=wd.server_clock.skew_words(), exports=counts, filter=board.filter,
            group=board.key_filter[1] if board.key_filter is not None else None,
            cache_problem=shared.cache_problem(), viewers=shared.sharing_viewers(), ignoring=shared.ignoring_entries())

    # ------------------------------------------------------------------ after the first answer

    def answered(self, snapshot: ExportsSnapshot) -> None:
        """A poll's answer is drawn. At the first: a freshness target that names no export is said (once), and the
        projects' labels are asked for (``Acme · production``), after the frame: the exports come first."""
        if not self._freshness_checked:
            self._freshness_checked = True
            warning = unmatched_targets_warning(self._host.wd.settings.freshness, (w.export for w in snapshot.exports))
            if warning:
                self._say(clean(warning, limit=400), title="Settings", severity="warning", timeout=20)
        if not self.labels.asked:
            self.labels.asked = True
            self._host.call_after_refresh(self._ask_labels)

    def _ask_labels(self) -> None:
        self._run(self._load_labels, "labels", "project-labels")

    async def _load_labels(self) -> None:
        organization: str | None = None
        for project_id in self.project_ids():
            label, organization = await fetch_project_label(self._host.wd.api_for(project_id), organization)
            self.labels.know(project_id, label)
        self._view.refresh_status()
        if len(self._host.wd.settings.project_ids) > 1:
            self._view.render_exports(self._view.now())

    # ------------------------------------------------------------------ what the watch's actions report

    def _say(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
             timeout: float | None = None) -> None:
        self._host.notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def _action_changed(self, change: Change) -> None:
        if change is Change.PENDING:
            self._host.refresh_bindings()
        elif change is Change.BOARD:
            self._host.post_message(BoardChanged())
        elif change is Change.SERVER:
            self._host.post_message(PollWanted())
        elif change is Change.RUNS:
            self._view.render_selected(self._view.now())

    def _paused_here(self, key: str, paused: bool) -> None:
        """The operator paused or unpaused from this screen: not an alert when the poll shows it."""
        self._incident.desk.book.expect_pause_change(key, paused)
