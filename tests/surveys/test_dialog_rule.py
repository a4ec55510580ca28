"""Issue 27, item 2: the survey browser's activity and summary dialogs close as every dialog confirms (``y``, or
Enter on the focused Close button), Escape closes too, and the footer shows the dialog's own keys."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pilot import footer_words, settle
from tests.surveys.conftest import make_app
from tui.clock import FrozenClock
from tui.screens.survey_modals import ActivityScreen, SummaryScreen
from tui.screens.surveys import SurveyBrowserScreen

MISSING = "00000000-0000-0000-0000-000000000000"


@pytest.mark.slow
async def test_summary_and_activity_close_with_y_enter_or_escape(sandbox: Any, clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SurveyBrowserScreen)
        for key in ("y", "enter", "escape"):
            app.push_screen(SummaryScreen(MISSING, "gone"))  # a failure: Close is focused, nothing else is
            await settle(pilot)
            modal = app.screen
            assert isinstance(modal, SummaryScreen)
            assert modal.focused is not None and modal.focused.id == "summary-close"
            assert footer_words(modal) == {"Confirm", "Cancel"}, "the dialog's keys, not the browser's"
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is browser, key
        for key in ("y", "escape"):
            app.push_screen(ActivityScreen(None, "Activity"))
            await settle(pilot)
            modal = app.screen
            assert isinstance(modal, ActivityScreen)
            assert footer_words(modal) == {"Confirm", "Cancel"}
            await pilot.press(key)  # the table has the focus once loaded: y still closes
            await settle(pilot)
            assert app.screen is browser, key
