"""``q`` closes a view or a dialog as Escape does; on the monitor or the survey list it quits; ctrl+c quits from
anywhere (issue 42, item 2). The footer and help say so."""

from __future__ import annotations

from typing import Any

import pytest

from tests.monitor.conftest import make_app, requests, select_export
from tests.pilot import burst, footer_entries, settle
from tests.surveys.conftest import make_app as make_survey_app
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle
from tui.screens.alerts import AlertsScreen
from tui.screens.backfills import BackfillsScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.editor import SurveyEditorScreen
from tui.screens.export_modals import RunErrorScreen
from tui.screens.failure_groups import FailureGroupsScreen
from tui.screens.help import HelpScreen, screen_keys
from tui.screens.logs import LogsScreen
from tui.screens.monitor import MonitorScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.screens.timeline import TimelineScreen

FAILING = "Snowflake warehouse (hourly)"


def footer_says(screen: Any, key: str) -> str | None:
    """The footer's word for ``key``, None when it does not show it."""
    return next((entry.description for entry in footer_entries(screen) if entry.key == key), None)


@pytest.mark.parametrize(("key", "kind"), [("l", LogsScreen), ("exclamation_mark", AlertsScreen),
                                           ("g", FailureGroupsScreen), ("t", TimelineScreen),
                                           ("B", BackfillsScreen), ("p", ConfirmScreen),
                                           ("enter", RunErrorScreen)])
async def test_q_closes_each_view_and_dialog_of_the_monitor_as_escape_does(sandbox: SandboxHandle, key: str,
                                                                          kind: type[Any]) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)
        select_export(app, FAILING)
        await settle(pilot)
        if key == "enter":  # the failed run's error, from the runs pane
            await burst(pilot, "enter")
        await burst(pilot, key)
        view = app.screen
        assert isinstance(view, kind)
        if not isinstance(view, ConfirmScreen | RunErrorScreen):  # a dialog's footer shows esc (q does the same)
            assert footer_says(view, "q") in ("Close", "Back"), "the footer says what q does here"
            assert footer_says(view, "q") != "Quit"
        await burst(pilot, "q")
        assert app.is_running and app.screen is monitor
        assert requests(sandbox, "POST") == [], "closing a dialog sends nothing"
        assert footer_says(monitor, "q") == "Quit", "back on the monitor, q quits again"
        await burst(pilot, "q")
    assert app.return_code == 0 and not app.is_running


async def test_the_monitor_footer_and_help_say_q_quits_there_and_closes_elsewhere(sandbox: SandboxHandle) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert footer_says(app.screen, "q") == "Quit"
        rows = {key: sentence for _group, key, _title, sentence, _applies in screen_keys(app.screen)}
        assert "In a view or a dialog q closes it, as Escape does." in rows["q"]
        await burst(pilot, "l")
        logs = app.screen
        assert isinstance(logs, LogsScreen)
        keys = {title: key for _group, key, title, _sentence, applies in screen_keys(logs) if applies}
        assert keys["Close logs"].startswith("q"), keys
        assert "Quit" not in keys, "q does not quit from the logs"
        await burst(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await burst(pilot, "q")
        assert app.screen is logs


async def test_ctrl_c_quits_from_a_view_and_from_a_dialog(sandbox: SandboxHandle) -> None:
    for keys in (("l",), ("p",)):
        app = make_app(sandbox)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await burst(pilot, *keys)
            assert not isinstance(app.screen, MonitorScreen)
            await burst(pilot, "ctrl+c")
        assert not app.is_running


async def test_q_leaves_an_unchanged_editor_for_the_survey_list_and_quits_there(survey_sandbox: SandboxHandle) -> None:
    app = make_survey_app(survey_sandbox, FrozenClock(survey_sandbox.clock.now()))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SurveyBrowserScreen)
        assert footer_says(browser, "q") == "Quit"
        await burst(pilot, "e")
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen)
        editor.query_one("#editor-items").focus()  # the question list: q is not a letter there
        await burst(pilot, "q")
        assert app.is_running and app.screen is browser
        await burst(pilot, "q")
    assert not app.is_running


async def test_the_cancel_run_dialog_names_its_answers_by_what_they_do(sandbox: SandboxHandle) -> None:
    """Issue 42, item 3: "Keep running (n)" and "Cancel run (y)", and the footer's Escape keeps it running too (not a
    second "Cancel" beside "Cancel run")."""
    from textual.widgets import Button

    from tests.pilot import footer_words

    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await burst(pilot, "home", "enter", "home", "c")  # the first export's first run is running
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        labels = [str(button.label) for button in dialog.query(Button)]
        assert labels == ["Keep running (n)", "Cancel run (y)"]
        assert footer_words(dialog) == {"Confirm", "Keep running"}
        await burst(pilot, "q")
        assert isinstance(app.screen, MonitorScreen) and requests(sandbox, "POST") == []


async def test_the_timelines_run_error_dialog_shows_its_own_keys(sandbox: SandboxHandle) -> None:
    from tests.pilot import footer_words

    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await burst(pilot, "t")
        timeline = app.screen
        assert isinstance(timeline, TimelineScreen)
        for _ in range(60):  # left along the first row to a cell with a run
            if timeline.model.runs_at(0, timeline.query_one("#timeline-grid").cursor_col):
                break
            await burst(pilot, "left")
        await burst(pilot, "enter")
        dialog = app.screen
        assert isinstance(dialog, RunErrorScreen)
        assert footer_words(dialog) == {"Close"}, "its own key, not the timeline's"
        await burst(pilot, "q")
        assert app.screen is timeline
