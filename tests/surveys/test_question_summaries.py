"""Per-question summaries beside the whole-survey one (issue 30 §4).

``summarize_responses`` takes ``question_index`` (or ``question_id``) as a query parameter and summarizes that
question's answers; without one the newest servers answer the survey-wide headline
(``products/surveys/backend/api/survey.py`` ``summarize_responses``).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Select, Static

from tests.pilot import settle
from tests.surveys.conftest import make_app, requests_to
from tui.clock import FrozenClock
from tui.screens.survey_modals import SummaryScreen
from tui.screens.surveys import SurveyBrowserScreen


async def test_a_question_is_summarized_on_its_own(sandbox: Any, clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SurveyBrowserScreen)
        row = next(r for r in screen.pager.rows if r.question_count >= 2 and r.start_date is not None)
        screen.table.move_to_key(row.id)
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, SummaryScreen)
        path = f"/surveys/{row.id}/summarize_responses/"
        assert [r["query_params"] for r in requests_to(sandbox, "POST", path)] == [{}]
        picker = modal.query_one("#summary-question", Select)
        assert len(modal.questions) == row.question_count
        picker.value = 1
        await settle(pilot)
        assert [r["query_params"] for r in requests_to(sandbox, "POST", path)] == [{}, {"question_index": ["1"]}]
        assert modal.question_index == 1
        assert str(modal.query_one("#summary-text", Static).render()).strip()
        assert not modal.query_one("#summary-loading").display
