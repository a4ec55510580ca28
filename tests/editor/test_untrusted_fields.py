"""Server text in the editor's editable widgets: cleaned through one door, marked, kept until edited.

Textual's Input and TextArea draw their value as it is, so an OSC 52 in a question would write the
operator's clipboard and ``ESC[2J`` clear the screen. The sandbox stores such text as any server
would; the editor must show it cleaned and say so next to the field. Cleaning for display never
changes what is saved: a field the operator did not touch sends the server's own text (or nothing),
and a field the operator edits saves what it shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from tests.pilot import until
from tui.api.models.surveys import Survey
from tui.screens.editor import SurveyEditorScreen
from tui.text.clean import CLEANED_NOTE
from tui.widgets.editor.choices import TEXT_MODE_ABOVE
from tui.widgets.editor.pick_field import BranchRow, PickField

from .conftest import EditorHarness, body_of, create_survey, fetch_raw, make_app
from .helpers import open_editor, save, select_item, settle, shown_form

SIZE = (80, 24)
"""Small where the layout is not what a test checks: each refresh of a smaller screen costs less."""
SHOWN = (120, 40)
"""Where a test reads the screen's text: wide enough for the notes on one line each."""
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x1b\\"
CLEAR = "\x1b[2J"
BIDI = "\u202e"


def _no_escape(pilot: Any) -> None:
    shot = pilot.app.export_screenshot()
    assert "\x1b" not in shot and "\u202e" not in shot and "\x07" not in shot


async def test_hostile_text_is_shown_cleaned_marked_and_kept_until_edited(sandbox: Any) -> None:
    created = await create_survey(sandbox, {
        "name": f"Pulse{OSC52} check", "description": f"About{TITLE} it", "type": "popover",
        "questions": [
            {"type": "open", "question": f"How{CLEAR} was it?", "description": f"line one\nline{BIDI} two"},
            {"type": "link", "question": "Read", "link": f"https://example.com/{CLEAR}x"},
            {"type": "single_choice", "question": "Pick", "choices": [f"Yes{OSC52}", "No\x00", "Maybe"]},
        ],
    })
    held = await fetch_raw(sandbox, created.id)  # what the server holds (it may have cleaned some of it)
    survey = Survey.model_validate(held)
    app = make_app(sandbox)
    async with app.run_test(size=SHOWN) as pilot:
        screen, _results = await open_editor(pilot, survey)
        await settle(pilot)
        assert screen.query_one("#f-name", Input).value == "Pulse check"
        assert screen.query_one("#f-description", Input).value == "About it"
        assert {n.id for n in shown_form(screen).query(".cleaned-note")} == {"fc-name", "fc-description"}
        assert CLEANED_NOTE in pilot.app.export_screenshot().replace("&#160;", " ")
        _no_escape(pilot)

        await select_item(pilot, 1)
        assert screen.query_one("#q-question", Input).value == "How was it?"
        assert screen.query_one("#q-description", TextArea).text == "line one\nline two"  # newline kept
        assert {n.id for n in shown_form(screen).query(".cleaned-note")} == {"qc-question", "qc-description"}
        _no_escape(pilot)
        await select_item(pilot, 2)
        assert screen.query_one("#q-link", Input).value == "https://example.com/x"
        _no_escape(pilot)
        await select_item(pilot, 3)
        assert [w.value for w in screen.query(".choice-input").results(Input)] == ["Yes", "No", "Maybe"]
        assert screen.query("#choices-cleaned")
        _no_escape(pilot)

        assert screen.draft.changes() == {}  # nothing touched: nothing to send

        await select_item(pilot, 1)
        screen.query_one("#q-question", Input).value = "How was it, really?"
        await settle(pilot)
        mark = len(sandbox.requests())
        writes = await save(pilot, sandbox, mark)
        assert [w["method"] for w in writes] == ["PATCH"]
        body = body_of(writes[0])
        assert set(body) == {"questions"}  # the name and description were not touched
        questions = body["questions"]
        assert questions[0]["question"] == "How was it, really?"  # edited: what the field shows
        # Sent for the edit beside them, untouched: the server's own text, byte for byte.
        assert questions[0]["description"] == held["questions"][0]["description"] == f"line one\nline{BIDI} two"
        assert questions[1]["link"] == held["questions"][1]["link"] == f"https://example.com/{CLEAR}x"
        assert questions[2]["choices"] == held["questions"][2]["choices"]
        assert questions[2]["choices"][0] == f"Yes{OSC52}"


def _many_choices(count: int) -> Survey:
    return Survey.model_validate({"id": "big", "name": "Big list", "type": "popover", "questions": [
        {"type": "single_choice", "question": "Which one?", "choices": [f"Choice {i}" for i in range(count)]}]})


async def _editor_on(pilot: Pilot[Any], survey: Survey) -> SurveyEditorScreen:
    """The harness's editor closed and one on ``survey`` opened, on its first question."""
    pilot.app.pop_screen()
    screen = SurveyEditorScreen(survey, read=False)  # a local survey: not on a server
    await pilot.app.push_screen(screen)
    await settle(pilot)
    await select_item(pilot, 1)
    return screen


async def _clean_text_gets_no_mark_and_is_not_sent(pilot: Pilot[Any]) -> None:
    screen = await _editor_on(pilot, Survey.model_validate({"id": "s1", "name": "Plain\tname", "type": "popover",
                                                            "questions": [{"type": "open", "question": "Fine",
                                                                           "description": "two\nlines"}]}))
    assert not shown_form(screen).query(".cleaned-note"), "clean text"
    assert screen.draft.changes() == {}, "clean text: the tab a one-line field shows as a space is kept untouched"


async def _a_short_choice_list_keeps_one_row_per_choice(pilot: Pilot[Any]) -> None:
    screen = await _editor_on(pilot, _many_choices(TEXT_MODE_ABOVE))
    assert len(screen.query(".choice-input")) == TEXT_MODE_ABOVE, "short list"


async def _response_branching_of_a_long_list_lists_only_the_mapped_responses(pilot: Pilot[Any]) -> None:
    screen = await _editor_on(pilot, Survey.model_validate({
        "id": "big-branch", "name": "Big", "type": "popover", "questions": [
            {"type": "single_choice", "question": "Which one?", "choices": [f"Choice {i}" for i in range(2000)],
             "branching": {"type": "response_based", "responseValues": {"5": "end", "7": 1}}},
            {"type": "open", "question": "Why?"}]}))
    rows = list(screen.query(".response-target").results(BranchRow))
    assert [r.value for r in rows] == ["end", screen.draft.questions[1].key], "long list's branching"
    assert len(shown_form(screen).query(PickField)) < 10, "long list's branching"
    assert screen.draft.changes() == {}, "the branches not listed are kept as they are"


async def _a_long_choice_list_is_edited_as_text_with_few_widgets(pilot: Pilot[Any]) -> None:
    count = 2000
    screen = await _editor_on(pilot, _many_choices(count))
    assert len(shown_form(screen).query(Input)) < 20, "long list: not one Input per choice"
    area = screen.query_one("#choices-text", TextArea)
    assert area.document.line_count == count
    area.focus()
    area.move_cursor((count - 1, len(f"Choice {count - 1}")))
    await pilot.press("!")
    await settle(pilot)
    choices = screen.draft.questions[0].choices
    assert len(choices) == count and choices[-1] == f"Choice {count - 1}!"
    area.move_cursor((count - 1, len(f"Choice {count - 1}!")))
    await pilot.press("enter")
    await settle(pilot)
    shown = str(screen.query_one("#ce-all").render())
    assert f"line {count + 1}: a choice cannot be empty" in shown


@pytest.mark.slow
async def test_clean_text_and_short_and_long_choice_lists() -> None:
    """One harness; an editor on each survey in turn: clean text gets no mark and only what a field cannot hold
    changes; a short choice list keeps one row per choice; a long list's response branching lists only the
    mapped responses; a long choice list is edited as text with few widgets (last: its edit leaves a draft)."""
    async with EditorHarness(None).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _clean_text_gets_no_mark_and_is_not_sent(pilot)
        await _a_short_choice_list_keeps_one_row_per_choice(pilot)
        await _response_branching_of_a_long_list_lists_only_the_mapped_responses(pilot)
        await _a_long_choice_list_is_edited_as_text_with_few_widgets(pilot)


def test_json_fields_are_cleaned_as_values_and_keep_the_rest() -> None:
    """A U+009D in ``appearance`` took the rest of the field's text (the survey could not be saved); an ESC
    sequence, escaped as ``\\u001b`` in the JSON text, survived a cleaning of the text."""
    from tui.state.survey_draft import SurveyDraft
    from tui.widgets.cleaned_note import clean_survey_draft

    survey = Survey.model_validate({
        "id": "s1", "name": "Fine", "type": "popover", "questions": [{"type": "open", "question": "Q"}],
        "appearance": {"thankYouMessageHeader": "Thanks\x9d0;x", "backgroundColor": "#fff",
                       "submitButtonText": "Go \x1b]52;c;aGk=\x07now \u202e"},
        "conditions": {"url": "example.com", "selector": "#a\x9b5m", "events": {"values": [{"name": "e"}]}}})
    draft = SurveyDraft(survey)
    clean_survey_draft(draft)
    # the typed keys (thank-you header, colour, URL) have fields of their own
    assert draft.form["appearance.thankYouMessageHeader"] == "Thanks0;x"  # an unterminated OSC: its introducer only
    assert json.loads(draft.form["appearance"]) == {"submitButtonText": "Go now "}
    assert json.loads(draft.form["conditions"]) == {"selector": "#a", "events": {"values": [{"name": "e"}]}}
    assert {"appearance", "conditions", "appearance.thankYouMessageHeader"} <= draft.cleaned
    # untouched, the payload is the server's own (the payload joins the typed keys again), and nothing is sent
    assert draft.payload()["appearance"] == survey.model_dump(mode="json", by_alias=True)["appearance"]
    assert draft.payload()["conditions"]["selector"] == "#a\x9b5m"
    assert draft.changes() == {}
    # edited, a field saves what it shows
    draft.form["conditions"] = draft.form["conditions"].replace("#a", "#b")
    assert draft.changes()["conditions"] == {"url": "example.com", "selector": "#b",
                                             "events": {"values": [{"name": "e"}]}}


async def test_an_unterminated_sequence_takes_nothing_after_it_and_an_edit_saves_what_was_shown(
        sandbox: Any, data_dir: Path) -> None:
    """The three values that lost their ends: an 8-bit OSC with no terminator showed ``before``,
    ``https://example.com/`` and ``#a``, and a save sent them so. Shown now without the introducer alone; untouched,
    they stay as the server has them (in the unsaved draft's file too, escaped); the edited link saves what its field
    showed, edit included."""
    created = await create_survey(sandbox, {
        "name": "Ends", "type": "popover",
        "appearance": {"placeholder": "before\x9d AFTER-TEXT-KEPT"},
        "conditions": {"selector": "#a\x9d.b-rest"},
        "questions": [{"type": "link", "question": "Read", "link": "https://example.com/\x9dTAIL"}],
    })
    survey = Survey.model_validate(await fetch_raw(sandbox, created.id))
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, _results = await open_editor(pilot, survey)
        await settle(pilot)
        assert json.loads(screen.query_one("#f-appearance", TextArea).text) == {"placeholder": "before AFTER-TEXT-KEPT"}
        assert json.loads(screen.query_one("#f-conditions", TextArea).text) == {"selector": "#a.b-rest"}
        await select_item(pilot, 1)
        link = screen.query_one("#q-link", Input)
        assert link.value == "https://example.com/TAIL"
        link.value += "/more"
        drafts = data_dir / "drafts"
        await until(pilot, lambda: any(drafts.glob("*.json")))
        stored = next(drafts.glob("*.json")).read_bytes()
        assert stored.isascii()
        form = json.loads(stored)["form"]
        assert json.loads(form["appearance"]) == {"placeholder": "before\x9d AFTER-TEXT-KEPT"}
        mark = len(sandbox.requests())
        writes = await save(pilot, sandbox, mark)
    assert [w["method"] for w in writes] == ["PATCH"]
    body = body_of(writes[0])
    assert set(body) == {"questions"} and body["questions"][0]["link"] == "https://example.com/TAIL/more"
    stored = await fetch_raw(sandbox, created.id)
    assert stored["appearance"]["placeholder"] == "before\x9d AFTER-TEXT-KEPT"
    assert stored["conditions"]["selector"] == "#a\x9d.b-rest"
