"""A group repair from the server's record, against the sandbox: two exports, one recovered since.

The real service's ``latest_runs`` holds the ten newest runs (``BatchExportSerializer.get_latest_runs`` in
PostHog's ``posthog/batch_exports/http.py``); a retry (``POST …/runs/:id/retry/``) re-exports exactly that run's
interval. So the plan comes from the runs list read over the repair window, not from the newest ten: an export
whose newest runs completed still has failed intervals to repair, and an interval with a run is never a gap.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from textual.widgets import Checkbox, DataTable

from tests.monitor.conftest import FROZEN_AT, make_app, requests
from tests.pilot import settle
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.sandbox.timeutil import parse_iso
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.monitor import MonitorScreen
from tui.screens.repair import RepairScreen
from tui.state.run_history import PER_EXPORT

ERROR = "OperationalError: connection to server at \"db.internal\", port 5432 failed: Connection refused"


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


def two_hourly_exports(handle: SandboxHandle) -> tuple[str, str]:
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id FROM exports WHERE project_id = ? AND interval = 'hour' AND paused = 0 "
                         "AND deleted = 0 AND end_at IS NULL ORDER BY id LIMIT 2", (int(handle.project_id),)).fetchall()
    assert len(rows) == 2, "the seed changed: need two active hourly exports in project 1"
    return str(rows[0]["id"]), str(rows[1]["id"])


def fail_runs(handle: SandboxHandle, export_id: str, completed_newest: int, failed: int) -> set[str]:
    """Every run of the export completed, but ``failed`` runs after its ``completed_newest`` newest; their ids."""
    with handle.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'Completed', latest_error = NULL WHERE export_id = ?", (export_id,))
        rows = c.execute("SELECT id FROM runs WHERE export_id = ? ORDER BY created_at DESC, id DESC",
                         (export_id,)).fetchall()
        chosen = [str(r["id"]) for r in rows[completed_newest:completed_newest + failed]]
        for run_id in chosen:
            c.execute("UPDATE runs SET status = 'Failed', latest_error = ? WHERE id = ?", (ERROR, run_id))
    return set(chosen)


def runs_over(handle: SandboxHandle, export_id: str, start: datetime, end: datetime) -> list[str]:
    """The server's runs of the export whose data interval overlaps ``[start, end)``."""
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id, data_interval_start, data_interval_end FROM runs WHERE export_id = ?",
                         (export_id,)).fetchall()
    return [str(r["id"]) for r in rows if r["data_interval_end"] and parse_iso(r["data_interval_end"]) > start
            and parse_iso(r["data_interval_start"] or r["data_interval_end"]) < end]


async def test_a_group_repair_retries_every_failed_interval_of_both_exports_one_recovered(
        sandbox: SandboxHandle) -> None:
    failing, recovered = two_hourly_exports(sandbox)
    # Eleven failed in a row (one older than latest_runs); the other failed eight times (one older than its
    # latest_runs) and then completed three runs.
    expected = {failing: fail_runs(sandbox, failing, 0, 11), recovered: fail_runs(sandbox, recovered, 3, 8)}
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        groups = app.screen
        assert isinstance(groups, FailureGroupsScreen)
        keys = {f"{sandbox.project_id}:{failing}", f"{sandbox.project_id}:{recovered}"}
        (group,) = [g for g in groups.desk.groups() if "Connection refused" in g.sample_error]
        assert set(group.export_keys) == keys
        table = groups.query_one("#groups-table", DataTable)
        table.move_cursor(row=[str(k.value) for k in table.rows].index(group.signature))
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        repair: Any = app.screen
        assert isinstance(repair, RepairScreen)
        assert repair.plan.count == 19 and repair.plan.exports == 2
        # No gap where the server holds a run; backfilling gaps is off unless ticked.
        assert not repair.query_one("#repair-gaps", Checkbox).value
        for gap in repair.gaps:
            assert runs_over(sandbox, gap.export.export_id, gap.start, gap.end) == [], gap.describe()
        assert repair.focused is repair.query_one("#repair-go")
        await pilot.press("y")
        for _ in range(200):
            await settle(pilot)
            if repair.progress is not None and repair.progress.finished:
                break
        assert repair.progress is not None and repair.progress.sent == 19
    # Counted on the server: one retry per failed interval of each export, none twice, nothing else.
    posted = [r["path"] for r in requests(sandbox, "POST", "/retry/")]
    retried: dict[str, list[str]] = {}
    for path in posted:
        export_id, run_id = path.split("/batch_exports/")[1].split("/runs/")
        retried.setdefault(export_id, []).append(run_id.split("/")[0])
    assert {k: sorted(v) for k, v in retried.items()} == {k: sorted(v) for k, v in expected.items()}


def two_five_minute_exports(handle: SandboxHandle) -> tuple[str, str]:
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id FROM exports WHERE project_id = ? AND interval = 'every 5 minutes' AND paused = 0 "
                         "AND deleted = 0 AND end_at IS NULL ORDER BY id LIMIT 2", (int(handle.project_id),)).fetchall()
    assert len(rows) == 2, "the seed changed: need two active 5-minute exports in project 1"
    return str(rows[0]["id"]), str(rows[1]["id"])


async def test_the_repair_window_holds_more_runs_than_the_run_history_keeps_while_nobody_looks(
        sandbox: SandboxHandle) -> None:
    """The run history keeps 40 runs per export while no view is open (``PER_EXPORT``); a group repair over
    ninety failed 5-minute intervals of a recovered export still plans every one of them, as the server holds
    them, and once the views close the history is cut back to its bound."""
    failing = two_hourly_exports(sandbox)[0]
    recovered = two_five_minute_exports(sandbox)[1]  # the other one's newest runs include a retried interval
    expected = {failing: fail_runs(sandbox, failing, 0, 11), recovered: fail_runs(sandbox, recovered, 3, 90)}
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("s")  # the last 24 h, not only the current incident (the failing export's eleven hours)
        await settle(pilot)
        groups = app.screen
        assert isinstance(groups, FailureGroupsScreen)
        history = groups.desk.history
        keys = {f"{sandbox.project_id}:{failing}", f"{sandbox.project_id}:{recovered}"}
        (group,) = [g for g in groups.desk.groups() if "Connection refused" in g.sample_error]
        assert set(group.export_keys) == keys
        assert group_runs(group) == expected
        table = groups.query_one("#groups-table", DataTable)
        table.move_cursor(row=[str(k.value) for k in table.rows].index(group.signature))
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        repair: Any = app.screen
        assert isinstance(repair, RepairScreen)
        planned: dict[str, set[str]] = {}
        for target in repair.plan.targets:
            planned.setdefault(target.export.export_id, set()).add(target.run_id)
        assert planned == expected  # every failed interval the server holds, each once
        for gap in repair.gaps:
            assert runs_over(sandbox, gap.export.export_id, gap.start, gap.end) == [], gap.describe()
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MonitorScreen)
        assert len(history.runs(f"{sandbox.project_id}:{recovered}")) == PER_EXPORT
        assert len(history.runs(f"{sandbox.project_id}:{failing}")) == PER_EXPORT


def group_runs(group: Any) -> dict[str, set[str]]:
    """The run ids of a failure group, by export id."""
    out: dict[str, set[str]] = {}
    for failed in group.runs:
        out.setdefault(failed.export_key.split(":", 1)[1], set()).add(failed.run.id)
    return out
