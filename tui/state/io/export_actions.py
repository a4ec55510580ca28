"""What the monitor's keys change on the server: pause, unpause, backfill, retry, delete, cancel a run, edits.

A service the screen holds and calls once the operator has confirmed: every
action is sent once (its key disabled while it is pending, never retried), is
journaled, and is said through the ``notify`` callback. The state it changes is
the board's (:class:`~tui.state.export_board.ExportBoard`); the screen hears
what to draw again through the ``changed`` callback. No Textual here: the
questions asked before an action are the screen's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from tui.api.errors import ApiError, MethodNotAllowed, NotFound, UnreadableAnswer
from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.clock import Clock
from tui.state.export_board import ExportBoard
from tui.state.exports import WatchedExport
from tui.state.journal_entry import JournalEntry, JournalWriter, wall_clock
from tui.text.clean import clean

if TYPE_CHECKING:
    from tui.api.client import ApiClient
    from tui.api.resources.batch_exports import BatchExportsApi

T = TypeVar("T")

NO_RUN_CANCEL = "This server cannot cancel runs (runs/:id/cancel/): nothing was sent."


class Notify(Protocol):
    """Say something to the operator (plain text: never read as markup)."""

    def __call__(self, message: str, *, title: str = "",
                 severity: Literal["information", "warning", "error"] = "information",
                 timeout: float | None = None) -> None: ...


class Change(Enum):
    """What an action changed, for the screen to show."""

    PENDING = "pending"  # an action began or ended: which keys apply
    BOARD = "board"  # the board's rows (an accepted pause, a deleted export)
    RUNS = "runs"  # the runs pane (a run marked as cancelling, or no longer)
    SERVER = "server"  # the server's data, in ways only a poll shows (an edit, an answer not understood)


class ExportActions:
    """Sends the monitor's actions. ``clock`` stamps the export actions' journal lines, ``server_clock`` a run's
    cancel (as the incident views stamp theirs); ``unsupported`` is shared with the incident views."""

    def __init__(self, board: ExportBoard, client_for: Callable[[str], ApiClient], journal: JournalWriter, *,
                 profile: str | None, clock: Clock, server_clock: Clock, notify: Notify,
                 changed: Callable[[Change], None], unsupported: set[tuple[str, str]]) -> None:
        self.board = board  # its watch's (tui.state.io.project_watch): a project switch makes new actions
        self._client_for = client_for
        self._journal = journal
        self._profile = profile
        self._clock = clock
        self._server_clock = server_clock
        self._notify = notify
        self._changed = changed
        self.unsupported = unsupported  # server features found missing, per project: ("cancel", "1")
        self._project_created: dict[str, datetime | None] = {}  # per project, for the backfill dialog

    # ------------------------------------------------------------------ the flow every action follows

    def journal(self, action: str, watched: WatchedExport, result: str, run: str | None = None,
                detail: Mapping[str, object] | None = None) -> None:
        self._journal.append(JournalEntry(
            time=wall_clock(), action=action, result=result, profile=self._profile,
            project=watched.project_id, export=watched.export.id, run=run, detail=detail,
            name=watched.export.name, server_time=self._clock.now(),
        ))

    def _fail(self, action: str, watched: WatchedExport, err: ApiError, run: str | None = None) -> None:
        unclear = isinstance(err, UnreadableAnswer)
        self.journal(action, watched, f"{'unclear' if unclear else 'failed'}: {err}", run=run)
        # An answer we cannot read does not say the action failed: the server may well have made the change.
        title = f"{action.capitalize()}: answer not understood" if unclear else f"{action.capitalize()} failed"
        self._notify(clean(str(err), limit=400), title=title, severity="error", timeout=12)

    async def _perform(
        self, action: str, watched: WatchedExport, call: Callable[[BatchExportsApi], Awaitable[T]],
        run: str | None = None,
    ) -> tuple[bool, T | None]:
        """Send one action once: its key is disabled while it is pending, a failure is said and journaled.

        Nothing is retried here: a failed action waits for the operator.
        """
        if not self.board.begin(action, watched.key):
            return False, None
        self._changed(Change.PENDING)
        try:
            return True, await call(self._client_for(watched.project_id).batch_exports)
        except ApiError as err:
            self._fail(action, watched, err, run=run)
            if isinstance(err, UnreadableAnswer):
                self._changed(Change.SERVER)  # the change may have been made: learn the export's real state
            return False, None
        finally:
            self.board.end(action, watched.key)
            self._changed(Change.PENDING)

    # ------------------------------------------------------------------ the actions

    async def set_paused(self, watched: WatchedExport, pause: bool) -> bool:
        action = "pause" if pause else "unpause"
        export_id = watched.export.id
        ok, _ = await self._perform(action, watched,
                                    lambda api: api.pause(export_id) if pause else api.unpause(export_id))
        if ok:
            self.board.paused_by_operator(watched.key, pause)
            self.journal(action, watched, "ok")
            self._notify(f"{'Paused' if pause else 'Unpaused'}: {clean(watched.export.name, limit=80)}")
            self._changed(Change.BOARD)
        return ok

    async def backfill(self, watched: WatchedExport, start_at: datetime | date, end_at: datetime | date) -> bool:
        ok, result = await self._perform("backfill", watched,
                                         lambda api: api.backfill(watched.export.id, start_at, end_at))
        if ok:
            detail = {"start_at": start_at.isoformat(), "end_at": end_at.isoformat(),
                      "backfill_id": result.backfill_id if result else None}
            self.journal("backfill", watched, "ok", detail=detail)
            self._notify("Backfill started; its runs appear as they are scheduled.", title="Backfill")
        return ok

    async def retry(self, watched: WatchedExport, run: BatchExportRun) -> bool:
        ok, result = await self._perform("retry", watched, lambda api: api.retry_run(watched.export.id, run.id),
                                         run=run.id)
        if ok:
            self.board.await_retry(watched.key, run)
            self.journal("retry", watched, "ok", run=run.id,
                         detail={"backfill_id": result.backfill_id if result else None})
            self._notify("Retry requested: the new run appears in a moment and will be highlighted.",
                         title="Retry")
        return ok

    async def delete(self, watched: WatchedExport) -> bool:
        ok, _ = await self._perform("delete", watched, lambda api: api.delete(watched.export.id))
        if ok:
            self.journal("delete", watched, "ok")
            self._notify(f"Deleted {clean(watched.export.name, limit=80)}.")
            self.board.deleted(watched.key)
            self._changed(Change.BOARD)
        return ok

    def edited(self, watched: WatchedExport, export: BatchExport) -> None:
        """The edit dialog saved the export (it sends the change itself): journaled, said, and polled for."""
        self.journal("edit", watched, "ok")
        self._notify(f"Saved {clean(export.name, limit=80)}.")
        self._changed(Change.SERVER)

    def can_cancel_runs(self, project_id: str) -> bool:
        return ("cancel", project_id) not in self.unsupported

    async def cancel_run(self, watched: WatchedExport, run: BatchExportRun) -> bool:
        """Cancel a run; it shows as "cancelling" until the server says it ended, or the cancel failed."""
        self.board.cancelling.add(run.id)
        self._changed(Change.RUNS)
        api = self._client_for(watched.project_id).batch_exports
        ok = False
        try:
            await api.cancel_run(watched.export.id, run.id)
        except (NotFound, MethodNotAllowed):
            self.unsupported.add(("cancel", watched.project_id))
            self._not_cancelling(run.id)
            self._notify(NO_RUN_CANCEL.replace("nothing was sent", "nothing was changed"), timeout=6)
            result = "not supported"
        except ApiError as err:
            self._not_cancelling(run.id)
            self._notify(clean(str(err), limit=400), title="Cancel failed", severity="error", timeout=12)
            result = f"failed: {err}"
        else:
            self._notify("Run cancelled.", timeout=4)
            result = "ok"
            ok = True
        self._journal.append(JournalEntry(
            time=wall_clock(), server_time=self._server_clock.now(), action="cancel run", result=result,
            profile=self._profile, project=watched.project_id, export=watched.export.id,
            name=watched.export.name, run=run.id))
        return ok

    def _not_cancelling(self, run_id: str) -> None:
        self.board.cancelling.discard(run_id)
        self._changed(Change.RUNS)

    # ------------------------------------------------------------------ what the backfill dialog needs

    def known_project_created(self, project_id: str) -> tuple[bool, datetime | None]:
        """Whether the project's creation time was asked already, and what the server said (None: unknown)."""
        return project_id in self._project_created, self._project_created.get(project_id)

    async def project_created(self, project_id: str) -> datetime | None:
        """Ask the server when the project was created (None: it does not say), so the backfill dialog refuses
        a start before it. Raises :class:`ApiError` when it cannot be asked now: asked again at the next backfill.
        """
        project = await self._client_for(project_id).projects.get(project_id)
        self._project_created[project_id] = project.created_at
        return project.created_at
