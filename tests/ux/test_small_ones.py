"""The small ones: status --help, backfill Enter, no select-all on focus, the picker's first ↓, typed names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from textual.widgets import Input, OptionList

from tests.monitor.conftest import make_app, requests, select_export
from tests.pilot import settle
from tui.sandbox.runner import SandboxHandle
from tui.screens.export_modals import BackfillScreen, EditExportScreen

ROOT = Path(__file__).resolve().parents[2]


def test_status_help_lists_only_what_status_uses() -> None:
    done = subprocess.run([sys.executable, "-m", "tui", "status", "--help"], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60, check=False)
    assert done.returncode == 0
    assert "--json" in done.stdout and "--grace" in done.stdout
    assert "--poll" not in done.stdout and "--read-only" not in done.stdout


async def test_enter_in_the_backfill_end_field_submits(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, "Events to S3 data lake")
        await settle(pilot)
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BackfillScreen)
        await pilot.press("enter")  # start field: on to the end field
        assert app.screen.focused is app.screen.query_one("#backfill-end", Input)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, BackfillScreen)
        assert requests(sandbox, "POST", "/backfill")


async def test_a_keystroke_after_opening_edit_does_not_replace_the_name(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        select_export(app, "Postgres audit trail")
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, EditExportScreen)
        name = app.screen.query_one("#edit-name", Input)
        name.focus()
        await pilot.pause()
        await pilot.press("x")
        assert name.value != "x" and "Postgres audit trail" in name.value


async def test_first_down_in_the_project_picker_moves_to_the_next_project(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        options = app.screen.query_one("#picker-list", OptionList)
        current = options.highlighted
        await pilot.press("down")
        assert options.highlighted == (current or 0) + 1
        chosen = options.get_option_at_index(options.highlighted).id
        await pilot.press("enter")
        await settle(pilot)
        assert app.project_id == chosen != sandbox.project_id
