"""The incident keys on the monitor, against the sandbox: what the screen shows and what the server received."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from tests.monitor.conftest import FROZEN_AT, make_app, requests, select_export, settle
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.alerts import AlertsScreen
from tui.screens.export_modals import RunErrorScreen
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.monitor import MonitorScreen
from tui.screens.repair import RepairScreen
from tui.screens.timeline import TimelineScreen
from tui.widgets.live_table import LiveTable
from tui.widgets.timeline_view import TimelineView

FAILING = "Snowflake warehouse (hourly)"  # the seed's export whose latest run failed


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


def monitor(app: Any) -> MonitorScreen:
    screen = next(s for s in app.screen_stack if isinstance(s, MonitorScreen))
    return screen


def status_line(app: Any) -> str:
    return str(monitor(app).query_one("#monitor-status", Static).render())


async def test_alerts_key_lists_the_failing_export_and_enter_goes_there(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        assert screen.incident.desk.book.open_count >= 1
        assert f"{screen.incident.desk.book.open_count} alert" in status_line(app)
        assert screen.sub_title == screen.alerts_words()
        await pilot.press("exclamation_mark")
        await settle(pilot)
        assert isinstance(app.screen, AlertsScreen)
        table = app.screen.query_one("#alerts-open", DataTable)
        names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert FAILING in names
        table.move_cursor(row=names.index(FAILING))
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert screen.selected() is not None and screen.selected().export.name == FAILING


async def test_groups_key_and_enter_filter_the_table_and_esc_shows_all(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = monitor(app).query_one("#exports", LiveTable)
        everything = table.row_count
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, FailureGroupsScreen)
        group = app.screen.highlighted()
        assert group is not None
        await pilot.press("enter")
        await settle(pilot)
        assert table.row_count == group.export_count < everything
        assert "group:" in status_line(app)
        await pilot.press("escape")
        await settle(pilot)
        assert table.row_count == everything


async def test_timeline_key_and_enter_open_the_run_under_the_cursor(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        model = screen.model
        row = model.order.index(next(k for k in model.order if monitor(app).incident.desk.name_of(k) == FAILING))
        column = max(i for i, status in enumerate(model.rows[model.order[row]].statuses) if status == "Failed")
        view = screen.query_one(TimelineView)
        view.cursor_row, view.cursor_col = row, column
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RunErrorScreen)


async def test_repair_key_sends_one_retry_per_failed_interval(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        key = select_export(app, FAILING)
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RepairScreen)
        expected = {t.run_id for t in screen.plan.targets}
        assert expected
        await pilot.press("ctrl+s")
        for _ in range(100):
            await settle(pilot)
            if screen.progress is not None:
                break
        sent = {r["path"].split("/runs/")[1].split("/")[0] for r in requests(sandbox, "POST", "/retry/")}
        assert sent == expected
        assert screen.progress is not None and screen.progress.sent == len(expected)
        assert key in monitor(app).incident.desk.exports


async def test_runs_pane_i_groups_by_interval_and_f_filters(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, FAILING)
        await settle(pilot)
        runs = monitor(app).query_one("#runs", LiveTable)
        every = runs.row_count
        await pilot.press("f")  # failed
        await settle(pilot)
        failed = runs.row_count
        assert 0 < failed < every
        assert all(str(runs.get_row_at(i)[0]).split()[1] in ("failed", "retryable", "billing")
                   for i in range(failed))
        await pilot.press("f", "f", "f", "f")  # back to all
        await settle(pilot)
        every = runs.row_count
        intervals = {str(runs.get_row_at(i)[1]) for i in range(every)}
        await pilot.press("i")
        await settle(pilot)
        assert runs.row_count == len(intervals) <= every


async def test_cancel_key_on_a_server_without_run_cancel_says_so(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        running = next(item.watched for item in screen.incident.desk.exports.values()
                       if any(r.is_in_progress for r in item.watched.export.latest_runs))
        select_export(app, running.export.name)
        await settle(pilot)
        runs_table = screen.query_one("#runs", LiveTable)
        index = next(i for i in range(runs_table.row_count)
                     if str(runs_table.get_row_at(i)[0]).split()[1] in ("running", "starting"))
        runs_table.move_cursor(row=index)
        await settle(pilot)
        assert screen.selected_run() is not None and screen.selected_run().is_in_progress
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert len(requests(sandbox, "POST", "/cancel/")) == 1
        journal = screen.incident.journal.tail()
        assert journal[-1]["action"] == "cancel run" and journal[-1]["run"]
        if ("cancel", running.project_id) in screen.incident.unsupported:
            # a server without runs/:id/cancel/: the key now says so and sends nothing more
            await pilot.press("c")
            await settle(pilot)
            assert len(requests(sandbox, "POST", "/cancel/")) == 1
        else:
            assert journal[-1]["result"] == "ok"


async def test_several_projects_have_a_section_each_named_by_the_server(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, project_ids=["1", "2"])
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = monitor(app).query_one("#exports", LiveTable)
        keys = [str(key.value) for key in table.rows]
        sections = [k for k in keys if k.startswith("section:")]
        assert sections == ["section:1", "section:2"]
        assert keys.index("section:2") > keys.index("section:1") + 1
        names = [str(table.get_row(k)[1]) for k in sections]
        assert all(name.startswith("▾ ") and "project " not in name for name in names)
        table.move_cursor(row=keys.index("section:2"))
        await settle(pilot)
        assert monitor(app).selected() is None  # a section is no export: the export keys do nothing there
