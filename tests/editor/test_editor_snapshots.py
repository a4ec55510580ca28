"""Snapshots of the editor: one per question kind, the survey settings, the problems view, and 80x24.

Pictures that follow each other in one editor (item after item, field after field, a dialog opened and closed)
are taken in one app session: each is the same picture as in a session of its own.
"""

from __future__ import annotations

from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.pilot import Pilot

from tests.pictures import Pictures, hold_cursors
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


ITEMS = ["settings", "open", "link", "rating", "single", "multiple"]
SIZES = [(80, 24), (160, 48)]


def harness() -> EditorHarness:
    return EditorHarness(Survey.model_validate(SURVEY))


async def test_editor_item(snapshot: SnapshotAssertion) -> None:
    """Each item of the list (the settings, then one question of each kind) highlighted in turn."""
    pictures = Pictures(snapshot)
    async with pictures.session(harness(), (120, 40)) as pilot:
        await settle(pilot)
        for index, name in enumerate(ITEMS):
            await select_item(pilot, index)
            await pictures.take(pilot, name)
    pictures.check()


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


@pytest.mark.slow
async def test_editor_screens_at_both_sizes(snapshot: SnapshotAssertion) -> None:
    """At each size: the form; the preview (f5) and the kind picker (ctrl+n), each closed again with escape; and
    leaving with unsaved changes, which asks."""
    pictures = Pictures(snapshot)
    async with pictures.session(harness(), SIZES[0]) as pilot:
        await settle(pilot)
        editor = pilot.app.screen
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            await settle(pilot)
            hold_cursors(pilot)
            await pictures.take(pilot, f"form-{width}x{height}")
            for key, name in (("f5", "preview"), ("ctrl+n", "kind-picker")):
                await pilot.press(key)
                await settle(pilot)
                assert pilot.app.screen is not editor, f"{key} opened nothing at {width}x{height}"
                hold_cursors(pilot)
                await pictures.take(pilot, f"{name}-{width}x{height}")
                await pilot.press("escape")
                await settle(pilot)
                assert pilot.app.screen is editor, f"escape did not close the {name} at {width}x{height}"
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            await settle(pilot)
            await set_input(pilot, "#f-name", "Product pulse, edited")  # unsaved: leaving asks
            await pilot.press("escape")
            await settle(pilot)
            hold_cursors(pilot)
            await pictures.take(pilot, f"leave-{width}x{height}")
            await pilot.press("escape")
            await settle(pilot)
            assert pilot.app.screen is editor, f"escape did not cancel leaving at {width}x{height}"
    pictures.check()


async def test_settings_form_scrolls_to_the_focused_field(snapshot: SnapshotAssertion) -> None:
    """Issue 30 §3: the form scrolls, so every field (down to Archived) is drawn when it has the focus."""
    pictures = Pictures(snapshot)
    fields = {"display": "f-appearance--backgroundColor", "targeting": "f-targeting_flag_filters", "last": "f-archived"}
    async with pictures.session(harness(), SIZES[0]) as pilot:
        await settle(pilot)
        for width, height in SIZES:
            await pilot.resize_terminal(width, height)
            pilot.app.screen.query_one("#editor-form").scroll_home(animate=False, immediate=True)  # as it opens
            await settle(pilot)
            for name, field in fields.items():
                widget = pilot.app.screen.query_one(f"#{field}")
                if hasattr(widget, "cursor_blink"):  # Input and TextArea: a blinking cursor would make the picture vary
                    widget.cursor_blink = False
                widget.focus(scroll_visible=False)
                pilot.app.screen.query_one("#editor-form").scroll_to_widget(widget, animate=False, immediate=True)
                await settle(pilot)
                await pictures.take(pilot, f"{name}-{width}x{height}")
    pictures.check()
