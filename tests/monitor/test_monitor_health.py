"""The monitor's verdicts against the sandbox: not found is not "no list", server time, incomplete answers."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot

from tests.ids import uid
from tests.monitor.conftest import FROZEN_AT, make_app, requests, sandbox_call
from tests.monitor.test_monitor_faults import (
    add_fault,
    burst_of_503_recovers_without_operator,
    exports_table,
    live_with_every_export,
    malformed_json_is_a_clear_message_and_keeps_data,
    short_retry_after_is_honoured_inside_the_cycle,
    status_line,
)
from tests.pilot import settle
from tui.api.client import ApiClient
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.state.exports import LIST_RECHECK_SECONDS
from tui.state.health import HealthState
from tui.widgets.virtual_table import VirtualTable

E1 = uid("e1")


def list_requests(handle: SandboxHandle) -> list[dict[str, Any]]:
    return [r for r in requests(handle, "GET") if r["path"].endswith("/batch_exports/")]


def move_server_clock(handle: SandboxHandle, **body: Any) -> None:
    answer = sandbox_call("POST", f"{handle.base_url}/_sandbox/clock", json=body, timeout=10)
    assert answer.status_code == 200, answer.text


async def a_one_off_404_on_the_list_is_a_failed_poll_not_an_empty_server(pilot: Pilot[Any],
                                                                         sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "a one-off 404 on the list"
    await live_with_every_export(app, case)
    add_fault(sandbox, kind="status", status=404, path=r"/batch_exports/$", count=1)
    await pilot.press("ctrl+r")
    await settle(pilot)
    assert exports_table(app).row_count == 12, f"{case}: the last good data stays"
    assert "HTTP 404" in status_line(app), case
    assert "no export list" not in status_line(app), case
    await pilot.press("ctrl+r")
    await settle(pilot)
    assert "LIVE" in status_line(app) and "12 exports" in status_line(app), case


async def test_a_404_on_the_first_list_is_looked_at_again_on_ctrl_r(sandbox: SandboxHandle) -> None:
    add_fault(sandbox, kind="status", status=404, path=r"/batch_exports/$", count=1)
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "no export list" in status_line(app), "a project that exists, a list route that answered 404"
        assert [r["path"] for r in requests(sandbox, "GET")][:2] == [
            "/api/environments/1/batch_exports/", "/api/projects/1/"]
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert exports_table(app).row_count == 12
        assert "no export list" not in status_line(app)


async def test_no_list_is_looked_at_again_every_ten_minutes(sandbox: SandboxHandle) -> None:
    add_fault(sandbox, kind="status", status=405, path=r"/batch_exports/$", count=1)
    app = make_app(sandbox)
    elapsed = [0.0]
    app.monotonic = lambda: 1000.0 + elapsed[0]
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert screen.source.list_missing("1")
        before = len(list_requests(sandbox))
        screen.poll_now()
        await settle(pilot)
        assert len(list_requests(sandbox)) == before, "not asked again within ten minutes"
        elapsed[0] = LIST_RECHECK_SECONDS + 1
        screen.poll_now()
        await settle(pilot)
        assert len(list_requests(sandbox)) == before + 1
        assert exports_table(app).row_count == 12


async def test_a_wrong_project_is_named_and_stale(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, project_ids=["99"])
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        line = status_line(app)
        assert "STALE" in line and "project 99 not found" in line
        assert "LIVE" not in line and "0 exports" not in line
        assert "project 99 not found" in str(app.screen.query_one("#exports-empty").render())


async def test_a_project_the_key_may_not_see_is_named_and_stale() -> None:
    """The real service answers 403 for a project a project-limited key may not use: named like a missing one."""
    options = SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT), keys=["project-one-key:*@1"])
    with start_sandbox(options) as handle:
        app = make_app(handle, project_ids=["2"], api_key="project-one-key")
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            line = status_line(app)
            assert "STALE" in line and "project 2 not found or not visible to this key" in line
            assert "LIVE" not in line and "0 exports" not in line and "403" not in line
            empty = str(app.screen.query_one("#exports-empty").render())
            assert "project 2 not found or not visible to this key" in empty


async def test_server_time_ahead_is_said_judged_on_and_hours_of_it_turn_exports_overdue(
        sandbox: SandboxHandle) -> None:
    """The sandbox's clock 15 minutes ahead of the app's: the status line says so; nothing reads negative. Then
    hours of server time pass while our clock stands still: exports turn overdue."""
    move_server_clock(sandbox, now=(FROZEN_AT + timedelta(minutes=15)).isoformat())
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "server clock 15m ahead" in status_line(app)
        screen: Any = app.screen
        assert screen.now() == FROZEN_AT + timedelta(minutes=15)
        aged = [str(row[col]) for row in screen.cells().values() for col in ("last", "lag")]
        assert aged and not any(c.startswith("in ") or c.startswith("-") for c in aged)

        before = {f.verdict.state for f in screen.board.rows(screen.now()).rows}
        assert HealthState.OVERDUE not in before
        move_server_clock(sandbox, now=(FROZEN_AT + timedelta(hours=6)).isoformat())
        for _ in range(4):  # the offset is a median of recent answers: one odd answer does not move it
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert "server clock 6h ahead" in status_line(app)
        states = {f.verdict.state for f in screen.board.rows(screen.now()).rows}
        assert HealthState.OVERDUE in states
        assert any("▲ overdue" in str(row["state"]) for row in screen.cells().values())


def _incomplete_server(export: dict[str, Any], bare: list[bool]) -> httpx.MockTransport:
    """A server whose export answer loses its fields when ``bare[0]`` is set (the sandbox never does that)."""

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/batch_exports/"):
            item = {"id": export["id"]} if bare[0] else export
            return httpx.Response(200, json={"count": 1, "next": None, "previous": None, "results": [item]})
        if path.endswith("/runs/"):
            return httpx.Response(200, json={"next": None, "previous": None, "results": export["latest_runs"]})
        return httpx.Response(404, json={"detail": "Not found."})

    return httpx.MockTransport(handler)


async def test_an_incomplete_answer_keeps_the_last_good_data_and_says_so() -> None:
    run = {"id": uid("r1"), "status": "Completed", "data_interval_start": "2026-11-22T10:00:00Z",
           "data_interval_end": "2026-11-22T11:00:00Z", "created_at": "2026-11-22T11:00:30Z"}
    export = {"id": E1, "name": "Events to S3", "interval": "hour", "paused": False,
              "destination": {"type": "S3"}, "latest_runs": [run]}
    bare = [False]
    client = ApiClient("http://watchdeck.test", "k", "1", transport=_incomplete_server(export, bare))
    app = WatchdeckApp(Settings(base_url="http://watchdeck.test", api_key="k", project_ids=["1"], poll_seconds=30,
                                bell=False), clock=FrozenClock(FROZEN_AT), api=client)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert str(screen.cells()[f"1:{E1}"]["name"]) == "Events to S3"
        bare[0] = True
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "1 export answer incomplete" in status_line(app)
        assert "LIVE" in status_line(app)
        cells = screen.cells()[f"1:{E1}"]
        assert str(cells["name"]) == "Events to S3" and str(cells["state"]) == "✔ ok", "the last good data stays"


async def the_filter_asks_for_a_verdict(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "the filter"
    await live_with_every_export(app, case)
    await pilot.press("slash", *"failing", "enter")
    await settle(pilot)
    screen: Any = app.screen
    assert exports_table(app).row_count == 1, case
    (facts,) = screen.board.rows(screen.now()).rows
    assert facts.verdict.state is HealthState.FAILING, case
    await pilot.press("escape")
    await settle(pilot)
    assert exports_table(app).row_count == 12, case


def runs_requests(handle: SandboxHandle) -> list[dict[str, Any]]:
    return [r for r in requests(handle, "GET") if r["path"].endswith("/runs/")]


async def test_no_runs_list_is_looked_at_again_on_ctrl_r_and_every_ten_minutes(sandbox: SandboxHandle) -> None:
    """One 404 on the runs list is not "this server has none" for the rest of the session (the export list's rule)."""
    add_fault(sandbox, kind="status", status=404, path=r"/runs/$", count=1)
    app = make_app(sandbox)
    elapsed = [0.0]
    app.monotonic = lambda: 1000.0 + elapsed[0]
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert len(runs_requests(sandbox)) == 1
        assert screen.board.runs_list_missing(sandbox.project_id)
        screen.poll_now()
        await settle(pilot)
        assert len(runs_requests(sandbox)) == 1, "not asked again within ten minutes"
        elapsed[0] = LIST_RECHECK_SECONDS + 1
        screen.poll_now()
        await settle(pilot)
        assert len(runs_requests(sandbox)) == 2, "asked again after ten minutes"
        assert not screen.board.runs_list_missing(sandbox.project_id)
        add_fault(sandbox, kind="status", status=405, path=r"/runs/$", count=1)
        screen.poll_now()
        await settle(pilot)
        assert len(runs_requests(sandbox)) == 3 and screen.board.runs_list_missing(sandbox.project_id)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert len(runs_requests(sandbox)) == 4, "ctrl+r asks the runs list again"
        assert screen.board.selected_key is not None and screen.board.runs_for(screen.board.selected_key)


async def test_runs_answers_without_status_or_id_are_left_out(sandbox: SandboxHandle) -> None:
    """As `watchdeck status` does: a run without a status is not a run of unknown status."""
    good = {"id": uid("complete-run"), "status": "Completed", "data_interval_start": "2026-11-22T10:00:00Z",
            "data_interval_end": "2026-11-22T11:00:00Z", "created_at": "2026-11-22T11:00:30Z"}
    bare = {"id": uid("bare-run"), "data_interval_start": "2026-11-22T11:00:00Z",
            "data_interval_end": "2026-11-22T12:00:00Z", "created_at": "2026-11-22T12:00:30Z"}
    nameless = {"id": "", "status": "Failed", "created_at": "2026-11-22T11:30:30Z"}
    body = json.dumps({"next": None, "previous": None, "results": [bare, nameless, good]})
    add_fault(sandbox, kind="body", path=r"/runs/$", body=body)
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert runs_requests(sandbox)
        key = screen.board.selected_key
        assert key is not None
        from_list = {run.id for run in screen.board.watched(key).export.latest_runs}
        page_ids = {run.id for run in screen.board.runs_for(key)} - from_list
        assert page_ids == {uid("complete-run")}


async def the_runs_pane_reads_a_run_as_the_export_row_does(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    """A run in both ``latest_runs`` and an older runs page shows the row's figures in the runs pane, not the page's.

    The export's row and verdict take ``latest_runs``' record of a run (health's one ordering); a pane taking the
    page's record would show another percentage of the same run until the next runs page.
    """
    app = pilot.app
    case = "the runs pane's record of a run"
    await live_with_every_export(app, case)
    screen: Any = app.screen
    key = screen.board.selected_key
    assert key is not None, case
    shown = screen.board.watched(key).export.latest_runs
    assert shown, f"{case}: the selected export has runs"
    newest = max(shown, key=lambda run: run.created_at)
    page_record = newest.model_dump(mode="json") | {"status": "Running", "records_completed": 32,
                                                     "records_total_count": 100, "finished_at": None}
    body = json.dumps({"next": None, "previous": None, "results": [page_record]})
    add_fault(sandbox, kind="body", path=r"/runs/$", body=body)
    before = len(runs_requests(sandbox))
    await pilot.press("ctrl+r")
    await settle(pilot)
    assert len(runs_requests(sandbox)) > before, f"{case}: the runs page was asked again"
    pane = [run for run in screen.board.runs_for(key) if run.id == newest.id]
    assert pane == [newest], f"{case}: the pane's record of the run is the one the row shows"
    runs = screen.query_one("#runs", VirtualTable)
    records = runs.cell(runs.index_of(newest.id), "records")
    assert "32%" not in records and "32/100" not in records, case


@pytest.mark.slow
async def test_a_live_monitor_through_one_off_faults(sandbox: SandboxHandle) -> None:
    """One monitor session, each case starting live with every export and leaving it so (a later case's faults
    outlast it: the runs page's answer stays changed, the malformed list may answer once more): a one-off 404 on
    the list is a failed poll, not an empty server; the filter asks for a verdict; a short Retry-After is honoured
    inside the cycle; a burst of 503 recovers without the operator; the runs pane reads a run as the export row
    does; malformed JSON is a clear message and keeps the data."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for case in (a_one_off_404_on_the_list_is_a_failed_poll_not_an_empty_server, the_filter_asks_for_a_verdict,
                     short_retry_after_is_honoured_inside_the_cycle, burst_of_503_recovers_without_operator,
                     the_runs_pane_reads_a_run_as_the_export_row_does,
                     malformed_json_is_a_clear_message_and_keeps_data):
            await case(pilot, sandbox)
