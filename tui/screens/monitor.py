"""The batch-export monitor: the on-call screen left open on a wall for days.

The screen composes, routes keys and draws state. What it watches and the workers that read it are
:class:`~tui.screens.monitor_work.MonitorWork`'s; the table's filter and moves
:class:`~tui.screens.monitor_table.MonitorTable`'s; the keys' hand-offs are :mod:`tui.screens.monitor_routes`, and
which keys apply :mod:`tui.state.monitor_key_rules`. Rows update in place (:meth:`VirtualTable.apply` draws again
only the rows whose cells changed): selection and scroll stay put, and a quiet poll costs almost nothing. The
last good data stays on screen when polls fail, and the status line says how old it is and why.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Static
from textual.worker import Worker

from tui.api.models.batch_exports import BatchExportRun
from tui.key_registry import bindings, writing_actions
from tui.look.export_cells import EXPORT_GROW, EXPORT_PRIORITY, EXPORT_REQUIRES
from tui.look.export_details import export_details_text
from tui.look.export_rows import export_columns, export_rows
from tui.look.monitor_status import is_stale, monitor_status
from tui.look.run_rows import RunsView, marked_cancelling, run_rows
from tui.screens.base import WatchdeckScreen
from tui.screens.monitor_actions import BoardChanged, PollWanted
from tui.screens.monitor_incident import INCIDENT_KEY_IDS, IncidentKeysController
from tui.screens.monitor_keys import ExportKeys
from tui.screens.monitor_routes import MonitorRoutes
from tui.screens.monitor_table import MonitorTable
from tui.screens.monitor_work import MonitorWork
from tui.state.export_board import ExportBoard
from tui.state.exports import ExportsSnapshot, WatchedExport
from tui.state.io.export_source import ExportsSource
from tui.state.io.journal import ActionJournal
from tui.state.io.poller import Poller
from tui.state.monitor_key_rules import ON_RUN, KeyFacts, key_state
from tui.widgets.export_detail_pane import ExportDetailPane
from tui.widgets.filter_box import FilterBox
from tui.widgets.footer import KeyFooter
from tui.widgets.textual_private import write_terminal_title
from tui.widgets.virtual_table import Cell, VirtualTable

# What read-only mode hides: the registry's writing actions of the monitor and its incident keys.
MUTATING_ACTIONS = writing_actions("monitor")
SHORT_HEIGHT = 30


class MonitorScreen(MonitorRoutes, WatchdeckScreen[None]):
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
        settings, wd = self.wd.settings, self.wd
        self.journal = ActionJournal.for_session(demo=settings.demo)
        self.runs_view = RunsView()
        self.table = MonitorTable(self, self)
        self.incident_keys = IncidentKeysController(
            host=self, table=self, moves=self.table, client_for=wd.api_for, clock=wd.server_clock,
            monotonic=wd.monotonic, profile=settings.profile, read_only=settings.read_only, on_alert=settings.on_alert,
            secret=settings.api_key.get_secret_value(), journal=self.journal)
        self.incident = self.incident_keys.incident
        self.work = MonitorWork(self, self, incident_keys=self.incident_keys)
        self.export_keys = ExportKeys(self, selected=self.selected, selected_run=self.selected_run,
                                      actions=lambda: self.work.watch.actions, journal=self.journal, clock=wd.clock,
                                      lacks_runs_list=self.lacks_runs_list)
        self._last_title = ""
        # The tables are kept (self.table.rows, the pane's runs): every check_action reads their cursors.
        self._detail: ExportDetailPane | None = None

    @property
    def source(self) -> ExportsSource:
        return self.work.watch.source

    @property
    def poller(self) -> Poller[ExportsSnapshot]:
        return self.work.watch.poller

    @property
    def board(self) -> ExportBoard:
        return self.work.watch.board

    @property
    def detail_shown(self) -> bool:
        """The runs and details pane is mounted (just after the first frame)."""
        return self._detail is not None and self._detail.is_mounted

    def _pane(self) -> ExportDetailPane | None:
        """The runs and details pane, once mounted."""
        return self._detail if self.detail_shown else None

    def compose(self) -> ComposeResult:
        yield Static(id="monitor-status")
        yield self.table.filter_box
        yield self.table.rows
        yield self.table.empty
        yield Vertical(id="export-detail")  # the detail pane's slot: filled after the first frame
        yield KeyFooter()

    async def on_mount(self) -> None:
        self.watch(self.app, "project_id", self._project_switched, init=False)
        self.on_resize()
        self.set_interval(1.0, self.refresh_status)
        self.refresh_status()
        self.call_after_refresh(self._mount_detail)
        await self.work.start()

    async def _mount_detail(self) -> None:
        """The selected export's runs and details, once the exports are on screen (ExportDetailPane)."""
        if self._detail is not None or not self.is_attached:
            return
        self._detail = ExportDetailPane()
        await self.query_one("#export-detail", Vertical).mount(self._detail)
        self.on_resize()
        self.render_selected(self.now())

    def now(self) -> datetime:
        """The server's time (this machine's clock corrected by the answers' Date header): what health is judged on."""
        return self.wd.server_clock.now()

    def _project_switched(self) -> None:
        """The operator picked another project: watch it from a clean slate."""
        if self.work.switch_project():
            self.table.rows.clear()
            self.render_selected(self.now())
            self.work.poll_now()

    def poll_now(self) -> Worker[None] | None:
        """Poll now (none while one is in flight: None then)."""
        return self.work.poll_now()

    def apply_snapshot(self, snapshot: ExportsSnapshot) -> None:
        """What a poll's answer does: the board judges it, the alert book follows, the rows are drawn."""
        now = self.now()
        for run_id in self.work.judge(snapshot, now):  # a retry's new run appeared: go to it
            self.call_after_refresh(self.highlight_run, run_id)
        if not self.frozen:
            self.render_exports(now)
        self.work.answered(snapshot)
        self._update_title()
        # What a key applies to may have changed (paused elsewhere, an alert resolved, a run ended): the footer
        # checks the keys again (and redraws only if what it shows differs).
        self.refresh_bindings()

    def _update_title(self) -> None:
        alerts = self.incident_keys.alerts_words()
        title = f"watchdeck: {alerts}" if alerts else "watchdeck"
        self.sub_title = alerts
        if title != self._last_title:
            self._last_title = title
            write_terminal_title(self.app, title)

    # ------------------------------------------------------------------ drawing

    def render_exports(self, now: datetime) -> None:
        """Draw the board's rows (the table draws again only the rows whose cells changed), then the runs pane."""
        board, table = self.board, self.table.rows
        if board.snapshot is None:
            return
        keys = self.incident_keys
        diff = board.rows(now, keys.marked_keys(), keys.silenced_keys(board.snapshot.exports))
        rows = export_rows(diff, table.cells_of, sections=len(self.wd.settings.project_ids) > 1,
                           section_label=self.work.labels.section)
        table.apply(rows)
        self.show_empty_state(len(rows))
        if table.row_count and board.selected_key is None and table.cursor_key is not None:
            board.selected_key = table.cursor_key
        self.render_selected(now)

    def cells(self) -> Mapping[str, Mapping[str, Cell]]:
        """The cells drawn for each row of the exports table, by row key (section rows included)."""
        table = self.table.rows
        return {key: table.cells_of(key) or {} for key in table.keys()}  # noqa: SIM118 (a table's keys)

    def show_empty_state(self, shown: int) -> None:
        self.table.show_empty(shown, failure=self.poller.reason() if self.poller.last_error is not None else None)

    def render_selected(self, now: datetime) -> None:
        pane = self._pane()
        if pane is None:
            return  # drawn when the pane is mounted
        board = self.board
        watched = board.selected()
        if watched is None:
            pane.show_nothing()
            return
        runs = self.work.watch.runs.pane.shown(watched.key, board.runs_for(watched.key))
        rows = marked_cancelling(run_rows(runs, self.runs_view, now), board.cancelling_among(runs))
        facts = board.facts(watched.key)
        verdict = facts.verdict if facts is not None else board.judge(watched, now)
        pane.show(watched.key, rows, runs, export_details_text(watched, verdict))
        board.selected_run_id = pane.runs.cursor_key

    def highlight_run(self, run_id: str) -> None:
        if (pane := self._pane()) is not None:
            pane.runs.move_to_key(run_id)  # nothing when the run is not among the rows

    def refresh_status(self) -> None:
        """Show the status line as it is now (a timer does this every second)."""
        facts = self.work.status_facts(frozen=self.frozen, alerts=self.incident_keys.open_alerts)
        with contextlib.suppress(NoMatches):
            # The height is fixed in monitor.tcss: skip the whole-screen layout update() does by default,
            # which every second would cost more CPU than the polls themselves (make bench: idle CPU).
            self.query_one("#monitor-status", Static).update(monitor_status(facts, self.size.width), layout=False)
        self.set_class(is_stale(facts.freshness), "-stale")

    def watch_frozen(self, frozen: bool) -> None:
        self.work.freeze(frozen)
        self.refresh_status()
        if not frozen:
            self.render_exports(self.now())

    def on_resize(self) -> None:
        """Fit both tables' columns to the width (whole columns, least needed first: EXPORT_PRIORITY and the
        runs'), and give a short terminal's rows to the runs, not the charts."""
        self.set_class(self.size.height < SHORT_HEIGHT, "-short")
        width = self.size.width
        self.table.rows.fit_to(width, export_columns(width, len(self.wd.settings.project_ids) > 1), EXPORT_PRIORITY,
                             EXPORT_GROW, EXPORT_REQUIRES)
        if (pane := self._pane()) is not None:
            pane.fit(width)

    # ------------------------------------------------------------------ selection and runs

    def follow_cursors(self) -> None:
        """Make the selection what the tables' cursors are on now: the export under the exports table's cursor
        (its runs drawn below) and the run under the runs table's cursor.

        A key acts on the row its table's cursor is on when the key is handled. The cursor moves at once, its
        ``RowHighlighted`` arrives later: keys that come together (``Down p`` in one write, keys queued during a
        stall) are handled before it. So every action and ``check_action`` follow the cursors first; the
        highlight handlers do the same, and find nothing left to do when a key already did it.
        """
        key = self.table.rows.cursor_key
        if key is not None and key != self.board.selected_key:
            self.board.selected_key = key
            self.render_selected(self.now())  # the runs pane shows the export's runs before a run key reads it
            self.work.schedule_runs_load()
            self.refresh_bindings()
        pane = self._pane()
        if pane is not None and pane.owner == self.board.selected_key:
            self.board.selected_run_id = pane.runs.cursor_key

    @on(VirtualTable.RowHighlighted, "#exports")
    def _export_highlighted(self) -> None:
        self.follow_cursors()

    @on(VirtualTable.RowHighlighted, "#runs")
    def _run_highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self.follow_cursors()
        if event.cursor_row >= event.control.row_count - 1:  # past the last run: older runs, if the server pages
            self.work.load_older_runs()

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

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether the key for ``action`` acts now, is greyed out (None) or hidden (False): see key_state."""
        watched = self.selected()
        return key_state(action, KeyFacts(
            read_only=self.wd.settings.read_only, paused=None if watched is None else watched.export.paused,
            run_selected=action in ON_RUN and self.selected_run() is not None, detail_shown=self.detail_shown,
            pending=watched is not None and self.board.is_pending(action, watched.key),
            alert_marked=watched is not None and self.incident.desk.book.is_marked(watched.key)), MUTATING_ACTIONS)

    @on(VirtualTable.RowSelected, "#exports")
    def _export_chosen(self) -> None:
        """A click on the export under the cursor goes down to its runs (Enter is :meth:`action_run_error`'s)."""
        if (pane := self._pane()) is not None:
            pane.runs.focus()

    @on(VirtualTable.RowSelected, "#runs")
    def _run_chosen(self, event: VirtualTable.RowSelected) -> None:
        """Enter on a run: the run it was pressed on, whatever keys came after it before this message."""
        runs = self.board.runs_for(self._detail.owner if self._detail is not None else None)
        self.export_keys.show_run_error(next((run for run in runs if run.id == event.row_key), None))

    @on(BoardChanged)
    def board_changed(self) -> None:
        """The rows' marks or states changed without a poll: draw them, with the title and the keys."""
        self.refresh_bindings()
        self.render_exports(self.now())
        self._update_title()

    @on(PollWanted)
    def _poll_wanted(self) -> None:
        self.work.poll_now()

    def action_freeze(self) -> None:
        self.frozen = not self.frozen
        self.notify("View frozen: data keeps arriving; press space to show it." if self.frozen
                    else "View live again.", markup=False, timeout=3)

    def action_details(self) -> None:
        """The lower pane shows the export's details, or its runs again (its tabs, from the keyboard)."""
        if (pane := self._pane()) is not None:
            pane.toggle_tab()

    def action_clear_filter(self) -> None:
        """Escape: from the runs pane or the lower pane's tabs (a click puts the focus there) back to the exports;
        else clear the filter. The focus moves as the key is handled (``focus()`` would wait for the next turn):
        a key's binding is looked up where the focus is when the key has gone up to the app, so the keys typed
        after Escape act on the exports."""
        if self._detail is not None and self._detail.has_focus_within:
            self.set_focus(self.table.rows)
        else:
            self.table.clear_filter()

    def action_run_error(self) -> None:
        """Enter: on an export (the exports table leaves Enter to the screen), down to its runs at once, as
        :meth:`action_clear_filter` moves back; on a run, its whole error (the runs table's own Enter answers with
        the run it was pressed on: :meth:`_run_chosen`)."""
        pane = self._pane()
        if self.focused is self.table.rows:
            if pane is not None:
                self.set_focus(pane.runs)
        else:
            self.export_keys.run_error()

    @on(FilterBox.Submitted, "#monitor-filter")
    def _filter_submitted(self) -> None:
        self.table.rows.focus()

    # ------------------------------------------------------------------ what the incident keys show

    def lacks_runs_list(self, project_id: str) -> bool:
        return self.source.list_missing(project_id)

    def runs_view_changed(self, view: RunsView) -> None:
        self.runs_view = view
        if (pane := self._pane()) is not None:
            pane.show_view(view.label)
        self.render_selected(self.now())
