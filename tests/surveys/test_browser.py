"""Pilot tests of the survey browser against the sandbox: the exact request sent and the screen updated.

Checks that share one setup run as one scenario in one app session (browsing, actions, editor saves); each step
asserts its own precondition and counts the requests and writes it caused from a mark taken before it.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Checkbox, DataTable, Input, Static

from tests.pilot import settle, until
from tests.surveys.conftest import make_app, requests_to, sandbox_options, survey_writes
from tui.api.models.surveys import SurveyStatus
from tui.api.writes import iso
from tui.clock import FrozenClock
from tui.sandbox.runner import start_sandbox
from tui.screens.confirm import ConfirmScreen
from tui.screens.editor import SurveyEditorScreen
from tui.screens.survey_modals import ActivityScreen, SummaryScreen
from tui.screens.surveys import SurveyBrowserScreen
from tui.widgets.editor.common import FieldError
from tui.widgets.survey_detail import SurveyDetail

# --------------------------------------------------------------------------- helpers


def browser(app: Any) -> SurveyBrowserScreen:
    screen = app.screen
    assert isinstance(screen, SurveyBrowserScreen), type(screen)
    return screen


def cell_text(screen: SurveyBrowserScreen, row: int, column: str) -> str:
    return screen.table.cell(row, column)


def column_texts(screen: SurveyBrowserScreen, column: str) -> list[str]:
    return screen.table.column_texts(column)


def static_text(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def select_status(pilot: Any, status: SurveyStatus, *, archived: bool | None = None) -> int:
    """Move the cursor to the first survey in ``status``; returns its row index."""
    screen = browser(pilot.app)
    now = pilot.app.clock.now()
    for index in range(screen.table.row_count):
        row = screen.pager.get(screen.table.key_at(index))
        assert row is not None
        if row.status_at(now) is status:
            screen.table.move_cursor(index)
            await pilot.pause()
            return index
    raise AssertionError(f"no {status} survey in the seed")


def list_requests(sandbox: Any) -> list[dict[str, Any]]:
    return requests_to(sandbox, "GET", f"/api/projects/{sandbox.project_id}/surveys/")


# --------------------------------------------------------------------------- list


@pytest.mark.slow
async def test_browsing_the_list_reads_from_the_server_only_when_it_must(sandbox: Any, clock: FrozenClock) -> None:
    """One session over the seeded project, read-only, in turn:

    - the first page: one list request (limit 100, offset 0) and one responses count; every status seeded;
      the detail pane follows the cursor;
    - ``f`` cycles the status filter locally: each status's rows, all rows once, no list request;
    - the full-screen detail (``enter``) asks ``surveys/:id/stats/`` for the total and each of eight weeks, never
      while moving in the list, takes the focus, and ``escape`` gives the list back;
    - ``/`` searches on the server, ``escape`` clears the search; a search matching nothing says so;
    - ``ctrl+r`` refetches the first page, but the responses count only once a minute has passed;
    - ``o``/``O`` sort by name both ways; a click on the "Qs" header sorts by question count;
    - ``tab`` switches to the monitor.
    """
    app = make_app(sandbox, clock)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]  # the responses count's minute is elapsed time
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        # -- the first page
        lists = list_requests(sandbox)
        assert len(lists) == 1
        assert lists[0]["query_params"] == {"limit": ["100"], "offset": ["0"]}
        assert screen.pager.total == screen.table.row_count >= 30
        assert len(requests_to(sandbox, "GET", "/surveys/responses_count/")) == 1
        # every status is derived from the frozen clock, and each kind is seeded
        statuses = set(column_texts(screen, "status"))
        assert statuses == {s.value for s in SurveyStatus} | {"limit reached"}
        responses = column_texts(screen, "responses")
        assert any(r not in ("0", "—") for r in responses)
        assert "40 shown · 40 of 40 loaded" in static_text(app, "#survey-status") or \
            f"{screen.table.row_count} shown" in static_text(app, "#survey-status")
        # the detail pane follows the cursor
        first_name = cell_text(screen, 0, "name")
        assert first_name in static_text(app, "#survey-detail-fields")
        await pilot.press("down")
        second_name = cell_text(screen, 1, "name")
        assert second_name in static_text(app, "#survey-detail-fields")

        # -- the status filter cycles, locally
        everything = screen.table.row_count
        seen = 0
        for status in (SurveyStatus.DRAFT, SurveyStatus.RUNNING, SurveyStatus.COMPLETE, SurveyStatus.ARCHIVED):
            await pilot.press("f")
            await settle(pilot)
            assert screen.status_filter is status
            statuses_shown = column_texts(screen, "status")
            assert statuses_shown and set(statuses_shown) <= {status.value, "limit reached"}, status
            assert f"status {status.value}" in static_text(app, "#survey-status")
            seen += len(statuses_shown)
        assert seen == everything
        await pilot.press("f")
        await settle(pilot)
        assert screen.status_filter is None
        assert screen.table.row_count == everything
        assert len(list_requests(sandbox)) == 1, "filtering is local: no new list requests"

        # -- the full-screen detail shows the survey's stats; the list read only totals, once a survey
        index = await select_status(pilot, SurveyStatus.RUNNING)
        survey_id = screen.table.key_at(index)
        # Settled: a stats ask started by the move would have been sent, as its worker waits out its rest first.
        await until(pilot, lambda: screen.selected_id == survey_id)
        listed = [r["path"] for r in requests_to(sandbox, "GET", "/stats/")]
        assert all(not r["query_params"] for r in requests_to(sandbox, "GET", "/stats/")), "the list reads no week"
        assert len(listed) == len(set(listed)) and f"/surveys/{survey_id}/stats/" in "".join(listed)
        await pilot.press("enter")
        path = f"/surveys/{survey_id}/stats/"
        await until(pilot, lambda: len(requests_to(sandbox, "GET", path)) >= 9)
        asked = requests_to(sandbox, "GET", path)
        # the total (the list read it), then eight weeks
        assert len(asked) == 9 and {a["status"] for a in asked} == {200} and not asked[0]["query_params"]
        text = static_text(app, "#survey-detail-fields")
        assert "stats" in text and "shown" in text and "sent" in text and "% responded" in text
        assert "responses per week" in text
        # enter gave the detail the screen and the focus; escape gives the list back
        assert screen.detail_max
        assert not screen.query_one("#survey-list-pane").display or screen.has_class("-detail-max")
        assert screen.query_one(SurveyDetail).has_focus
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.detail_max

        # -- the name filter uses the server's search; escape clears it
        await pilot.press("slash")
        box = app.screen.query_one("#survey-filter", Input)
        assert box.display and box.has_focus
        await pilot.press(*"feedback", "enter")
        await settle(pilot)
        searches = [r for r in list_requests(sandbox) if "search" in r["query_params"]]
        assert searches[-1]["query_params"]["search"] == ["feedback"]
        names = column_texts(screen, "name")
        assert 0 < len(names) < everything
        assert all("feedback" in name.lower() for name in names)
        assert "search 'feedback'" in static_text(app, "#survey-status")
        await pilot.press("escape")
        await settle(pilot)
        assert not box.display
        assert screen.table.row_count == everything
        assert "search" not in list_requests(sandbox)[-1]["query_params"]

        # -- a search matching nothing says so
        await pilot.press("slash", *"zzzz-nothing", "enter")
        await settle(pilot)
        assert screen.table.row_count == 0
        assert "No survey matches 'zzzz-nothing'" in static_text(app, "#survey-empty")
        await pilot.press("escape")
        await settle(pilot)
        assert screen.table.row_count == everything

        # -- reload refetches the first page, but the responses count waits a minute
        lists_before = len(list_requests(sandbox))
        assert len(requests_to(sandbox, "GET", "/surveys/responses_count/")) == 1
        await pilot.press("ctrl+r")
        await settle(pilot)
        lists = list_requests(sandbox)
        assert len(lists) == lists_before + 1 and lists[-1]["query_params"]["offset"] == ["0"]
        assert len(requests_to(sandbox, "GET", "/surveys/responses_count/")) == 1
        elapsed[0] += 61
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert len(requests_to(sandbox, "GET", "/surveys/responses_count/")) == 2
        assert screen.table.row_count == screen.pager.total

        # -- the sort key and a header click
        await pilot.press("o")  # name
        names = column_texts(screen, "name")
        assert names == sorted(names, key=str.casefold)
        assert "sorted by name ↑" in static_text(app, "#survey-status")
        await pilot.press("O")
        assert column_texts(screen, "name") == sorted(names, key=str.casefold, reverse=True)
        # click the "Qs" header: sorts by question count
        x = sum(screen.table.columns[i].width + 2 for i in range(3)) + 1
        await pilot.click("#survey-table", offset=(x, 0))
        await pilot.pause()
        counts = [int(v) for v in column_texts(screen, "questions")]
        assert screen.sort_key == "questions"
        assert counts == sorted(counts)

        # -- tab switches to the monitor
        await pilot.press("tab")
        await pilot.pause()
        assert app.current_mode == "monitor"


async def test_scrolling_loads_pages_lazily(clock: FrozenClock) -> None:
    with start_sandbox(sandbox_options(clock, surveys=350)) as sandbox:
        app = make_app(sandbox, clock)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            screen = browser(app)
            assert screen.table.row_count == 100
            assert screen.pager.total == 350
            assert not screen.pager.exhausted
            for expected in (200, 300, 350):
                await pilot.press("end")
                await settle(pilot)
                assert screen.table.row_count == expected
            assert screen.pager.exhausted
            offsets = [r["query_params"]["offset"][0] for r in list_requests(sandbox)]
            assert offsets == ["0", "100", "200", "300"]
            # no duplicates, nothing skipped
            ids = [screen.table.key_at(i) for i in range(350)]
            assert len(set(ids)) == 350
            await pilot.press("end")
            await settle(pilot)
            assert len(list_requests(sandbox)) == 4


async def test_name_column_takes_the_free_width_and_a_sort_shows_the_top(sandbox: Any, clock: FrozenClock) -> None:
    """Issue 30 §4: long names that share a start stay apart at 160 columns; after a sort the first row shows."""
    app = make_app(sandbox, clock)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = browser(app)
        table = screen.table
        others = table.fixed_width_but("name")
        name_width = table.columns[0].width
        assert name_width > 30
        assert others + name_width + 2 + table.styles.scrollbar_size_vertical == 160
        table.move_cursor(table.row_count - 1)
        await pilot.pause()
        assert table.scroll_y > 0
        await pilot.press("o")
        await settle(pilot)
        assert table.cursor_row == 0 and table.scroll_y == 0
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        # narrower: the columns that fit are drawn whole, and the name takes what they leave
        assert table.columns[0].width >= 30
        assert table.fixed_width_but("name") + table.columns[0].width + 2 + table.styles.scrollbar_size_vertical == 120


# --------------------------------------------------------------------------- actions


@pytest.mark.slow
async def test_actions_send_exactly_their_write_and_update_the_row(sandbox: Any, clock: FrozenClock) -> None:
    """One session, each action's writes counted from a mark taken before it:

    - delete asks first: ``n`` sends nothing, ``y`` sends one DELETE and the row goes;
    - ``a`` on a running survey asks, then PATCHes only ``archived: true``; again, only ``archived: false``;
    - the survey's activity (``h``) shows that change; all activity (``H``) asks once with limit 100 and adds
      the survey's name column;
    - stop (asked first) PATCHes ``end_date`` to now: the survey is complete, neither launch nor stop offered;
    - launch of a draft (asked first) PATCHes ``start_date`` to now: the survey is running;
    - summarize POSTs ``summarize_responses`` once and shows the summary; a summary that fails shows the error.
    """
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        surveys = f"/api/projects/{sandbox.project_id}/surveys/"

        # -- delete asks, then sends DELETE
        before = screen.table.row_count
        await select_status(pilot, SurveyStatus.DRAFT)
        survey_id = screen.selected_id
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # No: nothing is sent
        await settle(pilot)
        assert survey_writes(sandbox) == []
        await pilot.press("d")
        await pilot.press("y")
        await settle(pilot)
        assert [(w["method"], w["path"]) for w in survey_writes(sandbox)] == [("DELETE", f"{surveys}{survey_id}/")]
        assert screen.table.row_count == before - 1
        assert survey_id is not None and survey_id not in screen.table
        assert screen.pager.total == before - 1

        # -- archive and unarchive PATCH only archived
        mark = len(survey_writes(sandbox))
        index = await select_status(pilot, SurveyStatus.RUNNING)
        survey_id = screen.selected_id
        await pilot.press("a")
        await settle(pilot)
        assert survey_writes(sandbox)[mark:] == [], "archive asks first"
        await pilot.press("y")
        await settle(pilot)
        assert [(w["method"], w["path"], w["body"]) for w in survey_writes(sandbox)[mark:]] == [
            ("PATCH", f"{surveys}{survey_id}/", {"archived": True})]
        assert cell_text(screen, index, "status") == "archived"
        assert screen.check_action("unarchive", ()) is True
        assert screen.check_action("archive", ()) is False
        await pilot.press("a")
        await settle(pilot)
        assert [w["body"] for w in survey_writes(sandbox)[mark:]] == [{"archived": True}, {"archived": False}]
        assert cell_text(screen, index, "status") == "running"

        # -- the activity of that survey, then of all
        await pilot.press("h")
        assert isinstance(app.screen, ActivityScreen)
        await settle(pilot)
        assert len(requests_to(sandbox, "GET", f"/surveys/{survey_id}/activity/")) == 1
        table = app.screen.query_one("#activity-table", DataTable)
        assert table.row_count >= 1
        changes = [str(table.get_row_at(i)[-1].plain) for i in range(table.row_count)]
        assert any("archived: false → true" in c for c in changes)
        await pilot.press("escape")
        await pilot.press("H")
        await settle(pilot)
        everything = requests_to(sandbox, "GET", f"{surveys}activity/")
        assert everything and everything[0]["query_params"] == {"limit": ["100"]}
        table = app.screen.query_one("#activity-table", DataTable)
        assert table.row_count > 1
        assert len(table.columns) == 5  # the survey's name column is added for "all"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen

        # -- stop sets end_date to now
        mark = len(survey_writes(sandbox))
        index = await select_status(pilot, SurveyStatus.RUNNING)
        survey_id = screen.selected_id
        await pilot.press("s")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert [(w["method"], w["path"], w["body"]) for w in survey_writes(sandbox)[mark:]] == [
            ("PATCH", f"{surveys}{survey_id}/", {"end_date": iso(clock.now())})]
        assert cell_text(screen, index, "status") == "complete"
        assert screen.check_action("launch", ()) is False
        assert screen.check_action("stop", ()) is False

        # -- launch sets start_date to now
        mark = len(survey_writes(sandbox))
        index = await select_status(pilot, SurveyStatus.DRAFT)
        survey_id = screen.selected_id
        assert screen.check_action("launch", ()) is True
        assert screen.check_action("stop", ()) is False
        await pilot.press("s")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert [(w["method"], w["path"], w["body"]) for w in survey_writes(sandbox)[mark:]] == [
            ("PATCH", f"{surveys}{survey_id}/", {"start_date": iso(clock.now())})]
        assert cell_text(screen, index, "status") == "running"

        # -- summarize shows the summary
        await select_status(pilot, SurveyStatus.RUNNING)
        survey_id = screen.selected_id
        await pilot.press("S")
        assert isinstance(app.screen, SummaryScreen)
        await settle(pilot)
        assert len(requests_to(sandbox, "POST", f"/surveys/{survey_id}/summarize_responses/")) == 1
        modal = app.screen
        assert modal.summary is not None
        text = str(modal.query_one("#summary-text", Static).render())
        assert text.strip() and not modal.query_one("#summary-loading").display
        await pilot.press("escape")
        assert app.screen is screen

        # -- a summary that fails shows the error in the modal
        app.push_screen(SummaryScreen("00000000-0000-0000-0000-000000000000", "[bold]gone"))
        await settle(pilot)
        error = str(app.screen.query_one("#summary-error", Static).render())
        assert "404" in error
        await pilot.press("escape")
        assert app.screen is screen


# --------------------------------------------------------------------------- the editor


async def editor_of(pilot: Any, key: str) -> SurveyEditorScreen:
    """The editor ``key`` (``n`` or ``e``) opened from the browser, laid out."""
    await pilot.press(key)
    await settle(pilot)
    editor = pilot.app.screen
    assert isinstance(editor, SurveyEditorScreen), type(editor)
    return editor


async def type_in(pilot: Any, selector: str, value: str) -> None:
    """A value put in a field of the editor, and the editor's reaction to it awaited."""
    pilot.app.screen.query_one(selector, Input).value = value
    await settle(pilot)


def field_error(editor: SurveyEditorScreen, name: str) -> str:
    return editor.query_one(f"#fe-{name}", FieldError).message or ""


async def test_editor_saves_send_only_what_changed_and_refusals_keep_the_input(
        sandbox: Any, clock: FrozenClock) -> None:
    """One session, one edit of the first survey, then a new survey:

    - bad input (a start date that is not ISO 8601, a blank name) is refused next to each field, nothing is sent,
      the input is kept and the editor stays open;
    - with both put back, a name another survey has is sent (PATCH of name and description only) and the
      server's 400 is shown at the name field, the input kept and saving offered again;
    - with the description put back, a new name and a responses limit PATCH exactly those two fields; the
      editor closes and the row shows the new name;
    - ``n`` opens a new draft whose save POSTs name, type and no questions; the new survey is listed first and
      selected.
    """
    app = make_app(sandbox, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        survey_id = screen.selected_id
        taken = cell_text(screen, 1, "name")
        editor = await editor_of(pilot, "e")
        assert editor.draft.survey is not None and editor.draft.survey.id == survey_id
        original = {name: editor.query_one(f"#f-{name}", Input).value for name in ("name", "start_date", "description")}

        # -- bad input is refused locally
        await type_in(pilot, "#f-start_date", "next tuesday")
        await type_in(pilot, "#f-name", "   ")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert survey_writes(sandbox) == []
        assert "ISO 8601" in field_error(editor, "start_date")
        assert "name is required" in field_error(editor, "name")
        assert editor.query_one("#f-start_date", Input).value == "next tuesday"
        assert app.screen is editor

        # -- the server's 400 is shown at the field, the input kept
        await type_in(pilot, "#f-start_date", original["start_date"])
        await type_in(pilot, "#f-name", taken)
        await type_in(pilot, "#f-description", "typed by the operator")
        await pilot.press("ctrl+s")
        await settle(pilot)
        writes = survey_writes(sandbox)
        assert len(writes) == 1 and writes[0]["method"] == "PATCH"
        assert writes[0]["body"] == {"name": taken, "description": "typed by the operator"}
        assert app.screen is editor  # still open
        assert "already another survey with this name" in field_error(editor, "name")
        assert editor.query_one("#f-name", Input).value == taken
        assert editor.query_one("#f-description", Input).value == "typed by the operator"
        assert editor.check_action("save", ()) is True  # saving again is offered

        # -- the edit PATCHes only the changed fields
        await type_in(pilot, "#f-description", original["description"])
        await type_in(pilot, "#f-name", "Renamed survey")
        await type_in(pilot, "#f-responses_limit", "250")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert [(w["method"], w["path"], w["body"]) for w in survey_writes(sandbox)[1:]] == [
            ("PATCH", f"/api/projects/{sandbox.project_id}/surveys/{survey_id}/",
             {"name": "Renamed survey", "responses_limit": 250})]
        assert app.screen is screen
        assert cell_text(screen, 0, "name") == "Renamed survey"

        # -- a new survey is POSTed and shown first
        before = screen.table.row_count
        editor = await editor_of(pilot, "n")
        assert editor.draft.creating
        await type_in(pilot, "#f-name", "Brand new survey")
        editor.query_one("#f-archived", Checkbox).value = False
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        writes = survey_writes(sandbox)[2:]
        assert [(w["method"], w["path"]) for w in writes] == [("POST", f"/api/projects/{sandbox.project_id}/surveys/")]
        assert writes[0]["body"] == {"name": "Brand new survey", "type": "popover", "questions": []}
        assert app.screen is screen
        assert screen.table.row_count == before + 1
        assert cell_text(screen, 0, "name") == "Brand new survey"
        assert screen.selected is not None and screen.selected.name == "Brand new survey"


# --------------------------------------------------------------------------- hostile text and errors


async def test_server_down_shows_the_error(clock: FrozenClock) -> None:
    handle = start_sandbox(sandbox_options(clock))
    base_url = handle.base_url
    handle.stop()
    app = make_app(handle, clock, base_url=base_url, retries=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = browser(app)
        assert screen.table.row_count == 0
        message = static_text(app, "#survey-empty")
        assert "Cannot load surveys" in message and ("refused" in message or "Cannot connect" in message)
        assert "ctrl+r" in message
        assert app.is_running
