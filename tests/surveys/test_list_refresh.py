"""The survey list reads itself again (issue 42 §6): on its own interval, and when the operator comes back to it after
a while, so a name changed elsewhere shows without ``ctrl+r`` and "updated Ns ago" stays true; an identical answer
changes nothing on screen but that age, and a failed refresh says the rows are stale."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.pilot import settle, until
from tests.surveys.conftest import make_app, requests_to
from tests.surveys.test_browser import browser, list_requests, static_text
from tui.api.models.common import Page
from tui.api.models.surveys import Survey, SurveyStatus
from tui.clock import FrozenClock
from tui.sandbox.faults import parse_fault_spec
from tui.screens import surveys as survey_screen
from tui.state.survey_list import SurveyPager


def _patch(sandbox: Any, survey_id: str, changes: dict[str, Any]) -> None:
    """What another screen or ``surveys apply`` does: the server's record changes, not this process's."""
    answer = httpx.patch(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{survey_id}/",
                         json=changes, headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False)
    assert answer.status_code == 200


def _rename(sandbox: Any, survey_id: str, name: str) -> None:
    _patch(sandbox, survey_id, {"name": name})


def _name_of(screen: Any, survey_id: str) -> str:
    index = screen.table.index_of(survey_id)
    return "" if index is None else str(screen.table.cell(index, "name"))


async def test_back_on_the_list_after_a_while_it_shows_a_name_changed_elsewhere(sandbox: Any,
                                                                               clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        survey_id = screen.table.key_at(2)
        await pilot.press("down", "down")
        await settle(pilot)
        _rename(sandbox, survey_id, "Renamed on another screen")
        lists = len(list_requests(sandbox))
        # to the monitor and straight back: the list was read a moment ago, so it is not read again
        await pilot.press("tab")
        await settle(pilot)
        await pilot.press("tab")
        await settle(pilot)
        assert app.screen is screen and len(list_requests(sandbox)) == lists
        assert _name_of(screen, survey_id) != "Renamed on another screen"
        # away for longer: back on the list, its page is read again (once) and the new name shows, in the detail too
        await pilot.press("tab")
        await settle(pilot)
        elapsed[0] += 30
        await pilot.press("tab")
        await until(pilot, lambda: _name_of(screen, survey_id) == "Renamed on another screen")
        again = list_requests(sandbox)[lists:]
        assert [r["query_params"] for r in again] == [{"limit": ["100"], "offset": ["0"]}]
        assert "Renamed on another screen" in static_text(app, "#survey-detail-fields")
        assert "updated 0s ago" in static_text(app, "#survey-header")


async def test_the_list_refreshes_on_its_interval_and_an_identical_answer_redraws_nothing(
        sandbox: Any, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(survey_screen, "LIST_REFRESH", 0.2)  # the interval, short for the test
    app = make_app(sandbox, clock, retries=0)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        table = screen.table
        rows = [table.row_at(index) for index in range(table.row_count)]
        lists = len(list_requests(sandbox))
        elapsed[0] += 45
        await until(pilot, lambda: len(list_requests(sandbox)) > lists, step=0.1)
        await until(pilot, lambda: "updated 0s ago" in static_text(app, "#survey-header"), step=0.1)
        # the same answer: not one row of the table was replaced, the age says the list was just read
        assert all(table.row_at(index) is row for index, row in enumerate(rows))
        assert {str(r["query_params"]) for r in list_requests(sandbox)[lists:]} == {
            str({"limit": ["100"], "offset": ["0"]})}, "one page a refresh: every row on screen is on the first"
        # a name changed elsewhere shows at the next refresh; only that row is replaced
        survey_id = table.key_at(5)
        _rename(sandbox, survey_id, "Renamed by surveys apply")
        await until(pilot, lambda: _name_of(screen, survey_id) == "Renamed by surveys apply", step=0.1)
        replaced = [index for index, row in enumerate(rows) if table.row_at(index) is not row]
        assert replaced == [table.index_of(survey_id)]
        # a draft on screen launched elsewhere: its status follows, and its rate is read (once)
        now = screen.now
        draft = next(key for key in table.visible_keys()
                     if (row := screen.pager.get(key)) is not None and row.status_at(now) is SurveyStatus.DRAFT)
        asked = len(requests_to(sandbox, "GET", f"/{draft}/stats/"))
        assert asked == 0 and table.cell(table.index_of(draft) or 0, "rate") == "—"
        _patch(sandbox, draft, {"start_date": now.isoformat()})
        await until(pilot, lambda: table.cell(table.index_of(draft) or 0, "status") == "running", step=0.1)
        await until(pilot, lambda: table.cell(table.index_of(draft) or 0, "rate") != "…", step=0.1)
        assert len(requests_to(sandbox, "GET", f"/{draft}/stats/")) == 1
        # a survey created elsewhere comes first (the server's order: newest first)
        created = httpx.post(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/",
                             json={"name": "Made in the web app", "type": "popover", "questions": []},
                             headers={"Authorization": f"Bearer {sandbox.api_key}"}, verify=False).json()
        await until(pilot, lambda: created["id"] in table, step=0.1)
        assert table.key_at(0) == created["id"] and screen.pager.total == len(rows) + 1
        # a failed refresh keeps the rows and says they are stale; the next good one says live again
        sandbox.state.faults.add(parse_fault_spec("status:status=500,path=/surveys/$"))
        await until(pilot, lambda: "refresh failed" in static_text(app, "#survey-header"), step=0.1)
        assert "STALE" in static_text(app, "#survey-header").upper()
        assert _name_of(screen, survey_id) == "Renamed by surveys apply"
        sandbox.state.faults.clear()
        await until(pilot, lambda: "refresh failed" not in static_text(app, "#survey-header"), step=0.2, rounds=300)
        assert "LIVE" in static_text(app, "#survey-header")


class _Lister:
    """The server's answers by offset, and the offsets asked for."""

    def __init__(self, surveys: list[Survey], page_size: int) -> None:
        self.surveys, self.page_size, self.asked = surveys, page_size, []

    async def list(self, limit: int | None = None, offset: int | None = None,
                   search: str | None = None) -> Page[Survey]:
        self.asked.append(offset)
        start = offset or 0
        return Page[Survey](count=len(self.surveys), results=self.surveys[start:start + (limit or 100)],
                            next="more" if start + (limit or 100) < len(self.surveys) else None)


def _survey(survey_id: str, name: str = "") -> Survey:
    return Survey.model_validate({"id": survey_id, "name": name or survey_id, "type": "popover", "questions": []})


async def test_a_refresh_reads_the_first_page_and_those_on_screen_and_merges_what_changed() -> None:
    server = _Lister([_survey(f"s{index}") for index in range(7)], page_size=2)
    pager = SurveyPager(page_size=2)
    while not pager.exhausted:
        pager.accept(await pager.fetch_next(server))
    assert [row.id for row in pager.rows] == [f"s{index}" for index in range(7)]
    assert pager.refresh_offsets(["s5", "s4"]) == [0, 4]
    assert pager.refresh_offsets(["s2", "s4", "s6"], most=3) == [0, 2, 4], "at most three pages"
    # the same answer: nothing changes
    server.asked.clear()
    rows = list(pager.rows)
    assert pager.merge(await pager.fetch_refresh(server, [0, 4])) == ([], [])
    assert server.asked == [0, 4] and all(a is b for a, b in zip(pager.rows, rows, strict=True))
    # renamed elsewhere, and one created (newest first, so on the first page)
    server.surveys = [_survey("new"), *server.surveys]
    server.surveys[5] = _survey("s4", "renamed")
    changed, added = pager.merge(await pager.fetch_refresh(server, [0, 4]))
    assert [row.id for row in added] == ["new"] and [(r.id, r.name) for r in changed] == [("s4", "renamed")]
    assert pager.rows[0].id == "new" and pager.get("s4") is not None and pager.get("s4").name == "renamed"
    assert pager.total == 8 and pager.next_offset == 8
    # a refresh of an older query changes nothing
    stale = await pager.fetch_refresh(server, [0])
    pager.reset()
    assert pager.merge(stale) == ([], [])
