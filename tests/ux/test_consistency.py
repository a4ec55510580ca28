"""Issue 27, item 17: the views say the same thing the same way (lag, a frozen view's age, the acknowledge toast)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.incident.test_monitor_keys import notes
from tests.monitor.conftest import make_app, select_export
from tests.pilot import settle
from tui.sandbox.runner import SandboxHandle
from tui.widgets.live_table import LiveTable

FAILING = "Snowflake warehouse (hourly)"


class Ticks:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


async def test_lag_frozen_age_and_acknowledge_say_the_same_everywhere(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    ticks = Ticks()
    app.monotonic = ticks
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        key = select_export(app, FAILING)
        await settle(pilot)
        lag = str(screen.query_one("#exports", LiveTable).get_cell(key, "lag"))
        details = str(screen.query_one("#export-details", Static).render())
        assert f"{lag} behind" in details, (lag, details)
        await pilot.press("space")
        await settle(pilot)
        ticks.now += 16
        screen.refresh_status()
        status = str(screen.query_one("#monitor-status", Static).render())
        assert "FROZEN" in status and "updated 16 s ago" in status, status
        await pilot.press("space")
        await pilot.press("a")
        await settle(pilot)
        assert any(FAILING in note for note in notes(app) if note.startswith("Alert acknowledged")), notes(app)
