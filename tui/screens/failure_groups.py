"""The failure groups view (``g``): the failing runs of every watched export, grouped by cause.

One line a group ("AccessDenied on bucket … — 12 runs in 3 exports, first
09:10, last 11:40"), one sample error and the exports under it. ``enter``
filters the monitor's table to those exports; ``R`` repairs the whole group.
The groups are built from the run history; where the last ``GROUPS_SPAN`` of
an export has not been read, it is read (the exports of the groups first, one
request at a time inside the operator's budget) and the title says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import DataTable, Static

from tui.api.errors import ApiError, MethodNotAllowed, NotFound
from tui.config.paths import stylesheets
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.incident_base import IncidentContext, IncidentScreen, set_columns
from tui.state.failure_groups import FailureGroup, clock_time, failing_since
from tui.state.io.record_reads import read_span, window_start
from tui.text.words import counted
from tui.widgets.footer import KeyFooter
from tui.widgets.lists import RowTable

GROUPS_SPAN = timedelta(hours=24)  # what the groups are built over, read where it was not
SINCE_CHOICES = ("incident", "24h", "all")  # what `s` cycles through; the current incident first


@dataclass(frozen=True)
class FilterTo:
    """Show only these exports in the monitor's table."""

    keys: tuple[str, ...]
    label: str


class FailureGroupsScreen(IncidentScreen[FilterTo | None]):
    CSS_PATH = stylesheets("incident.tcss")  # loaded when first shown: not part of the monitor\'s start
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("groups"))

    def __init__(self, context: IncidentContext) -> None:
        super().__init__(context, id="groups-screen", classes="incident-screen")
        self._groups: list[FailureGroup] = []
        self._since_words = ""
        self._reading_now = False
        self.reading: tuple[datetime, datetime] | None = None  # the span being read, said in the title

    def compose(self) -> ComposeResult:
        yield Static(id="groups-title", classes="incident-title")
        table: DataTable[Text] = RowTable(id="groups-table", cursor_type="row", zebra_stripes=False)
        yield table
        with VerticalScroll(id="groups-detail-box"):
            yield Static(id="groups-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._build_columns()
        super().on_mount()
        self.query_one("#groups-table", DataTable).focus()

    def on_resize(self) -> None:
        self._build_columns()
        self.redraw()

    def _build_columns(self) -> None:
        set_columns(self.query_one("#groups-table", DataTable),
                    [("runs", "Runs", 5), ("exports", "Exports", 7), ("first", "First", 11), ("last", "Last", 11),
                     ("signature", "Error (numbers, ids, times and quoted values as …)", None)],
                    self.size.width or 80)

    _since_choice = 0  # SINCE_CHOICES: the current incident first

    def since(self) -> tuple[datetime | None, str]:
        """When the shown failures start, and in words: the current incident (the earliest first failure of the
        exports with an alert in course, as the runs list holds it), 24 h, all."""
        now = self.context.now()
        choice = SINCE_CHOICES[self._since_choice]
        if choice == "incident":
            start = self.desk.incident_start()
            if start is not None:
                return start, f"since {clock_time(start, now.date())} (the current incident)"
            return now - timedelta(hours=24), "last 24 h (no open incident)"
        if choice == "24h":
            return now - timedelta(hours=24), "last 24 h"
        return None, "all loaded runs"

    def action_since(self) -> None:
        self._since_choice = (self._since_choice + 1) % len(SINCE_CHOICES)
        self.redraw()

    def redraw(self) -> None:
        start, self._since_words = self.since()
        groups = failing_since(self.desk.groups(), start)
        today = self.context.now().date()
        current = self.highlighted()
        self._groups = groups
        self._draw_title()
        table = self.query_one("#groups-table", DataTable)
        table.clear()
        for group in groups:
            table.add_row(Text(str(group.run_count), style=Tone.FAILURE.style), Text(str(group.export_count)),
                          Text(clock_time(group.first, today) if group.first else "—"),
                          Text(clock_time(group.last, today) if group.last else "—"),
                          plain(group.signature, limit=200), key=group.signature)
        signatures = [g.signature for g in groups]
        if current is not None and current.signature in signatures:
            table.move_cursor(row=signatures.index(current.signature), animate=False)
        self._show_detail()
        self.refresh_bindings()
        if not self._reading_now:
            self._reading_now = True
            self._read_unread()

    def _draw_title(self) -> None:
        groups = self._groups
        runs = sum(g.run_count for g in groups)
        title = Text.assemble(("Failure groups", "bold"), f" · {self._since_words}",
                              f" · {counted(len(groups), 'group')}, {counted(runs, 'failed run')}"
                              if groups else " · no failing runs")
        if self.reading is not None:
            title.append(f" · reading runs {self.reading[0]:%H:%M}–{self.reading[1]:%H:%M}…", Tone.NOTE.style)
        title.append("   s: since · enter: show these exports", Tone.MUTED.style)
        self.query_one("#groups-title", Static).update(title)

    @work(group="groups-history", exclusive=True, exit_on_error=False)
    async def _read_unread(self) -> None:
        """Read the spans not read yet of the last ``GROUPS_SPAN``, and of the current incident back to where each
        of its exports' streaks began (the run that ended it, else the runs list's window): the exports of the
        incident first, then those of the groups, then the others."""
        try:
            desk = self.desk
            now = self.context.now()
            since = now - GROUPS_SPAN
            incident = [alert.key for alert in desk.book.in_course]
            reach = {key: desk.streak_reach(key, window_start(now)) for key in incident}
            self.hold_runs(min([since, *(r for r in reach.values() if r is not None)]))
            first = [key for group in self._groups for key in group.export_keys]
            for key in dict.fromkeys([*incident, *first, *desk.order]):
                item = desk.exports.get(key)
                if item is None or ("runs", item.watched.project_id) in self.context.unsupported:
                    continue
                back = reach.get(key)
                for lo, hi in desk.unread(key, min(since, back) if back is not None else since):
                    self.reading = (lo, hi)
                    self._draw_title()
                    api = self.context.client_for(item.watched.project_id).batch_exports
                    try:
                        sent = await read_span(api, item.watched.export.id, key, desk.history, lo, hi,
                                               take=self.context.budget.try_take)
                    except (NotFound, MethodNotAllowed):
                        self.context.unsupported.add(("runs", item.watched.project_id))
                        break
                    except ApiError:
                        return
                    if not sent:
                        return  # no room in the operator's share now: the next poll's redraw tries again
                    desk.runs_changed(key)
        finally:
            self.reading = None
            if self.is_attached:
                self._draw_title()
                self.call_after_refresh(self._reading_done)

    def _reading_done(self) -> None:
        self._reading_now = False

    def highlighted(self) -> FailureGroup | None:
        if not self._groups:
            return None
        try:
            table = self.query_one("#groups-table", DataTable)
        except NoMatches:  # asked (check_action) while the screen closes
            return None
        row = table.cursor_row
        return self._groups[row] if 0 <= row < len(self._groups) else None

    @on(DataTable.RowHighlighted, "#groups-table")
    def _moved(self) -> None:
        self._show_detail()

    @on(DataTable.RowSelected, "#groups-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        """Enter on a group: the group it was pressed on, whatever keys came after it before this message."""
        group = next((g for g in self._groups if g.signature == event.row_key.value), None)
        if group is not None:
            self.dismiss(FilterTo(tuple(group.export_keys), group.signature))

    def _show_detail(self) -> None:
        detail = self.query_one("#groups-detail", Static)
        group = self.highlighted()
        if group is None:
            detail.update(Text("Nothing is failing: every interval's latest attempt completed, runs, or was "
                               "cancelled.", style=Tone.MUTED.style))
            return
        names = [self.desk.name_of(key) for key in group.export_keys]
        lines = Text.assemble((group.summary(self.context.now().date()), "bold"), "\n", ("Sample error: ", "bold"),
                              plain(group.sample_error, Tone.ERROR_TEXT.style, oneline=False, limit=600), "\n",
                              ("Exports: ", "bold"))
        for index, name in enumerate(names[:20]):
            if index:
                lines.append(", ")
            lines.append_text(plain(name, limit=60))
        if len(names) > 20:
            lines.append(f" and {len(names) - 20} more")
        detail.update(lines)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "repair" and self.context.read_only:
            return False
        if action in ("filter", "repair"):
            return True if self.highlighted() is not None else None
        return True

    def action_filter(self) -> None:
        group = self.highlighted()
        if group is not None:
            self.dismiss(FilterTo(tuple(group.export_keys), group.signature))

    def action_repair(self) -> None:
        from tui.screens.repair import RepairScreen

        group = self.highlighted()
        if group is None:
            return
        self.app.push_screen(RepairScreen.for_group(self.context, group))

    def action_close(self) -> None:
        self.dismiss(None)
