"""The incident timeline (``t``): every watched export on one time axis.

Rows are the monitor's exports in the table's order and filter; columns are
time buckets of the last 6 h, 24 h or 7 d (``+``/``-``). The cursor names the
runs under its cell, and stays on the same export and time as polls move the
axis and reorder the rows; ``enter`` opens the run it names (the first listed)
over the timeline, and Escape comes back to it. Closing the timeline leaves the
monitor on the last run opened. Older
runs are read for the rows on screen only (the spans of the axis the run
history has not read), one request at a time and only when the operator's
share of the rate budget has room; the title says which span is being read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import Static

from tui.api.errors import ApiError, MethodNotAllowed, NotFound
from tui.api.models.batch_exports import BatchExportRun
from tui.config.paths import stylesheets
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.look.render import plain
from tui.look.status import status_text
from tui.screens.incident_base import IncidentContext, IncidentScreen
from tui.state.io.record_reads import read_span
from tui.state.timeline import TimelineModel
from tui.text.words import coarse_duration
from tui.widgets.footer import KeyFooter
from tui.widgets.timeline_view import TimelineView, axis_ruler, cells_for

HISTORY_PAGES = 3  # per export and fetch: a week of hourly runs fits in two of the service's pages


@dataclass(frozen=True)
class OpenRun:
    """The operator chose a cell: show this export's run in the monitor."""

    key: str
    run_id: str


class TimelineScreen(IncidentScreen[OpenRun | None]):
    CSS_PATH = stylesheets("incident.tcss")  # loaded when first shown: not part of the monitor\'s start
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("timeline"))

    def __init__(self, context: IncidentContext, model: TimelineModel | None = None) -> None:
        super().__init__(context, id="timeline-screen", classes="incident-screen")
        self.model = model or TimelineModel()
        self._fetching = False
        self.history_requests = 0
        self.reading: tuple[datetime, datetime] | None = None  # the span being read, said in the title
        self.opened: OpenRun | None = None  # the last run opened from here: the monitor shows it after

    def compose(self) -> ComposeResult:
        yield Static(id="timeline-title", classes="incident-title")
        yield Static(id="timeline-ruler")
        yield TimelineView(self.model, id="timeline-grid")
        yield Static(id="timeline-cell", classes="incident-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.model.set_cells(cells_for(self.size.width or 80))
        super().on_mount()
        self.query_one(TimelineView).focus()

    def on_resize(self) -> None:
        """Wider or narrower: as many cells as fit beside the names, at every zoom."""
        if self.model.set_cells(cells_for(self.size.width or 80)) and self.is_mounted:
            self.update_from_desk(full=True)

    def redraw(self) -> None:
        self.update_from_desk(full=False)

    def update_from_desk(self, *, full: bool) -> set[str]:
        """Bring the model up to the desk; repaint the rows that changed. Returns their keys."""
        desk = self.desk
        now = self.context.now()
        axis_before = self.model.axis
        view = self.query_one(TimelineView)
        named = self._cursor_place()
        changed = self.model.update(desk.order, desk.runs_by_export(), now, desk.fingerprints())
        labels = {key: desk.name_of(key) for key in desk.order}
        moved = full or axis_before != self.model.axis
        view.update_rows(labels, None if moved else changed)
        if named is not None:
            self._put_cursor(*named)
        self._draw_title()
        self._draw_cell()
        self._fetch_older()
        return changed

    def _cursor_place(self) -> tuple[str, float] | None:
        """The export and the time (the middle of its cell, epoch seconds) the cursor is on."""
        return self.query_one(TimelineView).cursor_place()

    def _put_cursor(self, key: str, moment: float) -> None:
        """Back on that export and time after the axis moved or the rows changed order (each where it still is)."""
        view = self.query_one(TimelineView)
        axis = self.model.axis
        if key in self.model.order:
            view.cursor_row = self.model.order.index(key)
        if axis is not None:
            view.cursor_col = max(0, min(axis.count - 1, int((moment - axis.origin) // axis.bucket)))

    def _draw_title(self) -> None:
        zoom = self.model.zoom
        axis = self.model.axis
        assert axis is not None
        worst = max(self.model.failed_columns, default=0)
        cell = coarse_duration(axis.bucket)
        shown = coarse_duration(axis.bucket * axis.count)
        title = Text.assemble(("Timeline", "bold"), f" · {zoom.label} zoom: last {shown}, one cell {cell} · "
                              f"{len(self.model.order)} exports")
        if worst:
            title.append(f" · up to {worst} failing in one column", Tone.FAILURE.style)
        if self.reading is not None:
            lo, hi = self.reading
            title.append(f" · reading runs {lo:%H:%M}–{hi:%H:%M}…", Tone.NOTE.style)
        title.append("   enter: open the run under the cursor, esc comes back", Tone.MUTED.style)
        self.query_one("#timeline-title", Static).update(title)
        view = self.query_one(TimelineView)
        self.query_one("#timeline-ruler", Static).update(axis_ruler(axis, view.name_column))

    @on(TimelineView.Relaid)
    def _relaid(self) -> None:
        self._draw_title()

    @on(TimelineView.CursorMoved)
    def _cursor_moved(self) -> None:
        self._draw_cell()

    def _draw_cell(self) -> None:
        view = self.query_one(TimelineView)
        axis = self.model.axis
        box = self.query_one("#timeline-cell", Static)
        row = self.model.row_at(view.cursor_row)
        if axis is None or row is None:
            box.update(Text("No exports to show.", style=Tone.MUTED.style))
            return
        column = view.cursor_col
        start = axis.bucket_start(column)
        end = axis.bucket_start(column + 1)
        runs = self.model.runs_at(view.cursor_row, column)
        line = Text.assemble(plain(self.desk.name_of(row.key), "bold", limit=60),
                             f"  {start:%m-%d %H:%M}–{end:%H:%M} UTC  ")
        if not runs:
            line.append("no run covers this time", Tone.MUTED.style)
        for index, run in enumerate(runs[:3]):
            line.append("\n" if index else "")
            line.append_text(self._run_words(run))
        if len(runs) > 3:
            line.append(f"\n… and {len(runs) - 3} more runs")
        box.update(line)

    @staticmethod
    def _run_words(run: BatchExportRun) -> Text:
        words = Text.assemble(status_text(run.status), " ")
        if run.data_interval_start and run.data_interval_end:
            words.append(f"{run.data_interval_start:%H:%M}→{run.data_interval_end:%H:%M} ")
        words.append_text(plain(run.id, Tone.MUTED.style, limit=40))
        if run.latest_error:
            words.append(" ")
            words.append_text(plain(run.latest_error.splitlines()[0], Tone.ERROR_TEXT.style, limit=120))
        return words

    @on(TimelineView.CellChosen)
    def _chosen(self, event: TimelineView.CellChosen) -> None:
        """The run named at the export and time Enter was pressed on, over the timeline: Escape comes back.

        The place, not the row and column: keys handled in between (a poll that moves the axis and reorders
        the rows, a key typed after Enter that moves the cursor) leave that export's cell at that time naming
        the same run, while the row and column may name another by then.
        """
        from tui.screens.export_modals import RunErrorScreen

        axis = self.model.axis
        runs: tuple[BatchExportRun, ...] = ()
        if axis is not None and event.key in self.model.order:
            column = int((event.moment - axis.origin) // axis.bucket)
            if 0 <= column < axis.count:
                runs = self.model.runs_at(self.model.order.index(event.key), column)
        if not runs:
            self.notify("No run covers this cell.", markup=False, timeout=3)
            return
        self.opened = OpenRun(event.key, runs[0].id)
        self.app.push_screen(RunErrorScreen(runs[0]))

    def action_zoom(self, step: int) -> None:
        if self.model.set_zoom(self.model.zoom_index + step):
            self.update_from_desk(full=True)
            view = self.query_one(TimelineView)
            assert self.model.axis is not None
            view.cursor_col = self.model.axis.count - 1
            self._draw_cell()

    def action_close(self) -> None:
        self.dismiss(self.opened)

    # ------------------------------------------------------------------ older runs, for the rows on screen

    def _fetch_older(self) -> None:
        if self._fetching or self.model.axis is None:
            return
        self._fetching = True
        self._fetch_history()

    @work(group="timeline-history", exclusive=True, exit_on_error=False)
    async def _fetch_history(self) -> None:
        try:
            await self._fetch_visible()
        finally:
            self._fetching = False

    async def _fetch_visible(self) -> None:
        """Read, row by row on screen, the spans of the axis whose runs have not been read; the title says which."""
        axis = self.model.axis
        if axis is None:
            return
        since = axis.start
        self.hold_runs(since)
        try:
            for key in self.query_one(TimelineView).visible_keys():
                item = self.desk.exports.get(key)
                if item is None:
                    continue
                project = item.watched.project_id
                if ("runs", project) in self.context.unsupported:
                    continue
                for lo, hi in self.desk.unread(key, since):
                    self.reading = (lo, hi)
                    self._draw_title()
                    api = self.context.client_for(project).batch_exports
                    try:
                        sent = await read_span(api, item.watched.export.id, key, self.desk.history, lo, hi,
                                               take=self.context.budget.try_take, pages=HISTORY_PAGES)
                    except (NotFound, MethodNotAllowed):
                        self.context.unsupported.add(("runs", project))
                        break
                    except ApiError:
                        return
                    self.history_requests += sent
                    if not sent:
                        return  # no room in the operator's share now: the next poll's redraw tries again
                    self.desk.runs_changed(key)
        finally:
            self.reading = None
            if self.is_attached:
                self._draw_title()
