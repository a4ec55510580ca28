"""The monitor's verdict from the server's record: fourteen failed runs in a row, ten in ``latest_runs``.

The real service's ``latest_runs`` is the ten newest runs (``BatchExportSerializer.get_latest_runs`` in PostHog's
``posthog/batch_exports/http.py`` slices ``[:10]``); the lag and the streak of a longer outage are in the runs list
(``RunsCursorPagination``: 100 a page, newest first by ``created_at``).
"""

from __future__ import annotations

from typing import Any

from tests.incident.long_outage import fail_newest
from tests.monitor.conftest import FROZEN_AT, make_app, requests
from tests.pilot import settle
from tui.look.export_details import export_details_text
from tui.sandbox.runner import SandboxHandle
from tui.text.words import coarse_duration


def _hourly_export(handle: SandboxHandle) -> str:
    with handle.state.db.read() as c:
        row = c.execute("SELECT id FROM exports WHERE project_id = ? AND interval = 'hour' AND paused = 0 "
                        "AND deleted = 0 AND end_at IS NULL ORDER BY id LIMIT 1", (int(handle.project_id),)).fetchone()
    assert row is not None, "the seed changed: need an active hourly export in project 1"
    return str(row["id"])


async def test_fourteen_failed_runs_show_their_true_lag_and_streak(sandbox: SandboxHandle) -> None:
    export_id = _hourly_export(sandbox)
    last_done = fail_newest(sandbox, export_id, 14)
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        key = f"{sandbox.project_id}:{export_id}"
        facts = screen.board.facts(key)
        verdict = facts.verdict
        assert verdict.state.value == "failing"
        assert verdict.failure_streak == 14
        assert verdict.reason == "latest run Failed, 14 failed runs in a row"
        assert verdict.last_completed_end == last_done
        true_lag = (FROZEN_AT - last_done).total_seconds()
        assert verdict.lag_seconds == true_lag and true_lag > 14 * 3600
        assert str(screen.cells()[key]["lag"]) == coarse_duration(true_lag)  # the Lag column on screen
        details = str(export_details_text(facts.watched, verdict))
        assert "failing: latest run Failed, 14 failed runs in a row" in details
        # read once, for this export, with the operator's budget: not again at the next poll
        reads = requests(sandbox, "GET", f"/batch_exports/{export_id}/runs/")
        assert reads
        screen.poll_now()
        await settle(pilot)
        assert len(requests(sandbox, "GET", f"/batch_exports/{export_id}/runs/")) == len(reads)
        assert screen.board.facts(key).verdict.failure_streak == 14
