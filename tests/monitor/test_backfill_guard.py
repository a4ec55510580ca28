"""Huge or impossible backfills: refused with a reason at the field, or confirmed by typing the run count."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from textual.widgets import Button, Input, Static

from tests.monitor.conftest import back_to, make_app, requests, sandbox_call, select_export
from tests.pilot import settle
from tui.api.errors import WriteValidationError
from tui.api.writes import MAX_BACKFILL_RUNS, check_backfill
from tui.sandbox.runner import SandboxHandle
from tui.screens.export_modals import BackfillScreen, TypedCountConfirmScreen

NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)
FIVE_MINUTES = 300


@pytest.mark.parametrize(("start", "reason"), [
    (datetime(1, 1, 1, tzinfo=UTC), "before 2000-01-01"),
    (datetime(1970, 1, 1, tzinfo=UTC), "before 2000-01-01"),
    (datetime(2001, 1, 1, tzinfo=UTC), f"at most {MAX_BACKFILL_RUNS:,}"),
])
def test_absurd_ranges_are_refused_at_the_start(start: datetime, reason: str) -> None:
    with pytest.raises(WriteValidationError) as caught:
        check_backfill(start, NOW, now=NOW, interval_seconds=FIVE_MINUTES)
    assert reason in caught.value.problems["start_at"]


def test_a_start_before_the_project_existed_is_refused_where_known() -> None:
    created = datetime(2025, 6, 1, tzinfo=UTC)
    with pytest.raises(WriteValidationError) as caught:
        check_backfill(datetime(2025, 1, 1, tzinfo=UTC), NOW, now=NOW, interval_seconds=86400,
                       project_created_at=created)
    assert "before the project existed" in caught.value.problems["start_at"]
    check_backfill(datetime(2025, 1, 1, tzinfo=UTC), NOW, now=NOW, interval_seconds=86400)
    check_backfill(NOW - timedelta(days=30), NOW, now=NOW, interval_seconds=FIVE_MINUTES)


async def open_backfill(pilot: Any) -> BackfillScreen:
    select_export(pilot.app, "Events to S3 data lake")  # hourly
    await settle(pilot)
    await pilot.press("b")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, BackfillScreen)
    return screen


async def the_form(pilot: Any) -> BackfillScreen:
    """The backfill form a previous case left open (as the operator goes on correcting it), else a fresh one."""
    screen = pilot.app.screen
    if isinstance(screen, BackfillScreen):
        return screen
    return await open_backfill(pilot)


async def a_start_in_1970_is_refused_next_to_the_field(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    screen = await the_form(pilot)
    screen.query_one("#backfill-start", Input).value = "1970-01-01 00:00"
    await pilot.pause()
    assert "before 2000-01-01" in str(screen.query_one("#backfill-start-error", Static).render())
    assert screen.query_one("#backfill-go", Button).disabled
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert app.screen is screen and requests(sandbox, "POST", "/backfill") == []


async def a_start_before_the_project_existed_is_refused_next_to_the_field(pilot: Any, sandbox: SandboxHandle) -> None:
    """The dialog learns the project's ``created_at`` from the server (the full project carries it)."""
    project = sandbox_call("GET", f"{sandbox.base_url}/api/projects/{sandbox.project_id}/",
                        headers={"Authorization": f"Bearer {sandbox.api_key}"}).json()
    created = datetime.fromisoformat(project["created_at"])
    assert datetime(2000, 1, 1, tzinfo=UTC) < created < NOW - timedelta(days=200)
    app = pilot.app
    screen = await the_form(pilot)
    await settle(pilot)
    start = screen.query_one("#backfill-start", Input)
    start.value = (created - timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
    await pilot.pause()
    error = str(screen.query_one("#backfill-start-error", Static).render())
    assert f"before the project existed (created {created:%Y-%m-%d %H:%M} UTC)" in error
    assert screen.query_one("#backfill-go", Button).disabled
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert app.screen is screen and requests(sandbox, "POST", "/backfill") == []
    start.value = (created + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
    await pilot.pause()
    assert "project existed" not in str(screen.query_one("#backfill-start-error", Static).render())


async def escape_on_the_count_sends_nothing(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    screen = await the_form(pilot)
    screen.query_one("#backfill-start", Input).value = "2026-01-01 00:00"
    await pilot.pause()
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(app.screen, TypedCountConfirmScreen)
    await pilot.press("escape")
    await settle(pilot)
    assert app.screen is screen, "back at the form, dates kept"
    assert screen.query_one("#backfill-start", Input).value == "2026-01-01 00:00"
    assert requests(sandbox, "POST", "/backfill") == []


async def more_than_a_thousand_runs_need_the_count_typed(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    screen = await the_form(pilot)
    screen.query_one("#backfill-start", Input).value = "2026-09-01 00:00"
    screen.query_one("#backfill-end", Input).value = "2026-11-01 00:00"
    await pilot.pause()
    runs = 61 * 24
    await pilot.press("ctrl+s")
    await settle(pilot)
    confirm = app.screen
    assert isinstance(confirm, TypedCountConfirmScreen) and confirm.runs == runs
    await pilot.press("y", "enter")  # one key (or Enter) is not enough
    assert app.screen is confirm and confirm.query_one("#backfill-confirm-go", Button).disabled
    confirm.query_one("#backfill-confirm-count", Input).value = ""
    await pilot.press(*str(runs - 1))
    await pilot.press("enter")
    assert app.screen is confirm, "a wrong count does not start it"
    confirm.query_one("#backfill-confirm-count", Input).value = ""
    await pilot.press(*str(runs))
    await pilot.press("enter")
    await settle(pilot)
    sent = requests(sandbox, "POST", "/backfills/")  # the newest service: backfill/ is 404, backfills/ takes it
    assert len(sent) == 1 and sent[0]["status"] == 201
    assert sent[0]["body"] == {"start_at": "2026-09-01T00:00:00+00:00", "end_at": "2026-11-01T00:00:00+00:00"}


async def enter_in_the_backfill_end_field_submits(pilot: Any, sandbox: SandboxHandle) -> None:
    app = pilot.app
    before = len(requests(sandbox, "POST", "/backfill"))
    await open_backfill(pilot)
    await pilot.press("enter")  # start field: on to the end field
    assert app.screen.focused is app.screen.query_one("#backfill-end", Input)
    await pilot.press("enter")
    await settle(pilot)
    assert not isinstance(app.screen, BackfillScreen)
    assert len(requests(sandbox, "POST", "/backfill")) > before


async def test_the_backfill_form_refuses_confirms_and_submits(sandbox: SandboxHandle) -> None:
    """One monitor session. On one backfill form, as the operator corrects it: a start in 1970 is refused next to
    the field; a start before the project existed is refused next to the field (and accepted after it); Escape on
    the typed count sends nothing and keeps the dates; more than a thousand runs need the count typed. Then on a
    form opened afresh from the monitor, Enter in the end field submits. Nothing is sent until the fourth case."""
    app = make_app(sandbox)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        monitor = app.screen
        for case in (a_start_in_1970_is_refused_next_to_the_field,
                     a_start_before_the_project_existed_is_refused_next_to_the_field,
                     escape_on_the_count_sends_nothing, more_than_a_thousand_runs_need_the_count_typed):
            await case(pilot, sandbox)
        await back_to(pilot, monitor)
        await enter_in_the_backfill_end_field_submits(pilot, sandbox)
