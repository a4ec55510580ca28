"""The two modes: the app starts in the one asked for, alone on its stack, and Tab goes between them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pilot import opened_by, settle
from tui.app import WatchdeckApp
from tui.clock import FrozenClock
from tui.config import Settings
from tui.screens.monitor import MonitorScreen
from tui.screens.surveys import SurveyBrowserScreen

from .conftest import make_app


async def test_the_survey_mode_starts_alone_and_tab_goes_to_the_monitor_and_back(sandbox: Any,
                                                                                  clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.current_mode == "surveys"
        assert [type(screen) for screen in app.screen_stack] == [SurveyBrowserScreen]
        browser = app.screen

        await opened_by(pilot, "tab", MonitorScreen)
        assert app.current_mode == "monitor"
        assert [type(screen) for screen in app.screen_stack] == [MonitorScreen]

        assert await opened_by(pilot, "tab", SurveyBrowserScreen) is browser  # the same browser, as it was left
        assert app.current_mode == "surveys"


def test_an_unknown_start_mode_is_refused() -> None:
    settings = Settings(base_url="http://127.0.0.1:1", api_key="k", project_ids=["1"])
    with pytest.raises(ValueError, match="no mode 'exports'"):
        WatchdeckApp(settings, start_mode="exports")
