"""What the monitor does to an export or a run: pause, unpause, backfill, retry, edit, delete, logs.

A base of :class:`MonitorScreen`, kept apart so the screen's module is about
showing data and this one about changing it. Every action asks first (or opens
its form), is sent once through :meth:`ExportActions._perform` (its key disabled
while pending, never retried), is journaled, and says how it went. The state
it changes is the screen's :class:`~tui.state.export_board.ExportBoard`; the
screen hears of changes through :class:`BoardChanged` and :class:`PollWanted`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual import work
from textual.message import Message

from tui.api.errors import ApiError, UnreadableAnswer
from tui.api.models.batch_exports import BatchExport, BatchExportRun, RunStatus
from tui.look.render import clean, plain
from tui.screens.base import WatchdeckScreen
from tui.screens.confirm import ConfirmScreen
from tui.state.export_board import ExportBoard
from tui.state.exports import WatchedExport
from tui.state.io.journal import ActionJournal
from tui.state.journal_entry import JournalEntry, wall_clock

if TYPE_CHECKING:
    from tui.api.resources.batch_exports import BatchExportsApi
    from tui.screens.export_modals import BackfillScreen

T = TypeVar("T")


class BoardChanged(Message):
    """An action changed the board (an optimistic pause, a deleted row): draw it again."""


class PollWanted(Message):
    """An action changed the server's data (an edit): poll now rather than at the next tick."""


class ExportActions(WatchdeckScreen[None]):
    """The mutating keys of the monitor, acting on the screen's board."""

    journal: ActionJournal
    board: ExportBoard

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._project_created: dict[str, datetime | None] = {}  # per project, for the backfill dialog

    def selected(self) -> WatchedExport | None:
        return self.board.selected()

    def selected_run(self) -> BatchExportRun | None:
        return self.board.selected_run()

    def _begin(self, action: str, key: str) -> bool:
        """Mark an action pending; refuse a second one while the first is in flight."""
        if not self.board.begin(action, key):
            return False
        self.refresh_bindings()
        return True

    def _end(self, action: str, key: str) -> None:
        self.board.end(action, key)
        self.refresh_bindings()

    def _journal(self, action: str, watched: WatchedExport, result: str, run: str | None = None,
                 detail: Mapping[str, object] | None = None) -> None:
        self.journal.append(JournalEntry(
            time=wall_clock(), action=action, result=result, profile=self.wd.settings.profile,
            project=watched.project_id, export=watched.export.id, run=run, detail=detail,
            name=watched.export.name, server_time=self.wd.clock.now(),
        ))

    def _fail(self, action: str, watched: WatchedExport, err: ApiError, run: str | None = None) -> None:
        unclear = isinstance(err, UnreadableAnswer)
        self._journal(action, watched, f"{'unclear' if unclear else 'failed'}: {err}", run=run)
        # An answer we cannot read does not say the action failed: the server may well have made the change.
        title = f"{action.capitalize()}: answer not understood" if unclear else f"{action.capitalize()} failed"
        self.notify(clean(str(err), limit=400), title=title, severity="error", markup=False, timeout=12)

    # ------------------------------------------------------------------ actions: pause / unpause

    def action_pause(self) -> None:
        self._ask_pause(True)

    def action_unpause(self) -> None:
        self._ask_pause(False)

    def _ask_pause(self, pause: bool) -> None:
        watched = self.selected()
        if watched is None:
            return
        verb = "Pause" if pause else "Unpause"
        question = Text.assemble(f"{verb} the export ", plain(watched.export.name, "bold"), "?")
        if pause:
            question.append("\nNo new runs will start until it is unpaused.")

        def answered(yes: bool | None) -> None:
            if yes:
                self._set_paused(watched, pause)

        self.app.push_screen(ConfirmScreen(f"{verb} export", question, yes_label=verb), answered)

    async def _perform(
        self, action: str, watched: WatchedExport, call: Callable[[BatchExportsApi], Awaitable[T]],
        run: str | None = None,
    ) -> tuple[bool, T | None]:
        """Send one action once: its key is disabled while it is pending, a failure is said and journaled.

        Nothing is retried here: a failed action waits for the operator.
        """
        if not self._begin(action, watched.key):
            return False, None
        try:
            return True, await call(self.wd.api_for(watched.project_id).batch_exports)
        except ApiError as err:
            self._fail(action, watched, err, run=run)
            if isinstance(err, UnreadableAnswer):
                self.post_message(PollWanted())  # the change may have been made: learn the export's real state
            return False, None
        finally:
            self._end(action, watched.key)

    @work(group="monitor-actions", exit_on_error=False)
    async def _set_paused(self, watched: WatchedExport, pause: bool) -> None:
        action = "pause" if pause else "unpause"
        export_id = watched.export.id
        ok, _ = await self._perform(action, watched,
                                    lambda api: api.pause(export_id) if pause else api.unpause(export_id))
        if ok:
            self.board.paused_by_operator(watched.key, pause)
            self._journal(action, watched, "ok")
            self.notify(f"{'Paused' if pause else 'Unpaused'}: {clean(watched.export.name, limit=80)}", markup=False)
            self.post_message(BoardChanged())

    # ------------------------------------------------------------------ backfill, retry

    def action_backfill(self) -> None:
        from tui.screens.export_modals import BackfillRequest, BackfillScreen

        watched = self.selected()
        if watched is None:
            return

        def answered(request: BackfillRequest | None) -> None:
            if request is not None:
                self._backfill(watched, *request.bounds())

        pid = watched.project_id
        screen = BackfillScreen(watched.export, self.wd.clock.now(), self._project_created.get(pid))
        self.app.push_screen(screen, answered)
        if pid not in self._project_created:  # the dialog opens at once; the limit arrives when the server says
            self.run_worker(self._learn_project_created(pid, screen), group="monitor-actions", exit_on_error=False)

    async def _learn_project_created(self, project_id: str, screen: BackfillScreen) -> None:
        """Ask once per project when it was created, so the dialog refuses a start before it.

        Unknown (the server does not say, or cannot be asked now) is no reason to refuse a backfill;
        a failed ask is asked again at the next backfill.
        """
        try:
            project = await self.wd.api_for(project_id).projects.get(project_id)
        except ApiError:
            return
        self._project_created[project_id] = project.created_at
        screen.know_project_created(project.created_at)

    @work(group="monitor-actions", exit_on_error=False)
    async def _backfill(self, watched: WatchedExport, start_at: datetime | date, end_at: datetime | date) -> None:
        ok, result = await self._perform("backfill", watched,
                                         lambda api: api.backfill(watched.export.id, start_at, end_at))
        if ok:
            detail = {"start_at": start_at.isoformat(), "end_at": end_at.isoformat(),
                      "backfill_id": result.backfill_id if result else None}
            self._journal("backfill", watched, "ok", detail=detail)
            self.notify("Backfill started; its runs appear as they are scheduled.", title="Backfill", markup=False)

    def action_retry(self) -> None:
        watched, run = self.selected(), self.selected_run()
        if watched is None or run is None:
            return
        interval = ""
        if run.data_interval_start and run.data_interval_end:
            interval = f" for {run.data_interval_start:%Y-%m-%d %H:%M} → {run.data_interval_end:%Y-%m-%d %H:%M}"
        question = Text.assemble(
            "Retry the run", interval, " of ", plain(watched.export.name, "bold"), "?\n",
            "A new run over the same data interval starts later; this one stays as it is.",
        )

        def confirmed_twice(yes: bool | None) -> None:
            if yes:
                self._retry(watched, run)

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            if run.status == RunStatus.COMPLETED:
                again = Text("This run already completed. Exporting its interval again may duplicate data "
                             "at the destination. Retry anyway?")
                self.app.push_screen(ConfirmScreen("Retry a completed run", again, yes_label="Retry", danger=True),
                                     confirmed_twice)
            else:
                self._retry(watched, run)

        self.app.push_screen(ConfirmScreen("Retry run", question, yes_label="Retry"), confirmed)

    @work(group="monitor-actions", exit_on_error=False)
    async def _retry(self, watched: WatchedExport, run: BatchExportRun) -> None:
        ok, result = await self._perform("retry", watched, lambda api: api.retry_run(watched.export.id, run.id),
                                         run=run.id)
        if ok:
            self.board.await_retry(watched.key, run)
            self._journal("retry", watched, "ok", run=run.id,
                          detail={"backfill_id": result.backfill_id if result else None})
            self.notify("Retry requested: the new run appears in a moment and will be highlighted.",
                        title="Retry", markup=False)

    # ------------------------------------------------------------------ edit, delete

    def action_edit(self) -> None:
        from tui.screens.export_modals import EditExportScreen

        watched = self.selected()
        if watched is None:
            return

        def saved(export: BatchExport | None) -> None:
            if export is not None:
                self._journal("edit", watched, "ok")
                self.notify(f"Saved {clean(export.name, limit=80)}.", markup=False)
                self.post_message(PollWanted())

        self.app.push_screen(EditExportScreen(watched, self.journal), saved)

    def action_delete(self) -> None:
        from tui.screens.export_modals import DeleteExportScreen

        watched = self.selected()
        if watched is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(watched)

        self.app.push_screen(DeleteExportScreen(watched.export), answered)

    @work(group="monitor-actions", exit_on_error=False)
    async def _delete(self, watched: WatchedExport) -> None:
        ok, _ = await self._perform("delete", watched, lambda api: api.delete(watched.export.id))
        if ok:
            self._journal("delete", watched, "ok")
            self.notify(f"Deleted {clean(watched.export.name, limit=80)}.", markup=False)
            self.board.deleted(watched.key)
            self.post_message(BoardChanged())

    # ------------------------------------------------------------------ logs, errors

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
        from tui.screens.export_modals import RunErrorScreen

        run = self.selected_run()
        if run is None:
            return
        if run.latest_error:
            self.app.push_screen(RunErrorScreen(run))
        else:
            self.notify("This run has no error.", markup=False, timeout=3)
