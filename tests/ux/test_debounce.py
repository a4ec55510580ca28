"""The screens' waits for the operator to stop, as they ship (``tui.screens.debounce``): a burst of moves or keys
asks the server only for where the burst ended.

Every other test runs with the waits shortened (tests/conftest.py); these run with them as they ship. A burst is
made in one go, with no wait between its moves (a held key, a fast typist), so what is asked does not depend on how
busy the machine is: these check that a move or a key waits before asking (a screen asking at each key fails them),
not how long it waits.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input

from tests.monitor.conftest import make_app, open_logs, requests
from tests.pilot import settle, until
from tests.surveys.conftest import make_app as make_survey_app
from tests.surveys.conftest import requests_to
from tui.sandbox.runner import SandboxHandle
from tui.screens import debounce
from tui.screens.monitor import MonitorScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.shipped_debounce


def test_the_waits_are_the_shipped_ones() -> None:
    assert debounce.Debounce() == debounce.DEBOUNCE
    assert debounce.DEBOUNCE.runs > 0 and debounce.DEBOUNCE.search > 0 and debounce.DEBOUNCE.stats > 0


async def test_a_burst_of_moves_in_the_monitor_asks_the_run_history_once(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        table = screen.query_one("#exports", VirtualTable)
        assert table.row_count >= 6
        asked = len(requests(sandbox, "GET", "/runs"))
        for _ in range(5):
            table.action_cursor_down()
        await settle(pilot)
        stopped_on = screen.board.selected()
        assert stopped_on is not None
        assert table.cursor_row == 5
        asked_for = {r["path"].split("/batch_exports/")[1] for r in requests(sandbox, "GET", "/runs")[asked:]}
        assert asked_for == {f"{stopped_on.export.id}/runs/"}


async def test_typing_a_search_in_the_logs_asks_only_with_the_whole_word(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        logs = await open_logs(pilot)
        await pilot.press("slash")
        box = logs.query_one("#logs-search", Input)
        asked = len(requests(sandbox, "GET", "/logs"))
        for end in range(1, len("error") + 1):
            box.value = "error"[:end]
        await until(pilot, lambda: len(requests(sandbox, "GET", "/logs")) > asked,
                    step=debounce.DEBOUNCE.search)
        await settle(pilot)
        searched = [r["query_params"].get("search") for r in requests(sandbox, "GET", "/logs")[asked:]]
        # Only the whole word (the logs follow: a later ask repeats it); never "e", "er", ...
        assert searched and set(map(str, searched)) == {str(["error"])}, searched


async def test_typing_a_search_in_the_survey_list_asks_once_with_the_whole_word(survey_sandbox: SandboxHandle) -> None:
    app = make_survey_app(survey_sandbox, survey_sandbox.clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SurveyBrowserScreen)
        await pilot.press("slash")
        box = app.screen.query_one("#survey-filter", Input)

        def searches() -> list[Any]:
            return [r["query_params"]["search"] for r in requests_to(survey_sandbox, "GET", "/surveys/")
                    if "search" in r["query_params"]]

        for end in range(1, len("feedback") + 1):
            box.value = "feedback"[:end]
        await until(pilot, lambda: bool(searches()), step=debounce.DEBOUNCE.search)
        await settle(pilot)
        assert searches() == [["feedback"]]
