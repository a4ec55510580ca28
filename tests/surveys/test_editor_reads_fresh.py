"""The editor edits the survey as the server holds it (issue 42, item 6): ``e`` read the list's copy, so a rename made
elsewhere (another screen, ``watchdeck surveys apply``) showed the old name. The editor opens at once, reads the
survey, and the keys typed meanwhile act on what it read; a save reads it again, asks about a field the operator
edited that the server changed too, and never sends back a field the operator did not edit."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList, Static

from tests.pilot import burst, settle
from tests.surveys.conftest import make_app
from tui.api.client import ApiClient
from tui.api.models.surveys import Survey
from tui.clock import FrozenClock
from tui.sandbox.faults import parse_fault
from tui.screens.editor import SurveyEditorScreen
from tui.screens.editor_dialogs import ConflictScreen
from tui.screens.surveys import SurveyBrowserScreen

SIZE = (120, 36)
QUESTIONS = [{"type": "open", "question": "First?"}, {"type": "open", "question": "Second?"},
             {"type": "open", "question": "Third?"}]


def typed(text: str) -> list[str]:
    return ["space" if c == " " else c for c in text]


async def _client(sandbox: Any) -> ApiClient:
    return ApiClient(sandbox.base_url, sandbox.api_key, sandbox.project_id)


async def _create(sandbox: Any, name: str) -> Survey:
    async with await _client(sandbox) as client:
        return await client.surveys.create({"name": name, "type": "popover", "description": "As it was",
                                            "questions": QUESTIONS})


async def _elsewhere(sandbox: Any, survey: Survey, **changes: Any) -> None:
    """A change made by someone else, straight on the server."""
    async with await _client(sandbox) as client:
        await client.surveys.update(survey.id, changes)


async def _held(sandbox: Any, survey: Survey) -> Survey:
    async with await _client(sandbox) as client:
        return await client.surveys.get(survey.id)


def _path(sandbox: Any, survey: Survey) -> str:
    return f"/api/projects/{sandbox.project_id}/surveys/{survey.id}/"


def _sent(sandbox: Any, since: int) -> list[tuple[str, str, Any]]:
    """The requests on one survey's own record since ``since``: what the editor reads and sends. The list under
    it reads itself and its rows' stats on timers of real time (again on return, once 10 s old), which a busy
    machine reaches within a test: those are not the editor's."""
    return [(r["method"], r["path"], r.get("body")) for r in sandbox.requests()[since:]
            if re.fullmatch(r"/api/projects/[^/]+/surveys/[^/]+/", r["path"])]


async def _open(pilot: Any, survey: Survey) -> tuple[SurveyBrowserScreen, SurveyEditorScreen]:
    """The survey list's cursor on ``survey``, then ``e``; the editor once it has read the survey."""
    await settle(pilot)
    browser = pilot.app.screen
    assert isinstance(browser, SurveyBrowserScreen)
    index = next(i for i in range(browser.table.row_count) if browser.table.key_at(i) == survey.id)
    browser.table.move_cursor(index)
    await settle(pilot)
    await burst(pilot, "e")
    editor = pilot.app.screen
    assert isinstance(editor, SurveyEditorScreen) and not editor.reading
    return browser, editor


def _title(editor: SurveyEditorScreen) -> str:
    return str(editor.query_one("#editor-title", Static).render())


async def test_e_opens_the_survey_the_server_holds_and_keys_typed_meanwhile_act_on_it(sandbox: Any,
                                                                                        clock: FrozenClock) -> None:
    survey = await _create(sandbox, "Pulse")
    app = make_app(sandbox, clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.screen
        assert isinstance(browser, SurveyBrowserScreen)
        index = next(i for i in range(browser.table.row_count) if browser.table.key_at(i) == survey.id)
        browser.table.move_cursor(index)
        await settle(pilot)
        # renamed elsewhere, and one more question, after the list was read; the read takes half a second
        await _elsewhere(sandbox, survey, name="Pulse (renamed)",
                         questions=[*QUESTIONS, {"type": "open", "question": "Fourth?"}])
        sandbox.state.faults.add(parse_fault({"kind": "latency", "seconds": 0.5, "path": f"{survey.id}/$",
                                              "count": 1}))
        since = len(sandbox.requests())
        await burst(pilot, "e", "end", "up")  # sent with the e: they wait for the read, then act in the editor
        editor = app.screen
        assert isinstance(editor, SurveyEditorScreen)
        assert browser.table.cursor_row == index  # nothing landed on the list
        assert "Edit survey: Pulse (renamed)" in _title(editor)
        items = editor.query_one("#editor-items", OptionList)
        assert items.option_count == 5 and items.highlighted == 3  # End, then Up: the third of four questions
        assert editor.focused is items
        assert _sent(sandbox, since) == [("GET", _path(sandbox, survey), None)]


async def test_a_save_sends_only_the_edited_field_over_a_rename_made_meanwhile(sandbox: Any,
                                                                               clock: FrozenClock) -> None:
    survey = await _create(sandbox, "Pulse")
    app = make_app(sandbox, clock)
    async with app.run_test(size=SIZE) as pilot:
        browser, editor = await _open(pilot, survey)
        await burst(pilot, "tab", "tab", "end", "ctrl+u", *typed("Every month"))  # the list, name, description
        assert editor.query_one("#f-description", Input).value == "Every month"
        await _elsewhere(sandbox, survey, name="Pulse (renamed)")
        since = len(sandbox.requests())
        await burst(pilot, "ctrl+s")
        assert _sent(sandbox, since) == [("GET", _path(sandbox, survey), None),
                                         ("PATCH", _path(sandbox, survey), {"description": "Every month"})]
        held = await _held(sandbox, survey)
        assert (held.name, held.description) == ("Pulse (renamed)", "Every month")
        assert app.screen is browser
        assert browser.selected is not None and browser.selected.name == "Pulse (renamed)"


@pytest.mark.slow
async def test_a_field_changed_on_both_sides_is_asked_about(sandbox: Any, clock: FrozenClock) -> None:
    """Keep mine (y) sends the operator's name; take theirs (t) keeps the server's and sends the rest; Escape sends
    nothing and keeps the draft."""
    survey = await _create(sandbox, "Pulse")
    app = make_app(sandbox, clock)
    async with app.run_test(size=SIZE) as pilot:
        _browser, editor = await _open(pilot, survey)
        await burst(pilot, "tab", "end", "ctrl+u", *typed("Mine"))
        await _elsewhere(sandbox, survey, name="Theirs")
        since = len(sandbox.requests())

        # Escape: nothing sent, the edit stays
        await burst(pilot, "ctrl+s")
        dialog = app.screen
        assert isinstance(dialog, ConflictScreen)
        text = "\n".join(str(static.render()) for static in dialog.query(Static))
        assert "Name\n  yours:  Mine\n  server: Theirs" in text, text
        await burst(pilot, "escape")
        assert app.screen is editor and editor.draft.dirty
        assert editor.query_one("#f-name", Input).value == "Mine"
        assert _sent(sandbox, since) == [("GET", _path(sandbox, survey), None)]

        # take theirs: the name is the server's, the description (no conflict) is sent
        await burst(pilot, "tab", "end", "ctrl+u", *typed("Mine too"))
        since = len(sandbox.requests())
        await burst(pilot, "ctrl+s")
        assert isinstance(app.screen, ConflictScreen)
        await burst(pilot, "t")
        assert _sent(sandbox, since) == [("GET", _path(sandbox, survey), None),
                                         ("PATCH", _path(sandbox, survey), {"description": "Mine too"})]
        held = await _held(sandbox, survey)
        assert (held.name, held.description) == ("Theirs", "Mine too")

        # keep mine
        _browser, editor = await _open(pilot, survey)
        await burst(pilot, "tab", "end", "ctrl+u", *typed("Mine"))
        await _elsewhere(sandbox, survey, name="Theirs again")
        since = len(sandbox.requests())
        await burst(pilot, "ctrl+s")
        assert isinstance(app.screen, ConflictScreen)
        await burst(pilot, "y")
        assert _sent(sandbox, since) == [("GET", _path(sandbox, survey), None),
                                         ("PATCH", _path(sandbox, survey), {"name": "Mine"})]
        assert (await _held(sandbox, survey)).name == "Mine"


async def test_a_network_failure_at_save_keeps_the_draft(sandbox: Any, clock: FrozenClock, user_dirs: Path) -> None:
    survey = await _create(sandbox, "Pulse")
    app = make_app(sandbox, clock, retries=0)
    async with app.run_test(size=SIZE) as pilot:
        _browser, editor = await _open(pilot, survey)
        await burst(pilot, "tab", "tab", "end", "ctrl+u", *typed("Every month"))
        sandbox.state.faults.add(parse_fault({"kind": "drop", "path": f"{survey.id}/$"}))
        since = len(sandbox.requests())
        await burst(pilot, "ctrl+s")
        assert app.screen is editor
        assert [(method, body) for method, _path_, body in _sent(sandbox, since)] == [("GET", None)]
        assert editor.query_one("#f-description", Input).value == "Every month"
        assert "Not saved" in str(editor.query_one("#editor-summary", Static).render())
        assert (user_dirs / "data" / "drafts" / f"{survey.id}.json").exists()
        sandbox.state.faults.clear()
        since = len(sandbox.requests())
        await burst(pilot, "ctrl+s")
        assert _sent(sandbox, since) == [("GET", _path(sandbox, survey), None),
                                         ("PATCH", _path(sandbox, survey), {"description": "Every month"})]
        assert (await _held(sandbox, survey)).description == "Every month"
