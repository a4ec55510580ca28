"""What the editor says before saving where the stored survey will differ from what was typed (issue 46 §1, §2).

The real serializer cleans the thank-you texts and question texts with nh3 where they look like HTML (PostHog/posthog
``products/surveys/backend/api/survey_appearance.py`` ``validate_survey_appearance``, ``survey.py``
``validate_questions``); the form says "stored as: …" beside the field, from the same cleaner the sandbox stores with.
A key of "Other appearance keys" that a typed field also sets is said to lose to the typed field; an unknown key is
named with the closest known one. None of these stops the save.
"""

from __future__ import annotations

import json
from typing import Any

from tui.api.models.surveys import Survey
from tui.state.survey_draft import SurveyDraft
from tui.widgets.editor.common import FieldError

from .conftest import create_survey, fetch_raw, make_app, survey_writes
from .helpers import set_area, set_input, settle


async def test_the_form_says_what_will_be_stored_and_which_key_wins_before_saving(sandbox: Any) -> None:
    from tui.screens.editor import SurveyEditorScreen

    app = make_app(sandbox)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        survey = await create_survey(sandbox, {
            "name": "Stored as", "type": "popover", "questions": [{"type": "open", "question": "Hi?"}],
            "appearance": {"position": "right", "whiteLabel": False}})
        editor = SurveyEditorScreen(survey)
        app.push_screen(editor)
        await settle(pilot)
        since = len(sandbox.requests())
        await set_input(pilot, "#f-appearance--thankYouMessageHeader", "<b>Bold</b> <Product>")
        header = editor.query_one("#fe-appearance--thankYouMessageHeader", FieldError)
        assert header.message == 'note: the service cleans HTML here; stored as: "<b>Bold</b> "'
        assert header.has_class("field-note")
        await set_area(pilot, "#f-appearance", json.dumps({"whiteLabel": False, "position": "middle_center",
                                                           "fontFamily2": "serif"}))
        other = editor.query_one("#fe-appearance", FieldError).message or ""
        assert other == (
            "note: fontFamily2: not a key the service knows; did you mean fontFamily?; "
            '"position" is also set by the appearance.position field, whose "right" is saved '
            '(this key\'s "middle_center" is not)')
        assert survey_writes(sandbox, since) == []
        await pilot.press("ctrl+s")
        await settle(pilot)
        [write] = survey_writes(sandbox, since)
        assert write["body"] == {"appearance": {"whiteLabel": False, "position": "right", "fontFamily2": "serif",
                                                "thankYouMessageHeader": "<b>Bold</b> <Product>"}}
        stored = await fetch_raw(sandbox, survey.id)
        assert stored["appearance"]["thankYouMessageHeader"] == "<b>Bold</b> "
        assert stored["appearance"]["position"] == "right"
        assert app.screen is not editor, "notes never stop a save"


def test_question_texts_and_choices_are_noted_where_the_service_cleans_them() -> None:
    survey = Survey.model_validate({"id": "s1", "name": "PMF", "type": "popover", "questions": [
        {"type": "single_choice", "question": "Would you use <Feature X> if it cost < $5 & took >2 min?",
         "choices": ["Yes", "Other <specify>"]}]})
    notes = SurveyDraft(survey).notes()
    assert notes == {
        "questions[0].question":
            'the service cleans HTML here; stored as: "Would you use  if it cost &lt; $5 &amp; took &gt;2 min?"',
        "questions[0].choices[1]": 'the service cleans HTML here; stored as: "Other "'}


def test_an_empty_url_condition_stays_in_the_survey() -> None:
    """``conditions.url: ""`` as the sandbox seeds it is kept (in the other condition keys), not dropped."""
    survey = Survey.model_validate({"id": "s1", "name": "Button", "type": "popover", "questions": [],
                                    "conditions": {"url": "", "selector": "#feedback-button"}})
    draft = SurveyDraft(survey)
    assert draft.payload()["conditions"] == {"url": "", "selector": "#feedback-button"}
    assert draft.form["conditions.url"] == ""


def test_one_line_per_field_reads_as_a_note_only_when_every_message_is_one() -> None:
    from tui.widgets.editor.common import as_note, joined

    assert joined([as_note("a"), as_note("b")]) == "note: a; b"
    assert joined([as_note("a"), "must be text"]) == "must be text; a"
    assert joined([]) is None
