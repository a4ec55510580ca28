"""The timeline fetches older runs for the rows on screen only, and only while the operator's budget has room."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.incident_base import IncidentContext
from tui.screens.timeline import TimelineScreen
from tui.state.budget import ActionBudget
from tui.state.incident import IncidentDesk
from tui.state.io.export_source import ExportsSource
from tui.state.io.journal import ActionJournal

from .outage import Host

FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


async def test_older_runs_for_visible_rows_inside_the_budget(sandbox: SandboxHandle) -> None:
    client = ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id)
    snapshot = await ExportsSource([client]).fetch()
    desk = IncidentDesk()
    desk.observe(snapshot.exports, {}, FROZEN_AT)
    clock = [0.0]
    budget = ActionBudget(lambda: clock[0], per_minute=3, per_hour=100)
    context = IncidentContext(desk=desk, client_for=lambda _pid: client, budget=budget, journal=ActionJournal(),
                              clock=FrozenClock(FROZEN_AT))
    app = Host(lambda _app: TimelineScreen(context))
    before = len([r for r in sandbox.requests() if "/runs/" in r["path"]])
    async with app.run_test(size=(120, 12)) as pilot:  # a short terminal: only a few rows on screen
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("minus")  # 7 days: latest_runs do not reach that far back
        await pilot.pause()
        await app.workers.wait_for_complete()
        runs_requests = [r for r in sandbox.requests() if "/runs/" in r["path"]][before:]
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert len(runs_requests) == 3  # the budget's room, not one per export
        visible = {desk.exports[key].watched.export.id for key in screen.query_one("TimelineView").visible_keys()}
        assert {r["path"].split("/")[-3] for r in runs_requests} <= visible
        # room again a minute later: the next poll's redraw fetches the next visible rows
        clock[0] = 61.0
        desk.observe(snapshot.exports, {}, FROZEN_AT)
        await pilot.pause()
        await app.workers.wait_for_complete()
        more = [r for r in sandbox.requests() if "/runs/" in r["path"]][before:]
        assert 3 < len(more) <= 6
    await client.aclose()
