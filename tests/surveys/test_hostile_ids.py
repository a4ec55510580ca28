"""A proxy that answers a survey's id as another object's path cannot make the browser delete that object.

The attack: the survey list comes back with "Billing clarity check"'s id replaced by
``../batch_exports/<export id>``; sent unchecked, "Delete the survey Billing clarity check?" + ``y`` deleted the
export. Here the item is a bad item of its page (shown as skipped, not as a row), and a delete of that id is
refused as a verdict with nothing sent: the export is still on the server afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.pilot import settle, toast_texts, until
from tests.surveys.conftest import make_app, survey_writes
from tests.surveys.test_action_journal import journal_lines
from tests.surveys.test_browser import browser, select_status
from tui.api.models.surveys import SurveyStatus
from tui.clock import FrozenClock
from tui.screens.confirm import ConfirmScreen

TARGET = "Billing clarity check"


def _get(handle: Any, path: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{handle.base_url}{path}", params=params, timeout=10,
                     headers={"Authorization": f"Bearer {handle.api_key}"}, verify=False)


async def test_a_survey_id_naming_an_export_is_a_bad_item_and_deletes_nothing(sandbox: Any, clock: FrozenClock,
                                                                               user_dirs: Path) -> None:
    project = sandbox.project_id
    exports = _get(sandbox, f"/api/environments/{project}/batch_exports/").json()["results"]
    export_path = f"/api/environments/{project}/batch_exports/{exports[0]['id']}/"
    page = _get(sandbox, f"/api/projects/{project}/surveys/", limit=100, offset=0).json()
    (target,) = [s for s in page["results"] if s["name"] == TARGET]
    hostile_id = f"../batch_exports/{exports[0]['id']}"
    target["id"] = hostile_id
    response = httpx.post(f"{sandbox.base_url}/_sandbox/faults/", timeout=10,
                          json={"kind": "body", "path": r"/surveys/$", "body": page}, verify=False)
    assert response.status_code == 201

    app = make_app(sandbox, clock)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        names = screen.table.column_texts("name")
        assert TARGET not in names and len(names) == len(page["results"]) - 1
        assert screen.pager.skipped == 1
        assert "1 unreadable skipped" in str(screen.query_one("#survey-status").render())

        # the operator deletes what they see: only that survey's path goes out
        await select_status(pilot, SurveyStatus.DRAFT)
        chosen = screen.selected_id
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert [(w["method"], w["path"]) for w in survey_writes(sandbox)] == [
            ("DELETE", f"/api/projects/{project}/surveys/{chosen}/")]

        # the hostile id, were it ever asked to be deleted, is refused as a verdict and nothing is sent
        lines = len(journal_lines(user_dirs))
        screen._delete(hostile_id)
        await until(pilot, lambda: len(journal_lines(user_dirs)) > lines)
        assert [(w["method"], w["path"]) for w in survey_writes(sandbox)] == [
            ("DELETE", f"/api/projects/{project}/surveys/{chosen}/")]
        def refused() -> bool:
            return any("unexpected shape" in toast and "Nothing was sent" in toast for toast in toast_texts(app))

        await until(pilot, refused, step=0.1)  # it may wait for the toasts before it to leave (tui.toasts)
        assert refused()
        last = journal_lines(user_dirs)[-1]
        assert last["action"] == "survey delete" and last["result"].startswith("failed: Refused an id")

    assert [r for r in sandbox.requests() if "/batch_exports/" in r["path"] and r["method"] != "GET"] == []
    assert _get(sandbox, export_path).status_code == 200, "the export is still there"
