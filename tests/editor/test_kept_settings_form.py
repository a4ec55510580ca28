"""The settings form is mounted once per draft and hidden while a question is shown (issue 42, item 6: it has the
most fields, and mounting it again each time it was selected took the longest): what the operator typed is there
when it is shown again, and a hidden field never holds the focus nor is reached by Tab or F6."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, OptionList

from tests.pilot import burst
from tui.api.models.surveys import Survey

from .conftest import EditorHarness
from .helpers import select_item, set_input, settle, shown_form

SURVEY = {"id": "kept-settings", "name": "Pulse", "type": "popover", "questions": [
    {"type": "open", "question": "Why?"},
    {"type": "link", "question": "Read", "link": "https://example.com/"},
]}


def _typed(text: str) -> list[str]:
    return ["space" if c == " " else c for c in text]


async def test_the_settings_form_keeps_what_was_typed_and_never_holds_a_hidden_focus() -> None:
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        items = screen.query_one("#editor-items", OptionList)
        name = screen.query_one("#f-name", Input)
        settings = shown_form(screen)
        assert name.parent is settings
        name.focus()
        await settle(pilot)
        await burst(pilot, "end", *_typed(" edited"))
        assert screen.draft.form["name"] == "Pulse edited"

        # to the first question: F6 goes from the field to the list, Down and Enter show the question
        await burst(pilot, "f6")
        await burst(pilot, "down", "enter")
        assert screen.current == screen.draft.questions[0].key and screen.focused is items
        assert not settings.display and shown_form(screen).id == "question-form"
        assert all(widget.display for widget in screen.focus_chain for widget in widget.ancestors_with_self
                   if widget is not app), "Tab reaches only what is shown"
        await burst(pilot, "f6")
        assert screen.focused is screen.query_one("#q-question", Input), "F6 goes into the form shown"

        # back to the settings: the same form, the name as typed
        await burst(pilot, "f6")
        await burst(pilot, "home", "enter")
        assert shown_form(screen) is settings and name.value == "Pulse edited"

        # a save refused from the name field goes to the question with the problem: the focus leaves the form hidden
        await select_item(pilot, 2)
        await set_input(pilot, "#q-link", "ftp://nope")
        await select_item(pilot, 0)
        name.focus()
        await settle(pilot)
        await burst(pilot, "ctrl+s")
        assert screen.current == screen.draft.questions[1].key and not settings.display
        assert screen.focused is items

        await select_item(pilot, 0)
        assert shown_form(screen) is settings and screen.query_one("#f-name", Input) is name
        assert name.value == "Pulse edited"


async def test_f6_moves_the_focus_as_it_is_handled_so_keys_sent_with_it_reach_the_list() -> None:
    """F6 and the keys typed after it arrive in one write: Down and Enter act on the list F6 went to, not on the field
    it left (a name field would take Down as nothing and Enter as a submit)."""
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        screen.query_one("#f-name", Input).focus()
        await settle(pilot)
        await burst(pilot, "f6", "down", "enter")
        assert screen.current == screen.draft.questions[0].key and screen.focused is screen.query_one("#editor-items")
        await burst(pilot, "f6")  # from the list F6 is an ordinary key: the keys typed with it may go to the list
        await burst(pilot, "end", *_typed(" now"))
        assert screen.focused is screen.query_one("#q-question", Input)
        assert screen.draft.questions[0].text == "Why? now"
        await burst(pilot, "f6", "down", "f6")  # from the list, F6 acts after the keys typed before it
        assert screen.current == screen.draft.questions[1].key
        assert screen.focused is screen.query_one("#q-question", Input)
