"""Issue 42, item 6: the survey editor's details a newcomer met (a new survey's form, text typed after ctrl+u)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Static

from tests.pilot import burst, settle
from tests.surveys.conftest import make_app, survey_writes
from tests.surveys.test_browser import editor_of, field_error
from tui.clock import FrozenClock


async def test_a_new_survey_says_its_name_is_required_once_touched_or_saved(sandbox: Any,
                                                                              clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        editor = await editor_of(pilot, "n")
        assert editor.focused is editor.query_one("#f-name", Input)
        assert field_error(editor, "name") == "", "nothing typed yet: no error in red"
        assert "problem" not in str(editor.query_one("#editor-summary", Static).render())
        await burst(pilot, "A", "backspace")  # touched, and left empty
        await settle(pilot)
        assert field_error(editor, "name") == "a name is required"
        await burst(pilot, "escape")
        await settle(pilot)
        while app.screen is editor:  # a discard question may come first
            await burst(pilot, "y")
            await settle(pilot)
        editor = await editor_of(pilot, "n")
        assert field_error(editor, "name") == ""
        await burst(pilot, "ctrl+s")
        await settle(pilot)
        assert field_error(editor, "name") == "a name is required", "a save says what is missing"
        assert "a name is required" in str(editor.query_one("#editor-summary", Static).render())
        assert survey_writes(sandbox) == []
