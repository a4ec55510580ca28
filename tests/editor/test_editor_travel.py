"""Keyboard travel in the editor: one Tab from the list to the form, F6 between them, no button Tab lands on."""

from __future__ import annotations

from typing import Any

from textual.widgets import Button, Input, OptionList

from tui.api.models.surveys import Survey

from .conftest import EditorHarness
from .helpers import select_item, settle
from .test_editor_snapshots import SURVEY

SIZE = (80, 24)
"""Small: the layout is not what these tests check, and each refresh of a smaller screen costs less."""


def _focus_chain(app: Any) -> list[Any]:
    return [w for w in app.screen.focus_chain]


async def test_travel_between_the_list_and_the_form() -> None:
    """One editor on a five-question survey; in turn:

    - one Tab from the list reaches the name field, and F6 goes back and forth between list and form;
    - F6 straight after moving the list's cursor goes into the highlighted question at once;
    - the whole Tab cycle of a choice question with branching visits fields only (no button that adds or
      deletes) and wraps to the list, adding nothing on the way;
    - Alt+Delete removes the focused choice and keeps the focus on the row.
    """
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        items = app.screen.query_one("#editor-items", OptionList)
        # one Tab from the list to the name field, F6 back and forth
        assert app.screen.focused is items
        await pilot.press("tab")
        assert app.screen.focused is app.screen.query_one("#f-name", Input)
        await pilot.press("f6")
        assert app.screen.focused is items
        await pilot.press("f6")
        assert app.screen.focused is app.screen.query_one("#f-name", Input)
        await pilot.press("f6")
        assert app.screen.focused is items and items.highlighted == 0

        # F6 goes into the highlighted question at once
        await pilot.press("down", "down", "down", "down", "f6")  # no wait for the form to follow the cursor
        await settle(pilot)
        assert app.screen.focused is app.screen.query_one("#q-question", Input)
        assert app.screen.focused.value == "Which plan are you on?"

        # the Tab cycle of a choice question with branching: fields only, and it wraps to the list
        await select_item(pilot, 4)  # single choice, response-based branching
        chain = _focus_chain(app)
        buttons = [w.id for w in chain if isinstance(w, Button)]
        assert buttons == ["choice-add"]  # says what it does; no Add/Del/✕ of the list or rows
        branch_selects = [w for w in chain if (w.id or "").startswith("b-")]
        steps = chain.index(branch_selects[-1]) - chain.index(items)
        assert steps <= 16  # was 29 with a button per row
        items.focus()
        for _ in range(len(chain)):
            await pilot.press("tab")
        assert app.screen.focused is items  # back round to the list, nothing added on the way
        assert len(app.screen.draft.questions) == len(SURVEY["questions"])

        # Alt+Delete removes the focused choice
        assert app.screen.draft.question(app.screen.current).choices == ["Free", "Pro", "Enterprise"]
        app.screen.query_one("#choice-1", Input).focus()
        await pilot.press("alt+delete")
        await settle(pilot)
        key = app.screen.current
        assert app.screen.draft.question(key).choices == ["Free", "Enterprise"]
        assert app.screen.focused is app.screen.query_one("#choice-1", Input)
