"""The monitor's incident keys: alerts (``!``), failure groups (``g``), timeline (``t``), repair (``R``) and
backfills (``B``), with the runs pane's view keys; and what each poll does for them.

A plain object the :class:`~tui.screens.monitor.MonitorScreen` makes and holds,
kept apart so the monitor's module stays about showing exports; the monitor's
``action_*`` methods for these keys (:mod:`tui.screens.monitor_routes`) call it, with
those of the alert keys (acknowledge, silence). After each poll the monitor's work
(:meth:`~tui.screens.monitor_work.MonitorWork.judge`) calls
:meth:`IncidentKeysController.poll`: the desk takes the exports in the
table's order with their health verdicts, the one alert book opens, updates
and resolves episodes, and the controller rings, toasts and sends to the
``on_alert`` hook what :func:`tui.state.alert_outlets.announce` says. A toast
never covers a dialog or the editor: the alerts that open while a dialog is
open wait and are toasted when it closes (at most
:data:`~tui.toasts.MAX_SHOWN` toasts, the last one counting the rest, and
only those that waited less than :data:`~tui.toasts.HELD_SECONDS`); those
that open under the editor are not toasted (the header's count, the row
markers and the alerts pane show them). Acknowledgements and silences made here or
on another screen of the same server and key, and the alerts pane's history,
are kept by a :class:`~tui.state.io.alert_marks_store.MarksKeeper` (the state
folder, the shared store); a silenced export's announcements wait. The hook's
events go through a :class:`~tui.state.io.hook_outbox.HookOutbox`, which tries a
failed one again for up to 15 minutes, in order per episode, in a worker of the
screen.
"""

from __future__ import annotations

import getpass
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from textual.screen import ModalScreen

from tui.api.models.batch_exports import BatchExportRun
from tui.config.paths import state_dir
from tui.look.monitor_status import alert_words
from tui.look.run_rows import RunsView
from tui.screens.base import WatchdeckScreen
from tui.screens.incident_base import IncidentContext
from tui.screens.monitor_actions import BoardChanged
from tui.state.alert_book import Alert, AlertBook
from tui.state.alert_marks import HeldEvents, Scope, Silence
from tui.state.alert_outlets import announce, more_line, toast_lines
from tui.state.budget import ActionBudget
from tui.state.exports import WatchedExport
from tui.state.incident import IncidentDesk, VerdictLike
from tui.state.io.alert_hooks import AlertHook
from tui.state.io.alert_marks_store import MarksKeeper, marks_path
from tui.state.io.hook_outbox import HookOutbox
from tui.state.io.journal import ActionJournal
from tui.state.journal_entry import JournalEntry, wall_clock
from tui.state.run_list import next_filter
from tui.text.clean import clean
from tui.toasts import HELD_SECONDS, MAX_SHOWN

if TYPE_CHECKING:
    from tui.screens.alerts import JumpTo
    from tui.screens.failure_groups import FilterTo
    from tui.screens.timeline import OpenRun
    from tui.state.timeline import TimelineModel

# The screens behind these keys (alerts, groups, timeline, repair, backfills, the confirm dialog) are imported
# on their key: with them (and the text editor the repair dialog brings) the monitor's first frame would wait
# for their imports.

INCIDENT_KEY_IDS = ("monitor.alerts", "monitor.groups", "monitor.timeline", "monitor.repair", "monitor.backfills",
                    "monitor.cancel_run", "monitor.runs_by_interval", "monitor.runs_filter")


class ExportTable(Protocol):
    """What the monitor provides the incident keys: the exports table's cursor and the runs pane's view.

    The monitor passes itself to :class:`IncidentKeysController`, so mypy checks
    it provides every one, and a missing one cannot surface as an exception on a
    key press.
    """

    runs_view: RunsView
    """How the runs pane shows the selected export's runs."""

    def selected(self) -> WatchedExport | None:
        """The export under the table's cursor (None on a section row or an empty table)."""
        ...

    def selected_run(self) -> BatchExportRun | None:
        """The run under the runs pane's cursor."""
        ...

    def runs_view_changed(self, view: RunsView) -> None:
        """Show the selected export's runs this way."""
        ...

    def lacks_runs_list(self, project_id: str) -> bool:
        """Whether this server has the interface's own shape (no export list: no backfills list, no run cancel)."""
        ...

    def board_changed(self) -> None:
        """The rows' alert marks changed (an acknowledgement): draw them, with the title and the keys."""
        ...


class TableMoves(Protocol):
    """Where the incident views send the monitor's exports table (:class:`~tui.screens.monitor_table.MonitorTable`)."""

    def show_export(self, key: str) -> None:
        """Put the table's cursor on this export (clearing a filter that hides it)."""
        ...

    def show_only(self, keys: Sequence[str], label: str) -> None:
        """Filter the table to these exports."""
        ...

    def show_run(self, key: str, run_id: str) -> None:
        """Select this export and put the runs pane's cursor on this run."""
        ...


class IncidentKeysController:
    """The incident keys and each poll's alerts, for one monitor screen.

    ``host`` is the screen these keys serve: its app rings the bell and shows the
    views, toasts go through it, the hook's sends run as its workers. ``table`` is
    the monitor's selection (the cursors) and runs view; ``moves`` puts the exports
    table's cursor on a row or filters its rows.
    """

    def __init__(self, *, host: WatchdeckScreen[None], table: ExportTable, moves: TableMoves, client_for: Any,
                 clock: Any, monotonic: Any, profile: str | None, read_only: bool, on_alert: Sequence[str],
                 secret: str, journal: ActionJournal) -> None:
        self._host = host
        self._table = table
        self._moves = moves
        self._monotonic = monotonic
        book = AlertBook(journal, profile=profile)
        hooks = HookOutbox(AlertHook(on_alert, secret), journal, profile=profile, on_failure=self._hook_failed) \
            if on_alert else None
        self.incident = IncidentContext(desk=IncidentDesk(book), client_for=client_for,
                                        budget=ActionBudget(monotonic), journal=journal, clock=clock,
                                        profile=profile, read_only=read_only, hooks=hooks)
        self._timeline_model: TimelineModel | None = None
        settings = host.wd.settings
        self.marks = MarksKeeper(marks_path(state_dir(), settings.base_url, secret, demo=settings.demo),
                                 host.wd.shared.cache, settings.base_url, secret)
        self.marks.load(iter(book.new_id, 0))
        book.restore(self.marks.history)
        book.acknowledged.append(self._acknowledged_here)
        self.held = HeldEvents()
        self.by = profile or _user()
        # Alerts opened while a dialog was open, with when (monotonic): the first MAX_SHOWN, and how many more.
        self._after_dialog: list[tuple[Alert, float]] = []
        self._after_dialog_more = 0

    # ------------------------------------------------------------------ marks

    async def sync_marks(self, exports: Sequence[WatchedExport]) -> None:
        """Before a poll's answer is judged: this screen's marks out, the other screens' in (the shared store)."""
        self.marks.cache = self._host.wd.shared.cache  # opened after the first frame when deferred
        await self.marks.sync([(w.project_id, w.export.id) for w in exports])

    def _acknowledged_here(self, alert: Alert) -> None:
        self.marks.marks.acknowledge(alert, alert.acknowledged_at or alert.opened_at, self.by, time.time())
        self.marks.save(self.incident.desk.book.history)
        self._publish()

    def _publish(self) -> None:
        self.marks.cache = self._host.wd.shared.cache
        if self.marks.cache is not None:
            self._host.run_worker(self.marks.publish(), name="alert marks", group="alert-marks",
                                  exit_on_error=False)

    def silence(self, scope: Scope, seconds: float, reason: str) -> Silence:
        """Silence an export (or, with export id "", every export of a project) for ``seconds`` of wall time."""
        made = self.marks.marks.silence(scope, seconds, reason, self.by, time.time())
        for alert in self.incident.desk.book.in_course:
            if self.silence_of(alert.project_id, alert.export_id) is not None:
                alert.silence = made.words()
        self.marks.save(self.incident.desk.book.history)
        self._publish()
        self.incident.journal.append(JournalEntry(
            wall_clock(), "silence", made.words(), profile=self.incident.profile, project=scope[0],
            export=scope[1] or None, detail={"until": datetime.fromtimestamp(made.until, UTC).isoformat()}))
        return made

    def ask_silence(self, project_id: str, export_id: str, name: str, after: Callable[[], None] | None = None) -> None:
        """The silence dialog for one export (or, with export id "", its project); the silence once confirmed."""
        from tui.screens.silence import SilenceRequest, SilenceScreen

        what = (name or export_id) if export_id else f"every export of project {project_id}"
        running = self.silence_of(project_id, export_id)
        note = f"Already {running.words(time.time())}." if running is not None else ""

        def chosen(request: SilenceRequest | None) -> None:
            if request is None:
                return
            made = self.silence((project_id, export_id), request.seconds, request.reason)
            self._host.notify(clean(f"{what}: {made.words()}.", limit=300), markup=False, timeout=5)
            self._host.post_message(BoardChanged())
            if after is not None:
                after()

        self._host.app.push_screen(SilenceScreen(what, note), chosen)

    def silence_of(self, project_id: str, export_id: str) -> Silence | None:
        return self.marks.marks.silence_for(project_id, export_id, time.time())

    def silenced_keys(self, exports: Sequence[WatchedExport]) -> set[str]:
        wall = time.time()
        return {w.key for w in exports if self.marks.marks.silence_for(w.project_id, w.export.id, wall) is not None}

    def _apply_marks(self) -> bool:
        """Acknowledgements made elsewhere hold here; silenced episodes say so. Whether the history changed."""
        book = self.incident.desk.book
        wall = time.time()
        changed = False
        for alert in book.in_course:
            silence = self.marks.marks.silence_for(alert.project_id, alert.export_id, wall)
            if silence is not None:
                alert.silence = silence.words()
            ack = self.marks.marks.ack_for(alert) if alert.is_open else None
            if ack is not None:
                book.acknowledge(alert.id, datetime.fromtimestamp(ack.at, UTC), here=False)
                changed = True
        return changed

    # ------------------------------------------------------------------ each poll

    def poll(self, exports: Sequence[WatchedExport], verdicts: Mapping[str, VerdictLike],
             now: datetime, *, shown: Collection[str] | None = None) -> None:
        """Let the desk judge this poll, then carry out what the changes announce (:mod:`tui.state.alert_outlets`)."""
        host = self._host
        changes = self.incident.desk.observe(exports, verdicts, now, shown=shown)
        acked = self._apply_marks()
        if acked or changes.resolved:
            self.marks.save(self.incident.desk.book.history)
        if acked:
            self.incident.desk.marks_changed()
        said = announce(changes, self.incident.desk.book, self._monotonic(), bell=host.wd.settings.bell,
                        may_toast=self._may_toast(), hook=self.incident.hooks is not None,
                        silenced=self.marks.marks.silenced(time.time()), held=self.held)
        if said.bell:
            host.app.bell()
        for line in said.toasts:
            host.notify(line, title="Alert", severity="error", markup=False, timeout=10)
        if said.more:
            host.notify(said.more_line, severity="error", markup=False)
        if said.waiting and isinstance(host.app.screen, ModalScreen):
            self._wait_for_dialog(said.waiting)
        hooks = self.incident.hooks
        if hooks is not None:
            for event, alert in said.hook_events:
                hooks.put(event, alert)
            if hooks.claim():  # a worker while events wait; it ends when none does
                host.run_worker(hooks.run(), name="alert hook", group="alert-hook", exit_on_error=False)

    def _wait_for_dialog(self, alerts: Sequence[Alert]) -> None:
        """Keep these alerts' toasts until the dialog closes (the first few of them; the rest are counted)."""
        if not self._after_dialog and not self._after_dialog_more:
            self._host.app.screen_change_signal.subscribe(self._host, self._screen_changed)
        now = self._monotonic()
        room = MAX_SHOWN - len(self._after_dialog)
        self._after_dialog += [(alert, now) for alert in alerts[:room]]
        self._after_dialog_more += max(0, len(alerts) - room)

    def _screen_changed(self, _: object) -> None:
        """A dialog closed (or another opened): toast what waited for it, once a screen that takes toasts is on
        top; what waited longer than ``HELD_SECONDS`` is old news."""
        if isinstance(self._host.app.screen, ModalScreen):
            return
        self._host.app.screen_change_signal.unsubscribe(self._host)
        waited, more = self._after_dialog, self._after_dialog_more
        self._after_dialog, self._after_dialog_more = [], 0
        if not self._may_toast():
            return
        now = self._monotonic()
        fresh = [alert for alert, at in waited if now - at <= HELD_SECONDS]
        lines, rest = toast_lines(fresh, MAX_SHOWN, more if fresh else 0)
        for line in lines:
            self._host.notify(line, title="Alert", severity="error", markup=False, timeout=10)
        if rest:
            self._host.notify(more_line(rest), severity="error", markup=False)

    def _may_toast(self) -> bool:
        """Not over an open dialog or the editor: only when the monitor or one of its incident views is on top."""
        top = self._host.app.screen
        if isinstance(top, ModalScreen):
            return False
        return top is self._host or (isinstance(top, WatchdeckScreen) and top.TAKES_ALERT_TOASTS)

    def _hook_failed(self, message: str) -> None:
        self._host.notify(clean(message, limit=300), severity="warning", markup=False, timeout=8)

    @property
    def open_alerts(self) -> int:
        return self.incident.desk.book.open_count

    def marked_keys(self) -> set[str]:
        """The rows that carry the alert mark: the exports with an open (unacknowledged) alert."""
        return {alert.key for alert in self.incident.desk.book.open_alerts}

    def alerts_words(self) -> str:
        return alert_words(self.open_alerts)

    # ------------------------------------------------------------------ keys

    def acknowledge(self) -> None:
        """Acknowledge the selected export's open alert: quiet until its export fails again."""
        watched = self._table.selected()
        if watched is not None and self.incident.desk.book.acknowledge_export(watched.key, self.incident.clock.now()):
            self._host.notify(clean(f"Alert acknowledged: {watched.export.name}.", limit=200), markup=False, timeout=3)
            self._table.board_changed()

    def silence_selected(self, *, whole_project: bool) -> None:
        """The silence dialog for the selected export, or for every export of its project."""
        watched = self._table.selected()
        if watched is not None:
            if whole_project:
                self.ask_silence(watched.project_id, "", "")
            else:
                self.ask_silence(watched.project_id, watched.export.id, watched.export.name)

    def runs_by_interval(self) -> None:
        """All attempts, or one row per data interval with its number of attempts."""
        view = replace(self._table.runs_view, by_interval=not self._table.runs_view.by_interval)
        self._table.runs_view_changed(view)

    def runs_filter(self) -> None:
        """All, failed, running, completed, cancelled (the service's own status groups)."""
        view = replace(self._table.runs_view, filter_index=next_filter(self._table.runs_view.filter_index))
        self._table.runs_view_changed(view)
        self._host.notify(f"Runs: {view.label}", markup=False, timeout=2)

    def alerts(self) -> None:
        from tui.screens.alerts import AlertsScreen

        def chosen(result: JumpTo | None) -> None:
            self._host.post_message(BoardChanged())  # acknowledged there: the row marks and the title follow
            if result is not None:
                self._moves.show_export(result.key)

        self._host.app.push_screen(AlertsScreen(self.incident, self), chosen)

    def groups(self) -> None:
        from tui.screens.failure_groups import FailureGroupsScreen

        def chosen(result: FilterTo | None) -> None:
            if result is not None:
                self._moves.show_only(result.keys, result.label)

        self._host.app.push_screen(FailureGroupsScreen(self.incident), chosen)

    def timeline(self) -> None:
        from tui.screens.timeline import TimelineScreen
        from tui.state.timeline import TimelineModel

        if self._timeline_model is None:
            self._timeline_model = TimelineModel()

        def chosen(result: OpenRun | None) -> None:
            if result is not None:
                self._moves.show_run(result.key, result.run_id)

        self._host.app.push_screen(TimelineScreen(self.incident, self._timeline_model), chosen)

    def repair(self) -> None:
        from tui.screens.repair import RepairScreen

        watched = self._table.selected()
        if watched is None or watched.key not in self.incident.desk.exports:
            return
        self._host.app.push_screen(RepairScreen.for_export(self.incident, watched.key))

    def _unsupported(self, feature: str, project_id: str) -> bool:
        return (feature, project_id) in self.incident.unsupported or self._table.lacks_runs_list(project_id)

    def backfills(self) -> None:
        from tui.screens.backfills import NO_BACKFILLS_LIST, BackfillsScreen

        watched = self._table.selected()
        if watched is None:
            return
        if self._unsupported("backfills", watched.project_id):
            self._host.notify(NO_BACKFILLS_LIST, markup=False, timeout=6)
            return
        ref = self.incident.desk.exports[watched.key].ref if watched.key in self.incident.desk.exports else None
        if ref is not None:
            self._host.app.push_screen(BackfillsScreen(self.incident, ref))


def _user() -> str:
    """Who acknowledges and silences on this screen, when no profile names it: the account's name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "someone"
