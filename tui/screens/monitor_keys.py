"""The monitor's action keys on the selected export or run: pause, backfill, retry, cancel, edit, delete, logs and
a run's error. Each asks what the dialogs of :mod:`tui.screens.monitor_actions` ask, then has the watch's
:class:`~tui.state.io.export_actions.ExportActions` send it in a worker of the screen.

A plain object the :class:`~tui.screens.monitor.MonitorScreen` makes and holds; the monitor's ``action_*``
methods (:mod:`tui.screens.monitor_routes`) call it. A key acts on what the tables' cursors are on when it is
handled (``selected``, ``selected_run``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from tui.api.errors import ApiError
from tui.api.models.batch_exports import BatchExport, BatchExportRun, RunStatus
from tui.clock import Clock
from tui.screens.monitor_actions import cancel_run_question, pause_question, retry_completed_question, retry_question
from tui.state.exports import WatchedExport
from tui.state.io.export_actions import NO_RUN_CANCEL, ExportActions
from tui.state.io.journal import ActionJournal
from tui.text.clean import clean

if TYPE_CHECKING:
    from tui.screens.export_modals import BackfillScreen

# The dialogs and the logs screen are imported on their key: the monitor's first frame does not wait for them.


class ExportKeys:
    """What the action keys do, on the export and run the screen's cursors are on."""

    def __init__(self, screen: Screen[Any], *, selected: Callable[[], WatchedExport | None],
                 selected_run: Callable[[], BatchExportRun | None], actions: Callable[[], ExportActions],
                 journal: ActionJournal, clock: Clock, lacks_runs_list: Callable[[str], bool]) -> None:
        self._screen = screen
        self._selected = selected
        self._selected_run = selected_run
        self._actions = actions  # the watch's: a project switch makes new ones
        self._journal = journal
        self._clock = clock
        self._lacks_runs_list = lacks_runs_list

    def _send(self, action: Coroutine[Any, Any, bool]) -> None:
        """An action the operator confirmed, sent in a worker of the screen."""
        self._screen.run_worker(action, group="monitor-actions", exit_on_error=False)

    def pause(self, pause: bool) -> None:
        watched = self._selected()
        if watched is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._send(self._actions().set_paused(watched, pause))

        self._screen.app.push_screen(pause_question(watched, pause), answered)

    def backfill(self) -> None:
        from tui.screens.export_modals import BackfillRequest, BackfillScreen

        watched = self._selected()
        if watched is None:
            return
        actions = self._actions()

        def answered(request: BackfillRequest | None) -> None:
            if request is not None:
                self._send(self._actions().backfill(watched, *request.bounds()))

        pid = watched.project_id
        known, created = actions.known_project_created(pid)
        screen = BackfillScreen(watched.export, self._clock.now(), created)
        self._screen.app.push_screen(screen, answered)
        if not known:  # the dialog opens at once; the limit arrives when the server says
            self._screen.run_worker(self._learn_project_created(actions, pid, screen), group="monitor-actions",
                                    exit_on_error=False)

    @staticmethod
    async def _learn_project_created(actions: ExportActions, project_id: str, screen: BackfillScreen) -> None:
        try:
            created = await actions.project_created(project_id)
        except ApiError:  # unknown is no reason to refuse a backfill
            return
        screen.know_project_created(created)

    def retry(self) -> None:
        watched, run = self._selected(), self._selected_run()
        if watched is None or run is None:
            return

        def confirmed_twice(yes: bool | None) -> None:
            if yes:
                self._send(self._actions().retry(watched, run))

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            if run.status == RunStatus.COMPLETED:
                self._screen.app.push_screen(retry_completed_question(), confirmed_twice)
            else:
                self._send(self._actions().retry(watched, run))

        self._screen.app.push_screen(retry_question(watched, run), confirmed)

    def cancel_run(self) -> None:
        watched, run = self._selected(), self._selected_run()
        if watched is None or run is None:
            return
        if not run.is_in_progress:
            self._screen.notify(clean(f"This run is {run.status}: only a starting or running run can be cancelled.",
                                      limit=200), markup=False, timeout=4)
            return
        if not self._actions().can_cancel_runs(watched.project_id) or self._lacks_runs_list(watched.project_id):
            self._screen.notify(NO_RUN_CANCEL, markup=False, timeout=6)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._send(self._actions().cancel_run(watched, run))

        self._screen.app.push_screen(cancel_run_question(watched, run), answered)

    def edit(self) -> None:
        from tui.screens.export_modals import EditExportScreen

        watched = self._selected()
        if watched is None:
            return

        def saved(export: BatchExport | None) -> None:
            if export is not None:
                self._actions().edited(watched, export)

        self._screen.app.push_screen(EditExportScreen(watched, self._journal), saved)

    def delete(self) -> None:
        from tui.screens.export_modals import DeleteExportScreen

        watched = self._selected()
        if watched is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._send(self._actions().delete(watched))

        self._screen.app.push_screen(DeleteExportScreen(watched.export), answered)

    def logs(self, of_run: bool) -> None:
        """The logs of the selected run (``of_run``), or of the selected export."""
        from tui.screens.logs import LogsScreen

        watched = self._selected()
        run = self._selected_run() if of_run else None
        if watched is not None and (run is not None or not of_run):
            self._screen.app.push_screen(LogsScreen(watched, run))

    def run_error(self) -> None:
        """The whole error of the run under the runs pane's cursor."""
        self.show_run_error(self._selected_run())

    def show_run_error(self, run: BatchExportRun | None) -> None:
        from tui.screens.export_modals import RunErrorScreen

        if run is None:
            return
        if run.latest_error:
            self._screen.app.push_screen(RunErrorScreen(run))
        else:
            self._screen.notify("This run has no error.", markup=False, timeout=3)
