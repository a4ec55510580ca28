"""The survey browser as a new operator meets it: readable results, journaled actions, typed delete, sorting."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static

from tests.pilot import settle
from tests.surveys.conftest import make_app, survey_writes
from tests.surveys.test_browser import browser, select_status
from tui.api.models.surveys import ResponseSummary, SurveyStatus
from tui.clock import FrozenClock
from tui.screens.confirm import ConfirmScreen
from tui.screens.survey_modals import summary_text
from tui.screens.typed_confirm import TypedNameConfirmScreen
from tui.state.io.journal import ActionJournal


def _journal(tmp_path: Path, name: str = "journal.jsonl") -> list[dict[str, Any]]:
    path = tmp_path / "data" / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_summary_text_reads_content_first_then_named_details() -> None:
    summary = ResponseSummary.model_validate({"content": "Most people like the new plan.", "question_index": None,
                                              "cached": False, "response_count": 40})
    text = summary_text(summary).plain
    assert text.startswith("Most people like the new plan.\n\nDetails\n")
    assert "question_index" not in text and "null" not in text and "false" not in text
    assert "From the cache: no" in text and "Responses in total: 40" in text


async def test_survey_actions_read_as_a_person_would_and_are_journaled(sandbox: Any, clock: FrozenClock,
                                                                      tmp_path: Path) -> None:
    """One session, in turn:

    - launching a draft asks "It starts now, Thu 15 Jan 12:00 UTC: ...", not a field name or an offset;
    - the launch and an archive of the same survey are journaled with its name, the project, the real time and
      the server's time;
    - deleting a running survey needs its name typed: a stray ``y`` is no answer, nothing is sent; with the name,
      one DELETE, journaled with the name;
    - a list sorted by status is sorted again after a launch an hour later, the launched survey still selected.
    """
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)

        # -- the launch question says when as a person would
        await select_status(pilot, SurveyStatus.DRAFT)
        row = screen.selected
        assert row is not None
        await pilot.press("s")
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#confirm-question", Static).render())
        assert "It starts now, Thu 15 Jan 12:00 UTC: respondents start seeing it." in question
        assert "start_date" not in question and "+00:00" not in question

        # -- the launch and an archive are journaled with name, project and real time
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("a")  # archive it too: it asks first (issue 42, item 3), names the survey, y archives
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert f"Archive {row.name}?" in str(app.screen.query_one("#confirm-question", Static).render())
        await pilot.press("y")
        await settle(pilot)
        entries = _journal(tmp_path)
        assert [e["action"] for e in entries] == ["survey launch", "survey archive"]
        launch = entries[0]
        assert (launch["survey"], launch["name"], launch["project"], launch["result"]) == (
            row.id, row.name, sandbox.project_id, "ok")
        written = datetime.fromisoformat(launch["time"])
        assert abs((written - datetime.now(UTC)).total_seconds()) < 120  # real time, not the frozen clock's
        assert datetime.fromisoformat(launch["server_time"]) == clock.now()

        # -- deleting a running survey needs its name
        await select_status(pilot, SurveyStatus.RUNNING)
        row = screen.selected
        assert row is not None
        writes_before = len(survey_writes(sandbox))
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, TypedNameConfirmScreen)
        await pilot.press("y", "enter")  # a stray y is no answer here
        await settle(pilot)
        assert survey_writes(sandbox)[writes_before:] == []
        field = app.screen.query_one("#typed-confirm-name", Input)
        field.value = row.name
        await pilot.press("enter")
        await settle(pilot)
        assert [w["method"] for w in survey_writes(sandbox)[writes_before:]] == ["DELETE"]
        assert [(e["action"], e["name"]) for e in _journal(tmp_path)[2:]] == [("survey delete", row.name)]

        # -- a list sorted by status is sorted again after a launch
        await pilot.press("o", "o", "o")
        assert screen.sort_key == "status"
        clock.advance(timedelta(hours=1))  # the sort was made an hour before the launch
        await select_status(pilot, SurveyStatus.DRAFT)
        launched = screen.selected_id
        await pilot.press("s", "y")
        await settle(pilot)
        statuses = screen.table.column_texts("status")
        order = ["draft", "running", "complete", "archived"]
        ranks = [order.index(s) for s in statuses if s in order]
        assert ranks == sorted(ranks)
        assert screen.selected_id == launched


def test_the_demo_has_its_own_journal(tmp_path: Path) -> None:
    assert ActionJournal.for_session(demo=True).path != ActionJournal.for_session(demo=False).path
    assert ActionJournal.for_session(demo=True).path.name == "journal-demo.jsonl"
