"""Keyboard travel in the editor: one Tab from the list to the form, F6 between them, no button Tab lands on."""

from __future__ import annotations

from typing import Any

from textual.widgets import Button, Input, OptionList

from tui.api.models.surveys import Survey

from .conftest import EditorHarness
from .helpers import select_item, settle
from .test_editor_snapshots import SURVEY

SIZE = (120, 40)


def _focus_chain(app: Any) -> list[Any]:
    return [w for w in app.screen.focus_chain]


async def test_one_tab_from_the_list_to_the_name_field_and_f6_back() -> None:
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        items = app.screen.query_one("#editor-items", OptionList)
        assert app.screen.focused is items
        await pilot.press("tab")
        assert app.screen.focused is app.screen.query_one("#f-name", Input)
        await pilot.press("f6")
        assert app.screen.focused is items
        await pilot.press("f6")
        assert app.screen.focused is app.screen.query_one("#f-name", Input)


async def test_f6_goes_into_the_highlighted_question_at_once() -> None:
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down", "down", "f6")  # no wait for the form to follow the cursor
        await settle(pilot)
        assert app.screen.focused is app.screen.query_one("#q-question", Input)
        assert app.screen.focused.value == "Which plan are you on?"


async def test_tab_never_lands_on_a_button_that_adds_or_deletes() -> None:
    """The whole Tab cycle of a choice question with branching: fields only, and it wraps to the list."""
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select_item(pilot, 4)  # single choice, response-based branching
        chain = _focus_chain(app)
        buttons = [w.id for w in chain if isinstance(w, Button)]
        assert buttons == ["choice-add"]  # says what it does; no Add/Del/✕ of the list or rows
        branch_selects = [w for w in chain if (w.id or "").startswith("b-")]
        items = app.screen.query_one("#editor-items", OptionList)
        steps = chain.index(branch_selects[-1]) - chain.index(items)
        assert steps <= 16  # was 29 with a button per row
        items.focus()
        for _ in range(len(chain)):
            await pilot.press("tab")
        assert app.screen.focused is items  # back round to the list, nothing added on the way
        assert len(app.screen.draft.questions) == len(SURVEY["questions"])


async def test_alt_delete_removes_the_focused_choice() -> None:
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select_item(pilot, 4)
        app.screen.query_one("#choice-1", Input).focus()
        await pilot.press("alt+delete")
        await settle(pilot)
        key = app.screen.current
        assert app.screen.draft.question(key).choices == ["Free", "Enterprise"]
        assert app.screen.focused is app.screen.query_one("#choice-1", Input)
