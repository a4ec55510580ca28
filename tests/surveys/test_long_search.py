"""A search longer than the service takes: the list says the server's limit instead of cutting it silently.

The newest service refuses a survey search longer than 200 characters; watchdeck sends the first 200 (as older
servers cut it) and says so beside the search and in the empty list.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.pilot import settle
from tests.surveys.conftest import make_app
from tests.surveys.test_browser import browser, list_requests, static_text
from tui.api.survey_rules import SEARCH_MAX
from tui.clock import FrozenClock


async def test_a_search_past_the_limit_says_the_limit(sandbox: Any, clock: FrozenClock) -> None:
    typed = "feedback " + "z" * 196
    assert len(typed) == 205
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        await pilot.press("slash")
        await settle(pilot)
        app.screen.query_one("#survey-filter", Input).value = typed
        await pilot.press("enter")
        await settle(pilot)
        assert screen.table.row_count == 0
        assert list_requests(sandbox)[-1]["query_params"]["search"] == [typed[:SEARCH_MAX]]
        empty = static_text(app, "#survey-empty")
        assert empty.startswith("No survey matches the first 200 characters of the search (the service searches "
                                "at most 200; 205 typed): 'feedback zzz")
        assert "(its first 200 of 205 characters: the service's limit)" in static_text(app, "#survey-status")
