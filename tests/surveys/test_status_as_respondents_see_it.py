"""A survey's status is the one its respondents meet, read from the real service's SDK and UI.

posthog-js ``isSurveyRunning`` (``src/utils/survey-utils.ts``): ``!!(survey.start_date && !survey.end_date)``;
the real UI's ``getSurveyStatus`` (``frontend/src/scenes/surveys/surveysLogic.tsx``): no start date is a draft,
a start date and no end date is running, both set is complete. The dates' values do not enter either rule.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from textual.widgets import Static

from tests.pilot import settle
from tests.surveys.conftest import FROZEN_AT, make_app, sandbox_options, survey_writes
from tui.api.client import ApiClient
from tui.api.models.surveys import Survey, SurveyStatus, survey_notes, survey_status
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox
from tui.screens.confirm import ConfirmScreen
from tui.screens.editor import SurveyEditorScreen
from tui.screens.surveys import SurveyBrowserScreen

NOW = FROZEN_AT
LATER = NOW + timedelta(days=3)
EARLIER = NOW - timedelta(days=3)


def test_the_dates_values_do_not_change_the_status() -> None:
    """isSurveyRunning: a future start date is live at once; any end date, even a future one, hides it."""
    assert survey_status(False, None, None, NOW) is SurveyStatus.DRAFT
    assert survey_status(False, LATER, None, NOW) is SurveyStatus.RUNNING
    assert survey_status(False, EARLIER, None, NOW) is SurveyStatus.RUNNING
    assert survey_status(False, EARLIER, LATER, NOW) is SurveyStatus.COMPLETE
    assert survey_status(False, EARLIER, EARLIER, NOW) is SurveyStatus.COMPLETE
    assert survey_status(True, EARLIER, None, NOW) is SurveyStatus.ARCHIVED
    assert [s.value for s in SurveyStatus] == ["draft", "running", "complete", "archived"]


def test_notes_say_what_a_future_date_does_and_when_the_limit_is_reached() -> None:
    assert survey_notes(EARLIER, None, None, 5, NOW) == []
    assert survey_notes(LATER, None, None, 0, NOW) == [
        "start date in the future: it schedules nothing, respondents see the survey now"]
    assert survey_notes(EARLIER, LATER, None, 0, NOW) == [
        "end date in the future: it schedules nothing, respondents no longer see the survey"]
    assert survey_notes(EARLIER, None, 100, 100, NOW) == ["limit reached: 100 of 100 responses"]
    assert survey_notes(EARLIER, None, 100, 99, NOW) == []
    assert survey_notes(EARLIER, None, 100, None, NOW) == []  # count unknown: nothing claimed


async def _create(h: Any, fields: dict[str, Any]) -> Survey:
    async with ApiClient(h.base_url, h.api_key, h.project_id) as client:
        return await client.surveys.create(fields)


def _browser(app: Any) -> SurveyBrowserScreen:
    assert isinstance(app.screen, SurveyBrowserScreen)
    return app.screen


async def _select(pilot: Any, survey_id: str) -> int:
    screen = _browser(pilot.app)
    for index in range(screen.table.row_count):
        if screen.table.key_at(index) == survey_id:
            screen.table.move_cursor(index)
            await pilot.pause()
            await settle(pilot)
            return index
    raise AssertionError(f"{survey_id} not listed")


@pytest.mark.slow
async def test_the_browser_shows_the_status_respondents_meet(sandbox: Any, clock: FrozenClock) -> None:
    """One session over surveys made for it, in turn:

    - a future start date is running (stop offered, not launch) and the detail says it schedules nothing; a
      future end date is complete and the detail says so too;
    - a stopped survey can be resumed: resuming is clearing the end date (the real UI's resume PATCHes
      ``end_date: null``), and it is running again;
    - a running survey whose responses reach its limit says "limit reached" in the list and the detail;
    - rewording a running survey's question in the editor warns that responses answered the old wording.
    """
    question = [{"type": "open", "question": "Anything?"}]
    future_start = await _create(sandbox, {"name": "Starts next week", "type": "popover", "questions": question,
                                           "start_date": (NOW + timedelta(days=7)).isoformat()})
    future_end = await _create(sandbox, {"name": "Ends next week", "type": "popover", "questions": question,
                                         "start_date": EARLIER.isoformat(),
                                         "end_date": (NOW + timedelta(days=7)).isoformat()})
    stopped = await _create(sandbox, {"name": "Stopped one", "type": "popover",
                                      "questions": [{"type": "open", "question": "Why?"}],
                                      "start_date": EARLIER.isoformat(), "end_date": (EARLIER + timedelta(days=1))
                                      .isoformat()})
    running = await _create(sandbox, {"name": "Live wording", "type": "popover", "start_date": EARLIER.isoformat(),
                                      "questions": [{"type": "open", "question": "How was it?"}]})
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = _browser(app)

        # -- a future start is running and says it schedules nothing; so is a future end
        index = await _select(pilot, future_start.id)
        assert screen.table.cell(index, "status") == "running"
        assert screen.check_action("launch", ()) is False and screen.check_action("stop", ()) is True
        await pilot.press("enter")
        await settle(pilot)
        fields = str(app.screen.query_one("#survey-detail-fields", Static).render())
        assert "start date in the future: it schedules nothing, respondents see the survey now" in fields
        index = await _select(pilot, future_end.id)
        assert screen.table.cell(index, "status") == "complete"
        fields = str(app.screen.query_one("#survey-detail-fields", Static).render())
        assert "end date in the future: it schedules nothing, respondents no longer see the survey" in fields
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.detail_max

        # -- a stopped survey can be resumed
        index = await _select(pilot, stopped.id)
        assert screen.check_action("resume", ()) is True
        assert screen.check_action("stop", ()) is False and screen.check_action("launch", ()) is False
        before = len(survey_writes(sandbox))
        await pilot.press("s")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        writes = survey_writes(sandbox)[before:]
        assert [(w["method"], w["body"]) for w in writes] == [("PATCH", {"end_date": None})]
        assert screen.table.cell(index, "status") == "running"
        assert screen.check_action("resume", ()) is False

        # -- limit reached is said in the list and the detail
        # a running survey with responses, as the list shows them
        shown = {screen.table.key_at(i): (screen.table.cell(i, "status"), screen.table.cell(i, "responses"))
                 for i in range(screen.table.row_count)}
        survey_id, (_, cell) = next((key, cells) for key, cells in shown.items()
                                    if cells[0] == "running" and cells[1] not in ("0", "—"))
        row = screen.pager.get(survey_id)
        assert row is not None
        responses = int(cell.replace(",", ""))
        async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id) as client:
            await client.surveys.update(row.id, {"responses_limit": responses})
        await pilot.press("ctrl+r")
        await settle(pilot)
        index = await _select(pilot, row.id)
        assert screen.table.cell(index, "status") == "limit reached"
        await pilot.press("enter")
        await settle(pilot)
        fields = str(app.screen.query_one("#survey-detail-fields", Static).render())
        assert f"limit reached: {responses:,} of {responses:,} responses" in fields
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.detail_max

        # -- rewording a running survey's question warns
        await _select(pilot, running.id)
        await pilot.press("e")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen)
        summary = str(editor.query_one("#editor-summary", Static).render())
        assert "old wording" not in summary
        # Q1 in the list, its form, its text field (F6), the old wording cleared and the new one typed
        await pilot.press("down", "enter")
        await settle(pilot)
        await pilot.press("f6", "end", "ctrl+u", *("space" if c == " " else c for c in "How was your visit?"))
        await settle(pilot)
        assert editor.draft.questions[0].text == "How was your visit?"
        summary = str(editor.query_one("#editor-summary", Static).render())
        assert "responses already collected answered the old wording of Q1" in summary


async def test_ages_and_status_use_the_servers_clock() -> None:
    """The sandbox's clock runs two days ahead of this machine's: ages are measured on the server's time."""
    local = FrozenClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC))
    server = FrozenClock(local.now() + timedelta(days=2))
    with start_sandbox(sandbox_options(server)) as handle:
        app = make_app(handle, local)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            screen = _browser(app)
            assert abs((screen.now - server.now()).total_seconds()) < 5
