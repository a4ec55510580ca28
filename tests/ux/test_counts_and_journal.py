"""Counts that say what is shown of how many, and the monitor's journal entries with names, in real time."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import Static

from tests.monitor.conftest import FROZEN_AT, make_app, select_export
from tests.pilot import settle
from tui.sandbox.runner import SandboxHandle
from tui.screens.confirm import ConfirmScreen


async def test_monitor_journal_has_the_export_name_and_real_time_and_a_filter_says_how_many_of_how_many(
        sandbox: SandboxHandle, user_dirs: Path) -> None:
    """One monitor: a pause confirmed goes to the journal with the export's name, the project, the real time and the
    server's; the status line says how many exports are shown of how many, with and without a filter."""
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        status = app.screen.query_one("#monitor-status", Static)
        app.screen.refresh_status()
        assert " · 12 exports" in str(status.render())
        select_export(app, "Events to S3 data lake")
        await settle(pilot)
        await pilot.press("p")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("slash", *"snow")
        await settle(pilot)
        app.screen.refresh_status()
        assert " · 2 of 12 exports" in str(status.render())
    lines = (user_dirs / "data" / "journal.jsonl").read_text().splitlines()
    entry = json.loads(lines[-1])
    assert (entry["action"], entry["name"], entry["project"]) == ("pause", "Events to S3 data lake",
                                                                  sandbox.project_id)
    assert abs((datetime.fromisoformat(entry["time"]) - datetime.now(UTC)).total_seconds()) < 120
    assert datetime.fromisoformat(entry["server_time"]) == FROZEN_AT


async def test_demo_actions_go_to_the_demo_journal(sandbox: SandboxHandle, user_dirs: Path) -> None:
    app = make_app(sandbox, demo=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, "Events to S3 data lake")
        await settle(pilot)
        await pilot.press("p", "y")
        await settle(pilot)
    assert not (user_dirs / "data" / "journal.jsonl").exists()
    assert json.loads((user_dirs / "data" / "journal-demo.jsonl").read_text().splitlines()[-1])["action"] == "pause"
