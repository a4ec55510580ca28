"""A silenced export against the sandbox: its verdict and alert stay on screen, its hook is not called."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static

from tests.incident.sandbox_admin import SandboxAdmin
from tests.incident.test_alert_episodes import app_with_hook, export_by, heard, monitor, watch_attempts
from tests.monitor.conftest import select_export
from tests.pilot import settle
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle
from tui.screens.silence import SilenceScreen


async def test_a_silenced_export_keeps_its_alert_but_its_hook_is_not_called(
        sandbox: SandboxHandle, admin: SandboxAdmin, clock: FrozenClock, tmp_path: Path) -> None:
    export_id, name = export_by(sandbox, destination="Postgres", interval="every 5 minutes")
    app, out = app_with_hook(sandbox, clock, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = monitor(app)
        book = screen.incident.desk.book
        key = next(k for k, item in screen.incident.desk.exports.items() if item.watched.export.id == export_id)

        select_export(app, name)
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SilenceScreen)
        dialog = app.screen
        app.screen.query_one("#silence-duration", Input).value = "soon"
        await pilot.press("enter")  # bad input: said beside the field, nothing silenced
        await pilot.pause()
        assert app.screen is dialog
        assert "30m, 2h, 1d" in str(dialog.query_one("#silence-duration-error", Static).render())
        assert "say why" in str(dialog.query_one("#silence-reason-error", Static).render())
        assert screen.incident_keys.silence_of("1", export_id) is None
        dialog.query_one("#silence-duration", Input).value = "2h"
        dialog.query_one("#silence-reason", Input).focus()
        await pilot.press(*"warehouse maintenance", "enter")
        await settle(pilot)
        assert app.screen is screen
        silence = screen.incident_keys.silence_of("1", export_id)
        assert silence is not None and silence.words().endswith("2h by " + screen.incident_keys.by
                                                                + ": warehouse maintenance")

        admin("POST", "outages", destination="Postgres")
        await watch_attempts(pilot, admin, sandbox, export_id, key, 10 * 60,
                             until=lambda: book.episode(key) is not None)
        episode = book.episode(key)
        assert episode is not None and episode.new and book.is_marked(key)  # the alert is there
        facts = screen.board.facts(key)
        assert facts is not None and facts.silenced and str(facts.verdict.state) in ("failing", "overdue", "running")
        assert episode.silence.endswith("warehouse maintenance")
        await pilot.press("exclamation_mark")
        await settle(pilot)
        row = app.screen.query_one("#alerts-open", DataTable).get_row(str(episode.id))
        assert " left by " in str(row[-1]) and str(row[-1]).endswith(": warehouse maintenance")  # the time left
    assert heard(out, export_id) == [], "a silenced export's hook events wait"
