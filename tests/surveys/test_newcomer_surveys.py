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


async def test_a_fields_own_keys_act_in_the_order_typed(sandbox: Any, clock: FrozenClock) -> None:
    """ctrl+u, End, the arrows and backspace in a field act before the letters sent behind them in the same write
    (``End C-u '#ffffff'`` left the field empty: ctrl+u ran after the letters); ctrl+c still quits from a field."""
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        editor = await editor_of(pilot, "n")
        name = editor.query_one("#f-name", Input)
        assert editor.focused is name
        await burst(pilot, "a", "b", "c", "home", "end", "ctrl+u", "number_sign", *"ffffff")
        assert name.value == "#ffffff"
        await burst(pilot, "left", "left", "X", "backspace", "Y", "end", "Z")
        assert name.value == "#ffffYffZ"
        await burst(pilot, "ctrl+c")
    assert not app.is_running


async def test_the_type_column_shows_every_type_whole(sandbox: Any, clock: FrozenClock) -> None:
    """``external_survey`` was cut to ``external…`` while the Name column had room to spare."""
    from tests.surveys.test_browser import browser, column_texts
    from tui.api.models.surveys import SurveyType

    app = make_app(sandbox, clock)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        table = browser(app).table
        assert SurveyType.EXTERNAL_SURVEY.value in column_texts(browser(app), "type")
        drawn = "\n".join(table.render_line(y).text for y in range(table.size.height))
        assert f" {SurveyType.EXTERNAL_SURVEY.value} " in drawn, drawn
        assert "external…" not in drawn


def test_every_one_line_field_is_a_text_field() -> None:
    """A field built as Textual's Input would run ctrl+u after the letters typed behind it again."""
    import re
    from pathlib import Path

    tui = Path(__file__).resolve().parents[2] / "tui"
    built = [f"{path.relative_to(tui)}:{number}"
             for path in sorted(tui.rglob("*.py")) if path.name != "text_field.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"(?<![\w.])Input\(", line)]
    assert built == []
