"""Every field of the editor's form is scrolled into view when it takes the focus (issue 42, item 6): at 80x24 Tab
went past "Upper bound label" into branching rows the pane could not scroll to (the choices and the branching took
one line of the form's height), and Enter then opened a menu for a field the operator could not see."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widget import Widget

from tui.api.models.surveys import Survey

from .conftest import EditorHarness
from .helpers import select_item, settle
from .test_editor_snapshots import SURVEY


def _each_value_survey() -> dict[str, Any]:
    """SURVEY with its NPS question branching by each value (eleven rows, 0 to 10)."""
    survey = copy.deepcopy(SURVEY)
    survey["questions"][2]["branching"] = {"type": "response_based", "responseValues": {"0": 1, "10": "end"}}
    return survey


def _out_of_view(form: VerticalScroll, focused: Widget) -> str | None:
    """Why ``focused`` (a field of the form) is not wholly inside the form pane's visible region, or None."""
    if focused not in form.walk_children():
        return None  # the list: not in the pane
    if focused.region not in form.scrollable_content_region:
        return f"{focused!r} at {focused.region} is outside the pane's {form.scrollable_content_region}"
    return None


async def _tab_through(pilot: Pilot[Any], indexes: tuple[int, ...], where: str) -> None:
    """Tab through every field of each question in ``indexes``, each focused field wholly in the form pane."""
    app = pilot.app
    form = app.screen.query_one("#editor-form", VerticalScroll)
    for index in indexes:
        await select_item(pilot, index)
        chain = list(app.screen.focus_chain)
        visited = 0
        for _ in range(len(chain)):
            await pilot.press("tab")
            await settle(pilot)
            focused = app.screen.focused
            assert focused is not None
            assert _out_of_view(form, focused) is None, (where, index, _out_of_view(form, focused))
            visited += focused in form.walk_children()
        assert visited == sum(widget in form.walk_children() for widget in chain) > 0, (where, index)


@pytest.mark.slow
async def test_tab_through_every_question_keeps_the_focused_field_in_view() -> None:
    """The questions with branching rows (the rating and the single choice), the rating branching by each value
    (eleven rows): at 80x24, then resized to 160x48 in the same session."""
    app = EditorHarness(Survey.model_validate(_each_value_survey()))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _tab_through(pilot, (3, 4), "80x24")
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert app.size == (160, 48)
        await _tab_through(pilot, (3, 4), "160x48")


async def test_tab_through_a_rating_branching_by_ranges_keeps_the_focused_field_in_view() -> None:
    """The rating branching by NPS ranges (three rows) at 80x24; its single choice is the one above."""
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _tab_through(pilot, (3,), "ranges 80x24")
