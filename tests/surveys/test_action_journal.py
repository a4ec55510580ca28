"""Every write of the survey browser is journaled, once the server refused it and once it succeeded.

Archive, unarchive, launch, stop, resume and delete through their keys, and create and edit saved from the
editor, against the sandbox; the refusal is its ``body`` fault answering the write with a 400 validation error.
Each action is refused first and then sent again on the same survey (a refused write changes nothing), in one
app session; each case asserts the one journal line its write added. An action whose journal entry goes
missing, in either outcome, fails its case here.
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
REFUSED = f"failed: The server refused the input: {REFUSAL}."
OUTCOMES = ("failed", "ok")

# journal action -> (the survey's status, its key, whether it asks first); in the order they run
ACTIONS: dict[str, tuple[SurveyStatus, str, bool]] = {
    "delete": (SurveyStatus.DRAFT, "d", True),
    "launch": (SurveyStatus.DRAFT, "s", True),
    "stop": (SurveyStatus.RUNNING, "s", True),
    "archive": (SurveyStatus.COMPLETE, "a", True),
    "resume": (SurveyStatus.COMPLETE, "s", True),
}


def journal_lines(user_dirs: Path) -> list[dict[str, Any]]:
    """What the dashboard wrote, read back by the journal's own reader."""
    return ActionJournal(user_dirs / "data" / "journal.jsonl").tail()


def refuse_next_write(sandbox: Any, path: str) -> None:
    """The sandbox's ``body`` fault: the next write to ``path`` is answered 400 with a validation error (a read of
    the same path, as the editor's before it saves, is answered as usual)."""
    answer = httpx.post(f"{sandbox.base_url}/_sandbox/faults", json={
        "kind": "body", "status": 400, "path": path, "method": "POST,PATCH,PUT,DELETE", "count": 1,
        "body": {"type": "validation_error", "code": "invalid", "detail": REFUSAL, "attr": None}}, verify=False)
    assert answer.status_code in (200, 201), answer.text


async def write_once(pilot: Any, sandbox: Any, user_dirs: Path, case: str, path: str | None, *keys: str,
                     confirm: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Press ``keys`` (refusing the write to ``path`` first, unless None), confirm if asked; returns the writes
    sent and the journal line added, asserting there is exactly one of each."""
    app = pilot.app
    if path is not None:
        refuse_next_write(sandbox, path)
    writes_before = len(survey_writes(sandbox))
    lines_before = len(journal_lines(user_dirs))
    await pilot.press(*keys)
    if confirm:
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen), case
        await pilot.press("y")
    await until(pilot, lambda: len(journal_lines(user_dirs)) > lines_before)
    writes = survey_writes(sandbox)[writes_before:]
    assert len(writes) == 1, f"{case}: the write sent once, not {len(writes)} times"
    lines = journal_lines(user_dirs)[lines_before:]
    assert len(lines) == 1, f"{case}: one journal line, not {lines}"
    return writes, lines[0]


@pytest.mark.slow
async def test_every_survey_write_is_journaled_with_its_outcome(
        sandbox: Any, clock: FrozenClock, user_dirs: Path) -> None:
    """Delete, launch, stop, archive, resume and unarchive (``a`` on the archived survey, whose line carries
    ``archived: false`` as its detail), each refused and then done: one line each, ok or in the server's words."""
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        for action, (status, key, asks) in ACTIONS.items():
            index = await select_status(pilot, status)
            survey_id = screen.table.key_at(index)
            await settle(pilot)
            for outcome in OUTCOMES:
                case = f"{action} {outcome}"
                assert screen.selected_id == survey_id, f"{case}: the cursor stays on the survey"
                _writes, line = await write_once(pilot, sandbox, user_dirs, case,
                                                 r"/surveys/[^/]+/$" if outcome == "failed" else None,
                                                 key, confirm=asks)
                await settle(pilot)
                result = "ok" if outcome == "ok" else REFUSED
                assert (line["action"], line["project"], line["survey"], line["result"]) == (
                    f"survey {action}", sandbox.project_id, survey_id, result), case
            if action == "archive":
                archived_id = survey_id

        # unarchive: ``a`` on the survey just archived
        index = next(i for i in range(screen.table.row_count) if screen.table.key_at(i) == archived_id)
        screen.table.move_cursor(index)
        await settle(pilot)
        for outcome in OUTCOMES:
            case = f"unarchive {outcome}"
            assert screen.check_action("unarchive", ()) is True, case
            writes, line = await write_once(pilot, sandbox, user_dirs, case,
                                            r"/surveys/[^/]+/$" if outcome == "failed" else None, "a")
            await settle(pilot)
            assert [w["body"] for w in writes] == [{"archived": False}], case
            result = "ok" if outcome == "ok" else REFUSED
            assert (line["action"], line["project"], line["survey"], line["result"], line["detail"]) == (
                "survey unarchive", sandbox.project_id, archived_id, result, {"archived": False}), case


EDITED = "Named by the journal test"
CREATED = "Created by the journal test"


async def test_every_editor_save_is_journaled_with_its_outcome(
        sandbox: Any, clock: FrozenClock, user_dirs: Path) -> None:
    """A saved change to a survey and a new survey saved from the editor, each refused and then saved again:
    one line each, the refusal in the server's words (the editor stays open with what was typed; its own tests
    check that); a refused create has no id, so its line has none."""
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        # journal action -> (the browser's key that opens the editor, the save's path pattern, the name typed)
        saves = {"edit": ("e", r"/surveys/[^/]+/$", EDITED), "create": ("n", r"/surveys/$", CREATED)}
        for action, (key, path, name) in saves.items():
            edited = screen.selected_id if action == "edit" else None
            editor = await editor_of(pilot, key)
            await type_in(pilot, "#f-name", name)
            if action == "create":
                editor.query_one("#f-archived", Checkbox).value = False
                await settle(pilot)
            for outcome in OUTCOMES:
                case = f"{action} {outcome}"
                _writes, line = await write_once(pilot, sandbox, user_dirs, case,
                                                 path if outcome == "failed" else None, "ctrl+s")
                if outcome == "ok":
                    await until(pilot, lambda: app.screen is screen)
                    assert app.screen is screen, case
                    assert screen.selected is not None and screen.selected.name == name, case
                    survey_id = screen.selected.id if action == "create" else edited
                    result = "ok"
                else:
                    await settle(pilot)
                    assert app.screen is editor, case
                    survey_id = edited  # a refused create has no id: its line has none
                    result = REFUSED
                assert (line["action"], line["project"], line.get("survey"), line["name"], line["result"]) == (
                    f"survey {action}", sandbox.project_id, survey_id, name, result), case
