"""New from a template (NPS with detractor/passive/promoter follow-ups, CSAT, PMF, open feedback) and duplicate.

The NPS template branches on the real UI's range keys of a 0-10 rating (``detractors``/``passives``/``promoters``,
PostHog ``frontend/src/scenes/surveys/constants.tsx`` templates); response-based branching is stored as
``responseValues`` mapping a response key to a question index (``posthog/models/surveys/survey.py``).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, OptionList

from tests.pilot import settle
from tests.surveys.conftest import make_app, survey_writes
from tui.clock import FrozenClock
from tui.screens.editor import SurveyEditorScreen
from tui.screens.editor_dialogs import TemplatePickerScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.state.survey_draft import SurveyDraft
from tui.state.survey_templates import TEMPLATES, template


def test_every_template_is_a_survey_the_editor_accepts() -> None:
    for key in TEMPLATES:
        draft = SurveyDraft.new_from(template(key))
        assert draft.creating and draft.problems() == {}, (key, draft.problems())
    nps = SurveyDraft.new_from(template("nps"))
    branch = nps.questions[0].branch
    assert branch is not None and branch.mode == "ranges"
    assert nps.changes()["questions"][0]["branching"] == {
        "type": "response_based", "responseValues": {"detractors": 1, "passives": 2, "promoters": 3}}


async def test_new_from_the_nps_template_and_a_duplicate_create_them(sandbox: Any, clock: FrozenClock) -> None:
    """One session: ``t`` offers the four templates and the NPS one is POSTed with its response-based branching,
    nothing sent before the save; ``D`` on a launched survey opens a draft copy whose save POSTs the name with
    " (copy)", its questions without ids, and no dates or targeting flag."""
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SurveyBrowserScreen)

        # -- new from the NPS template
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TemplatePickerScreen)
        assert app.screen.query_one("#template-list", OptionList).option_count == 4
        await pilot.press("enter")  # the first: NPS
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen) and editor.draft.creating
        assert survey_writes(sandbox) == []  # nothing sent until saved
        await pilot.press("ctrl+s")
        await settle(pilot)
        [write] = survey_writes(sandbox)
        assert write["method"] == "POST"
        body = write["body"]
        assert body["name"] == "Net Promoter Score (NPS)" and len(body["questions"]) == 4
        assert body["questions"][0]["branching"]["responseValues"] == {"detractors": 1, "passives": 2,
                                                                         "promoters": 3}
        assert app.screen is screen
        assert screen.table.cell(0, "name") == "Net Promoter Score (NPS)"

        # -- duplicate opens a draft copy and creates it
        row = next(r for r in screen.pager.rows if r.start_date is not None and r.question_count)
        original = row.survey()
        screen.table.move_to_key(row.id)
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen) and editor.draft.creating
        assert editor.query_one("#f-name", Input).value == f"{original.name} (copy)"
        await pilot.press("ctrl+s")
        await settle(pilot)
        [write] = survey_writes(sandbox)[1:]
        body = write["body"]
        assert write["method"] == "POST"
        assert body["name"] == f"{original.name} (copy)"
        assert "start_date" not in body and "end_date" not in body and "targeting_flag_id" not in body
        assert [q["question"] for q in body["questions"]] == [q.question for q in original.questions or []]
        assert all("id" not in q for q in body["questions"])
