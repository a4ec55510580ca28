"""The survey list's Rate column (issue 46 §4): one ``surveys/:id/stats/`` read per survey on screen, once the list
rests, kept a minute; none while keys move it, none for a draft, ``…`` until read and ``?`` when the read failed.

The real service answers ``surveys/stats/`` with one total over every survey (``global_stats``), so a rate per row is
one read of ``surveys/:id/stats/`` per survey (``survey_stats``; PostHog ``posthog/api/survey.py``); its
``response_rate`` is sent / shown × 100, and 0 when nobody was shown the survey (``_calculate_rates``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.pilot import burst, settle, until
from tests.surveys.conftest import make_app
from tests.surveys.test_browser import browser
from tui.api.models.surveys import SurveyStats, SurveyStatus
from tui.clock import FrozenClock
from tui.sandbox.faults import parse_fault_spec
from tui.screens.surveys import SurveyBrowserScreen
from tui.state.survey_stats import TOTAL, StatsBook, rate_text
from tui.widgets.survey_table import MUTED, rate_cell


def _get(sandbox: Any, path: str) -> Any:
    return httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{path}", params={"limit": "500"},
                     headers={"Authorization": f"Bearer {sandbox.api_key}"},
                     verify=False).json()  # plain loopback HTTP: no CA bundle to load


def _seeded(sandbox: Any) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """The sandbox's responses per survey and each survey's stats, read before the app starts (the world is
    frozen: they do not change)."""
    counts = _get(sandbox, "responses_count/")
    stats = {s["id"]: _get(sandbox, f"{s['id']}/stats/") for s in _get(sandbox, "")["results"]}
    return counts, stats


def _stats_reads(sandbox: Any, since: int) -> list[str]:
    """The survey ids whose stats were read after the ``since``-th request, in order."""
    return [r["path"].split("/surveys/")[1].removesuffix("/stats/") for r in sandbox.requests()[since:]
            if r["method"] == "GET" and r["path"].endswith("/stats/")]


def _asked_for(screen: SurveyBrowserScreen) -> list[str]:
    """The surveys on screen whose rate is read: all but the drafts."""
    now = screen.now
    return [key for key in screen.table.visible_keys()
            if (row := screen.pager.get(key)) is not None and row.status_at(now) is not SurveyStatus.DRAFT]


def _rate(stats: dict[str, Any]) -> str:
    shown = stats["stats"]["survey shown"]["total_count"]
    return f"{stats['rates']['response_rate']:.1f} %" if shown else "—"


@pytest.mark.shipped_debounce  # the list's own rest: a burst of keys is handled well within it
@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_one_read_per_visible_survey_after_the_list_rests(sandbox: Any, clock: FrozenClock,
                                                              size: tuple[int, int]) -> None:
    counts, seeded = _seeded(sandbox)
    mark = len(sandbox.requests())
    app = make_app(sandbox, clock)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]  # the minute a rate is kept is elapsed time
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = browser(app)
        table = screen.table
        await until(pilot, lambda: len(_stats_reads(sandbox, mark)) >= len(_asked_for(screen)))
        first = _asked_for(screen)
        assert len(first) >= 8
        assert size[1] < 48 or len(first) < len(table.visible_keys()), "a draft is on screen and not asked"
        reads = _stats_reads(sandbox, mark)
        assert sorted(reads) == sorted(first), "one read per survey on screen, drafts left out"
        assert {r["query_params"].get("date_from") for r in sandbox.requests()[mark:]
                if r["path"].endswith("/stats/")} == {None}, "totals only: the weeks are the detail's"
        # the numbers are the sandbox's: responses as seeded, the rate as its stats say
        for index, key in enumerate(table.visible_keys()):
            assert table.cell(index, "responses") == f"{counts.get(key, 0):,}"
            assert table.cell(index, "rate") == (_rate(seeded[key]) if key in first else "—")
        assert {table.cell(i, "rate") for i in range(len(first))} - {"—"}, "some rates are known numbers"
        shown = [column.key for column in table.shown_columns]
        assert {"name", "status", "responses", "rate"} <= set(shown)
        assert table.fixed_width_but("name") + table.columns[0].width + 2 \
            + table.styles.scrollbar_size_vertical == size[0], "the columns drawn fit the width whole"

        # moving among the same rows reads nothing
        await pilot.press("down", "down", "up")
        await settle(pilot)
        assert len(_stats_reads(sandbox, mark)) == len(first)

        # a burst of pages reads only the rows it stops on, not those it passed
        before = len(sandbox.requests())
        page_rows = len(table.visible_keys())
        await burst(pilot, "pagedown", "pagedown", "pagedown")
        await until(pilot, lambda: set(_stats_reads(sandbox, before)) >= set(_asked_for(screen)) - set(first))
        landed = set(_asked_for(screen))
        later = _stats_reads(sandbox, before)
        assert sorted(later) == sorted(landed - set(first)), "the rows passed on the way were not read"
        assert len(later) <= page_rows
        # back to the top within the minute: nothing is read again
        before = len(sandbox.requests())
        await pilot.press("home")
        await settle(pilot)
        assert set(table.visible_keys()) >= set(first) and _stats_reads(sandbox, before) == []
        # a minute later the rows looked at are read again, once each
        elapsed[0] += 61
        await pilot.press("pagedown")
        await until(pilot, lambda: len(_stats_reads(sandbox, before)) >= len(_asked_for(screen)))
        assert sorted(_stats_reads(sandbox, before)) == sorted(_asked_for(screen))


async def test_a_failed_read_shows_a_question_mark_and_waits_a_minute(sandbox: Any, clock: FrozenClock) -> None:
    _, seeded = _seeded(sandbox)
    running = [s for s in _get(sandbox, "")["results"] if s.get("start_date") and not s.get("end_date")
               and not s.get("archived")]
    broken = running[0]["id"]
    sandbox.state.faults.add(parse_fault_spec(f"status:status=500,path={broken}/stats/"))
    mark = len(sandbox.requests())
    app = make_app(sandbox, clock, retries=0)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = browser(app)
        table = screen.table
        assert broken in table.visible_keys()
        await until(pilot, lambda: len(_stats_reads(sandbox, mark)) >= len(_asked_for(screen)))
        index = table.index_of(broken)
        assert index is not None
        assert table.cell(index, "rate") == "?"
        assert _stats_reads(sandbox, mark).count(broken) == 1
        others = [k for k in _asked_for(screen) if k != broken]
        assert [table.cell(table.index_of(k) or 0, "rate") for k in others] == [_rate(seeded[k]) for k in others]
        # moving away and back within the minute does not ask again; after it, the one failed survey is asked again
        before = len(sandbox.requests())
        await pilot.press("end")
        await settle(pilot)
        await pilot.press("home")
        await settle(pilot)
        assert broken not in _stats_reads(sandbox, before)
        elapsed[0] += 61
        sandbox.state.faults.clear()
        await pilot.press("end")
        await settle(pilot)
        await pilot.press("home")
        await until(pilot, lambda: table.cell(table.index_of(broken) or 0, "rate") != "?")
        assert table.cell(table.index_of(broken) or 0, "rate") == _rate(seeded[broken])
        assert app.is_running


def test_a_total_read_is_due_once_a_minute_a_failure_waits_as_long_and_one_being_read_is_not_due() -> None:
    now = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
    book = StatsBook(max_age=60.0)
    assert list(book.due_totals(["a", "b", "c"], now, 0.0)) == ["a", "b", "c"]
    book.put("a", TOTAL, SurveyStats(), 0.0)
    book.fail("b", 0.0)
    with book.reading("c", TOTAL):
        assert list(book.due_totals(["a", "b", "c"], now, 1.0)) == []
    assert list(book.due_totals(["a", "b", "c"], now, 60.0)) == ["c"]
    assert list(book.due_totals(["a", "b", "c"], now, 60.5)) == ["a", "b", "c"]
    assert book.failed("b") and not book.failed("a")
    book.put("b", TOTAL, SurveyStats(), 61.0)
    assert not book.failed("b"), "a good read forgets the failure"
    small = StatsBook(max_entries=2)
    for index in range(5):
        small.fail(f"s{index}", 0.0)
    assert [small.failed(f"s{index}") for index in range(5)] == [False, False, False, True, True]


def test_the_rate_cell() -> None:
    stats = SurveyStats.model_validate({"stats": {"survey shown": {"total_count": 300}},
                                        "rates": {"response_rate": 33.33}})
    assert rate_text(stats) == "33.3 %"
    nobody = SurveyStats.model_validate({"stats": {"survey shown": {"total_count": 0}},
                                         "rates": {"response_rate": 0.0}})
    assert rate_text(nobody) == "—" and rate_text(SurveyStats()) == "—"
    book = StatsBook()
    assert rate_cell("s", SurveyStatus.RUNNING, book) == ("…", MUTED)
    book.fail("s", 0.0)
    assert rate_cell("s", SurveyStatus.RUNNING, book) == ("?", MUTED)
    book.put("s", TOTAL, stats, 1.0)
    assert rate_cell("s", SurveyStatus.COMPLETE, book) == ("33.3 %", "")
    assert rate_cell("s", SurveyStatus.DRAFT, book) == ("—", MUTED)
