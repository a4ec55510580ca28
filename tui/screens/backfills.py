"""An export's backfills (``B``): status, progress, range, created; ``c`` cancels one (asks first).

Only where the server lists them (the real service's ``backfills/``); where it
answers 404/405 the screen closes with one line saying so and the key sends
nothing on the next press.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.css.query import NoMatches
from textual.widgets import DataTable, Static

from tui.api.errors import ApiError, MethodNotAllowed, NotFound
from tui.api.models.batch_exports import BatchExportBackfill
from tui.config.paths import stylesheets
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.look.render import plain, progress_bar
from tui.look.status import status_text
from tui.screens.base import WatchdeckScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.incident_base import IncidentContext
from tui.state.journal_entry import JournalEntry, wall_clock
from tui.state.repair import ExportRef
from tui.text.words import ago
from tui.widgets.footer import KeyFooter
from tui.widgets.lists import RowTable

NO_BACKFILLS_LIST = "This server has no backfills list (backfills/): nothing was sent."


def progress_cells(backfill: BatchExportBackfill) -> Text:
    """``███░░ 60% 3/5 runs`` while running; the bar alone when the server sends only a fraction."""
    progress = backfill.progress
    if progress is None:
        return Text("—", style=Tone.MUTED.style)
    if progress.total_runs:
        done = progress.finished_runs or 0
        return Text.assemble(progress_bar(done, progress.total_runs, width=8), f" {done}/{progress.total_runs} runs")
    if progress.progress is not None:
        return progress_bar(round(progress.progress * 100), 100, width=8)
    return Text("—", style=Tone.MUTED.style)


class BackfillsScreen(WatchdeckScreen[None]):
    TAKES_ALERT_TOASTS = True
    CSS_PATH = stylesheets("incident.tcss")  # loaded when first shown: not part of the monitor\'s start
    BINDINGS: ClassVar[list[BindingType]] = list(bindings("backfills"))

    def __init__(self, context: IncidentContext, export: ExportRef) -> None:
        super().__init__(id="backfills-screen", classes="incident-screen")
        self.context = context
        self.export = export
        self.backfills: list[BatchExportBackfill] = []
        self._loaded = False

    def compose(self) -> ComposeResult:
        yield Static(id="backfills-title", classes="incident-title")
        table: DataTable[Text] = RowTable(id="backfills-table", cursor_type="row", zebra_stripes=False)
        yield table
        yield Static(id="backfills-status", classes="incident-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one("#backfills-table", DataTable)
        for key, label, width in (("status", "Status", 14), ("progress", "Progress", 24), ("start", "Start", 16),
                                  ("end", "End", 16), ("created", "Created", 16)):
            table.add_column(label, key=key, width=width)
        self._title("loading…")
        table.focus()
        self.action_reload()

    def _title(self, note: str = "") -> None:
        title = Text.assemble(("Backfills of ", "bold"), plain(self.export.name, "bold", limit=60))
        if note:
            title.append(f" · {note}", Tone.MUTED.style)
        title.append("   c: cancel · ctrl+r: refresh · B: close", Tone.MUTED.style)
        self.query_one("#backfills-title", Static).update(title)

    def action_reload(self) -> None:
        self._load()

    @work(group="backfills", exclusive=True, exit_on_error=False)
    async def _load(self) -> None:
        api = self.context.client_for(self.export.project_id).batch_exports
        try:
            page = await api.backfills(self.export.export_id)
        except (NotFound, MethodNotAllowed):
            self.context.unsupported.add(("backfills", self.export.project_id))
            self.app.notify(NO_BACKFILLS_LIST, markup=False, timeout=6)
            self.dismiss(None)
            return
        except ApiError as err:
            self.query_one("#backfills-status", Static).update(
                plain(f"Could not load backfills: {err}", Tone.ERROR_TEXT.style))
            self._title("not loaded")
            return
        self.backfills = list(page.results)
        self._loaded = True
        self._show()

    def _show(self) -> None:
        now = self.context.now()
        table = self.query_one("#backfills-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        for backfill in self.backfills:
            table.add_row(status_text(backfill.status), progress_cells(backfill),
                          Text(f"{backfill.start_at:%m-%d %H:%M}" if backfill.start_at else "beginning"),
                          Text(f"{backfill.end_at:%m-%d %H:%M}" if backfill.end_at else "now"),
                          Text(ago(backfill.created_at, now, coarse=True)), key=backfill.id)
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1), animate=False)
        running = sum(1 for b in self.backfills if b.is_in_progress)
        self._title(f"{len(self.backfills)} shown, {running} running" if self.backfills else "none")
        if not self.backfills:
            self.query_one("#backfills-status", Static).update(
                Text("No backfills for this export.", style=Tone.MUTED.style))
        self.refresh_bindings()

    def highlighted(self) -> BatchExportBackfill | None:
        try:
            table = self.query_one("#backfills-table", DataTable)
        except NoMatches:  # asked (check_action) while the screen closes
            return None
        row = table.cursor_row
        return self.backfills[row] if 0 <= row < len(self.backfills) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_backfill":
            if self.context.read_only:
                return False
            chosen = self.highlighted()
            return True if chosen is not None and chosen.is_in_progress else None
        return True

    def action_cancel_backfill(self) -> None:
        chosen = self.highlighted()
        if chosen is None or not chosen.is_in_progress:
            return
        span = (f"{chosen.start_at:%m-%d %H:%M}" if chosen.start_at else "the beginning") + " → " + (
            f"{chosen.end_at:%m-%d %H:%M}" if chosen.end_at else "now")
        question = Text.assemble("Cancel the backfill of ", plain(self.export.name, "bold", limit=60),
                                 f" ({span})? Runs it already made stay.")

        def answered(yes: bool | None) -> None:
            if yes:
                self._cancel(chosen)

        self.app.push_screen(ConfirmScreen("Cancel backfill", question, yes_label="Cancel it", danger=True),
                             answered)

    @work(group="backfills-cancel", exit_on_error=False)
    async def _cancel(self, backfill: BatchExportBackfill) -> None:
        api = self.context.client_for(self.export.project_id).batch_exports
        status = self.query_one("#backfills-status", Static)
        try:
            await api.cancel_backfill(self.export.export_id, backfill.id)
        except (NotFound, MethodNotAllowed):
            status.update(Text("This server cannot cancel backfills: nothing was changed.", style=Tone.NOTE.style))
            result = "not supported"
        except ApiError as err:
            status.update(plain(f"Cancel failed: {err}", Tone.ERROR_TEXT.style))
            result = f"error: {err}"
        else:
            status.update(Text("Backfill cancelled.", style=Tone.DONE.style))
            result = "ok"
            self.action_reload()
        self.context.journal.append(JournalEntry(
            time=wall_clock(), server_time=self.context.clock.now(), action="cancel backfill", result=result,
            profile=self.context.profile, project=self.export.project_id, export=self.export.export_id,
            name=self.export.name, detail={"backfill": backfill.id}))

    def action_close(self) -> None:
        self.dismiss(None)
