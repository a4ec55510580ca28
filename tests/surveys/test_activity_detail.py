"""Activity rows expand to the whole change; a reworded question shows as a word diff (issue 30 §4).

The real service logs a survey update as one change per field with the whole ``before`` and ``after`` values
(``posthog/api/survey.py`` ``perform_update`` -> ``changes_between``), so a question's rewording is inside the
``questions`` change.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from textual.widgets import DataTable, Static

from tests.pilot import settle, until
from tests.surveys.conftest import make_app, sandbox_options
from tui.api.client import ApiClient
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox
from tui.screens.survey_modals import ActivityScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.state.word_diff import word_diff


def test_word_diff_keeps_the_words_that_stay() -> None:
    pieces = word_diff("How was your visit today?", "How was your first visit?")
    assert "".join(t for op, t in pieces if op != "+") == "How was your visit today?"
    assert "".join(t for op, t in pieces if op != "-") == "How was your first visit?"
    assert pieces[0] == ("=", "How was your ") and any(op == "+" and "first" in t for op, t in pieces)
    assert word_diff("Why?", "Why? Tell us") == [("=", "Why?"), ("+", " Tell us")]
    assert "".join(t for op, t in word_diff("a b c", "a x c") if op != "-") == "a x c"
    assert word_diff("", "") == []


async def test_enter_on_an_activity_row_shows_the_whole_change(sandbox: Any, clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    async with app.run_test(size=(150, 48)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SurveyBrowserScreen)
        row = next(r for r in screen.pager.rows if r.question_count)
        survey = row.survey()
        questions = [q.model_dump(mode="json", exclude_unset=True) for q in survey.questions or []]
        old_text = questions[0]["question"]
        questions[0]["question"] = old_text + " Please be specific"
        async with ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id) as client:
            await client.surveys.update(survey.id, {"questions": questions, "responses_limit": 777})
        screen.table.move_to_key(row.id)
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ActivityScreen)
        table = modal.query_one("#activity-table", DataTable)
        table.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        detail = modal.query_one("#activity-detail", Static).render()
        plain = str(detail)
        assert "Q1: " + old_text + " Please be specific" in plain
        assert "before: " in plain and "777" in plain
        spans = [plain[s.start:s.end] for s in detail.spans if "strike" not in str(s.style)]  # type: ignore[attr-defined]
        assert "Please be specific" in "".join(spans)


async def test_activity_ages_are_on_the_servers_clock(clock: FrozenClock) -> None:
    """A server whose clock is 18 hours ahead of this machine's: a change it logged 11 hours ago (on its clock) reads
    "11h ago", not "in 7h" (this machine's clock)."""
    server = FrozenClock(clock.now() + timedelta(hours=18))
    with start_sandbox(sandbox_options(server)) as handle:
        app = make_app(handle, clock)
        async with app.run_test(size=(150, 48)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, SurveyBrowserScreen)
            row = screen.pager.rows[0]
            server.set(clock.now() + timedelta(hours=7))  # the change is logged 11 hours before the server's now
            async with ApiClient(handle.base_url, handle.api_key, handle.project_id) as client:
                await client.surveys.update(row.id, {"responses_limit": 778})
            server.set(clock.now() + timedelta(hours=18))
            screen.table.move_to_key(row.id)
            await settle(pilot)
            await pilot.press("h")
            await settle(pilot)
            modal = app.screen
            assert isinstance(modal, ActivityScreen)
            await until(pilot, lambda: modal.query_one("#activity-table", DataTable).row_count > 0)
            table = modal.query_one("#activity-table", DataTable)
            assert str(table.get_row_at(0)[0]) == "11h ago"
