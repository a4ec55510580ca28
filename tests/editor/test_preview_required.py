"""The preview: a required question cannot be passed without an answer; a rating's blank "Choose" is refused."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input, Static

from tests.pilot import opened_by
from tui.api.models.surveys import Survey
from tui.screens.editor import SurveyEditorScreen
from tui.screens.survey_preview import SurveyPreviewScreen
from tui.widgets.editor.pick_field import PickField

from .conftest import EditorHarness
from .helpers import select_item, settle

SIZE = (80, 24)
"""Small: the layout is not what these tests check, and each refresh of a smaller screen costs less."""


def _survey(optional: bool) -> Survey:
    return Survey.model_validate({"id": "local", "name": "Required", "questions": [
        {"type": "open", "question": "Why?", "optional": optional},
        {"type": "multiple_choice", "question": "Which?", "choices": ["A", "B"], "optional": optional},
        {"type": "rating", "question": "Rate", "display": "number", "scale": 5},
    ]})


async def _preview(pilot: Any) -> SurveyPreviewScreen:
    return await opened_by(pilot, "f5", SurveyPreviewScreen)


def _error(preview: SurveyPreviewScreen) -> str:
    return str(preview.query_one("#preview-error", Static).render())


async def test_required_questions_need_an_answer_and_a_blank_rating_scale_is_a_note() -> None:
    """One editor on a survey of required questions; in turn: the preview refuses to pass the open and the
    multiple-choice question without an answer, then passes each once answered; back in the editor, the
    rating's blank "Choose" scale is a note (the real service stores a rating without one), not the old value kept."""
    app = EditorHarness(_survey(optional=False))
    async with app.run_test(size=SIZE) as pilot:
        preview = await _preview(pilot)
        await pilot.press("enter")  # empty open answer
        await settle(pilot)
        assert preview.position == 0
        assert _error(preview) == "This question is required: type an answer."
        await pilot.press(*"because", "enter")
        await settle(pilot)
        assert preview.position == 1 and _error(preview) == ""
        preview.query_one("#preview-continue").focus()
        await pilot.press("enter")  # nothing ticked
        await settle(pilot)
        assert preview.position == 1
        assert _error(preview) == "This question is required: tick at least one answer."
        preview.query_one("#preview-multi").focus()
        await pilot.press("down", "space")
        preview.query_one("#preview-continue").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert preview.position == 2

        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SurveyEditorScreen)
        await select_item(pilot, 3)
        scale = app.screen.query_one("#q-scale", PickField)
        assert scale.value == 5
        scale.value = None  # the blank "Choose"
        await settle(pilot)
        key = app.screen.current
        assert "scale" not in app.screen.draft.question(key).data
        assert "questions[2].scale" not in app.screen.draft.problems(), "the real service stores it"
        assert app.screen.draft.notes()["questions[2].scale"].startswith("the SDK draws scales")
        assert isinstance(app.screen.query_one("#q-question", Input), Input)


@pytest.mark.parametrize("optional", [True])
async def test_optional_questions_can_be_skipped(optional: bool) -> None:
    app = EditorHarness(_survey(optional=optional))
    async with app.run_test(size=SIZE) as pilot:
        preview = await _preview(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert preview.position == 1
        preview.query_one("#preview-continue").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert preview.position == 2
