"""The monitor under faults (sandbox fault injection) and hostile data.

Wire shapes the sandbox cannot produce (an unknown run status, a 10 MB log
answer, hostile text in every field) come from an httpx.MockTransport.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from textual.pilot import Pilot
from textual.widgets import Log, Static

from tests.ids import uid
from tests.monitor.conftest import FROZEN_AT, make_app, requests, sandbox_call
from tests.pilot import settle
from tui.api.client import ApiClient
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.screens.logs import MAX_LINES, LogsScreen
from tui.widgets.virtual_table import VirtualTable

E, RUN = uid("e-1"), uid("run-1")

HOSTILE = (
    "[bold]x[/bold] [@click=app.quit]q[/] [link=https://evil.example]l[/link] "
    "\x1b[2J\x1b]8;;http://x\x07y\x1b]8;;\x07 \x00nul \u202eevil"
)


def add_fault(handle: SandboxHandle, **fault: Any) -> None:
    response = sandbox_call("POST", f"{handle.base_url}/_sandbox/faults", json=fault)
    assert response.status_code in (200, 201), response.text


def status_line(app: Any) -> str:
    return str(app.screen.query_one("#monitor-status", Static).render())


def list_requests(handle: SandboxHandle) -> list[dict[str, Any]]:
    return [r for r in requests(handle, "GET") if r["path"].endswith("/batch_exports/")]


async def refresh(pilot: Pilot[Any]) -> None:
    """ctrl+r (a poll now), then the app settled."""
    await pilot.press("ctrl+r")
    await settle(pilot)


async def live_with_every_export(app: Any, case: str) -> None:
    """The precondition of each case of a shared session: the last poll succeeded and shows every export."""
    screen: Any = app.screen
    assert screen.poller.failures == 0 and "LIVE" in status_line(app), f"{case}: starts live: {status_line(app)}"
    assert exports_table(app).row_count == 12, f"{case}: starts with every export"


async def poll_under_fault(pilot: Pilot[Any], sandbox: SandboxHandle, case: str, **fault: Any) -> int:
    """From a live session: the export list's ``fault`` added, then ctrl+r; the list requests sent before it."""
    await live_with_every_export(pilot.app, case)
    add_fault(sandbox, path=r"/batch_exports/$", **fault)
    before = len(list_requests(sandbox))
    await refresh(pilot)
    return before


async def a_429_with_long_retry_after_is_not_retried_in_a_storm(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "429 with a long Retry-After"
    before = await poll_under_fault(pilot, sandbox, case, kind="retry_after", seconds=45, count=1)
    assert len(list_requests(sandbox)) == before + 1, f"{case}: no retry storm"
    screen: Any = app.screen
    assert screen.poller.next_delay() >= 45, f"{case}: the next poll waits as the server said"
    assert "429" in status_line(app), case
    assert exports_table(app).row_count == 12, case
    await refresh(pilot)
    assert len(list_requests(sandbox)) == before + 2, f"{case}: ctrl+r asks again at once"


async def a_retry_after_of_a_billion_seconds_is_capped_shown_and_ctrl_r_still_polls(
        pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "Retry-After of a billion seconds"
    before = await poll_under_fault(pilot, sandbox, case, kind="retry_after", seconds=1e9, count=1)
    screen: Any = app.screen
    assert len(list_requests(sandbox)) == before + 1, case
    assert screen.poller.next_delay() == 600.0, f"{case}: ten minutes at most, whatever the server asks"
    assert "server asks 11574d01h" in status_line(app), f"{case}: the real figure is shown"
    await refresh(pilot)
    assert len(list_requests(sandbox)) == before + 2, f"{case}: ctrl+r asks again at once"
    assert screen.poller.failures == 0 and "LIVE" in status_line(app), case


async def test_retry_after_is_honoured_within_its_cap_and_never_in_a_storm(sandbox: SandboxHandle) -> None:
    """One monitor session polling every 2 s (so a wait of the server's is longer than the interval), each case
    starting live: a 429 with a 45 s Retry-After is not retried and the next poll waits; a Retry-After of a
    billion seconds is capped at ten minutes, shown as asked, and ctrl+r still polls at once."""
    app = make_app(sandbox, poll_seconds=2.0)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await a_429_with_long_retry_after_is_not_retried_in_a_storm(pilot, sandbox)
        await a_retry_after_of_a_billion_seconds_is_capped_shown_and_ctrl_r_still_polls(pilot, sandbox)


async def short_retry_after_is_honoured_inside_the_cycle(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "a short Retry-After"
    before = await poll_under_fault(pilot, sandbox, case, kind="retry_after", seconds=1, count=1)
    assert len(list_requests(sandbox)) == before + 2, f"{case}: honoured inside the cycle"
    screen: Any = app.screen
    assert screen.poller.failures == 0 and "LIVE" in status_line(app), case


async def burst_of_503_recovers_without_operator(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "a burst of 503"
    before = await poll_under_fault(pilot, sandbox, case, kind="status", status=503, count=4)
    screen: Any = app.screen
    assert len(list_requests(sandbox)) == before + 4, f"{case}: a GET is retried three times, then the poll fails"
    assert screen.poller.failures == 1, case
    assert "503" in status_line(app), case
    assert exports_table(app).row_count == 12, case
    await refresh(pilot)
    assert screen.poller.failures == 0, f"{case}: recovers by itself when the fault ends"
    assert "LIVE" in status_line(app), case


async def malformed_json_is_a_clear_message_and_keeps_data(pilot: Pilot[Any], sandbox: SandboxHandle) -> None:
    app = pilot.app
    case = "malformed JSON"
    await live_with_every_export(app, case)
    add_fault(sandbox, kind="malformed", path=r"/batch_exports/$", count=2)
    await refresh(pilot)
    assert "bad response" in status_line(app), case
    assert exports_table(app).row_count == 12, case


async def test_slow_server_times_out_cleanly(sandbox: SandboxHandle) -> None:
    client = ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, timeout=1.0, max_retries=0)
    app = WatchdeckApp(Settings(base_url=sandbox.base_url, api_key=sandbox.api_key,
                                project_ids=[sandbox.project_id], poll_seconds=30, bell=False),
                       clock=FrozenClock(FROZEN_AT), api=client)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for _ in range(3):  # on a busy machine the first poll's 1 s can run out too: the good data comes first
            if exports_table(app).row_count == 12:
                break
            await refresh(pilot)
        assert exports_table(app).row_count == 12, "starts with every export"
        add_fault(sandbox, kind="latency", seconds=3.0, path=r"/batch_exports/$", count=1)
        await refresh(pilot)
        assert "timeout" in status_line(app)
        assert exports_table(app).row_count == 12
        await refresh(pilot)
        assert "LIVE" in status_line(app)


def exports_table(app: Any) -> VirtualTable:
    return app.screen.query_one("#exports", VirtualTable)


# --------------------------------------------------------------------------- shapes the sandbox cannot produce


def fake_server(export: dict[str, Any], logs: list[dict[str, Any]]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/batch_exports/"):
            return httpx.Response(200, json={"count": 1, "next": None, "previous": None, "results": [export]})
        if path.endswith("/runs/"):
            return httpx.Response(200, json={"next": None, "previous": None, "results": export["latest_runs"]})
        if path.endswith("/logs/"):
            return httpx.Response(200, content=json.dumps({"results": logs}).encode())
        return httpx.Response(404, json={"type": "invalid_request", "code": "not_found", "detail": "Not found."})
    return httpx.MockTransport(handler)


def hostile_export(status: str = "Running") -> dict[str, Any]:
    run = {
        "id": RUN, "status": status, "records_completed": 5, "records_total_count": 10,
        "latest_error": HOSTILE, "cursor": HOSTILE, "data_interval_start": "2026-11-22T10:00:00Z",
        "data_interval_end": "2026-11-22T11:00:00Z", "created_at": "2026-11-22T11:00:10Z",
        "batch_export": E,
    }
    return {
        "id": E, "team_id": 1, "name": HOSTILE, "model": HOSTILE, "interval": HOSTILE,
        "destination": {"type": HOSTILE, "config": {"bucket_name": HOSTILE, "aws_secret_access_key": "s3cr3t"}},
        "paused": False, "latest_runs": [run], "hogql_query": HOSTILE, "schema": {"x": HOSTILE},
    }


def mock_app(transport: httpx.MockTransport) -> WatchdeckApp:
    client = ApiClient("http://fake.test", "fake-key", "1", transport=transport)
    return WatchdeckApp(Settings(base_url="http://fake.test", api_key="fake-key", project_ids=["1"],
                                 poll_seconds=30, bell=False), clock=FrozenClock(FROZEN_AT), api=client)


def screen_text(app: Any) -> str:
    return app.export_screenshot()


async def test_hostile_text_in_every_export_field_is_shown_literally() -> None:
    app = mock_app(fake_server(hostile_export(), []))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        table = exports_table(app)
        assert table.row_count == 1
        name = table.cell(table.index_of(f"1:{E}"), "name")
        assert "[bold]x[/bold]" in name and "[@click=app.quit]" in name
        assert "\x1b" not in name and "\x00" not in name and "\u202e" not in name
        for column in ("dest", "model", "interval"):
            cell = table.cell(table.index_of(f"1:{E}"), column)
            assert "\x1b" not in cell
        await pilot.click("#exports", offset=(10, 1))
        await pilot.pause()
        assert app.is_running, "markup actions in server text are never clickable"
        details = app.screen.query_one("#export-details", Static)
        text = str(details.render())
        assert "[link=https://evil.example]" in text and "\x1b" not in text
        assert "s3cr3t" not in text, "destination secrets are masked"
        runs = app.screen.query_one("#runs", VirtualTable)
        error = runs.cell(runs.index_of(RUN), "error")
        assert "[@click=app.quit]" in error and "\x1b" not in error
        assert "s3cr3t" not in screen_text(app) and "fake-key" not in screen_text(app)


async def test_unknown_run_status_stays_visible_raw() -> None:
    app = mock_app(fake_server(hostile_export(status="QuantumEntangled"), []))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        latest = exports_table(app).cell(exports_table(app).index_of(f"1:{E}"), "latest")
        assert "quantumentangled" in latest.lower() and latest.startswith("?")


async def test_huge_log_answer_is_bounded_and_plain() -> None:
    """One answer of four times the lines the view keeps: the view holds at most ``MAX_LINES``, all plain."""
    entry = {"timestamp": "2026-11-22T11:00:00Z", "level": "ERROR", "message": HOSTILE + " " + "x" * 60,
             "log_source_id": E, "instance_id": "i"}
    logs = [dict(entry, timestamp=f"2026-11-22T11:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 100:02d}0000Z")
            for i in range(4 * MAX_LINES)]
    transport = fake_server(hostile_export(), logs)
    app = mock_app(transport)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, LogsScreen)
        log = app.screen.query_one("#logs", Log)
        assert 0 < log.line_count <= MAX_LINES
        assert all("\x1b" not in line for line in log.lines[:50])
        assert app.is_running


async def test_one_failing_project_does_not_blank_the_others(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox, project_ids=["1", "2"])
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert exports_table(app).row_count == 14 + 2  # and a section row naming each project
        add_fault(sandbox, kind="status", status=503, path=r"/environments/2/batch_exports/$", count=8)
        await refresh(pilot)
        screen: Any = app.screen
        assert screen.poller.failures == 0, "the poll as a whole still succeeded"
        assert exports_table(app).row_count == 14 + 2, "project 2's last good exports stay"
        assert "project 2: 503 server error, showing its last good data" in status_line(app)
