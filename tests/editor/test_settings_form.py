"""The survey settings form: every field reachable and in view when focused, typed fields checked before saving,
JSON fields' keys as in every other field (issue 30 §2-§3).

Allowed values are the real SDK's (posthog-js ``posthog-surveys-types.ts``: ``SurveyPosition``, ``SurveyMatchType``);
the real serializer's ``validate_appearance`` only refuses a negative ``surveyPopupDelaySeconds``.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, OptionList, Select

from tui.api.models.surveys import Survey
from tui.api.writes import NEEDS_FREQUENCY, NEEDS_ITERATION_COUNT
from tui.key_registry import entries
from tui.screens.editor import SurveyEditorScreen
from tui.screens.editor_dialogs import LeaveScreen
from tui.screens.help import HelpScreen, keys_table, screen_keys
from tui.widgets.editor.common import FieldError
from tui.widgets.editor.survey_form import FORM_FIELDS, JsonArea, widget_id

from .conftest import EditorHarness, create_survey, fetch_raw, make_app, survey_writes
from .helpers import set_input, settle
from .test_editor_snapshots import SURVEY


def _focused(pilot: Pilot[Any]) -> Widget:
    focused = pilot.app.screen.focused
    assert focused is not None
    return focused


async def _every_field_in_view_when_tabbed_to(pilot: Pilot[Any], size: str) -> None:
    """From the question list, Tab through the form back to the list: each field in view when focused."""
    pane = pilot.app.screen.query_one("#editor-form", VerticalScroll)
    assert isinstance(_focused(pilot), OptionList), size
    seen: list[str] = []
    await pilot.press("tab")
    for _ in range(len(FORM_FIELDS) + 5):
        widget = _focused(pilot)
        if isinstance(widget, OptionList):
            break
        await pilot.pause()
        seen.append(widget.id or "")
        visible = pane.content_region
        assert visible.contains_region(widget.region) or visible.contains_point(widget.region.offset), (
            size, widget.id)
        await pilot.press("tab")
    assert seen == [f"f-{widget_id(name)}" for name in FORM_FIELDS], size


@pytest.mark.slow
async def test_every_field_is_reachable_with_tab_and_in_view_when_focused() -> None:
    """At 80x24, then resized to 160x48 in the same session (the Tab round ends on the list, where it starts)."""
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _every_field_in_view_when_tabbed_to(pilot, "80x24")
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert app.size == (160, 48)
        await _every_field_in_view_when_tabbed_to(pilot, "160x48")


async def test_json_fields_keys_help_and_typed_fields() -> None:
    """One editor on a survey with typed appearance and condition keys; in turn:

    - the key a text area would take for itself (Escape) is in the editor's help, in the registry's words,
      whichever field has focus; it applies while a JSON field has it; Tab and F6 are priority keys, everywhere;
    - the typed fields split the objects (nothing changed by it) and merge them back into what is sent;
    - a JSON field's keys behave as in every other field: Tab moves on (nothing indented), F6 goes to the
      list, Escape leaves the editor.
    """
    json_keys = {entry.title: entry.sentence for entry in entries("editor") if entry.id.startswith("editor.json_")}
    assert len(json_keys) == 1
    app = EditorHarness(Survey.model_validate(SURVEY))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen)

        # the help lists the JSON fields' keys from the registry
        rows = {title: (key, sentence, applies) for _g, key, title, sentence, applies in screen_keys(editor)}
        assert {title: rows[title][1] for title in json_keys} == json_keys
        assert not any(rows[title][2] for title in json_keys)
        editor.query_one("#f-appearance", JsonArea).focus()
        await pilot.pause()
        rows = {title: (key, sentence, applies) for _g, key, title, sentence, applies in screen_keys(editor)}
        assert all(rows[title][2] for title in json_keys)
        assert {rows[title][0] for title in json_keys} == {"esc"}
        assert rows["Next field"][0] == "tab" and rows["Next field"][2], "Tab moves on from a JSON field too"
        assert rows["Back to the list"][0] == "f6" and rows["Back to the list"][2], "F6 from a JSON field"
        app.push_screen(HelpScreen(editor))
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=300, record=True, file=io.StringIO())
        console.print(keys_table(editor))
        shown = console.export_text()
        for title, sentence in json_keys.items():
            assert title in shown and sentence in shown
        app.pop_screen()
        await settle(pilot)
        assert app.screen is editor

        # the typed fields split and merge the objects
        assert editor.query_one("#f-appearance--position", Select).value == "right"
        assert editor.query_one("#f-appearance--backgroundColor", Input).value == "#eeeded"
        assert editor.query_one("#f-conditions--urlMatchType", Select).value == "icontains"
        assert editor.query_one("#f-conditions--url", Input).value == "https://example.com/app"
        assert editor.query_one("#f-appearance", JsonArea).text == "{}"
        assert editor.draft.changes() == {}  # splitting changes nothing
        editor.query_one("#f-appearance--position", Select).value = "middle_center"
        await set_input(pilot, "#f-conditions--seenSurveyWaitPeriodInDays", "14")
        assert editor.draft.changes() == {
            "appearance": {"position": "middle_center", "backgroundColor": "#eeeded"},
            "conditions": {"url": "https://example.com/app", "urlMatchType": "icontains",
                           "seenSurveyWaitPeriodInDays": 14}}
        editor.query_one("#f-appearance--position", Select).value = "right"
        await set_input(pilot, "#f-conditions--seenSurveyWaitPeriodInDays", "")
        assert editor.draft.changes() == {}  # put back: nothing to ask about when leaving

        # a JSON field's keys behave as in every other field
        area = editor.query_one("#f-appearance", JsonArea)
        area.focus()
        await pilot.pause()
        before = area.text
        await pilot.press("tab")
        assert area.text == before  # nothing indented
        assert _focused(pilot).id == "f-conditions--url"
        area.focus()
        await pilot.press("f6")
        assert isinstance(_focused(pilot), OptionList)
        area.focus()
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, SurveyEditorScreen | LeaveScreen)  # Escape leaves, as from any field


async def _editor_on_new_survey(pilot: Pilot[Any], sandbox: Any, fields: dict[str, Any]) -> tuple[
        Survey, SurveyEditorScreen, int]:
    """A survey created on the sandbox with ``fields``, its editor open and settled, and the request count then."""
    survey = await create_survey(sandbox, fields)
    editor = SurveyEditorScreen(survey)
    pilot.app.push_screen(editor)
    await settle(pilot)
    return survey, editor, len(sandbox.requests())


async def _bad_typed_values_are_refused_next_to_the_field_then_saved(pilot: Pilot[Any], sandbox: Any) -> None:
    survey, editor, since = await _editor_on_new_survey(pilot, sandbox, {
        "name": "Typed settings", "type": "popover", "questions": [{"type": "open", "question": "Hi?"}],
        "appearance": {"position": "right", "whiteLabel": False}, "conditions": {"url": "/pricing"}})
    app = pilot.app
    await set_input(pilot, "#f-appearance--backgroundColor", "notacolor")
    await set_input(pilot, "#f-appearance--surveyPopupDelaySeconds", "-3")
    await set_input(pilot, "#f-conditions--seenSurveyWaitPeriodInDays", "two weeks")
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert survey_writes(sandbox, since) == []
    error = editor.query_one("#fe-appearance--backgroundColor", FieldError).message or ""
    assert error.startswith("note: not a colour the SDK can draw"), "the service stores it: a note, not a refusal"
    assert "0 or more" in (editor.query_one("#fe-appearance--surveyPopupDelaySeconds", FieldError).message or "")
    assert "whole number" in (
        editor.query_one("#fe-conditions--seenSurveyWaitPeriodInDays", FieldError).message or "")
    await set_input(pilot, "#f-appearance--backgroundColor", "#ff0000")
    await set_input(pilot, "#f-appearance--surveyPopupDelaySeconds", "2")
    await set_input(pilot, "#f-conditions--seenSurveyWaitPeriodInDays", "14")
    editor.query_one("#f-conditions--urlMatchType", Select).value = "regex"
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    [write] = survey_writes(sandbox, since)
    assert write["method"] == "PATCH"
    body = write["body"] if isinstance(write["body"], dict) else {}
    assert body == {
        "appearance": {"position": "right", "whiteLabel": False, "backgroundColor": "#ff0000",
                       "surveyPopupDelaySeconds": 2},
        "conditions": {"url": "/pricing", "urlMatchType": "regex", "seenSurveyWaitPeriodInDays": 14}}
    stored = await fetch_raw(sandbox, survey.id)
    assert stored["appearance"] == body["appearance"] and stored["conditions"] == body["conditions"]
    assert app.screen is not editor, "saved: the editor closes"


async def _schedule_is_offered_with_the_iteration_fields(pilot: Pilot[Any], sandbox: Any) -> None:
    survey, editor, since = await _editor_on_new_survey(pilot, sandbox, {
        "name": "Every month", "type": "popover", "questions": [{"type": "open", "question": "How is it going?"}]})
    app = pilot.app
    editor.query_one("#f-schedule", Select).value = "recurring"
    await set_input(pilot, "#f-iteration_count", "6")
    await set_input(pilot, "#f-iteration_frequency_days", "30")
    await pilot.press("ctrl+s")
    await settle(pilot)
    [write] = survey_writes(sandbox, since)
    assert write["body"] == {"schedule": "recurring", "iteration_count": 6, "iteration_frequency_days": 30}
    stored = await fetch_raw(sandbox, survey.id)
    assert (stored["schedule"], stored["iteration_count"], stored["iteration_frequency_days"]) == (
        "recurring", 6, 30)
    assert app.screen is not editor, "saved: the editor closes"


async def _a_recurring_schedule_without_count_or_frequency_is_noted_at_the_fields(pilot: Pilot[Any],
                                                                                   sandbox: Any) -> None:
    """The real serializer (PostHog/posthog ``products/surveys/backend/api/survey.py``) stores ``schedule:
    recurring`` with no ``iteration_count``/``iteration_frequency_days`` and the survey then runs once: watchdeck's
    own check, so a note at each field, and the save goes out."""
    survey, editor, since = await _editor_on_new_survey(pilot, sandbox, {
        "name": "Every quarter", "type": "popover", "questions": [{"type": "open", "question": "How is it going?"}]})
    app = pilot.app
    editor.query_one("#f-schedule", Select).value = "recurring"
    await settle(pilot)
    assert editor.query_one("#fe-iteration_count", FieldError).message == "note: " + NEEDS_ITERATION_COUNT
    assert editor.query_one("#fe-iteration_frequency_days", FieldError).message == "note: " + NEEDS_FREQUENCY
    assert editor.query_one("#fe-iteration_count", FieldError).has_class("field-note")
    await set_input(pilot, "#f-iteration_count", "4")
    assert editor.query_one("#fe-iteration_count", FieldError).message is None
    await pilot.press("ctrl+s")
    await settle(pilot)
    [write] = survey_writes(sandbox, since)
    assert write["body"] == {"schedule": "recurring", "iteration_count": 4}
    stored = await fetch_raw(sandbox, survey.id)
    assert (stored["schedule"], stored["iteration_count"], stored["iteration_frequency_days"]) == (
        "recurring", 4, None)
    assert app.screen is not editor, "saved: the editor closes"


async def test_typed_and_schedule_fields_are_checked_next_to_the_field_then_saved(sandbox: Any) -> None:
    """One app over the sandbox; an editor on each of three surveys in turn: bad typed appearance and condition
    values refused next to their fields, then saved merged into the objects; a schedule offered with its
    iteration fields and saved; a recurring schedule without count or frequency refused at those fields until
    both are given."""
    app = make_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _bad_typed_values_are_refused_next_to_the_field_then_saved(pilot, sandbox)
        await _schedule_is_offered_with_the_iteration_fields(pilot, sandbox)
        await _a_recurring_schedule_without_count_or_frequency_is_noted_at_the_fields(pilot, sandbox)
