"""Snapshots of the editor: one per question kind, the survey settings, the problems view, and 80x24."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tui.api.models.surveys import Survey

from .conftest import EditorHarness
from .helpers import select_item, set_input, settle

SURVEY: dict[str, Any] = {
    "id": "0195f000-0000-7000-8000-000000000001",
    "name": "Product pulse [bold]not markup[/bold]",
    "description": "Every kind of question",
    "type": "popover",
    "start_date": "2026-02-01T09:00:00Z",
    "responses_limit": 1000,
    "appearance": {"position": "right", "backgroundColor": "#eeeded"},
    "conditions": {"url": "https://example.com/app", "urlMatchType": "icontains"},
    "questions": [
        {"id": "q-open", "type": "open", "question": "What brought you here today?", "description": "Be honest",
         "descriptionContentType": "text", "buttonText": "Next",
         "branching": {"type": "specific_question", "index": 3}},
        {"id": "q-link", "type": "link", "question": "Read what is new", "link": "https://example.com/changelog",
         "branching": {"type": "end"}},
        {"id": "q-rating", "type": "rating", "question": "How likely are you to recommend us?", "display": "number",
         "scale": 10, "lowerBoundLabel": "Unlikely", "upperBoundLabel": "Very likely",
         "branching": {"type": "response_based", "responseValues": {"detractors": 4, "promoters": "end"}}},
        {"id": "q-single", "type": "single_choice", "question": "Which plan are you on?",
         "choices": ["Free", "Pro", "Enterprise"], "shuffleOptions": True,
         "branching": {"type": "response_based", "responseValues": {"0": 1, "2": "end"}}},
        {"id": "q-multi", "type": "multiple_choice", "question": "What do you use?",
         "choices": ["Dashboards", "Alerts", "Other"], "hasOpenChoice": True, "optional": True},
    ],
}


def harness() -> EditorHarness:
    return EditorHarness(Survey.model_validate(SURVEY))


@pytest.mark.parametrize("item", [0, 1, 2, 3, 4, 5], ids=["settings", "open", "link", "rating", "single", "multiple"])
def test_editor_item(snap_compare: Any, item: int) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await select_item(pilot, item)

    assert snap_compare(harness(), terminal_size=(120, 40), run_before=run_before)


def test_editor_shows_problems_next_to_fields(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await select_item(pilot, 2)
        await set_input(pilot, "#q-question", "")
        await set_input(pilot, "#q-link", "ftp://nope")
        await pilot.press("ctrl+s")
        await settle(pilot)
        pilot.app.screen.query_one("#editor-items").focus()
        await settle(pilot)

    assert snap_compare(harness(), terminal_size=(120, 40), run_before=run_before)


def test_editor_at_80x24(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await select_item(pilot, 4)

    assert snap_compare(harness(), terminal_size=(80, 24), run_before=run_before)


def test_new_survey(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("ctrl+n", "down", "down", "enter")
        await settle(pilot)
        pilot.app.screen.query_one("#editor-items").focus()
        await settle(pilot)

    assert snap_compare(EditorHarness(None), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("keys", [["f5"], ["ctrl+n"], [], ["escape"]], ids=["preview", "kind-picker", "form", "leave"])
def test_editor_screens_at_both_sizes(snap_compare: Any, keys: list[str], size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        if keys == ["escape"]:
            await set_input(pilot, "#f-name", "Product pulse, edited")  # unsaved: leaving asks
        for key in keys:
            await pilot.press(key)
        await settle(pilot)

    assert snap_compare(harness(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("field", ["f-appearance--backgroundColor", "f-targeting_flag_filters", "f-archived"],
                         ids=["display", "targeting", "last"])
def test_settings_form_scrolls_to_the_focused_field(snap_compare: Any, field: str, size: tuple[int, int]) -> None:
    """Issue 30 §3: the form scrolls, so every field (down to Archived) is drawn when it has the focus."""
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        widget = pilot.app.screen.query_one(f"#{field}")
        if hasattr(widget, "cursor_blink"):  # Input and TextArea: a blinking cursor would make the picture vary
            widget.cursor_blink = False
        widget.focus(scroll_visible=False)
        pilot.app.screen.query_one("#editor-form").scroll_to_widget(widget, animate=False, immediate=True)
        await settle(pilot)

    assert snap_compare(harness(), terminal_size=size, run_before=run_before)
