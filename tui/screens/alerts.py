"""The alerts pane (``!``): open alerts, what they are about in numbers, and the session's history.

``enter`` jumps to the export in the monitor, ``a`` acknowledges, ``s`` silences
the alert's export and ``S`` its project (a silenced alert stays listed, marked
silenced); acknowledged and resolved alerts move to the history below (and the
journal), which outlives a restart (the last 200 episodes, 7 days). Where
an ``on_alert`` hook is set, the events it has not taken yet (waiting for
another attempt, or given up) are listed under the open alerts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Protocol

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.css.query import NoMatches
from textual.widgets import DataTable, Static
from textual.widgets.data_table import CellDoesNotExist

from tui.config.paths import stylesheets
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.incident_base import WHEN_WIDTH, IncidentContext, IncidentScreen, set_columns, when
from tui.state.alert_book import Alert, AlertKind
from tui.state.alert_marks import Silence
from tui.text.clean import clean
from tui.text.words import counted
from tui.widgets.footer import KeyFooter
from tui.widgets.lists import RowTable

# The tone of each kind; the style comes from the palette, so "failing" looks like a failed run in both modes
# (bold red, or reversed under NO_COLOR where red would turn a faint grey).
KIND_TONE: dict[str, Tone] = {
    AlertKind.FAILING: Tone.FAILURE,
    AlertKind.OVERDUE: Tone.WARNING,
    AlertKind.AUTO_PAUSED: Tone.PAUSED,
}


def kind_style(kind: str) -> str:
    """The style of an alert kind in the current mode."""
    tone = KIND_TONE.get(kind)
    return tone.style if tone is not None else "bold"


# The Export column fits the longest name up to NAME_LIMIT cells (no narrower than NAME_NARROWEST), as long as
# "How much" keeps DETAIL_ROOM cells: at 80 columns a name is cut at 20, at 160 it is whole.
NAME_LIMIT = 60
HOOK_LINES = 3  # undelivered hook events listed; the rest are counted
NAME_NARROWEST = 12
DETAIL_ROOM = 20


def name_cell(name: str) -> Text:
    """An export's name; one cut to the column's width ends in an ellipsis."""
    text = plain(name, limit=NAME_LIMIT)
    text.overflow = "ellipsis"
    return text


class Silencer(Protocol):
    """What silences an alert's export (the monitor's incident keys)."""

    def ask_silence(self, project_id: str, export_id: str, name: str, after: Callable[[], None] | None = None,
                    ) -> None: ...

    def silence_of(self, project_id: str, export_id: str) -> Silence | None: ...


def history_detail(alert: Alert) -> Text:
    """A resolved alert: why it ended (its resolution), then what it was; an acknowledged one: how much. A silence
    the alert had is said after it."""
    detail = clean(f"{alert.detail} · {alert.silence}", limit=300) if alert.silence else alert.detail
    if alert.resolved_at is not None and alert.resolution:
        return plain(f"{alert.resolution} (was: {detail})" if detail else alert.resolution, limit=300)
    return plain(detail, limit=300)


@dataclass(frozen=True)
class JumpTo:
    """The operator chose an alert: show its export in the monitor."""

    key: str


class AlertsScreen(IncidentScreen[JumpTo | None]):
    CSS_PATH = stylesheets("incident.tcss")  # loaded when first shown: not part of the monitor\'s start
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("alerts"))

    def __init__(self, context: IncidentContext, silencer: Silencer | None = None) -> None:
        super().__init__(context, id="alerts-screen", classes="incident-screen")
        self.silencer = silencer
        self._columns_for: tuple[int, int, bool] | None = None  # (screen width, name width, a project column)
        self._unsubscribe_hooks: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="alerts-title", classes="incident-title")
        table: DataTable[Text] = RowTable(id="alerts-open", cursor_type="row", zebra_stripes=False)
        yield table
        yield Static(id="alerts-hook", classes="incident-detail")
        yield Static(id="alerts-history-title", classes="incident-subtitle")
        history: DataTable[Text] = RowTable(id="alerts-history", cursor_type="none", zebra_stripes=False)
        yield history
        yield KeyFooter()

    def on_mount(self) -> None:
        self._build_columns()
        hooks = self.context.hooks
        self._unsubscribe_hooks = hooks.subscribe(self._desk_changed) if hooks is not None else None
        super().on_mount()
        self.query_one("#alerts-open", DataTable).focus()

    def on_unmount(self) -> None:
        if self._unsubscribe_hooks is not None:
            self._unsubscribe_hooks()
            self._unsubscribe_hooks = None
        super().on_unmount()

    def on_resize(self) -> None:
        self._build_columns()
        self.redraw()

    def _name_width(self, width: int, with_project: bool) -> int:
        """The Export column: the longest name watched or alerted on, within what leaves "How much" its room."""
        book = self.desk.book
        names = [item.watched.export.name or item.watched.export.id for item in self.desk.exports.values()]
        names += [alert.export_name for alert in (*book.open_alerts, *book.history)]
        longest = max((cell_len(clean(name, limit=NAME_LIMIT)) for name in names), default=0)
        fixed = (11 + 2) + (WHEN_WIDTH + 2) + (9 if with_project else 0) + 2 + 4  # as set_columns counts them
        room = width - fixed - DETAIL_ROOM - 2
        return max(NAME_NARROWEST, min(longest, room, NAME_LIMIT))

    def _build_columns(self) -> None:
        width = self.size.width or 80
        projects = {item.watched.project_id for item in self.desk.exports.values()}
        project = [("project", "Project", 7)] if len(projects) > 1 else []
        name = self._name_width(width, bool(project))
        self._columns_for = (width, name, len(projects) > 1)
        set_columns(self.query_one("#alerts-open", DataTable),
                    [("kind", "Kind", 11), ("export", "Export", name), *project,
                     ("since", "Since", WHEN_WIDTH), ("detail", "How much", None)], width)
        set_columns(self.query_one("#alerts-history", DataTable),
                    [("state", "State", 8), ("kind", "Kind", 11), ("export", "Export", name),
                     ("at", "At", WHEN_WIDTH), ("detail", "Detail", None)], width)

    def redraw(self) -> None:
        book = self.desk.book
        width = self.size.width or 80
        several = len({item.watched.project_id for item in self.desk.exports.values()}) > 1
        if self._columns_for != (width, self._name_width(width, several), several):
            self._build_columns()  # a longer name, or a second project, since the columns were made
        now = self.context.now()
        open_alerts = book.open_alerts
        count = len(open_alerts)
        title = Text.assemble(("Alerts", "bold"), f" · {count} open" if count else " · none open",
                              ("   enter: go to the export", Tone.MUTED.style))
        self.query_one("#alerts-title", Static).update(title)
        # A few dozen rows at most: rebuilt whole, the cursor kept on the same alert where it still is open.
        table = self.query_one("#alerts-open", DataTable)
        current = self._highlighted()
        cursor = table.cursor_row
        table.clear()
        with_project = len(table.columns) == 5
        for alert in open_alerts:
            cells = self._open_cells(alert, now)
            if not with_project:
                del cells[2]
            table.add_row(*cells, key=str(alert.id))
        ids = [a.id for a in open_alerts]
        if current is not None and current.id in ids:
            table.move_cursor(row=ids.index(current.id), animate=False)
        elif table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1), animate=False)
        if not open_alerts:
            table.add_row(Text("none", style=Tone.MUTED.style), *[Text("")] * (len(table.columns) - 1), key="none")
        self._draw_hook_events()
        history = self.query_one("#alerts-history", DataTable)
        history.clear()
        self.query_one("#alerts-history-title", Static).update(
            Text.assemble(("History", "bold"), f" · {len(book.history)} kept, {book.history_total} this session",
                          ("  (journaled)", Tone.MUTED.style)))
        for alert in book.history:
            moment = alert.resolved_at or alert.acknowledged_at
            history.add_row(Text("resolved" if alert.resolved_at else "acked",
                                 style=Tone.DONE.style if alert.resolved_at else Tone.MUTED.style),
                            Text(str(alert.kind), style=kind_style(alert.kind)),
                            name_cell(alert.export_name), when(moment, now), history_detail(alert))
        self.refresh_bindings()

    def _draw_hook_events(self) -> None:
        """The hook's undelivered events, newest first, a few lines at most; hidden when there are none."""
        box = self.query_one("#alerts-hook", Static)
        hooks = self.context.hooks
        events = hooks.undelivered if hooks is not None else []
        box.display = bool(events)
        if not events or hooks is None:
            return
        lines = [Text.assemble(("on_alert hook", "bold"), f" · {len(events)} not delivered",
                               ("  (journaled)", Tone.MUTED.style))]
        for item in events[:HOOK_LINES]:
            if item.given_up:
                state = (f"gave up after {counted(item.attempts, 'attempt')}", Tone.FAILURE.style)
            elif item.attempts:
                state = (f"retrying, {counted(item.attempts, 'attempt')} so far", Tone.WARNING.style)
            else:
                state = ("waiting", Tone.MUTED.style)
            lines.append(Text.assemble(f"{item.event:<8} ", plain(item.alert.export_name, limit=40), "  ", state,
                                       ": " if item.error else "", plain(item.error, Tone.MUTED.style, limit=160)))
        if len(events) > HOOK_LINES:
            lines.append(Text(f"… and {len(events) - HOOK_LINES} more", style=Tone.MUTED.style))
        box.update(Text("\n").join(lines))

    def _open_cells(self, alert: Alert, now: datetime) -> list[Text]:
        silence = self.silencer.silence_of(alert.project_id, alert.export_id) if self.silencer is not None else None
        detail = plain(alert.detail, limit=200)
        if silence is not None:
            detail.append(" · ")
            detail.append_text(plain(silence.words(time.time()), Tone.MUTED.style, limit=300))
        return [Text(str(alert.kind), style=kind_style(alert.kind)), name_cell(alert.export_name),
                plain(alert.project_id, Tone.MUTED.style), when(alert.since, now), detail]

    def _highlighted(self) -> Alert | None:
        try:
            table = self.query_one("#alerts-open", DataTable)
        except NoMatches:  # asked (check_action) while the screen closes
            return None
        if not table.row_count:
            return None
        try:
            row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        except CellDoesNotExist:
            return None
        if row_key.value is None or not row_key.value.isdigit():
            return None
        return self.desk.book.get(int(row_key.value))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("jump", "acknowledge", "silence", "silence_project"):
            alert = self._highlighted()
            if action.startswith("silence") and self.silencer is None:
                return False
            return True if alert is not None and alert.is_open else None
        return True

    @on(DataTable.RowSelected, "#alerts-open")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        """Enter on a row (the table keeps enter for itself): the row it was pressed on, whatever keys came after
        it before this message."""
        key = event.row_key.value
        alert = self.desk.book.get(int(key)) if key is not None and key.isdigit() else None
        if alert is not None and alert.is_open:
            self.dismiss(JumpTo(alert.key))

    def action_jump(self) -> None:
        alert = self._highlighted()
        if alert is not None:
            self.dismiss(JumpTo(alert.key))

    def action_acknowledge(self) -> None:
        alert = self._highlighted()
        if alert is None:
            return
        self.desk.book.acknowledge(alert.id, self.context.clock.now())
        self.notify(clean(f"Acknowledged: {alert.export_name}, {alert.kind}.", limit=200), markup=False, timeout=3)
        self.redraw()

    def action_silence(self) -> None:
        alert = self._highlighted()
        if alert is not None and self.silencer is not None:
            self.silencer.ask_silence(alert.project_id, alert.export_id, alert.export_name, self.redraw)

    def action_silence_project(self) -> None:
        alert = self._highlighted()
        if alert is not None and self.silencer is not None:
            self.silencer.ask_silence(alert.project_id, "", "", self.redraw)

    def action_close(self) -> None:
        self.dismiss(None)
