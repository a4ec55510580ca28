"""Where the monitor's keys go: each ``action_*`` method Textual runs for a binding of the monitor hands the key to
the object that carries it out.

Textual runs a binding's action as the ``action_<name>`` method of the screen; :class:`MonitorRoutes` holds the
monitor's, and the :class:`~tui.screens.monitor.MonitorScreen` inherits them. The action keys on the selected
export or run go to :class:`~tui.screens.monitor_keys.ExportKeys`, the incident keys to
:class:`~tui.screens.monitor_incident.IncidentKeysController`, the poll keys to
:class:`~tui.screens.monitor_work.MonitorWork`, the filter to :class:`~tui.screens.monitor_table.MonitorTable`.
The keys that change only how the screen shows what it holds, or where the focus is (details, freeze, enter,
escape), are the screen's own methods. Which keys apply now is :mod:`tui.state.monitor_key_rules`'s.
"""

from __future__ import annotations

from tui.screens.monitor_incident import IncidentKeysController
from tui.screens.monitor_keys import ExportKeys
from tui.screens.monitor_table import MonitorTable
from tui.screens.monitor_work import MonitorWork


class MonitorRoutes:
    """The monitor's ``action_*`` methods, each a hand-off."""

    export_keys: ExportKeys
    incident_keys: IncidentKeysController
    work: MonitorWork
    table: MonitorTable

    # ------------------------------------------------------------------ on the selected export or run

    def action_pause(self) -> None:
        self.export_keys.pause(True)

    def action_unpause(self) -> None:
        self.export_keys.pause(False)

    def action_backfill(self) -> None:
        self.export_keys.backfill()

    def action_retry(self) -> None:
        self.export_keys.retry()

    def action_cancel_run(self) -> None:
        self.export_keys.cancel_run()

    def action_edit(self) -> None:
        self.export_keys.edit()

    def action_delete(self) -> None:
        self.export_keys.delete()

    def action_run_logs(self) -> None:
        self.export_keys.logs(of_run=True)

    def action_export_logs(self) -> None:
        self.export_keys.logs(of_run=False)

    # ------------------------------------------------------------------ alerts and incident views

    def action_acknowledge(self) -> None:
        self.incident_keys.acknowledge()

    def action_silence(self) -> None:
        self.incident_keys.silence_selected(whole_project=False)

    def action_silence_project(self) -> None:
        self.incident_keys.silence_selected(whole_project=True)

    def action_alerts(self) -> None:
        self.incident_keys.alerts()

    def action_groups(self) -> None:
        self.incident_keys.groups()

    def action_timeline(self) -> None:
        self.incident_keys.timeline()

    def action_repair(self) -> None:
        self.incident_keys.repair()

    def action_backfills(self) -> None:
        self.incident_keys.backfills()

    def action_runs_by_interval(self) -> None:
        self.incident_keys.runs_by_interval()

    def action_runs_filter(self) -> None:
        self.incident_keys.runs_filter()

    # ------------------------------------------------------------------ the table and the polls

    def action_filter(self) -> None:
        self.table.open_filter()

    def action_refresh(self) -> None:
        self.work.refresh()

    def action_slower(self) -> None:
        self.work.step_interval(slower=True)

    def action_faster(self) -> None:
        self.work.step_interval(slower=False)
