"""Results a product manager reads (issue 46 §4): response and dismissal rates, unique respondents, and responses
per week for the last eight weeks, read from ``surveys/:id/stats/`` windows (``date_from``/``date_to``) once and
kept, inside the rate budget; the sandbox's counts agree with the responses it seeds."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from tests.pilot import settle, until
from tests.surveys.conftest import make_app, requests_to
from tests.surveys.test_browser import browser, select_status, static_text
from tui.api.models.surveys import SurveyStats, SurveyStatus
from tui.clock import FrozenClock
from tui.state.survey_stats import TOTAL, StatsBook, rates_text, trend_text, weekly_windows


def _get(sandbox: Any, path: str, **params: str) -> Any:
    return httpx.get(f"{sandbox.base_url}/api/projects/{sandbox.project_id}/surveys/{path}", params=params,
                     headers={"Authorization": f"Bearer {sandbox.api_key}"},
                     verify=False).json()  # plain loopback HTTP: no CA bundle to load


def test_the_sandbox_weeks_add_up_to_the_responses_it_seeds(sandbox: Any, clock: FrozenClock) -> None:
    counts = _get(sandbox, "responses_count/")
    surveys = [s for s in _get(sandbox, "", limit="500")["results"] if counts.get(s["id"], 0) > 0]
    assert surveys
    for survey in surveys:
        start = datetime.fromisoformat(survey["start_date"])
        total = _get(sandbox, f"{survey['id']}/stats/")
        assert total["stats"]["survey sent"]["total_count"] == counts[survey["id"]], survey["name"]
        edges = [start - timedelta(days=1), start + (clock.now() - start) / 3, clock.now() + timedelta(days=1)]
        parts = [_get(sandbox, f"{survey['id']}/stats/", date_from=lo.isoformat(), date_to=hi.isoformat())
                 ["stats"]["survey sent"]["total_count"] for lo, hi in itertools.pairwise(edges)]
        assert sum(parts) == counts[survey["id"]], survey["name"]
        assert all(p >= 0 for p in parts)


def test_weeks_end_at_the_next_utc_midnight_and_past_weeks_are_read_once() -> None:
    now = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
    weeks = weekly_windows(now)
    assert len(weeks) == 8 and weeks[-1] == (datetime(2026, 1, 9, tzinfo=UTC), datetime(2026, 1, 16, tzinfo=UTC))
    assert weeks[0][0] == datetime(2025, 11, 21, tzinfo=UTC)
    book = StatsBook(max_age=60.0)
    assert book.due("s", now, 0.0) == [TOTAL, *weeks]
    for window in [TOTAL, *weeks]:
        book.put("s", window, SurveyStats.model_validate({"stats": {"survey sent": {"total_count": 3}}}), 0.0)
    assert book.due("s", now, 30.0) == []
    assert book.due("s", now, 61.0) == [TOTAL, weeks[-1]], "only what can still change"
    assert book.trend("s", now) == [3] * 8
    small = StatsBook(max_entries=3)
    for index in range(5):
        small.put(f"s{index}", TOTAL, SurveyStats(), 0.0)
    assert len(small) == 3 and small.get("s0") is None and small.get("s4") is not None


def test_the_texts_a_pm_reads() -> None:
    stats = SurveyStats.model_validate({"stats": {"survey sent": {"total_count": 40, "unique_persons": 32}},
                                        "rates": {"response_rate": 33.4, "dismissal_rate": 12.5}})
    assert rates_text(stats) == "33.4 % responded · 12.5 % dismissed · 32 respondents"
    assert rates_text(SurveyStats()) is None
    assert trend_text([0, 2, 5, 14, None, 3, 1, 6]) == "▁▂▃█·▂▁▄  0 2 5 14 ? 3 1 6 a week"
    assert trend_text([None] * 8) is None
    assert trend_text([0] * 8) == "▁▁▁▁▁▁▁▁  0 0 0 0 0 0 0 0 a week"


async def test_the_full_screen_detail_shows_rates_respondents_and_weeks_read_once(sandbox: Any,
                                                                                  clock: FrozenClock) -> None:
    app = make_app(sandbox, clock)
    elapsed = [1000.0]
    app.monotonic = lambda: elapsed[0]  # the stats' minute is elapsed time
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = browser(app)
        index = await select_status(pilot, SurveyStatus.RUNNING)
        survey_id = screen.table.key_at(index)
        await pilot.press("enter")
        path = f"/surveys/{survey_id}/stats/"
        await until(pilot, lambda: len(requests_to(sandbox, "GET", path)) >= 9)
        asked = requests_to(sandbox, "GET", path)
        windows = [(a["query_params"].get("date_from", [None])[0], a["query_params"].get("date_to", [None])[0])
                   for a in asked]
        assert windows[0] == (None, None)
        assert [datetime.fromisoformat(w[1]) for w in windows[1:]] == [
            hi for _, hi in weekly_windows(app.server_clock.now())]
        total = _get(sandbox, path.removeprefix("/surveys/"))
        weekly = [_get(sandbox, path.removeprefix("/surveys/"), date_from=lo, date_to=hi)
                  ["stats"]["survey sent"]["total_count"] for lo, hi in windows[1:] if lo and hi]
        text = static_text(app, "#survey-detail-fields")
        assert f"{total['rates']['response_rate']:g} % responded" in text
        assert f"{total['rates']['dismissal_rate']:g} % dismissed" in text
        assert f"{total['stats']['survey sent']['unique_persons']:,} respondent" in text
        assert "  ".join(["", " ".join(f"{n:,}" for n in weekly) + " a week"]) in text
        # back to the list and in again within the minute: nothing is read again
        before = len(requests_to(sandbox, "GET", path))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert len(requests_to(sandbox, "GET", path)) == before
        # a minute later: the total and the week not over yet, nothing else
        await pilot.press("escape")
        elapsed[0] += 61
        await pilot.press("enter")
        await until(pilot, lambda: len(requests_to(sandbox, "GET", path)) >= before + 2)
        again = requests_to(sandbox, "GET", path)[before:]
        # (the list, back on screen, may read the total first: once either way)
        assert sorted(a["query_params"].get("date_to", [""])[0] for a in again) == sorted(["", windows[-1][1]])
