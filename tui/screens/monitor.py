"""The batch-export monitor: the on-call screen left open on a wall for days.

Polls in a worker owned by this screen (modes keep the screen alive when the
operator switches to surveys, so alerts keep coming); the next poll is armed
only after the last one finished. Rows update in place through
:meth:`VirtualTable.apply` so selection and scroll stay put and a quiet poll
costs almost nothing (only changed rows are drawn again). The last good data
stays on screen when polls fail, and the status line says how old it is and why.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Sparkline, Static, TabbedContent
from textual.worker import Worker, WorkerError

from tui.api.cache_context import bypass_cache
from tui.api.errors import ApiError, MethodNotAllowed, NotFound, ProjectNotFound
from tui.api.models.batch_exports import BatchExport, BatchExportRun, RunStatus
from tui.key_registry import bindings, writing_actions
from tui.look.export_cells import (
    EXPORT_COLUMNS,
    EXPORT_GROW,
    EXPORT_PRIORITY,
    EXPORT_REQUIRES,
    RUN_COLUMNS,
    RUN_GROW,
    RUN_PRIORITY,
    TIME_COLUMNS,
    duration_series,
    export_cells,
    records_series,
    time_cells,
)
from tui.look.export_details import export_details_text
from tui.look.monitor_status import ExportCounts, StatusFacts, is_stale, monitor_status
from tui.look.palette import Tone
from tui.look.render import plain
from tui.look.run_rows import RunsView, run_rows
from tui.screens import debounce
from tui.screens.base import WatchdeckScreen
from tui.screens.monitor_actions import (
    BoardChanged,
    PollWanted,
    cancel_run_question,
    pause_question,
    retry_completed_question,
    retry_question,
)
from tui.screens.monitor_incident import INCIDENT_ACTIONS, INCIDENT_KEY_IDS, IncidentKeysController
from tui.state.budget import effective_poll_seconds
from tui.state.export_board import ExportBoard
from tui.state.exports import ExportsSnapshot, WatchedExport
from tui.state.health import incomplete_reason_of_run, run_created, unmatched_targets_warning
from tui.state.io.board_records import RECORDS_PER_POLL, read_board_records
from tui.state.io.export_actions import NO_RUN_CANCEL, Change, ExportActions
from tui.state.io.export_source import ExportsSource
from tui.state.io.journal import ActionJournal
from tui.state.io.poller import Poller
from tui.state.io.project_names import fetch_project_label
from tui.state.run_history import page_span
from tui.state.run_list import RunPages
from tui.state.runs_pane import ProjectLabels, RunsPane, runs_window_start
from tui.text.clean import clean
from tui.text.words import duration
from tui.widgets.export_detail_pane import ExportDetailPane
from tui.widgets.footer import KeyFooter
from tui.widgets.text_field import TextField
from tui.widgets.textual_private import write_terminal_title
from tui.widgets.virtual_table import CELL_PADDING, Column, VirtualTable, fit_columns

if TYPE_CHECKING:
    from tui.screens.export_modals import BackfillScreen

# What read-only mode hides: the registry's writing actions of the monitor and its incident keys.
MUTATING_ACTIONS = writing_actions("monitor")
POLL_STEPS = (2.0, 3.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0)
NARROW_WIDTH = 120
SHORT_HEIGHT = 30
FIRST_FRAME_WAIT_SECONDS = 0.5
NARROW_NAME_WIDTH = 24
SECTION_PREFIX = "section:"


class MonitorScreen(WatchdeckScreen[None]):
    """Exports table on top; the selected export's runs, charts and details below."""

    # The incident keys first, then the monitor's own (the order the footer and help show them in).
    BINDINGS: ClassVar[list[BindingType]] = [
        *bindings(*INCIDENT_KEY_IDS),
        *(binding for binding in bindings("monitor") if binding.id not in INCIDENT_KEY_IDS),
    ]

    # The exports table has the focus from the start, not the first focusable widget (the hidden filter box).
    AUTO_FOCUS = "#exports"

    frozen: reactive[bool] = reactive(False)

    def __init__(self) -> None:
        """Made by the running app (its ``monitor`` mode), whose settings, clocks and clients it takes."""
        super().__init__(id="monitor")
        settings = self.wd.settings
        self._asked_interval = settings.poll_seconds
        self._stretch_note: str | None = None  # why the interval is longer than the one asked for
        self._frozen_at: tuple[float, float] | None = None  # (data age, monotonic time) when the view froze
        self.source, self.poller, self.board = self._watch(self._watched_project_ids())
        self.journal = ActionJournal.for_session(demo=settings.demo)
        self.runs_view = RunsView()
        self.incident_keys = IncidentKeysController(
            host=self, table=self, client_for=self.wd.api_for, clock=self.wd.server_clock,
            monotonic=self.wd.monotonic, profile=settings.profile, read_only=settings.read_only,
            on_alert=settings.on_alert, secret=settings.api_key.get_secret_value(), journal=self.journal)
        self.incident = self.incident_keys.incident
        self.incident.desk.history = self.board.history  # one run history: the verdicts' and the views'
        self.actions = ExportActions(self.board, self.wd.api_for, self.journal, profile=settings.profile,
                                     clock=self.wd.clock, server_clock=self.wd.server_clock,
                                     notify=self._say, changed=self._action_changed,
                                     unsupported=self.incident.unsupported)
        self.runs_pane = RunsPane()
        self.project_labels = ProjectLabels()
        self._cells: dict[str, dict[str, Text]] = {}  # one row per export shown (about 6 KB)
        self._timer: Timer | None = None
        self._last_title = ""
        self._run_cells: dict[str, dict[str, Text]] = {}
        self._details_text: Text | None = None
        self._export_columns: list[tuple[str, str, int | None]] = []
        self._run_columns: list[tuple[str, str, int | None]] = []
        self._runs_table_owner: str | None = None
        self._freshness_checked = False
        self._detail: ExportDetailPane | None = None
        # The two tables, kept: every check_action reads their cursors (a query each time costs a walk of the screen).
        self._exports: VirtualTable | None = None
        self._runs: VirtualTable | None = None
        self._reading_records = False

    @property
    def detail_shown(self) -> bool:
        """The runs and details pane is mounted (just after the first frame)."""
        return self._detail is not None and self._detail.is_mounted

    # ------------------------------------------------------------------ setup

    def compose(self) -> ComposeResult:
        yield Static(id="monitor-status")
        yield TextField(placeholder="filter by name or status (esc clears)", id="monitor-filter", classes="hidden")
        self._exports = VirtualTable([Column(key, label, width or 0) for key, label, width in EXPORT_COLUMNS],
                                     id="exports")
        yield self._exports
        yield Static(id="exports-empty", classes="hidden")
        yield Vertical(id="export-detail")  # the detail pane's slot: filled after the first frame
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.watch(self.app, "project_id", self._project_switched, init=False)
        self.on_resize()
        self.set_interval(1.0, self.refresh_status)
        self.refresh_status()
        answers_waiting = self.source.answers_waiting()
        worker = self.poll_now()
        self.call_after_refresh(self._mount_detail)
        if answers_waiting and worker is not None:
            # The exports were fetched while the app loaded: show them in the first frame rather than
            # paint an empty table first (no network wait: the answer is in memory; bounded anyway).
            with contextlib.suppress(TimeoutError, WorkerError):
                await asyncio.wait_for(worker.wait(), FIRST_FRAME_WAIT_SECONDS)

    async def _mount_detail(self) -> None:
        """The selected export's runs and details, once the exports are on screen (ExportDetailPane)."""
        if self._detail is not None or not self.is_attached:
            return
        self._detail = ExportDetailPane()
        await self.query_one("#export-detail", Vertical).mount(self._detail)
        self._runs = self._detail.query_one("#runs", VirtualTable)
        self._build_columns()
        self._render_selected(self.now())

    # ------------------------------------------------------------------ polling

    def _watched_project_ids(self) -> list[str]:
        """Every configured project when several are watched at once; else the project shown."""
        configured = self.wd.settings.project_ids
        return list(configured) if len(configured) > 1 else [self.wd.project_id]

    def _watch(self, project_ids: list[str]) -> tuple[ExportsSource, Poller[ExportsSnapshot], ExportBoard]:
        """What watching these projects takes: their exports' source, its poll schedule, and a clean board."""
        clients = [self.wd.api_for(pid) for pid in project_ids]
        source = ExportsSource(clients, self.wd.settings.export_ids, monotonic=self.wd.monotonic,
                               first_poll=self.wd.take_first_poll(project_ids))
        poller: Poller[ExportsSnapshot] = Poller(
            source.fetch, self._asked_interval, monotonic=self.wd.monotonic, jitter=self.wd.jitter,
            age_of=lambda snapshot: snapshot.answer_age, timeout=clients[0].timeout,
        )
        board = ExportBoard(lag_intervals=self.wd.settings.lag_alert_intervals,
                            freshness=self.wd.settings.freshness, monotonic=lambda: self.wd.monotonic())
        board.pause_listeners.append(self._paused_here)
        return source, poller, board

    def now(self) -> datetime:
        """The server's time (this machine's clock corrected by the answers' Date header): what health is judged on."""
        return self.wd.server_clock.now()

    def _project_switched(self) -> None:
        """The operator picked another project: watch it from a clean slate."""
        if len(self.wd.settings.project_ids) > 1:
            return
        self.workers.cancel_group(self, "monitor-poll")
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.source, self.poller, self.board = self._watch(self._watched_project_ids())
        self.incident.desk.history = self.board.history
        self.actions.board = self.board
        self._cells = {}
        self.query_one("#exports", VirtualTable).clear()
        self._render_selected(self.now())
        self.poll_now()

    def _apply_budget(self) -> None:
        """Stretch the interval when exports x projects would exceed the per-key rate limit (480/min, 4,800/h)."""
        per_cycle = self.source.requests_per_cycle + 1  # + the selected export's runs
        seconds, stretched = effective_poll_seconds(self._asked_interval, per_cycle)
        seconds = self.wd.shared.interval(self._asked_interval, seconds)  # with the other viewers of this key
        stretched = seconds > self._asked_interval
        self.poller.interval = seconds
        asked = duration(self._asked_interval)
        self._stretch_note = f"stretched from {asked} for the rate limit" if stretched else None

    def poll_now(self) -> Worker[None] | None:
        """Poll now, as the armed timer does when it fires (none while one is in flight: None then).

        ``ctrl+r`` (:meth:`action_refresh`) also asks past the shared cache and looks again for missing routes.
        """
        if self.poller.in_flight:
            return None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        return self._poll()

    @work(group="monitor-poll", exit_on_error=False)
    async def _poll(self) -> None:
        try:
            outcome = await self.poller.run_once()
            if outcome.value is not None:  # first: the shared figures' sync then counts forged marks too
                await self.incident_keys.sync_marks(outcome.value.exports)
            await self.wd.shared.sync(self.poller.interval)
            if outcome.value is not None:
                self._apply_budget()
                self.apply_snapshot(outcome.value)
                self._schedule_runs_load()
                if not self._reading_records:
                    self._reading_records = True
                    self._read_records()
            elif self.board.snapshot is None:
                self._show_empty_state(0)
        finally:
            self.refresh_status()
            self._timer = self.set_timer(self.poller.next_delay(), self.poll_now)

    @property
    def next_poll_armed(self) -> bool:
        """A timer will start the next poll (every poll, however it ended, arms the next)."""
        return self._timer is not None

    def apply_snapshot(self, snapshot: ExportsSnapshot) -> None:
        """What a poll's answer does: the board judges it, the alert book follows, the rows are drawn."""
        now = self.now()
        verdicts = self.board.apply_snapshot(snapshot, now)
        # The alert book sees every export (a filter hides rows, it does not resolve their alerts); the incident
        # views follow the table's filter. The rows are drawn after, so their marks are this poll's alerts.
        shown = {w.key for w in self.board.visible()} if self.board.filter or self.board.key_filter else None
        self.incident_keys.poll(snapshot.exports, verdicts, now, shown=shown)
        self._announce_started_retries()
        if not self.frozen:
            self._render_exports(now)
        if not self._freshness_checked:  # a target naming no export is said once, at the first poll
            self._freshness_checked = True
            warning = unmatched_targets_warning(self.wd.settings.freshness, (w.export for w in snapshot.exports))
            if warning:
                self.notify(clean(warning, limit=400), title="Settings", severity="warning", markup=False, timeout=20)
        if not self.project_labels.asked:  # after the first poll's frame: the exports come first
            self.project_labels.asked = True
            self.call_after_refresh(self._load_project_labels)
        self._update_title()
        # What a key applies to may have changed (paused elsewhere, an alert resolved, a run ended): the footer
        # checks the keys again (and redraws only if what it shows differs).
        self.refresh_bindings()

    @work(group="monitor-records", exit_on_error=False)
    async def _read_records(self) -> None:
        """Read the runs list of the exports whose verdict ``latest_runs`` cannot settle (no Completed run among
        them, or a failure streak as long as the list), visible rows first, inside the operator's share of the
        rate budget; their rows, details and the incident views then show the true lag and streak."""
        try:
            board = self.board
            if board.snapshot is None:
                return
            visible = [w.key for w in board.visible()]
            shown = set(visible)
            order = visible + [w.key for w in board.snapshot.exports if w.key not in shown]
            changed = await read_board_records(board, lambda project_id: self.wd.api_for(project_id).batch_exports,
                                               self.now, take=self.incident.budget.try_take, order=order,
                                               limit=RECORDS_PER_POLL)
            for key in changed:
                self.incident.desk.runs_changed(key)
            if changed and self.is_attached and not self.frozen:
                now = self.now()
                self._render_exports(now)
                self._render_selected(now)
        finally:
            self._reading_records = False

    def _paused_here(self, key: str, paused: bool) -> None:
        """The operator paused or unpaused from this screen: not an alert when the poll shows it."""
        self.incident.desk.book.expect_pause_change(key, paused)

    def _update_title(self) -> None:
        alerts = self.incident_keys.alerts_words()
        title = f"watchdeck: {alerts}" if alerts else "watchdeck"
        self.sub_title = alerts
        if title != self._last_title:
            self._last_title = title
            write_terminal_title(self.app, title)

    def _render_exports(self, now: datetime) -> None:
        """Draw the board's rows: only the rows it says changed are rebuilt, and only they are drawn again."""
        if self.board.snapshot is None:
            return
        table = self.query_one("#exports", VirtualTable)
        diff = self.board.rows(now, self.incident_keys.marked_keys(),
                               self.incident_keys.silenced_keys(self.board.snapshot.exports))
        rows: list[tuple[str, dict[str, Text]]] = []
        changed: dict[str, list[str]] = {}
        fresh: dict[str, dict[str, Text]] = {}
        sections = len(self.wd.settings.project_ids) > 1
        section_of: str | None = None
        for facts in diff.rows:
            key = facts.key
            if sections and facts.watched.project_id != section_of:
                section_of = facts.watched.project_id
                section_key, section_cells = self._section_row(section_of)
                old_section = self._cells.get(section_key)
                if old_section is not None and old_section != section_cells:
                    changed[section_key] = ["name"]
                rows.append((section_key, section_cells))
                fresh[section_key] = section_cells
            old = self._cells.get(key)
            if old is None or key in diff.rebuilt:
                cells = export_cells(facts)
                columns: tuple[str, ...] | dict[str, Text] = cells
            elif key in diff.retimed:
                cells = {**old, **time_cells(facts.verdict)}
                columns = TIME_COLUMNS
            else:
                cells, columns = old, ()
            if old is not None and columns:
                diff_columns = [col for col in columns if old.get(col) != cells[col]]
                if diff_columns:
                    changed[key] = diff_columns
            rows.append((key, cells))
            fresh[key] = cells
        self._cells = fresh
        table.apply(rows, changed)
        self._show_empty_state(len(rows))
        if table.row_count and self.board.selected_key is None:
            self._select_row(table)
        self._render_selected(now)

    def cells(self) -> Mapping[str, Mapping[str, Text]]:
        """The cells drawn for each row of the exports table, by row key (section rows included)."""
        return self._cells

    def _section_row(self, project_id: str) -> tuple[str, dict[str, Text]]:
        """With several projects, a row naming each project above its exports (no export: no keys act on it)."""
        label = self.project_labels.section(project_id)
        return f"{SECTION_PREFIX}{project_id}", {"name": Text(f"▾ {clean(label, limit=60)}", style="bold")}

    def _show_empty_state(self, shown: int) -> None:
        empty = self.query_one("#exports-empty", Static)
        if shown:
            empty.add_class("hidden")
            return
        if self.board.snapshot is None:
            if self.poller.last_error is None:
                empty.add_class("hidden")
                return
            message = Text.assemble("Cannot show this project's exports: ", plain(self.poller.reason(), "bold"), ".")
        elif self.board.filter:
            message = Text.assemble("No export matches ", plain(self.board.filter, "bold"),
                                    ". Esc clears the filter.")
        else:
            message = Text("This project has no batch exports yet. Exports created in the web app appear here "
                           "at the next poll; --export ID watches one by id.")
        empty.update(message)
        empty.remove_class("hidden")

    def _select_row(self, table: VirtualTable) -> None:
        if table.cursor_key is not None:
            self.board.selected_key = table.cursor_key

    # ------------------------------------------------------------------ selection and runs

    def follow_cursors(self) -> None:
        """Make the selection what the tables' cursors are on now: the export under the exports table's cursor
        (its runs drawn below) and the run under the runs table's cursor.

        A key acts on the row its table's cursor is on when the key is handled. The cursor moves at once, its
        ``RowHighlighted`` arrives later: keys that come together (``Down p`` in one write, keys queued during a
        stall) are handled before it. So every action and ``check_action`` follow the cursors first; the
        highlight handlers do the same, and find nothing left to do when a key already did it.
        """
        table = self._exports
        if table is None:
            return
        key = table.cursor_key
        if key is not None and key != self.board.selected_key:
            self.board.selected_key = key
            self._render_selected(self.now())  # the runs pane shows the export's runs before a run key reads it
            self._schedule_runs_load()
            self.refresh_bindings()
        if self._runs is not None and self.detail_shown and self._runs_table_owner == self.board.selected_key:
            self.board.selected_run_id = self._runs.cursor_key

    @on(VirtualTable.RowHighlighted, "#exports")
    def _export_highlighted(self) -> None:
        self.follow_cursors()

    @on(VirtualTable.RowHighlighted, "#runs")
    def _run_highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self.follow_cursors()
        # Past the last run: the next page of older runs, where the server pages them.
        table = self.query_one("#runs", VirtualTable)
        watched = self.board.selected()
        if watched is None or event.cursor_row < table.row_count - 1:
            return
        pages = self.runs_pane.pages(watched.key)
        if pages is not None and pages.can_load_more:
            pages.loading = True
            self._load_older_runs(watched, pages)

    @work(group="monitor-older-runs", exit_on_error=False)
    async def _load_older_runs(self, watched: WatchedExport, pages: RunPages) -> None:
        try:
            if pages.next_url is None or not self.incident.budget.try_take():
                return
            page = await self.wd.api_for(watched.project_id).batch_exports.runs(watched.export.id,
                                                                               next_url=pages.next_url)
        except ApiError as err:
            self.notify(clean(f"Older runs: {err}", limit=200), severity="warning", markup=False, timeout=5)
            return
        finally:
            pages.loading = False
        # The page goes on from the oldest run read before it: from there back to its own oldest run is read.
        known = [c for c in (run_created(r) for r in [*self.board.runs_for(watched.key), *pages.runs]) if c]
        added = pages.add_page(page.results, page.next)
        if known:
            self.incident.desk.add_runs(watched.key, page.results,
                                        page_span(page.results, min(known), after=None, last_page=False))
        self.notify(f"{added} older runs loaded" + ("" if page.next else "; that is all of them."), markup=False,
                    timeout=3)
        if watched.key == self.board.selected_key:
            self._render_selected(self.now())

    @work(group="monitor-runs-rest", exclusive=True, exit_on_error=False)
    async def _schedule_runs_load(self) -> None:
        """Ask for the selected export's run history once the cursor rests and the frame is painted.

        Holding a key through 200 rows asks once, not 200 times (each move cancels the wait before
        it); after a poll, the new rows are on screen before the request (the first of a session also
        loads httpx's transport). Meanwhile the runs shown are the export's own ``latest_runs``.
        The wait is a worker rather than a timer so that a load about to start counts as work in
        progress for whoever waits for the app to finish its work (``make screenshots``, the tests),
        and ends with the screen like any worker. A load already asking goes on until the next one starts.
        """
        await asyncio.sleep(debounce.DEBOUNCE.runs)
        self._load_selected_runs()

    @work(group="monitor-runs", exclusive=True, exit_on_error=False)
    async def _load_selected_runs(self) -> None:
        await self._poll_selected_runs()

    async def _poll_selected_runs(self) -> None:
        """One extra request per cycle, for the selected export's fuller run history."""
        board = self.board
        watched = board.selected()
        if watched is None or board.runs_list_missing(watched.project_id):
            return
        client = self.wd.api_for(watched.project_id)
        asked_at = self.now()
        after = runs_window_start(asked_at)
        # After ctrl+r the run history is asked of the server too, not only the export list.
        bypass = self.runs_pane.take_bypass()
        try:
            with bypass_cache() if bypass else contextlib.nullcontext():
                page = await client.batch_exports.runs(watched.export.id, after=after)
        except ProjectNotFound:
            return  # the export poll names it; the runs list is not missing for that
        except (NotFound, MethodNotAllowed):
            board.runs_list_not_offered(watched.project_id)
            return
        except ApiError:
            return
        # A run without an id or a status cannot be judged or drawn: left out, as `watchdeck status` leaves it out.
        runs = [run for run in page.results if incomplete_reason_of_run(run) is None]
        board.runs_list_read(watched.project_id)
        board.store_runs(watched.key, runs)
        self.runs_pane.pages_after_window(watched.key, page.next)
        self.incident.desk.add_runs(watched.key, runs, page_span(runs, asked_at, after=after,
                                                                 last_page=page.next is None))
        if not self.frozen and watched.key == board.selected_key:
            self._render_selected(self.now())
            self.refresh_bindings()  # the selected run may have ended: cancel no longer applies

    def _render_selected(self, now: datetime) -> None:
        if not self.detail_shown:
            return  # drawn when the pane is mounted
        watched = self.board.selected()
        runs_table = self.query_one("#runs", VirtualTable)
        details = self.query_one("#export-details", Static)
        if watched is None:
            runs_table.clear()
            self._details_text = None
            details.update(Text("No export selected.", style=Tone.MUTED.style))
            return
        runs = self.runs_pane.shown(watched.key, self.board.runs_for(watched.key))
        rows = run_rows(runs, self.runs_view, now)
        cancelling = self.board.cancelling
        if cancelling:
            cancelling -= {run.id for run in runs if not run.is_in_progress}
            rows = [(key, {**cells, "status": Text("cancelling…", style=Tone.NOTE.style)})
                    if key in cancelling else (key, cells) for key, cells in rows]
        keys = [key for key, _ in rows]
        old_keys = runs_table.keys()
        if keys != old_keys:
            # New runs arrived or another export was selected: rebuild (at most 100 rows), keep the cursor's run.
            current = runs_table.cursor_key if old_keys and watched.key == self._runs_table_owner else None
            runs_table.clear()
            runs_table.apply(rows)
            self._run_cells = dict(rows)
            if current is not None and current in keys:
                runs_table.move_cursor(keys.index(current))
        else:
            changed = {key: [c for c, v in cells.items() if self._run_cells.get(key, {}).get(c) != v]
                       for key, cells in rows}
            runs_table.apply(rows, {k: v for k, v in changed.items() if v})
            self._run_cells = dict(rows)
        self._runs_table_owner = watched.key
        self.board.selected_run_id = runs_table.cursor_key
        oldest_first = list(reversed(runs))
        # Assign only what changed: each assignment repaints, and the details' update lays out the screen.
        for spark_id, series in (("#records-spark", records_series(oldest_first) or [0.0]),
                                 ("#duration-spark", duration_series(oldest_first) or [0.0])):
            spark = self.query_one(spark_id, Sparkline)
            if spark.data != series:
                spark.data = series
        facts = self.board.facts(watched.key)
        verdict = facts.verdict if facts is not None else self.board.judge(watched, now)
        text = export_details_text(watched, verdict)
        if text != self._details_text:
            self._details_text = text
            details.update(text)

    def _announce_started_retries(self) -> None:
        """A retry's new run appears later: when it does, say so and put the cursor on it."""
        for _, run in self.board.take_started_retries():
            self.notify(f"The retry's new run has started ({clean(run.status, limit=30)}).", title="Retry",
                        markup=False)
            self.call_after_refresh(self._highlight_run, run.id)

    def _highlight_run(self, run_id: str) -> None:
        if not self.detail_shown:
            return
        self.query_one("#runs", VirtualTable).move_to_key(run_id)  # nothing when the run is not among the rows

    # ------------------------------------------------------------------ status line

    def refresh_status(self) -> None:
        """Show the status line as it is now (a timer does this every second)."""
        facts = self.status_facts()
        line = monitor_status(facts, self.size.width)
        with contextlib.suppress(NoMatches):
            # The height is fixed in monitor.tcss: skip the whole-screen layout update() does by default,
            # which every second would cost more CPU than the polls themselves (make bench: idle CPU).
            self.query_one("#monitor-status", Static).update(line, layout=False)
        self.set_class(is_stale(facts.freshness), "-stale")

    def status_facts(self) -> StatusFacts:
        """What the status line says, gathered from the poller, the board, the alerts and the clock."""
        poller = self.poller
        age = poller.age()
        frozen_at = self._frozen_at
        if self.frozen and frozen_at is not None:
            age = frozen_at[0] + (self.wd.monotonic() - frozen_at[1])
        board = self.board
        snapshot = board.snapshot
        counts = None
        if snapshot is not None:
            counts = ExportCounts(
                total=len(snapshot.exports), shown=len(board.visible()) if board.filter else None,
                failing=board.failing_count, alerts=self.incident_keys.open_alerts,
                note=snapshot.notes[0] if snapshot.notes else None, unreadable=len(snapshot.item_errors),
                incomplete=len(snapshot.incomplete),
            )
        return StatusFacts(
            freshness=poller.freshness(), age=age, interval=poller.interval, project=self.project_title(),
            frozen=self.frozen, read_only=self.wd.settings.read_only, stretch_note=self._stretch_note,
            failures=poller.failures, reason=poller.reason() if poller.failures else "",
            next_poll_in=poller.seconds_until_next(), in_flight=poller.in_flight,
            skew=self.wd.server_clock.skew_words(), exports=counts, filter=board.filter,
            group=board.key_filter[1] if board.key_filter is not None else None,
            cache_problem=self.wd.shared.cache_problem(), viewers=self.wd.shared.sharing_viewers(),
            ignoring=self.wd.shared.ignoring_entries(),
        )

    def watch_frozen(self, frozen: bool) -> None:
        age = self.poller.age()
        # The age of what the frozen screen shows keeps growing; the polls' newer data is not on screen.
        self._frozen_at = (age, self.wd.monotonic()) if frozen and age is not None else None
        self.refresh_status()
        if not frozen:
            self._render_exports(self.now())

    def on_resize(self) -> None:
        """Fit both tables' columns to the width, and give a short terminal's rows to the runs, not the charts."""
        self.set_class(self.size.height < SHORT_HEIGHT, "-short")
        self._build_columns()

    def _fitted(self, table: VirtualTable, columns: Sequence[tuple[str, str, int | None]], priority: Sequence[str],
                grow: tuple[str, int], requires: Mapping[str, str] | None = None,
                ) -> list[tuple[str, str, int | None]]:
        """The columns that fit whole across the screen, room kept for the table's vertical scroll bar."""
        available = self.size.width - table.styles.scrollbar_size_vertical
        return fit_columns(columns, priority, available, CELL_PADDING, grow, requires)

    def _build_columns(self) -> None:
        """Show the columns that fit the width; a table keeps every column's cells, shown or not.

        Columns drop whole, least needed first (EXPORT_PRIORITY, RUN_PRIORITY): none is drawn cut off at
        the screen's edge. Below NARROW_WIDTH the name starts narrower, so that the verdict columns fit.
        """
        exports = self.query_one("#exports", VirtualTable)
        multi = len(self.wd.settings.project_ids) > 1
        narrow = self.size.width < NARROW_WIDTH
        columns = [(k, label, NARROW_NAME_WIDTH if narrow and k == "name" else w) for k, label, w in EXPORT_COLUMNS
                   if multi or k != "project"]
        fitted = self._fitted(exports, columns, EXPORT_PRIORITY, EXPORT_GROW, EXPORT_REQUIRES)
        if fitted != self._export_columns:
            self._export_columns = fitted
            exports.show_columns((key, width or 0) for key, _, width in fitted)
        if not self.detail_shown:
            return
        runs = self.query_one("#runs", VirtualTable)
        fitted = self._fitted(runs, RUN_COLUMNS, RUN_PRIORITY, RUN_GROW)
        if fitted != self._run_columns:
            self._run_columns = fitted
            runs.show_columns((key, width or 0) for key, _, width in fitted)

    # ------------------------------------------------------------------ bindings

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and self.wd.settings.read_only:
            return False
        if action in INCIDENT_ACTIONS:
            return self.incident_keys.check(action, self.wd.settings.read_only)
        watched = self.selected()
        if action in ("pause", "unpause"):
            if watched is None:
                return None
            if (action == "pause") == watched.export.paused:
                return False
        if action == "details":
            return True if self.detail_shown else None
        if action in MUTATING_ACTIONS | {"run_logs", "export_logs", "acknowledge", "run_error", "silence",
                                         "silence_project"} and watched is None:
            return None
        if watched is not None and self.board.is_pending(action, watched.key):
            return None
        if action == "acknowledge" and watched is not None and not self.incident.desk.book.is_marked(watched.key):
            return None
        return True

    @on(VirtualTable.RowSelected, "#exports")
    def _export_chosen(self) -> None:
        """Enter on an export goes down to its runs (the table keeps enter for itself)."""
        if self.detail_shown:
            self.query_one("#runs", VirtualTable).focus()

    @on(VirtualTable.RowSelected, "#runs")
    def _run_chosen(self, event: VirtualTable.RowSelected) -> None:
        """Enter on a run: the run it was pressed on, whatever keys came after it before this message."""
        runs = self.board.runs_for(self._runs_table_owner)
        self._show_run_error(next((run for run in runs if run.id == event.row_key), None))

    # ------------------------------------------------------------------ action keys (sent by ExportActions)

    def selected(self) -> WatchedExport | None:
        """The export under the exports table's cursor now."""
        self.follow_cursors()
        return self.board.selected()

    def selected_run(self) -> BatchExportRun | None:
        """The run under the runs table's cursor now (of the export under the exports table's cursor)."""
        self.follow_cursors()
        if self.detail_shown and self.board.selected_run_id is None:
            return None  # the runs table shows no run (its filter keeps none)
        return self.board.selected_run()

    def _say(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
             timeout: float | None = None) -> None:
        self.notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def _action_changed(self, change: Change) -> None:
        if change is Change.PENDING:
            self.refresh_bindings()
        elif change is Change.BOARD:
            self.post_message(BoardChanged())
        elif change is Change.SERVER:
            self.post_message(PollWanted())
        elif change is Change.RUNS:
            self._render_selected(self.now())

    def _send(self, action: Coroutine[Any, Any, bool]) -> None:
        """An action the operator confirmed, sent in a worker of this screen."""
        self.run_worker(action, group="monitor-actions", exit_on_error=False)

    def action_pause(self) -> None:
        self._ask_pause(True)

    def action_unpause(self) -> None:
        self._ask_pause(False)

    def _ask_pause(self, pause: bool) -> None:
        watched = self.selected()
        if watched is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._send(self.actions.set_paused(watched, pause))

        self.app.push_screen(pause_question(watched, pause), answered)

    def action_backfill(self) -> None:
        from tui.screens.export_modals import BackfillRequest, BackfillScreen

        watched = self.selected()
        if watched is None:
            return

        def answered(request: BackfillRequest | None) -> None:
            if request is not None:
                self._send(self.actions.backfill(watched, *request.bounds()))

        pid = watched.project_id
        known, created = self.actions.known_project_created(pid)
        screen = BackfillScreen(watched.export, self.wd.clock.now(), created)
        self.app.push_screen(screen, answered)
        if not known:  # the dialog opens at once; the limit arrives when the server says
            self.run_worker(self._learn_project_created(pid, screen), group="monitor-actions", exit_on_error=False)

    async def _learn_project_created(self, project_id: str, screen: BackfillScreen) -> None:
        try:
            created = await self.actions.project_created(project_id)
        except ApiError:  # unknown is no reason to refuse a backfill
            return
        screen.know_project_created(created)

    def action_retry(self) -> None:
        watched, run = self.selected(), self.selected_run()
        if watched is None or run is None:
            return

        def confirmed_twice(yes: bool | None) -> None:
            if yes:
                self._send(self.actions.retry(watched, run))

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            if run.status == RunStatus.COMPLETED:
                self.app.push_screen(retry_completed_question(), confirmed_twice)
            else:
                self._send(self.actions.retry(watched, run))

        self.app.push_screen(retry_question(watched, run), confirmed)

    def action_cancel_run(self) -> None:
        watched, run = self.selected(), self.selected_run()
        if watched is None or run is None:
            return
        if not run.is_in_progress:
            self.notify(clean(f"This run is {run.status}: only a starting or running run can be cancelled.", limit=200),
                        markup=False, timeout=4)
            return
        if not self.actions.can_cancel_runs(watched.project_id) or self.lacks_runs_list(watched.project_id):
            self.notify(NO_RUN_CANCEL, markup=False, timeout=6)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._send(self.actions.cancel_run(watched, run))

        self.app.push_screen(cancel_run_question(watched, run), answered)

    def action_edit(self) -> None:
        from tui.screens.export_modals import EditExportScreen

        watched = self.selected()
        if watched is None:
            return

        def saved(export: BatchExport | None) -> None:
            if export is not None:
                self.actions.edited(watched, export)

        self.app.push_screen(EditExportScreen(watched, self.journal), saved)

    def action_delete(self) -> None:
        from tui.screens.export_modals import DeleteExportScreen

        watched = self.selected()
        if watched is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._send(self.actions.delete(watched))

        self.app.push_screen(DeleteExportScreen(watched.export), answered)

    def action_run_logs(self) -> None:
        from tui.screens.logs import LogsScreen

        watched, run = self.selected(), self.selected_run()
        if watched is not None and run is not None:
            self.app.push_screen(LogsScreen(watched, run))

    def action_export_logs(self) -> None:
        from tui.screens.logs import LogsScreen

        watched = self.selected()
        if watched is not None:
            self.app.push_screen(LogsScreen(watched, None))

    def action_run_error(self) -> None:
        self._show_run_error(self.selected_run())

    def _show_run_error(self, run: BatchExportRun | None) -> None:
        from tui.screens.export_modals import RunErrorScreen

        if run is None:
            return
        if run.latest_error:
            self.app.push_screen(RunErrorScreen(run))
        else:
            self.notify("This run has no error.", markup=False, timeout=3)

    # ------------------------------------------------------------------ view keys

    def action_refresh(self) -> None:
        """Poll now, and ask the export and runs list routes again where they were found missing."""
        self.source.look_again()
        self.board.look_again_for_runs()
        self.source.bypass_next = True  # asks the server, and refreshes the shared cache for the other viewers
        self.runs_pane.bypass_next = True  # and so does the runs load that follows the poll
        self.poll_now()

    @on(BoardChanged)
    def _board_changed(self) -> None:
        self.refresh_bindings()
        self._render_exports(self.now())
        self._update_title()

    @on(PollWanted)
    def _poll_wanted(self) -> None:
        self.poll_now()

    def action_freeze(self) -> None:
        self.frozen = not self.frozen
        self.notify("View frozen: data keeps arriving; press space to show it." if self.frozen
                    else "View live again.", markup=False, timeout=3)

    def action_slower(self) -> None:
        self._step_interval(+1)

    def action_faster(self) -> None:
        self._step_interval(-1)

    def _step_interval(self, direction: int) -> None:
        current = self._asked_interval
        steps = [s for s in POLL_STEPS if (s > current if direction > 0 else s < current)]
        if not steps:
            return
        self._asked_interval = steps[0] if direction > 0 else steps[-1]
        self._apply_budget()
        # The poll already planned follows the new interval too: the status line's "every N s" holds at once.
        delay = self.poller.interval_changed()
        if delay is not None and self._timer is not None:
            self._timer.stop()
            self._timer = None
            if delay > 0:
                self._timer = self.set_timer(delay, self.poll_now)
            else:
                self.poll_now()
        self.refresh_status()

    def action_filter(self) -> None:
        box = self.query_one("#monitor-filter", Input)
        box.remove_class("hidden")
        self.set_focus(box)  # at once: keys typed straight after must not reach the screen's actions (focus() waits)

    def action_details(self) -> None:
        """The lower pane shows the export's details, or its runs again (its tabs, from the keyboard)."""
        if not self.detail_shown:
            return
        tabs = self.query_one(TabbedContent)
        tabs.active = "tab-runs" if tabs.active == "tab-details" else "tab-details"

    def action_clear_filter(self) -> None:
        """Escape: from the runs pane or the lower pane's tabs (a click puts the focus there) back to the exports;
        else clear the filter."""
        if self._detail is not None and self._detail.has_focus_within:
            self.query_one("#exports", VirtualTable).focus()
            return
        if self.board.key_filter is not None:
            self.board.key_filter = None
            self._redraw_filtered()
            return
        box = self.query_one("#monitor-filter", Input)
        if self.board.filter or not box.has_class("hidden"):
            box.value = ""
            box.add_class("hidden")
            self._apply_filter("")
            self.query_one("#exports", VirtualTable).focus()

    @on(Input.Changed, "#monitor-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._apply_filter(event.value.strip())

    @on(Input.Submitted, "#monitor-filter")
    def _filter_submitted(self) -> None:
        self.query_one("#exports", VirtualTable).focus()

    def _apply_filter(self, text: str) -> None:
        if not self.board.set_filter(text):
            return
        table = self.query_one("#exports", VirtualTable)
        table.clear()
        self._cells = {}
        self._render_exports(self.now())
        self.refresh_status()

    def action_acknowledge(self) -> None:
        watched = self.selected()
        if watched is None:
            return
        if self.incident.desk.book.acknowledge_export(watched.key, self.now()):
            self.notify(clean(f"Alert acknowledged: {watched.export.name}.", limit=200), markup=False, timeout=3)
            self._render_exports(self.now())
            self._update_title()
            self.refresh_bindings()

    def action_silence(self) -> None:
        watched = self.selected()
        if watched is not None:
            self.incident_keys.ask_silence(watched.project_id, watched.export.id, watched.export.name)

    def action_silence_project(self) -> None:
        watched = self.selected()
        if watched is not None:
            self.incident_keys.ask_silence(watched.project_id, "", "")

    # ------------------------------------------------------------------ incident keys (tui.screens.monitor_incident)

    def action_alerts(self) -> None:
        self.incident_keys.alerts()

    def action_groups(self) -> None:
        self.incident_keys.groups()

    def action_timeline(self) -> None:
        self.incident_keys.timeline()

    def action_repair(self) -> None:
        self.incident_keys.repair()

    def action_backfills(self) -> None:
        self.incident_keys.backfills()

    def action_runs_by_interval(self) -> None:
        self.incident_keys.runs_by_interval()

    def action_runs_filter(self) -> None:
        self.incident_keys.runs_filter()

    # ------------------------------------------------------------------ what the incident keys show

    def _redraw_filtered(self) -> None:
        """The rows shown changed (a filter): draw the table afresh."""
        self.query_one("#exports", VirtualTable).clear()
        self._cells = {}
        self.board.selected_key = None
        self._render_exports(self.now())
        self.refresh_status()

    def show_export(self, key: str) -> None:
        table = self.query_one("#exports", VirtualTable)
        if key not in table and (self.board.filter or self.board.key_filter is not None):
            self.board.key_filter = None
            box = self.query_one("#monitor-filter", Input)
            box.value = ""
            box.add_class("hidden")
            self.board.set_filter("")
            self._redraw_filtered()
        table.move_to_key(key)
        table.focus()

    def show_only(self, keys: Sequence[str], label: str) -> None:
        self.board.key_filter = (tuple(keys), label)
        self._redraw_filtered()
        self.query_one("#exports", VirtualTable).focus()

    def show_run(self, key: str, run_id: str) -> None:
        self.show_export(key)
        self.call_after_refresh(self._highlight_run, run_id)

    def lacks_runs_list(self, project_id: str) -> bool:
        return self.source.list_missing(project_id)

    def project_title(self) -> str:
        """``Acme · production``, or the labels of every watched project."""
        return self.project_labels.title(self._watched_project_ids())

    @work(group="project-labels", exit_on_error=False)
    async def _load_project_labels(self) -> None:
        organization: str | None = None
        for project_id in self._watched_project_ids():
            label, organization = await fetch_project_label(self.wd.api_for(project_id), organization)
            self.project_labels.know(project_id, label)
        self.refresh_status()
        if len(self.wd.settings.project_ids) > 1:
            self._render_exports(self.now())

    def runs_view_changed(self, view: RunsView) -> None:
        self.runs_view = view
        self._run_cells = {}
        if self.detail_shown:
            self.query_one("#runs", VirtualTable).clear()
            with contextlib.suppress(NoMatches):  # the pane's tabs, while they are being mounted
                self.query_one(TabbedContent).get_tab("tab-runs").label = Text(f"Runs · {view.label}")
        self._render_selected(self.now())
