"""What the monitor says when a poll times out, and when a write is answered with a body it cannot read.

Both against the sandbox: its latency fault makes the timeouts, its ``body`` fault answers a pause
with ``{"paused": "maybe"}`` as a confused server would.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.monitor.conftest import FROZEN_AT, back_to, make_app, requests, sandbox_call, select_export
from tests.pilot import notifications, settle, toast_texts
from tui.api.client import ApiClient
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.sandbox.runner import SandboxHandle
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import EditExportScreen


def add_fault(handle: SandboxHandle, **fault: Any) -> None:
    response = sandbox_call("POST", f"{handle.base_url}/_sandbox/faults", json=fault)
    assert response.status_code in (200, 201), response.text


def clear_faults(handle: SandboxHandle) -> None:
    sandbox_call("DELETE", f"{handle.base_url}/_sandbox/faults")


def status_line(app: Any) -> str:
    return str(app.screen.query_one("#monitor-status", Static).render())


def list_requests(handle: SandboxHandle) -> list[dict[str, Any]]:
    return [r for r in requests(handle, "GET") if r["path"].endswith("/batch_exports/")]


async def test_a_timed_out_poll_gives_up_within_one_interval_and_says_why(sandbox: SandboxHandle) -> None:
    client = ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, timeout=0.5, max_retries=3)
    app = WatchdeckApp(Settings(base_url=sandbox.base_url, api_key=sandbox.api_key,
                                project_ids=[sandbox.project_id], poll_seconds=2, bell=False),
                       clock=FrozenClock(FROZEN_AT), api=client)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        add_fault(sandbox, kind="latency", seconds=3.0, path=r"/batch_exports/$")
        before, cycles_before = len(list_requests(sandbox)), screen.poller.cycles
        await pilot.press("ctrl+r")
        while screen.poller.failures == 0:
            await asyncio.sleep(0.02)
        # Now: on a busy machine the 2 s timer may have started a poll of its own before ctrl+r, or start the next.
        asked = len(list_requests(sandbox)) - before
        polls = screen.poller.cycles - cycles_before + (1 if screen.poller.in_flight else 0)
        clear_faults(sandbox)
        await pilot.pause()
        # Each attempt takes its whole 0.5 s timeout and a retry waits a backoff first: three fit in the 2 s
        # interval, never four (four attempts with their backoffs would take 5.5 s).
        assert asked <= 3 * polls, f"a timeout is not retried past the poll's interval: {asked} in {polls} polls"
        # Why, with the limit that ran out: the attempt's 0.5 s, or, where a busy machine's timers fire late and
        # the third attempt would end past the interval, the poll's own 2 s.
        status = status_line(app)
        assert "timeout after 0.5s" in status or "timeout after 2s" in status, status


async def test_an_attempt_longer_than_the_interval_is_cut_at_the_interval(sandbox: SandboxHandle) -> None:
    """The defaults' ratio (timeout 15 s > poll 10 s), scaled: one attempt may not outlast the poll it belongs to."""
    client = ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id, timeout=3.0, max_retries=3)
    app = WatchdeckApp(Settings(base_url=sandbox.base_url, api_key=sandbox.api_key,
                                project_ids=[sandbox.project_id], poll_seconds=2, bell=False),
                       clock=FrozenClock(FROZEN_AT), api=client)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        add_fault(sandbox, kind="latency", seconds=5.0, path=r"/batch_exports/$")
        await pilot.press("ctrl+r")
        while screen.poller.failures == 0:
            await asyncio.sleep(0.02)
        clear_faults(sandbox)
        await pilot.pause()
        assert screen.poller.failures == 1, "the poll gave up once"
        # The attempt's own 3 s timeout was cut to the poll's 2 s interval: the failure says which one ended it.
        assert "timeout after 2s" in status_line(app)


async def a_quick_503_is_still_retried_inside_the_interval(pilot: Pilot[Any], sandbox: SandboxHandle,
                                                            user_dirs: Path) -> None:
    app = pilot.app
    add_fault(sandbox, kind="status", status=503, path=r"/batch_exports/$", count=1)
    before = len(list_requests(sandbox))
    await pilot.press("ctrl+r")
    await settle(pilot)
    screen: Any = app.screen
    assert len(list_requests(sandbox)) == before + 2 and screen.poller.failures == 0


async def a_pause_answered_with_an_unreadable_body_is_said_journaled_and_reread(
        pilot: Pilot[Any], sandbox: SandboxHandle, user_dirs: Path) -> None:
    app = pilot.app
    select_export(app, "Events to S3 data lake")
    await pilot.pause()
    add_fault(sandbox, kind="body", body={"paused": "maybe"}, path=r"/pause/$", count=1)
    polls_before = len(list_requests(sandbox))
    await pilot.press("p")
    assert isinstance(app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)
    await app.workers.wait_for_complete()
    await settle(pilot)
    assert len(requests(sandbox, "POST", "/pause/")) == 1
    toasts = toast_texts(app)
    assert any("answered 200 with a body this version does not understand" in t for t in toasts), toasts
    titles = [n.title for n in notifications(app)]
    assert "Pause: answer not understood" in titles and "Pause failed" not in titles, "the pause may have happened"
    assert not any("Internal error" in (n.title or "") or "ValidationError" in str(n.message)
                   for n in notifications(app))
    entry = json.loads((user_dirs / "data" / "journal.jsonl").read_text().splitlines()[-1])
    assert entry["action"] == "pause" and entry["result"].startswith("unclear: The server answered 200")
    assert len(list_requests(sandbox)) > polls_before, "the export is read again to learn its state"


async def a_refused_edit_shows_the_servers_words_literally_and_is_journaled(
        pilot: Pilot[Any], sandbox: SandboxHandle, user_dirs: Path) -> None:
    detail = "[/ name [@click=app.quit]taken[/]"
    app = pilot.app
    select_export(app, "Events to S3 data lake")
    await pilot.pause()
    await pilot.press("e")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, EditExportScreen)
    screen.query_one("#edit-name", Input).value = "Renamed"
    add_fault(sandbox, kind="body", status=400, path=r"/batch_exports/[^/]+/$", count=1,
              body={"type": "validation_error", "code": "invalid", "detail": detail, "attr": "name"})
    await pilot.press("ctrl+s")
    await app.workers.wait_for_complete()
    await settle(pilot)
    assert app.is_running and app.screen is screen, "the form stays, with what was typed"
    assert screen.query_one("#edit-name", Input).value == "Renamed"
    assert detail in str(screen.query_one("#edit-name-error", Static).render())
    entry = json.loads((user_dirs / "data" / "journal.jsonl").read_text().splitlines()[-1])
    assert entry["action"] == "edit" and entry["result"].startswith("failed: ")


async def test_write_answers_the_monitor_cannot_use(sandbox: SandboxHandle, user_dirs: Path) -> None:
    """One monitor session polling every 10 s, each case starting from the monitor: a quick 503 on the list is
    still retried inside the interval; a pause answered 200 with a body this version does not understand is said,
    journaled as unclear and the export read again; a refused edit keeps the form with what was typed, shows the
    server's words literally and is journaled."""
    app = make_app(sandbox, poll_seconds=10)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor = app.screen
        for case in (a_quick_503_is_still_retried_inside_the_interval,
                     a_pause_answered_with_an_unreadable_body_is_said_journaled_and_reread,
                     a_refused_edit_shows_the_servers_words_literally_and_is_journaled):
            await back_to(pilot, monitor)
            await case(pilot, sandbox, user_dirs)
