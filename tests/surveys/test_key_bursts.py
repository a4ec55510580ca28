"""The survey list's row keys, sent in one write with the moves before them (issue 42, item 1): each acts on the
survey the cursor is on when the key is handled (:func:`tests.pilot.burst` queues the keys at once)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.pilot import burst, settle
from tests.surveys.conftest import make_app
from tui.clock import FrozenClock
from tui.screens.surveys import SurveyBrowserScreen


def dialog_text(screen: Any) -> str:
    return "\n".join(str(static.render()) for static in screen.query(Static))


async def test_down_down_d_asks_about_the_survey_under_the_cursor(sandbox: Any, clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SurveyBrowserScreen)
        await burst(pilot, "home", "down", "down", "d")
        assert browser.table.cursor_row == 2
        row = browser.selected
        assert row is not None and app.screen is not browser
        text = dialog_text(app.screen)
        assert row.name in text, text
        others = [browser.pager.get(browser.table.key_at(i)) for i in (0, 1)]
        assert all(other is not None and other.name not in text for other in others), text
