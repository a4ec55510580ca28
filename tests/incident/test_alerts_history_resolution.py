"""Issue 42, item 6: the alerts history shows a resolved alert with why it ended, not only its old detail."""

from __future__ import annotations

from textual.widgets import DataTable

from tui.screens.alerts import AlertsScreen

from .outage import Host, context, outage_desk, outage_exports, verdicts
from .runs import NOW


async def test_a_resolved_row_says_why_it_ended_then_what_it_was() -> None:
    desk = outage_desk()
    app = Host(lambda _app: AlertsScreen(context(desk)))
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause()
        healthy = outage_exports(repaired=True)
        desk.observe(healthy, verdicts(healthy), NOW)
        await pilot.pause()
        history = app.screen.query_one("#alerts-history", DataTable)
        assert history.row_count == len(desk.book.history) == 4
        for row, alert in enumerate(desk.book.history):
            cells = [str(cell) for cell in history.get_row_at(row)]
            assert cells[0] == "resolved"
            assert alert.resolution and alert.detail, alert
            assert cells[-1] == f"{alert.resolution} (was: {alert.detail})"
