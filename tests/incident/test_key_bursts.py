"""The incident views' row keys, sent in one write with the keys around them (issue 42, item 1).

A key acts on the row its table's cursor is on when the key is handled: ``Down a`` acknowledges the alert moved
to, and ``Enter`` followed by ``Down`` in the same write opens the row Enter was pressed on, not the one below
(a table answers Enter with a message, handled after the keys that came with it). Keys are queued at once
(:func:`tests.pilot.burst`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from tests.monitor.conftest import FROZEN_AT, make_app, requests, sandbox_call
from tests.pilot import burst, settle
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.screens.alerts import AlertsScreen, JumpTo
from tui.screens.backfills import BackfillsScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.export_modals import RunErrorScreen
from tui.screens.failure_groups import FailureGroupsScreen, FilterTo
from tui.screens.repair import RepairScreen
from tui.screens.timeline import OpenRun, TimelineScreen
from tui.widgets.timeline_view import TimelineView

from .outage import Host, context, outage_desk


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle



def open_alert_keys(app: Host) -> list[str]:
    """The export key of each open alert, in the pane's order."""
    screen = app.screen
    assert isinstance(screen, AlertsScreen)
    table = screen.query_one("#alerts-open", DataTable)
    keys = []
    for row in range(table.row_count):
        alert = screen.desk.book.get(int(str(table.coordinate_to_cell_key((row, 0))[0].value)))
        assert alert is not None
        keys.append(alert.key)
    return keys


async def test_alerts_down_a_acknowledges_the_alert_under_the_cursor() -> None:
    desk = outage_desk()
    app = Host(lambda _app: AlertsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        keys = open_alert_keys(app)
        assert len(keys) == 4
        await burst(pilot, "down", "down", "a")
        assert [alert.key for alert in desk.book.history] == [keys[2]]


async def test_alerts_enter_then_down_jumps_to_the_alert_enter_was_pressed_on() -> None:
    desk = outage_desk()
    app = Host(lambda _app: AlertsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        keys = open_alert_keys(app)
        await burst(pilot, "down", "enter", "down")
    assert app.results == [JumpTo(keys[1])]


async def test_groups_enter_then_down_filters_to_the_group_enter_was_pressed_on() -> None:
    desk = outage_desk()
    app = Host(lambda _app: FailureGroupsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FailureGroupsScreen)
        first = screen.highlighted()
        assert first is not None and len(screen._groups) == 2
        await burst(pilot, "enter", "down")
    assert app.results == [FilterTo(tuple(first.export_keys), first.signature)]


async def test_groups_down_r_repairs_the_group_under_the_cursor() -> None:
    desk = outage_desk()
    app = Host(lambda _app: FailureGroupsScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FailureGroupsScreen)
        second = screen._groups[1]
        await burst(pilot, "down", "R")
        assert isinstance(app.screen, RepairScreen)
        assert app.screen.keys == list(second.export_keys)
        assert second.signature in app.screen.title_text


def cell_runs(screen: TimelineScreen) -> list[str]:
    view = screen.query_one(TimelineView)
    return [run.id for run in screen.model.runs_at(view.cursor_row, view.cursor_col)]


async def test_timeline_enter_then_keys_open_the_run_enter_was_pressed_on() -> None:
    desk = outage_desk()
    app = Host(lambda _app: TimelineScreen(context(desk)))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        await burst(pilot, *["left"] * 5)  # the outage: a failed run on every S3 export's row
        named = cell_runs(screen)
        assert named
        await burst(pilot, "enter", "down", "down")
        assert isinstance(app.screen, RunErrorScreen) and app.screen.run.id == named[0]
        await burst(pilot, "escape")
        view = screen.query_one(TimelineView)
        assert app.screen is screen and view.cursor_row == 2
        below = cell_runs(screen)
        assert below and below[0] != named[0]
        await burst(pilot, "up", "up", "down", "enter")
        opened = screen.model.runs_at(1, view.cursor_col)[0]
        assert isinstance(app.screen, RunErrorScreen) and app.screen.run.id == opened.id
        await burst(pilot, "escape", "escape")
    assert isinstance(app.results[0], OpenRun) and app.results[0].key == screen.model.order[1]


async def test_backfills_down_c_cancels_the_backfill_under_the_cursor(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor: Any = app.screen
        first = monitor.board.snapshot.exports[0]
        for start, end in (("2026-11-17", "2026-11-18"), ("2026-11-18", "2026-11-19")):
            made = sandbox_call("POST", f"{sandbox.base_url}/api/projects/{sandbox.project_id}/batch_exports/"
                                f"{first.export.id}/backfills/", headers={"Authorization": f"Bearer {sandbox.api_key}"},
                                timeout=10, json={"start_at": start, "end_at": end})
            assert made.status_code == 201, made.text
        await burst(pilot, "home", "B")
        screen = app.screen
        assert isinstance(screen, BackfillsScreen) and screen.export.export_id == first.export.id
        await settle(pilot)
        assert len(screen.backfills) >= 3 and all(b.is_in_progress for b in screen.backfills[:3])
        await burst(pilot, "down", "down", "c")
        chosen = screen.backfills[2]
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#confirm-question", Static).render())
        assert f"{chosen.start_at:%m-%d %H:%M}" in question, question
        await burst(pilot, "y")
        assert [r["path"] for r in requests(sandbox, "POST", "/cancel")] == [
            f"/api/environments/{sandbox.project_id}/batch_exports/{first.export.id}/backfills/{chosen.id}/cancel/"]
