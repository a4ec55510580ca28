"""Snapshots of the monitor: normal, narrow, stale, paused selected, empty, logs, backfill modal.

The dialogs, each opened and closed in turn, share one app session per size.
The sandbox is frozen (fixed seed and clock) and the app's elapsed-time source
and jitter are fixed, so every figure on screen is reproducible.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.monitor.conftest import back_to, make_app, sandbox_call, select_export
from tests.pictures import Pictures, hold_cursors
from tests.pilot import SETTLE_ROUNDS, settle
from tui.app import WatchdeckApp
from tui.sandbox.runner import SandboxHandle

SnapCompare = Callable[..., bool]


def frozen_app(handle: SandboxHandle, **settings: Any) -> WatchdeckApp:
    app = make_app(handle, **settings)
    app.monotonic = lambda: 1000.0
    app.jitter = lambda: 0.5
    return app


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_monitor_normal(snap_compare: SnapCompare, sandbox: SandboxHandle, size: tuple[int, int]) -> None:
    assert snap_compare(frozen_app(sandbox), terminal_size=size, run_before=settle)


def test_monitor_paused_export_selected(snap_compare: SnapCompare, sandbox: SandboxHandle) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        select_export(pilot.app, "Redshift persons sync")
        await settle(pilot)

    assert snap_compare(frozen_app(sandbox), terminal_size=(160, 48), run_before=run_before)


def test_monitor_stale_after_server_loss(snap_compare: SnapCompare, sandbox: SandboxHandle) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        sandbox.stop()
        for _ in range(2):
            await pilot.press("ctrl+r")
            await settle(pilot)

    assert snap_compare(frozen_app(sandbox, retries=0), terminal_size=(160, 48), run_before=run_before)


def test_monitor_empty_project(snap_compare: SnapCompare, sandbox: SandboxHandle) -> None:
    headers = {"Authorization": f"Bearer {sandbox.api_key}"}
    listing = sandbox_call("GET", f"{sandbox.base_url}/api/environments/2/batch_exports/", headers=headers).json()
    for export in listing["results"]:
        sandbox_call("DELETE", f"{sandbox.base_url}/api/environments/2/batch_exports/{export['id']}/", headers=headers)
    assert snap_compare(frozen_app(sandbox, project_ids=["2"]), terminal_size=(120, 30), run_before=settle)


def test_backfill_modal(snap_compare: SnapCompare, sandbox: SandboxHandle) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        select_export(pilot.app, "Events to S3 data lake")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        hold_cursors(pilot)  # the picture shows the start field's cursor, whatever point of its blink it is at

    assert snap_compare(frozen_app(sandbox), terminal_size=(120, 36), run_before=run_before)


def test_run_logs_view(snap_compare: SnapCompare, sandbox: SandboxHandle) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        select_export(pilot.app, "Snowflake warehouse (hourly)")
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        pilot.app.screen.follow = False
        await settle(pilot)

    run: Callable[[Any], Awaitable[None]] = run_before
    assert snap_compare(frozen_app(sandbox), terminal_size=(120, 30), run_before=run)


def test_monitor_without_colour(snap_compare: SnapCompare, sandbox: SandboxHandle,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Under NO_COLOR every status still reads: a letter in the strip, a word in the latest-run column."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(frozen_app(sandbox), terminal_size=(160, 48), run_before=settle)


MODALS = {  # help first: the run-error dialog leaves the cursor in the run history, which the help would show
    "help": ("Events to S3 data lake", ["question_mark"]),
    "pause-confirm": ("Events to S3 data lake", ["p"]),
    "backfill": ("Events to S3 data lake", ["b"]),
    "edit": ("Postgres audit trail", ["e"]),
    "delete": ("Snowflake persons", ["D"]),
    "run-error": ("Snowflake warehouse (hourly)", ["enter", "enter"]),
    "export-logs": ("Snowflake warehouse (hourly)", ["L", "f"]),
}


async def _steady(pilot: Any) -> None:
    """Hold blinking cursors on (a later dialog of a session opens at any point of the blink), then wait until two
    screenshots, each taken once the app's queues are empty and its animations done, agree."""
    hold_cursors(pilot)
    shot = ""
    for _ in range(SETTLE_ROUNDS):
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        taken = pilot.app.export_screenshot()
        if taken == shot:
            return
        shot = taken
    raise AssertionError("the screen did not settle")


@pytest.mark.slow
async def test_monitor_modals(snapshot: SnapshotAssertion, sandbox: SandboxHandle) -> None:
    """At each size, each dialog opened over the monitor on its export and closed again before the next."""
    pictures = Pictures(snapshot)
    for width, height in ((80, 24), (160, 48)):
        async with pictures.session(frozen_app(sandbox), (width, height)) as pilot:
            await settle(pilot)
            monitor = pilot.app.screen
            for modal, (export, keys) in MODALS.items():
                select_export(pilot.app, export)
                await settle(pilot)
                for key in keys:
                    await pilot.press(key)
                    await settle(pilot)
                assert pilot.app.screen is not monitor, f"{keys} opened no {modal} at {width}x{height}"
                await _steady(pilot)
                await pictures.take(pilot, f"{modal}-{width}x{height}")
                await back_to(pilot, monitor)
    pictures.check()


def test_theme_choice_is_kept(sandbox: SandboxHandle) -> None:
    import asyncio

    async def scenario() -> str:
        app = frozen_app(sandbox)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.theme = "textual-light"
            await pilot.pause()
        again = frozen_app(sandbox)
        async with again.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            return again.theme

    assert asyncio.run(scenario()) == "textual-light"


def test_monitor_failing_export_alerted(snap_compare: SnapCompare, sandbox: SandboxHandle) -> None:
    """A run turns Failed between two polls: toast, mark on the row, count in the status line."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        with sandbox.state.db.transaction() as c:
            c.execute(
                "UPDATE runs SET status = 'Failed', active = 0, latest_error = 'S3: AccessDenied: bucket policy' "
                "WHERE id = (SELECT r.id FROM runs r JOIN exports e ON e.id = r.export_id "
                "WHERE json_extract(e.data, '$.name') = 'Events to S3 data lake' ORDER BY r.created_at DESC LIMIT 1)"
            )
        await pilot.press("ctrl+r")
        await settle(pilot)
        select_export(pilot.app, "Events to S3 data lake")
        await settle(pilot)

    assert snap_compare(frozen_app(sandbox), terminal_size=(160, 48), run_before=run_before)
