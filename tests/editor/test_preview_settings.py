"""The preview shows the open choice, shuffling and the thank-you texts as configured (issue 30 §4).

As the SDK draws them (posthog-js ``extensions/surveys``): with ``hasOpenChoice`` the last choice takes typed text,
``shuffleOptions`` shuffles the choices but keeps the open one last, and the closing screen shows
``appearance.thankYouMessageHeader``/``thankYouMessageDescription`` unless ``displayThankYouMessage`` is false.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Button, OptionList, SelectionList, Static

from tui.screens.survey_preview import SurveyPreviewScreen

from .conftest import EditorHarness
from .helpers import settle

QUESTIONS: list[dict[str, Any]] = [
    {"type": "single_choice", "question": "Which plan?", "choices": ["Free", "Pro", "Other"], "hasOpenChoice": True,
     "shuffleOptions": True},
    {"type": "multiple_choice", "question": "What do you use?", "choices": ["Dashboards", "Other"],
     "hasOpenChoice": True, "optional": True},
]


def _text(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_open_choice_shuffling_and_thank_you_texts() -> None:
    app = EditorHarness(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        appearance = {"thankYouMessageHeader": "Merci!", "thankYouMessageDescription": "We read every answer.",
                      "thankYouMessageCloseButtonText": "Done"}
        screen = SurveyPreviewScreen(QUESTIONS, "Plans", appearance)
        app.push_screen(screen)
        await settle(pilot)
        hint = _text(screen, "#preview-hint")
        assert "the last one is open text" in hint and "shuffled, the open one last" in hint
        answers = screen.query_one("#preview-answers", OptionList)
        assert str(answers.get_option_at_index(2).prompt) == "Other: ____ (open text)"
        await pilot.press("enter")
        await settle(pilot)
        multi = screen.query_one("#preview-multi", SelectionList)
        assert str(multi.get_option_at_index(1).prompt) == "Other: ____ (open text)"
        assert "shuffled" not in _text(screen, "#preview-hint")
        screen.query_one("#preview-continue", Button).press()
        await settle(pilot)
        assert _text(screen, "#preview-question") == "Merci!"
        assert _text(screen, "#preview-description") == "We read every answer.\n[ Done ]"


async def test_no_thank_you_message_and_the_default_header() -> None:
    app = EditorHarness(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = SurveyPreviewScreen([], "Empty", {"displayThankYouMessage": False})
        app.push_screen(screen)
        await settle(pilot)
        assert _text(screen, "#preview-question") == "The survey closes: no thank-you message is shown"
        app.pop_screen()
        screen = SurveyPreviewScreen([], "Empty", None)
        app.push_screen(screen)
        await settle(pilot)
        assert _text(screen, "#preview-question") == "Thank you for your feedback!"
