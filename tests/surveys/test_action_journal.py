"""Every write of the survey browser is journaled, once it succeeded and once the server refused it.

Archive, launch, stop, resume and delete through their keys against the sandbox; the refusal is its ``body``
fault answering the write with a 400 validation error. An action whose journal entry goes missing, in either
outcome, fails its case here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.pilot import settle, until
from tests.surveys.conftest import make_app, survey_writes
from tests.surveys.test_browser import browser, select_status
from tui.api.models import SurveyStatus
from tui.clock import FrozenClock
from tui.screens.confirm import ConfirmScreen

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
    path = user_dirs / "data" / "journal.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


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
