"""Every write of the survey browser is journaled, once it succeeded and once the server refused it.

Archive, unarchive, launch, stop, resume and delete through their keys, and create and edit saved from the
editor, against the sandbox; the refusal is its ``body`` fault answering the write with a 400 validation error.
An action whose journal entry goes missing, in either outcome, fails its case here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Checkbox

from tests.pilot import settle, until
from tests.surveys.conftest import make_app, survey_writes
from tests.surveys.test_browser import browser, editor_of, select_status, type_in
from tui.api.models.surveys import SurveyStatus
from tui.clock import FrozenClock
from tui.screens.confirm import ConfirmScreen
from tui.state.io.journal import ActionJournal

REFUSAL = "refused by the test"

# journal action -> (the survey's status, its key, whether it asks first)
ACTIONS: dict[str, tuple[SurveyStatus, str, bool]] = {
    "archive": (SurveyStatus.COMPLETE, "a", False),
    "launch": (SurveyStatus.DRAFT, "s", True),
    "stop": (SurveyStatus.RUNNING, "s", True),
    "resume": (SurveyStatus.COMPLETE, "s", True),
    "delete": (SurveyStatus.DRAFT, "d", True),
}


def journal_lines(user_dirs: Path) -> list[dict[str, Any]]:
    """What the dashboard wrote, read back by the journal's own reader."""
    return ActionJournal(user_dirs / "data" / "journal.jsonl").tail()


@pytest.mark.parametrize("outcome", ["ok", "failed"])
@pytest.mark.parametrize("action", list(ACTIONS))
async def test_every_survey_write_is_journaled_with_its_outcome(
        sandbox: Any, clock: FrozenClock, user_dirs: Path, action: str, outcome: str) -> None:
    status, key, asks = ACTIONS[action]
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        index = await select_status(pilot, status)
        survey_id = screen.table.key_at(index)
        row = screen.pager.get(survey_id)
        assert row is not None
        await settle(pilot)
        if outcome == "failed":
            answer = httpx.post(f"{sandbox.base_url}/_sandbox/faults", json={
                "kind": "body", "status": 400, "path": r"/surveys/[^/]+/$", "count": 1,
                "body": {"type": "validation_error", "code": "invalid", "detail": REFUSAL, "attr": None}})
            assert answer.status_code in (200, 201), answer.text
        writes_before = len(survey_writes(sandbox))
        await pilot.press(key)
        if asks:
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
        await until(pilot, lambda: len(journal_lines(user_dirs)) > 0)
        assert len(survey_writes(sandbox)) - writes_before == 1, "the write sent once"
        lines = [(e["action"], e["project"], e["survey"], e["result"]) for e in journal_lines(user_dirs)]
        result = "ok" if outcome == "ok" else f"failed: The server refused the input: {REFUSAL}."
        assert lines == [(f"survey {action}", sandbox.project_id, survey_id, result)]


def refuse_next_write(sandbox: Any, path: str) -> None:
    """The sandbox's ``body`` fault: the next write to ``path`` is answered 400 with a validation error."""
    answer = httpx.post(f"{sandbox.base_url}/_sandbox/faults", json={
        "kind": "body", "status": 400, "path": path, "count": 1,
        "body": {"type": "validation_error", "code": "invalid", "detail": REFUSAL, "attr": None}})
    assert answer.status_code in (200, 201), answer.text


NAME = "Named by the journal test"
# journal action -> (the browser's key that opens the editor, the save's path pattern)
SAVES: dict[str, tuple[str, str]] = {
    "create": ("n", r"/surveys/$"),
    "edit": ("e", r"/surveys/[^/]+/$"),
}


@pytest.mark.parametrize("outcome", ["ok", "failed"])
@pytest.mark.parametrize("action", list(SAVES))
async def test_every_editor_save_is_journaled_with_its_outcome(
        sandbox: Any, clock: FrozenClock, user_dirs: Path, action: str, outcome: str) -> None:
    """A new survey saved from the editor and a saved change to one: one line each, the refusal in the server's
    words (the editor stays open with what was typed; its own tests check that)."""
    key, path = SAVES[action]
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        edited = screen.selected_id if action == "edit" else None
        editor = await editor_of(pilot, key)
        await type_in(pilot, "#f-name", NAME)
        if action == "create":
            editor.query_one("#f-archived", Checkbox).value = False
            await settle(pilot)
        if outcome == "failed":
            refuse_next_write(sandbox, path)
        writes_before = len(survey_writes(sandbox))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(journal_lines(user_dirs)) > 0)
        assert len(survey_writes(sandbox)) - writes_before == 1, "the save sent once"
        if outcome == "ok":
            await until(pilot, lambda: app.screen is screen)
            assert screen.selected is not None and screen.selected.name == NAME
            survey_id = screen.selected.id if action == "create" else edited
            result = "ok"
        else:
            assert app.screen is editor
            survey_id = edited  # a refused create has no id: its line has none
            result = f"failed: The server refused the input: {REFUSAL}."
        lines = [(e["action"], e["project"], e.get("survey"), e["name"], e["result"])
                 for e in journal_lines(user_dirs)]
        assert lines == [(f"survey {action}", sandbox.project_id, survey_id, NAME, result)]


@pytest.mark.parametrize("outcome", ["ok", "failed"])
async def test_unarchive_is_journaled_with_its_outcome(
        sandbox: Any, clock: FrozenClock, user_dirs: Path, outcome: str) -> None:
    """``a`` on an archived survey sends ``archived: false``; one line, ok or in the server's words."""
    headers = {"Authorization": f"Bearer {sandbox.api_key}"}
    surveys = f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/"
    survey_id = httpx.get(surveys, headers=headers, timeout=10).json()["results"][0]["id"]
    archived = httpx.patch(f"{surveys}{survey_id}/", headers=headers, timeout=10, json={"archived": True})
    assert archived.status_code == 200, archived.text
    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        index = next(i for i in range(screen.table.row_count) if screen.table.key_at(i) == survey_id)
        screen.table.move_cursor(index)
        await settle(pilot)
        assert screen.check_action("unarchive", ()) is True
        if outcome == "failed":
            refuse_next_write(sandbox, r"/surveys/[^/]+/$")
        writes_before = len(survey_writes(sandbox))
        await pilot.press("a")
        await until(pilot, lambda: len(journal_lines(user_dirs)) > 0)
        writes = survey_writes(sandbox)[writes_before:]
        assert [w["body"] for w in writes] == [{"archived": False}], "the write sent once"
        result = "ok" if outcome == "ok" else f"failed: The server refused the input: {REFUSAL}."
        lines = [(e["action"], e["project"], e["survey"], e["result"], e["detail"])
                 for e in journal_lines(user_dirs)]
        assert lines == [("survey unarchive", sandbox.project_id, survey_id, result, {"archived": False})]
