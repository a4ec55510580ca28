"""The editor driven through its UI against the sandbox; assertions on the exact bodies the sandbox received."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.pilot import opened_by, until
from tui.api.models.surveys import Survey
from tui.screens.confirm import ConfirmScreen
from tui.screens.editor import SurveyEditorScreen
from tui.screens.editor_dialogs import LeaveScreen
from tui.screens.survey_preview import SurveyPreviewScreen

from .conftest import body_of, create_survey, fetch_raw, make_app, survey_writes
from .helpers import (
    add_question,
    error_at,
    fill,
    open_editor,
    save,
    select_item,
    set_area,
    set_input,
    set_select,
    settle,
    summary,
    type_into,
)

SIZE = (80, 24)
"""Small: the layout is not what these tests check, and each refresh of a smaller screen costs less."""


@pytest.mark.slow
async def test_build_every_kind_and_every_branching_rule(sandbox: Any) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, results = await open_editor(pilot, None)
        mark = len(sandbox.requests())
        # Values set, not typed: typing into the fields is test_editor_keyboard's and the round trip's.
        await fill(pilot, {"#f-name": "Onboarding pulse", "#f-description": "Quarterly check-in", "#f-type": "widget",
                           "#f-responses_limit": "500"})

        q1 = await add_question(pilot, "open")
        await fill(pilot, {"#q-question": "How did it go?", "#q-description": "<b>Tell us</b>",
                           "#q-descriptionContentType": "html", "#q-optional": True, "#q-buttonText": "Next"})

        q2 = await add_question(pilot, "link")
        await fill(pilot, {"#q-question": "Read the changelog", "#q-link": "https://example.com/changelog",
                           "#b-type": "end"})

        q3 = await add_question(pilot, "rating")
        await fill(pilot, {"#q-question": "How likely are you to recommend us?", "#q-lowerBoundLabel": "Not likely",
                           "#q-upperBoundLabel": "Very likely", "#q-scale": 10})

        q4 = await add_question(pilot, "single_choice")
        await fill(pilot, {"#q-question": "Which plan?", "#choice-0": "Free", "#choice-1": "Pro"})
        screen.query_one("#choice-add").focus()  # below the fold of the small terminal: pressed from the keyboard
        await pilot.press("enter")
        await settle(pilot)
        await fill(pilot, {"#choice-2": "Team", "#q-shuffleOptions": True})

        q5 = await add_question(pilot, "multiple_choice")
        await fill(pilot, {"#q-question": "What do you use?", "#choice-0": "Dashboards", "#choice-1": "Alerts",
                           "#q-hasOpenChoice": True, "#b-type": "end"})
        await set_select(pilot, "#b-type", "next_question")  # chosen explicitly: sent explicitly

        q6 = await add_question(pilot, "rating")
        await fill(pilot, {"#q-question": "Rate the docs", "#q-display": "emoji", "#b-type": "response_based"})
        rows = screen.query_one("#branching").row_keys  # type: ignore[attr-defined]
        assert rows == ["1", "2", "3", "4", "5"]
        await fill(pilot, {"#b-resp-0": q1, "#b-resp-4": "end"})

        # branches that point forward, set once every question exists
        await select_item(pilot, 1)
        await set_select(pilot, "#b-type", "specific_question")
        await set_select(pilot, "#b-target", q4)
        await select_item(pilot, 3)
        await set_select(pilot, "#b-type", "response_based")
        await set_select(pilot, "#b-mode", "ranges")
        assert screen.query_one("#branching").row_keys == ["detractors", "passives", "promoters"]  # type: ignore[attr-defined]
        await fill(pilot, {"#b-resp-0": q5, "#b-resp-2": "end"})
        await select_item(pilot, 4)
        await set_select(pilot, "#b-type", "response_based")
        await fill(pilot, {"#b-resp-0": q2, "#b-resp-2": "end"})
        assert [q.key for q in screen.draft.questions] == [q1, q2, q3, q4, q5, q6]

        writes = await save(pilot, sandbox, mark)
        assert [w["method"] for w in writes] == ["POST"]
        assert body_of(writes[0]) == {
            "name": "Onboarding pulse",
            "description": "Quarterly check-in",
            "type": "widget",
            "responses_limit": 500,
            "questions": [
                {"type": "open", "question": "How did it go?", "description": "<b>Tell us</b>",
                 "descriptionContentType": "html", "optional": True, "buttonText": "Next",
                 "branching": {"type": "specific_question", "index": 3}},
                {"type": "link", "question": "Read the changelog", "link": "https://example.com/changelog",
                 "branching": {"type": "end"}},
                {"type": "rating", "question": "How likely are you to recommend us?", "display": "number",
                 "scale": 10, "lowerBoundLabel": "Not likely", "upperBoundLabel": "Very likely",
                 "branching": {"type": "response_based", "responseValues": {"detractors": 4, "promoters": "end"}}},
                {"type": "single_choice", "question": "Which plan?", "choices": ["Free", "Pro", "Team"],
                 "shuffleOptions": True,
                 "branching": {"type": "response_based", "responseValues": {"0": 1, "2": "end"}}},
                {"type": "multiple_choice", "question": "What do you use?", "choices": ["Dashboards", "Alerts"],
                 "hasOpenChoice": True, "branching": {"type": "next_question"}},
                {"type": "rating", "question": "Rate the docs", "display": "emoji", "scale": 5,
                 "lowerBoundLabel": "", "upperBoundLabel": "",
                 "branching": {"type": "response_based", "responseValues": {"1": 0, "5": "end"}}},
            ],
        }
        assert len(results) == 1 and isinstance(results[0], Survey)
        assert results[0].name == "Onboarding pulse"
        assert app.screen is not screen


Scenario = Callable[[Pilot[Any], SurveyEditorScreen], Awaitable[str]]
Undo = Callable[[Pilot[Any], SurveyEditorScreen], Awaitable[None]]


async def _on_the_first_question(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    """Where each question case starts: the form of the survey's one question, as after the setup."""
    if screen.current != screen.draft.questions[0].key:
        await select_item(pilot, 1)


async def _empty_question_text(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    await _on_the_first_question(pilot, screen)
    await set_input(pilot, "#q-question", "")
    return "#qe-question"


async def _question_text_back(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await set_input(pilot, "#q-question", "First")


async def _bad_link(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    await _on_the_first_question(pilot, screen)
    await add_question(pilot, "link")
    await fill(pilot, {"#q-question": "Visit", "#q-link": "ftp://example.com/file"})
    return "#qe-link"


async def _empty_choice(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    await _on_the_first_question(pilot, screen)
    await add_question(pilot, "single_choice")
    await fill(pilot, {"#q-question": "Pick one", "#choice-0": "A"})
    return "#ce-1"


async def _good_link_then_delete(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await set_input(pilot, "#q-link", "https://example.com/file")
    await _delete_the_added_question(pilot, screen)


async def _second_choice_then_delete(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await set_input(pilot, "#choice-1", "B")
    await _delete_the_added_question(pilot, screen)


async def _delete_the_added_question(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    assert screen.draft.problems() == {}  # corrected first: the summary no longer says "Not saved"
    await pilot.press("f8")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)


async def _branch_to_deleted(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    await _on_the_first_question(pilot, screen)
    second = await add_question(pilot, "open")
    await set_input(pilot, "#q-question", "Second")
    await select_item(pilot, 1)
    await set_select(pilot, "#b-type", "specific_question")
    await set_select(pilot, "#b-target", second)
    await select_item(pilot, 2)
    await pilot.press("f8")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmScreen)
    await pilot.press("y")
    await settle(pilot)
    assert len(screen.draft.questions) == 1
    return "#be-index"


async def _bad_json(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    await select_item(pilot, 0)
    await set_area(pilot, "#f-appearance", '{"position": "right",\n "zIndex": }')
    return "#fe-appearance"


async def _appearance_back(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await set_area(pilot, "#f-appearance", "")


async def _int32_overflow(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    await select_item(pilot, 0)
    await set_input(pilot, "#f-responses_limit", "2147483648")
    return "#fe-responses_limit"


async def _responses_limit_back(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await set_input(pilot, "#f-responses_limit", "")


async def _external_with_a_url(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    """products/surveys/backend/api/survey.py validate(): an external survey takes no page conditions."""
    await select_item(pilot, 0)
    await fill(pilot, {"#f-type": "external_survey", "#f-conditions": '{"url": "https://acme.io"}'})
    return "#fe-conditions"


async def _popover_without_conditions(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await fill(pilot, {"#f-conditions": "", "#f-type": "popover"})


async def _variant_without_its_flag(pilot: Pilot[Any], screen: SurveyEditorScreen) -> str:
    """products/surveys/backend/api/survey.py validate(): linkedFlagVariant needs linked_flag_id."""
    await select_item(pilot, 0)
    await set_area(pilot, "#f-conditions", '{"linkedFlagVariant": "test"}')
    return "#fe-conditions"


async def _conditions_back(pilot: Pilot[Any], screen: SurveyEditorScreen) -> None:
    await set_area(pilot, "#f-conditions", "")


# Each case: what the operator enters, the message expected next to the field, and how the operator puts the
# form back as it was (the last case needs none: nothing comes after it).
REFUSED_CASES: list[tuple[Scenario, str, Undo | None]] = [
    (_empty_question_text, "question text is required", _question_text_back),
    (_bad_link, "must be an http(s) URL", _good_link_then_delete),
    (_empty_choice, "a choice cannot be empty", _second_choice_then_delete),
    (_int32_overflow, "at most 2147483647", _responses_limit_back),
    (_bad_json, "invalid JSON at 2:12", _appearance_back),
    (_external_with_a_url, "The following condition fields are not allowed for external surveys: url",
     _popover_without_conditions),
    (_variant_without_its_flag, "linkedFlagVariant can only be used when a linked_flag_id is specified",
     _conditions_back),
    (_branch_to_deleted, "pointed at deleted question 'Second'", None),
]


@pytest.mark.slow
async def test_invalid_input_is_refused_before_anything_is_sent(sandbox: Any) -> None:
    """One editor on a new survey (named, one open question), then each invalid input in turn: an empty question
    text, a non-http(s) link, an empty choice, a responses limit over int32, broken JSON, page conditions on an
    external survey, a flag variant without its flag, a branch to a deleted question. Each is shown at its field
    while typing and again after ctrl+s, which sends nothing and keeps the editor open on "Not saved, 1 problem";
    then the operator puts the form back and the draft is exactly as before the case, without a problem. The last
    case's refusal is gone once a question is added (a change to the questions, not a field)."""
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, results = await open_editor(pilot, None)
        mark = len(sandbox.requests())
        await set_input(pilot, "#f-name", "Refused survey")
        await add_question(pilot, "open")
        await set_input(pilot, "#q-question", "First")
        known = screen.draft.payload()
        assert screen.draft.problems() == {}
        for scenario, message, undo in REFUSED_CASES:
            case = scenario.__name__.lstrip("_")
            assert screen.draft.payload() == known and screen.draft.problems() == {}, case
            selector = await scenario(pilot, screen)
            error = error_at(pilot, selector)
            assert error is not None and message in error, case  # shown while typing, before any save
            await pilot.press("ctrl+s")
            await settle(pilot)
            await app.workers.wait_for_complete()
            assert survey_writes(sandbox, mark) == [], case
            assert app.screen is screen and results == [], case
            assert summary(pilot).startswith("Not saved, 1 problem"), case
            error = error_at(pilot, selector)
            assert error is not None and message in error, case
            if undo is None:
                continue
            await undo(pilot, screen)  # back to the draft as it was, without a problem
            assert screen.draft.payload() == known and screen.draft.problems() == {}, case
            assert not summary(pilot).startswith("Not saved"), case
        # The last case's refusal stays until the draft changes, and a change to the questions counts too.
        assert summary(pilot).startswith("Not saved, 1 problem")
        await add_question(pilot, "open")
        assert not summary(pilot).startswith("Not saved"), "a question added: the refusal was of an older draft"
        assert survey_writes(sandbox, mark) == []


async def _server_refusal_keeps_the_form_and_shows_the_error_at_the_field(pilot: Pilot[Any], sandbox: Any,
                                                                           data_dir: Path) -> None:
    await create_survey(sandbox, {"name": "Taken name", "type": "popover"})
    app = pilot.app
    screen, results = await open_editor(pilot, None)
    mark = len(sandbox.requests())
    await set_input(pilot, "#f-name", "Taken name")
    await add_question(pilot, "open")
    await set_input(pilot, "#q-question", "Still here?")
    writes = await save(pilot, sandbox, mark)
    assert [w["method"] for w in writes] == ["POST"]
    assert app.screen is screen and results == []
    assert "There is already a survey with this name" in summary(pilot)
    # the form is as it was: same item, same text, and the draft is on disk
    assert screen.query_one("#q-question").value == "Still here?"  # type: ignore[attr-defined]
    assert list((data_dir / "drafts").glob("new-*.json"))
    await select_item(pilot, 0)
    assert "There is already a survey with this name" in (error_at(pilot, "#fe-name") or "")
    await set_input(pilot, "#f-name", "A free name")
    assert error_at(pilot, "#fe-name") is None
    writes = await save(pilot, sandbox, mark)
    assert [w["method"] for w in writes] == ["POST", "POST"]
    assert results and results[0] is not None and results[0].name == "A free name"
    assert not list((data_dir / "drafts").glob("*.json"))


async def _moving_questions_keeps_branch_targets(pilot: Pilot[Any], sandbox: Any) -> None:
    survey = await create_survey(sandbox, {"name": "Moves", "type": "popover", "questions": [
        {"type": "open", "question": "First", "branching": {"type": "specific_question", "index": 2}},
        {"type": "rating", "question": "Second", "display": "number", "scale": 5,
         "branching": {"type": "response_based", "responseValues": {"1": 2, "5": "end"}}},
        # Third ends the survey: moved above First, which jumps back to it, it would otherwise loop forever
        {"type": "open", "question": "Third", "branching": {"type": "end"}},
    ]})
    ids = [q.id for q in survey.questions or []]
    app = pilot.app
    screen, _results = await open_editor(pilot, survey)
    mark = len(sandbox.requests())
    await select_item(pilot, 3)
    await pilot.press("ctrl+up")  # Third moves to position 2
    await settle(pilot)
    assert screen.current == screen.draft.questions[1].key
    await pilot.click("#btn-up")  # ... and to the top, with the mouse
    await settle(pilot)
    await pilot.press("ctrl+s")
    await app.workers.wait_for_complete()
    body = body_of(survey_writes(sandbox, mark)[0])
    assert set(body) == {"questions"}
    assert [q["id"] for q in body["questions"]] == [ids[2], ids[0], ids[1]]
    assert body["questions"][1]["branching"] == {"type": "specific_question", "index": 0}
    assert body["questions"][2]["branching"]["responseValues"] == {"1": 0, "5": "end"}


async def _round_trip_keeps_every_field_watchdeck_does_not_edit(pilot: Pilot[Any], sandbox: Any) -> None:
    created = await create_survey(sandbox, {
        "name": "Full of unknowns", "type": "popover", "schedule": "recurring", "iteration_count": 2,
        "iteration_frequency_days": 30,
        "future_survey_field": {"nested": [1, {"deep": True}]},
        # no shuffleQuestions: the real service refuses it together with branching
        "appearance": {"backgroundColor": "#123456", "newAppearanceKey": {"x": [1, 2]}},
        "conditions": {"url": "https://example.com", "unknownCondition": {"a": 1}},
        "questions": [
            {"type": "open", "question": "Keep me", "translations": {"fr": {"question": "Gardez-moi"}},
             "validation": [{"type": "min_length", "value": 3}]},
            {"type": "single_choice", "question": "Edit me", "choices": ["a", "b"], "futureQuestionKey": 42,
             "branching": {"type": "response_based", "responseValues": {"0": 2}, "futureBranchKey": "x"}},
            {"type": "rating", "question": "Keep me too", "display": "emoji", "scale": 3, "isNpsQuestion": False,
             "lowerBoundLabel": "meh", "upperBoundLabel": "yay", "branching": {"type": "end"}},
        ],
    })
    raw = await fetch_raw(sandbox, created.id)
    survey = Survey.model_validate(raw)
    _screen, results = await open_editor(pilot, survey)
    mark = len(sandbox.requests())
    await select_item(pilot, 2)
    await type_into(pilot, "#q-question", "Edited")
    writes = await save(pilot, sandbox, mark)
    assert [w["method"] for w in writes] == ["PATCH"]
    body = body_of(writes[0])
    assert set(body) == {"questions"}
    sent = body["questions"]
    for index in (0, 2):
        assert json.dumps(sent[index], sort_keys=True) == json.dumps(raw["questions"][index], sort_keys=True)
    assert sent[1] == {**raw["questions"][1], "question": "Edited"}
    assert sent[1]["futureQuestionKey"] == 42 and sent[1]["id"] == raw["questions"][1]["id"]
    assert sent[1]["branching"]["futureBranchKey"] == "x"
    assert results and results[0] is not None
    after = await fetch_raw(sandbox, created.id)
    assert after["future_survey_field"] == raw["future_survey_field"]
    assert after["appearance"] == raw["appearance"] and after["conditions"] == raw["conditions"]
    assert [q["id"] for q in after["questions"]] == [q["id"] for q in raw["questions"]]


@pytest.mark.slow
async def test_server_refusal_moves_and_round_trip(sandbox: Any, data_dir: Path) -> None:
    """One app on the survey list; an editor in turn on: a new survey whose name the server refuses (the form and
    draft kept, the error at the field, then saved under a free name); a survey whose questions are moved (branch
    targets follow); a survey full of fields watchdeck does not edit (sent back as they were)."""
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _server_refusal_keeps_the_form_and_shows_the_error_at_the_field(pilot, sandbox, data_dir)
        await settle(pilot)
        await _moving_questions_keeps_branch_targets(pilot, sandbox)
        await settle(pilot)
        await _round_trip_keeps_every_field_watchdeck_does_not_edit(pilot, sandbox)


async def test_draft_is_offered_back_after_a_quit_and_removed_after_save(sandbox: Any, data_dir: Path) -> None:
    survey = await create_survey(sandbox, {"name": "Drafty", "type": "popover",
                                           "questions": [{"type": "open", "question": "Q"}]})
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(pilot, survey)
        await set_input(pilot, "#f-name", "Drafty, renamed")
        path = data_dir / "drafts" / f"{survey.id}.json"
        await until(pilot, lambda: path.exists() and "renamed" in path.read_text(), step=0.05)  # the debounce fires
        assert json.loads(path.read_text())["form"]["name"] == "Drafty, renamed"
        app.exit()  # a quit without leaving the editor
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, _results = await open_editor(pilot, survey)
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert screen.query_one("#f-name").value == "Drafty, renamed"  # type: ignore[attr-defined]
        mark = len(sandbox.requests())
        writes = await save(pilot, sandbox, mark)
        assert [body_of(w) for w in writes] == [{"name": "Drafty, renamed"}], (
            app.screen, screen.draft.changes(), summary(pilot))
        assert not path.exists()


async def test_escape_asks_and_keep_or_discard_do_what_they_say(sandbox: Any, data_dir: Path) -> None:
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        screen, results = await open_editor(pilot, None)
        await set_input(pilot, "#f-name", "Kept")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LeaveScreen)
        await pilot.press("escape")  # cancel: still editing
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("k")
        await settle(pilot)
        assert results == [None]
        drafts = list((data_dir / "drafts").glob("new-*.json"))
        assert len(drafts) == 1 and json.loads(drafts[0].read_text())["form"]["name"] == "Kept"

        screen, results = await open_editor(pilot, None)  # a new survey: offered the kept draft
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert screen.query_one("#f-name").value == "Kept"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert results == [None]
        assert not list((data_dir / "drafts").glob("*.json"))
    assert not [r for r in sandbox.requests() if r["method"] in ("POST", "PATCH")]


async def test_preview_walks_the_branches(sandbox: Any) -> None:
    survey = Survey.model_validate({"id": "local", "name": "Walk", "questions": [
        {"type": "single_choice", "question": "Plan?", "choices": ["Free", "Paid"],
         "branching": {"type": "response_based", "responseValues": {"1": 2}}},
        {"type": "open", "question": "Why free?", "branching": {"type": "end"}},
        {"type": "rating", "question": "Rate", "display": "number", "scale": 5,
         "branching": {"type": "response_based", "responseValues": {"negative": 1, "positive": "end"}}},
    ]})
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(pilot, survey)
        preview = await opened_by(pilot, "f5", SurveyPreviewScreen)
        await pilot.press("down", "enter")  # "Paid" -> question 3
        await settle(pilot)
        assert preview.position == 2
        await pilot.press("enter")  # rating 1 is negative -> question 2
        await settle(pilot)
        assert preview.position == 1 and preview.path == [0, 2]
        await pilot.press("ctrl+b")  # the open question takes a typed answer: b would be a letter of it
        await pilot.press("down", "down", "down", "down", "enter")  # rating 5 is positive -> end
        await settle(pilot)
        assert preview.position == "end" and preview.path == [0, 2]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SurveyEditorScreen)


async def test_quitting_straight_after_an_edit_keeps_it_as_a_draft(sandbox: Any, data_dir: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """q/ctrl+c quits the whole app; the last keystrokes must not be lost to the draft debounce (the editor
    writes its draft when it is unmounted)."""
    import tui.screens.editor

    monkeypatch.setattr(tui.screens.editor, "DRAFT_DELAY", 3600.0)  # the debounce never fires in this test
    survey = await create_survey(sandbox, {"name": "Quit fast", "type": "popover",
                                           "questions": [{"type": "open", "question": "Q"}]})
    app = make_app(sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await open_editor(pilot, survey)
        app.screen.query_one("#f-name", Input).value = "Quit fast, renamed"
        await pilot.pause()
        assert not (data_dir / "drafts" / f"{survey.id}.json").exists(), "the debounce has not written yet"
        await app.action_quit()
    path = data_dir / "drafts" / f"{survey.id}.json"
    assert json.loads(path.read_text())["form"]["name"] == "Quit fast, renamed"
