"""The monitor's incident keys: alerts (``!``), failure groups (``g``), timeline (``t``), repair (``R``) and
backfills (``B``), with the bindings of the runs pane's keys; and what each poll does for them.

A base of :class:`~tui.screens.monitor.MonitorScreen`, kept apart so the
monitor's module stays about showing exports. After each poll the screen
calls :meth:`IncidentKeys.incident_poll`: the desk takes the exports in the
table's order with their health verdicts, and the one alert book opens,
updates and resolves episodes. An episode that opens (not one already open at
the first look) rings the bell, gets a toast (never over a dialog or the
editor, one per export per minute) and goes to the ``on_alert`` hook as
"opened", and as "resolved" when it ends; a kind changing inside an episode
does none of these.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from textual import work
from textual.binding import BindingType
from textual.screen import ModalScreen

from tui.api.models.batch_exports import BatchExportRun
from tui.key_registry import bindings, writing_actions
from tui.look.monitor_status import alert_words
from tui.look.render import clean
from tui.look.run_rows import RunsView
from tui.screens.base import WatchdeckScreen
from tui.screens.incident_base import IncidentContext
from tui.screens.monitor_actions import BoardChanged
from tui.state.alert_book import Alert, AlertBook
from tui.state.budget import ActionBudget
from tui.state.exports import WatchedExport
from tui.state.incident import IncidentDesk, VerdictLike
from tui.state.io.alert_hooks import AlertHook
from tui.state.io.journal import ActionJournal
from tui.state.run_list import next_filter

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
INCIDENT_ACTIONS = frozenset({"alerts", "groups", "timeline", "repair", "backfills", "cancel_run"})
TOASTS_PER_POLL = 5


class ExportTable(Protocol):
    """What the monitor provides the incident keys: the exports table's cursor, and ways to show a row.

    A protocol rather than methods to override: the monitor passes itself to
    :meth:`IncidentKeys.incident_setup`, so mypy checks it provides every one, and
    a missing one cannot surface as an exception on a key press.
    """

    def selected(self) -> WatchedExport | None:
        """The export under the table's cursor (None on a section row or an empty table)."""
        ...

    def selected_run(self) -> BatchExportRun | None:
        """The run under the runs pane's cursor."""
        ...

    def show_export(self, key: str) -> None:
        """Put the table's cursor on this export (clearing a filter that hides it)."""
        ...

    def show_only(self, keys: Sequence[str], label: str) -> None:
        """Filter the table to these exports."""
        ...

    def show_run(self, key: str, run_id: str) -> None:
        """Select this export and put the runs pane's cursor on this run."""
        ...

    def runs_view_changed(self, view: RunsView) -> None:
        """Show the selected export's runs this way."""
        ...

    def lacks_runs_list(self, project_id: str) -> bool:
        """Whether this server has the interface's own shape (no export list: no backfills list, no run cancel)."""
        ...


class IncidentKeys(WatchdeckScreen[None]):
    """Provides the incident keys; the monitor provides the exports, the verdicts and the way to show a row."""

    BINDINGS: ClassVar[list[BindingType]] = list(bindings(*INCIDENT_KEY_IDS))

    incident: IncidentContext
    _export_table: ExportTable
    hook: AlertHook | None = None
    _timeline_model: TimelineModel | None = None

    # ------------------------------------------------------------------ setup and each poll

    def incident_setup(self, *, export_table: ExportTable, client_for: Any, clock: Any, monotonic: Any,
                       profile: str | None, read_only: bool, on_alert: Sequence[str], secret: str,
                       journal: ActionJournal) -> None:
        self._export_table = export_table
        book = AlertBook(journal, profile=profile)
        self.incident = IncidentContext(desk=IncidentDesk(book), client_for=client_for,
                                        budget=ActionBudget(monotonic), journal=journal, clock=clock,
                                        profile=profile, read_only=read_only)
        self.hook = AlertHook(on_alert, secret) if on_alert else None

    def incident_poll(self, exports: Sequence[WatchedExport], verdicts: Mapping[str, VerdictLike],
                      now: datetime, *, shown: Collection[str] | None = None) -> None:
        changes = self.incident.desk.observe(exports, verdicts, now, shown=shown)
        book = self.incident.desk.book
        if self.wd.settings.bell and any(alert.new for alert in changes.opened):
            self.app.bell()
        if changes.opened and self._may_toast():
            chosen = book.toasts(changes.opened, now)
            for alert in chosen[:TOASTS_PER_POLL]:
                self.notify(clean(f"{alert.export_name}: {alert.kind}, {alert.detail}", limit=300),
                            title="Alert", severity="error", markup=False, timeout=10)
            if len(chosen) > TOASTS_PER_POLL:
                self.notify(f"{len(chosen) - TOASTS_PER_POLL} more new alerts: ! lists them", severity="error",
                            markup=False)
        elif changes.opened:
            book.toasts(changes.opened, now)  # counted as shown: no burst when the dialog closes
        if self.hook is not None:
            # Only what was announced ends: an alert already open at the first look was never sent as opened
            # (``new`` is False), so its end would page someone about a start they never heard of.
            events = ([("opened", a) for a in changes.opened if a.new]
                      + [("resolved", a) for a in changes.resolved if a.new])
            if events:
                self._send_hooks(events)

    def _may_toast(self) -> bool:
        """Not over an open dialog or the editor: only when the monitor or one of its incident views is on top."""
        top = self.app.screen
        if isinstance(top, ModalScreen):
            return False
        return top is self or (isinstance(top, WatchdeckScreen) and top.TAKES_ALERT_TOASTS)

    @work(group="alert-hook", exit_on_error=False)
    async def _send_hooks(self, events: list[tuple[str, Alert]]) -> None:
        assert self.hook is not None
        for event, alert in events:
            result = await self.hook.send(alert.to_json(event))
            if not result.ok:
                self.notify(clean(f"on_alert hook: {result.message}", limit=300), severity="warning",
                            markup=False, timeout=8)

    @property
    def open_alerts(self) -> int:
        return self.incident.desk.book.open_count

    def marked_keys(self) -> set[str]:
        """The rows that carry the alert mark: the exports with an open (unacknowledged) alert."""
        return {alert.key for alert in self.incident.desk.book.open_alerts}

    def alerts_words(self) -> str:
        return alert_words(self.open_alerts)

    # ------------------------------------------------------------------ keys

    def incident_check(self, action: str, read_only: bool) -> bool | None:
        """``check_action`` for the incident keys: None greys a key out, False hides it."""
        if action in writing_actions("monitor") and read_only:
            return False
        if action == "repair" and self._export_table.selected() is None:
            return None
        if action == "backfills" and self._export_table.selected() is None:
            return None
        if action == "cancel_run":  # on a finished run it says why it cannot
            return True if self._export_table.selected_run() is not None else None
        return True

    _runs_view: RunsView = RunsView()

    def action_runs_by_interval(self) -> None:
        """All attempts, or one row per data interval with its number of attempts."""
        view = replace(self._runs_view, by_interval=not self._runs_view.by_interval)
        self._export_table.runs_view_changed(view)

    def action_runs_filter(self) -> None:
        """All, failed, running, completed, cancelled (the service's own status groups)."""
        view = replace(self._runs_view, filter_index=next_filter(self._runs_view.filter_index))
        self._export_table.runs_view_changed(view)
        self.notify(f"Runs: {view.label}", markup=False, timeout=2)

    def action_alerts(self) -> None:
        from tui.screens.alerts import AlertsScreen

        def chosen(result: JumpTo | None) -> None:
            self.post_message(BoardChanged())  # acknowledged there: the row marks and the title follow
            if result is not None:
                self._export_table.show_export(result.key)

        self.app.push_screen(AlertsScreen(self.incident), chosen)

    def action_groups(self) -> None:
        from tui.screens.failure_groups import FailureGroupsScreen

        def chosen(result: FilterTo | None) -> None:
            if result is not None:
                self._export_table.show_only(result.keys, result.label)

        self.app.push_screen(FailureGroupsScreen(self.incident), chosen)

    def action_timeline(self) -> None:
        from tui.screens.timeline import TimelineScreen
        from tui.state.timeline import TimelineModel

        if self._timeline_model is None:
            self._timeline_model = TimelineModel()

        def chosen(result: OpenRun | None) -> None:
            if result is not None:
                self._export_table.show_run(result.key, result.run_id)

        self.app.push_screen(TimelineScreen(self.incident, self._timeline_model), chosen)

    def action_repair(self) -> None:
        from tui.screens.repair import RepairScreen

        watched = self._export_table.selected()
        if watched is None or watched.key not in self.incident.desk.exports:
            return
        self.app.push_screen(RepairScreen.for_export(self.incident, watched.key))

    def _unsupported(self, feature: str, project_id: str) -> bool:
        return (feature, project_id) in self.incident.unsupported or self._export_table.lacks_runs_list(project_id)

    def action_backfills(self) -> None:
        from tui.screens.backfills import NO_BACKFILLS_LIST, BackfillsScreen

        watched = self._export_table.selected()
        if watched is None:
            return
        if self._unsupported("backfills", watched.project_id):
            self.notify(NO_BACKFILLS_LIST, markup=False, timeout=6)
            return
        ref = self.incident.desk.exports[watched.key].ref if watched.key in self.incident.desk.exports else None
        if ref is not None:
            self.app.push_screen(BackfillsScreen(self.incident, ref))
