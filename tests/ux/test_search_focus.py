"""Keys typed straight after ``/`` run none of the screen's actions: the search box has the focus at once.

An operator (or a paste) types ``/feed`` faster than a frame: the keys after ``/`` are already waiting when the box
opens. Had the box taken the focus a moment later, ``e`` would open the editor of the highlighted survey, ``p``
would ask to pause the selected export, ``f`` would stop the logs following. Here the keys are queued together, as
such an operator's arrive. (They are not typed into the box: Textual hands each key to the widget that had the focus
when the app read it, and the box had not yet; the operator sees the empty box and types again.)
"""
from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from tests.monitor.conftest import make_app, open_logs
from tests.pilot import burst, settle
from tests.surveys.conftest import make_app as make_survey_app
from tui.sandbox.runner import SandboxHandle
from tui.screens.monitor import MonitorScreen
from tui.screens.surveys import SurveyBrowserScreen


async def test_keys_typed_after_slash_in_the_monitor_run_none_of_its_actions(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await burst(pilot, "slash", "p")
        assert isinstance(app.screen, MonitorScreen)  # no pause asked for
        assert app.screen.focused is app.screen.query_one("#monitor-filter", Input)


async def test_keys_typed_after_slash_in_the_logs_run_none_of_their_actions(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        logs = await open_logs(pilot)
        following = logs.follow
        await burst(pilot, "slash", "f")
        assert app.screen is logs and logs.follow is following  # "f" did not toggle following
        assert logs.focused is logs.query_one("#logs-search", Input)


async def test_keys_typed_after_slash_in_the_survey_list_run_none_of_its_actions(survey_sandbox: SandboxHandle) -> None:
    app = make_survey_app(survey_sandbox, survey_sandbox.clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SurveyBrowserScreen)
        await burst(pilot, "slash", "e", "f")
        assert app.screen is browser  # no editor opened
        assert browser.status_filter is None  # nor the status filter cycled
        assert browser.focused is browser.query_one("#survey-filter", Input)


async def test_the_monitor_starts_on_its_exports_table_without_passing_through_the_hidden_filter_box(
        sandbox: SandboxHandle) -> None:
    """Textual focuses a screen's first focusable widget unless told which: the filter box (hidden), whose keys the
    footer would be built for before the table took the focus."""
    focused: list[str] = []

    def hook(message: Any) -> None:
        if isinstance(message, events.DescendantFocus):
            focused.append(str(message.widget.id))

    app = make_app(sandbox)
    async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
        await settle(pilot)
        assert app.screen.focused is app.screen.query_one("#exports")
    assert "monitor-filter" not in focused, focused
