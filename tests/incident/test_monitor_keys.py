"""The incident keys on the monitor, against the sandbox: what the screen shows and what the server received."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static

from tests.monitor.conftest import FROZEN_AT, back_to, make_app, requests, sandbox_call, select_export
from tests.pilot import settle, toast_texts
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.alerts import AlertsScreen
from tui.screens.backfills import BackfillsScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import RunErrorScreen
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.monitor import MonitorScreen
from tui.screens.repair import RepairScreen
from tui.screens.timeline import TimelineScreen
from tui.state.io.export_actions import NO_RUN_CANCEL
from tui.widgets.timeline_view import TimelineView
from tui.widgets.virtual_table import VirtualTable

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


async def alerts_key_lists_the_failing_export_and_enter_goes_there(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    screen = monitor(app)
    assert screen.incident.desk.book.open_count >= 1
    assert f"{screen.incident.desk.book.open_count} alert" in status_line(app)
    assert screen.sub_title == screen.incident_keys.alerts_words()
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


async def groups_key_and_enter_filter_the_table_and_esc_shows_all(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    table = monitor(app).query_one("#exports", VirtualTable)
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


async def timeline_key_and_enter_open_the_run_under_the_cursor(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    await pilot.press("t")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, TimelineScreen)
    model = screen.model
    row = model.order.index(next(k for k in model.order if monitor(app).incident.desk.name_of(k) == FAILING))
    column = max(i for i, status in enumerate(model.rows[model.order[row]].statuses) if status == "Failed")
    view = screen.query_one(TimelineView)
    view.cursor_row, view.cursor_col = row, column
    named = model.runs_at(row, column)[0]
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, RunErrorScreen) and app.screen.run.id == named.id
    await pilot.press("escape")
    await settle(pilot)
    assert app.screen is screen, "escape comes back to the timeline"
    await pilot.press("escape")
    await settle(pilot)
    assert app.screen is monitor(app)
    selected = monitor(app).selected()
    assert selected is not None and selected.export.name == FAILING
    assert monitor(app).selected_run() == named, "the monitor shows the run last opened"


FAILED_GROUP = ("Failed", "FailedRetryable", "FailedBilling")  # the real service's "failed" status group


def failed_intervals_on_server(handle: SandboxHandle, export_id: str, since: str) -> set[str]:
    """From the sandbox's own database: the run ids whose interval (starting at or after ``since``) has a failed
    latest attempt: what a repair from ``since`` must retry, one each."""
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id, status, data_interval_start, data_interval_end, created_at FROM runs "
                         "WHERE export_id = ? ORDER BY created_at", (export_id,)).fetchall()
    latest = {row["data_interval_end"]: row for row in rows}  # ordered by creation: the last attempt stays
    return {row["id"] for row in latest.values()
            if row["status"] in FAILED_GROUP and row["data_interval_start"] >= since}


async def repair_key_sends_one_retry_per_failed_interval(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    key = select_export(app, FAILING)
    export_id = monitor(app).incident.desk.exports[key].watched.export.id
    await settle(pilot)
    await pilot.press("R")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, RepairScreen)
    # A window wider than the current streak (the 10:00 interval completed): older failures, some retryable.
    screen.query_one("#repair-since", Input).value = "2026-11-22 01:30"
    await settle(pilot)
    expected = failed_intervals_on_server(sandbox, export_id, "2026-11-22T01:30")
    assert len(expected) >= 4
    await pilot.press("ctrl+s")
    for _ in range(100):
        await settle(pilot)
        if screen.progress is not None and screen.progress.finished:
            break
    sent = [r["path"].split("/runs/")[1].split("/")[0] for r in requests(sandbox, "POST", "/retry/")]
    assert sorted(sent) == sorted(expected)
    assert all(f"/batch_exports/{export_id}/runs/" in r["path"] for r in requests(sandbox, "POST", "/retry/"))
    assert key in monitor(app).incident.desk.exports
    retries = [e for e in monitor(app).incident.journal.tail() if e["action"] == "bulk retry"]
    assert sorted(e["run"] for e in retries) == sorted(expected)
    assert all(stamped_now(e, FAILING) for e in retries)


async def runs_pane_i_groups_by_interval_and_f_filters(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    select_export(app, FAILING)
    await settle(pilot)
    runs = monitor(app).query_one("#runs", VirtualTable)
    every = runs.row_count
    await pilot.press("f")  # failed
    await settle(pilot)
    failed = runs.row_count
    assert 0 < failed < every
    assert all(runs.cell(i, "status").split()[1] in ("failed", "retryable", "billing")
               for i in range(failed))
    await pilot.press("f", "f", "f", "f")  # back to all
    await settle(pilot)
    every = runs.row_count
    intervals = {runs.cell(i, "interval") for i in range(every)}
    await pilot.press("i")
    await settle(pilot)
    assert runs.row_count == len(intervals) <= every


def stamped_now(entry: dict[str, Any], name: str) -> bool:
    """A journal entry names the export and its project, carries real time, and the server's frozen one beside it."""
    real = abs(datetime.fromisoformat(entry["time"]) - datetime.now(UTC)) < timedelta(minutes=5)
    return (real and entry["server_time"] == FROZEN_AT.isoformat() and entry["name"] == name
            and entry["project"] == "1")


def running_export(screen: MonitorScreen) -> Any:
    """The watched export whose latest runs include one still running or starting (the seed has one)."""
    return next(item.watched for item in screen.incident.desk.exports.values()
                if any(r.is_in_progress for r in item.watched.export.latest_runs))


async def put_cursor_on_a_running_run(pilot: Any, screen: MonitorScreen, name: str) -> None:
    select_export(pilot.app, name)
    await settle(pilot)
    runs_table = screen.query_one("#runs", VirtualTable)
    index = next(i for i in range(runs_table.row_count)
                 if runs_table.cell(i, "status").split()[1] in ("running", "starting"))
    runs_table.move_cursor(index)
    await settle(pilot)
    selected = screen.selected_run()
    assert selected is not None and selected.is_in_progress


def notes(app: Any) -> list[str]:
    return toast_texts(app)


def add_fault(handle: SandboxHandle, **fault: Any) -> None:
    sandbox_call("POST", f"{handle.base_url}/_sandbox/faults", json=fault, timeout=10).raise_for_status()


def run_status(handle: SandboxHandle, run_id: str) -> str:
    with handle.state.db.read() as c:
        return str(c.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()["status"])


async def cancel_key_asks_then_cancels_the_running_run_on_the_server(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    screen = monitor(app)
    running = running_export(screen)
    await put_cursor_on_a_running_run(pilot, screen, running.export.name)
    run = screen.selected_run()
    assert run is not None
    await pilot.press("c")
    await settle(pilot)
    assert isinstance(app.screen, ConfirmScreen)
    assert requests(sandbox, "POST", "/cancel/") == [], "asks before sending"
    await pilot.press("y")
    await settle(pilot)
    cancels = requests(sandbox, "POST", "/cancel/")
    assert [r["path"] for r in cancels] == [
        f"/api/environments/1/batch_exports/{running.export.id}/runs/{run.id}/cancel/"]
    assert run_status(sandbox, run.id) == "Cancelled"
    entry = screen.incident.journal.tail()[-1]
    assert (entry["action"], entry["run"], entry["result"]) == ("cancel run", run.id, "ok")
    assert stamped_now(entry, running.export.name)


async def test_cancel_key_on_the_interfaces_own_server_says_so_and_sends_nothing(sandbox: SandboxHandle) -> None:
    # The interface's own server has no export list (404): exports are watched by id, and there is no run cancel.
    add_fault(sandbox, kind="status", status=404, path=r"/batch_exports/$")
    with sandbox.state.db.read() as c:
        ids = [str(r["id"]) for r in c.execute("SELECT id FROM exports WHERE project_id = 1").fetchall()]
    app = make_app(sandbox, export_ids=ids)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        running = running_export(screen)
        assert screen.lacks_runs_list(running.project_id)
        await put_cursor_on_a_running_run(pilot, screen, running.export.name)
        before = len(sandbox.requests())
        await pilot.press("c")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert notes(app)[-1] == NO_RUN_CANCEL and "\n" not in NO_RUN_CANCEL
        assert requests(sandbox, "POST") == []
        assert all(r["method"] == "GET" for r in sandbox.requests()[before:])


async def test_cancel_key_where_the_cancel_route_is_missing_learns_it_once(sandbox: SandboxHandle) -> None:
    add_fault(sandbox, kind="status", status=404, path=r"/runs/[^/]+/cancel/$")
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        running = running_export(screen)
        await put_cursor_on_a_running_run(pilot, screen, running.export.name)
        run = screen.selected_run()
        assert run is not None
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert len(requests(sandbox, "POST", "/cancel/")) == 1
        assert "cannot cancel runs" in notes(app)[-1]
        assert screen.incident.journal.tail()[-1]["result"] == "not supported"
        assert run_status(sandbox, run.id) == run.status, "the 404 changed nothing"
        await pilot.press("c")  # now known: says so at once, no question, nothing sent
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert notes(app)[-1] == NO_RUN_CANCEL
        assert len(requests(sandbox, "POST", "/cancel/")) == 1


def make_backfill(handle: SandboxHandle) -> tuple[str, str, str]:
    """A backfill of the project's first hourly export still running: (export id, export name, backfill id)."""
    with handle.state.db.read() as c:
        export_id, data = next((str(r["id"]), r["data"]) for r in c.execute(
            "SELECT id, data FROM exports WHERE project_id = 1 AND interval = 'hour' AND paused = 0 "
            "AND end_at IS NULL ORDER BY created_at").fetchall())
    made = sandbox_call("POST", f"{handle.base_url}/api/projects/1/batch_exports/{export_id}/backfills/",
                      headers={"Authorization": f"Bearer {handle.api_key}"}, timeout=10,
                      json={"start_at": "2026-11-20T00:00:00Z", "end_at": "2026-11-20T06:00:00Z"})
    assert made.status_code == 201, made.text
    return export_id, json.loads(data)["name"], made.json()["backfill_id"]


async def backfills_key_lists_them_and_c_cancels_one_after_asking(pilot: Any, sandbox: SandboxHandle,
                                                                 backfill: tuple[str, str, str]) -> None:
    export_id, name, backfill_id = backfill
    app = pilot.app
    screen = monitor(app)
    select_export(app, name)
    await settle(pilot)
    listed_before = len(requests(sandbox, "GET", f"/{export_id}/backfills/"))
    cancels_before = len(requests(sandbox, "POST", "/cancel/"))
    await pilot.press("B")
    await settle(pilot)
    shown = app.screen
    assert isinstance(shown, BackfillsScreen)
    table = shown.query_one("#backfills-table", DataTable)
    rows = [str(k.value) for k in table.rows]
    assert backfill_id in rows
    assert len(requests(sandbox, "GET", f"/{export_id}/backfills/")) == listed_before + 1
    table.move_cursor(row=rows.index(backfill_id))
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    assert isinstance(app.screen, ConfirmScreen)
    assert len(requests(sandbox, "POST", "/cancel/")) == cancels_before, "asks before sending"
    await pilot.press("y")
    await settle(pilot)
    cancels = requests(sandbox, "POST", "/cancel/")[cancels_before:]
    assert [r["path"] for r in cancels] == [
        f"/api/environments/1/batch_exports/{export_id}/backfills/{backfill_id}/cancel/"]
    with sandbox.state.db.read() as c:
        assert c.execute("SELECT cancelled_at FROM backfills WHERE id = ?",
                         (backfill_id,)).fetchone()["cancelled_at"]
    assert app.screen is shown
    entry = screen.incident.journal.tail()[-1]
    assert (entry["action"], entry["result"], entry["detail"]) == ("cancel backfill", "ok",
                                                                   {"backfill": backfill_id})
    assert stamped_now(entry, name)


ELSEWHERE = "Events to S3 data lake"  # an export with no alert: where each case that goes somewhere starts


async def test_incident_keys_that_look(sandbox: SandboxHandle) -> None:
    """One monitor session, each case starting from the monitor with the cursor on another export than the one it
    goes to: t and Enter open the run under the timeline's cursor (and the monitor shows it); ! lists the failing
    export and Enter goes there; g and Enter filter the table to a group, Escape shows all; in the runs pane f
    filters the failed runs and i groups them by interval. 160 columns: the status line names the group only
    where it fits."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        for case in (timeline_key_and_enter_open_the_run_under_the_cursor,
                     alerts_key_lists_the_failing_export_and_enter_goes_there,
                     groups_key_and_enter_filter_the_table_and_esc_shows_all,
                     runs_pane_i_groups_by_interval_and_f_filters):
            await back_to(pilot, screen)
            select_export(app, ELSEWHERE)
            await settle(pilot)
            selected = screen.selected()
            assert selected is not None and selected.export.name == ELSEWHERE != FAILING, case.__name__
            await case(pilot, sandbox)
    assert [r for r in sandbox.requests() if r["method"] != "GET"] == []


async def test_incident_keys_that_write(sandbox: SandboxHandle) -> None:
    """One monitor session, each case starting from the monitor and counting requests from its own start:
    c asks, then cancels the running run on the server; R sends one retry per failed interval (counted on the
    server's record); B lists the backfills and c cancels one after asking."""
    backfill = make_backfill(sandbox)
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        await cancel_key_asks_then_cancels_the_running_run_on_the_server(pilot, sandbox)
        await back_to(pilot, screen)
        await repair_key_sends_one_retry_per_failed_interval(pilot, sandbox)
        await back_to(pilot, screen)
        await backfills_key_lists_them_and_c_cancels_one_after_asking(pilot, sandbox, backfill)


async def test_several_projects_have_a_section_each_named_by_the_server(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, project_ids=["1", "2"])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = monitor(app).query_one("#exports", VirtualTable)
        keys = table.keys()
        sections = [k for k in keys if k.startswith("section:")]
        assert sections == ["section:1", "section:2"]
        assert keys.index("section:2") > keys.index("section:1") + 1
        names = [table.cell(keys.index(k), "name") for k in sections]
        assert all(name.startswith("▾ ") and "project " not in name for name in names)
        table.move_cursor(keys.index("section:2"))
        await settle(pilot)
        assert monitor(app).selected() is None  # a section is no export: the export keys do nothing there
