"""Every operation of the spec, over real HTTP against the sandbox.

Each test checks what the server received (method, path, query, body, key) and
what went on the wire (bearer key, user agent, JSON content type exactly when
there is a body), and the model the client returned.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from tests.api.helpers import NOW, Sandbox, Wire, received
from tests.ids import uid
from tui.api.client import ApiClient
from tui.api.errors import NotFound, WriteValidationError
from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.api.models.projects import Project
from tui.api.models.questions import (
    ChoiceQuestion,
    LinkQuestion,
    OpenQuestion,
    RatingQuestion,
    ResponseBasedBranching,
    SpecificQuestionBranching,
)
from tui.api.models.surveys import ActivityEntry, Survey
from tui.api.route_memory import RouteMemory

NEW_SURVEY: dict[str, Any] = {
    "name": "Checkout feedback (client test)",
    "description": "Why did you leave?",
    "type": "popover",
    "questions": [
        {"type": "single_choice", "question": "Did you find it?", "choices": ["Yes", "No"],
         "branching": {"type": "response_based", "responseValues": {"0": 2, "1": "end"}}},
        {"type": "open", "question": "What was missing?", "branching": {"type": "specific_question", "index": 3}},
        {"type": "rating", "question": "How likely to recommend?", "display": "number", "scale": 10,
         "lowerBoundLabel": "Unlikely", "upperBoundLabel": "Very likely"},
        {"type": "link", "question": "Read our guide", "link": "https://example.com/guide",
         "branching": {"type": "end"}},
    ],
    "start_date": "2026-03-01T00:00:00+00:00",
    "responses_limit": 2147483647,
}


async def _a_survey(api: ApiClient) -> Survey:
    return (await api.surveys.list(limit=1)).results[0]


async def _an_export(api: ApiClient, *, paused: bool = False) -> BatchExport:
    exports = (await api.batch_exports.list()).results
    return next(e for e in exports if e.paused is paused and e.latest_runs)


# --------------------------------------------------------------------------- projects and surveys


async def test_projects_list(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    projects = await api.projects.list()
    received(sandbox, wire, "GET", "/api/projects/", query={})
    assert all(isinstance(p, Project) for p in projects)
    assert "1" in {str(p.id) for p in projects}


async def test_surveys_list_with_limit_and_offset(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    page = await api.surveys.list(limit=5, offset=5)
    received(sandbox, wire, "GET", "/api/projects/1/surveys/", query={"limit": ["5"], "offset": ["5"]})
    assert page.count is not None and page.count >= 30
    assert len(page.results) == 5 and page.errors == []
    assert page.next is not None and "offset=10" in page.next
    assert page.previous is not None
    assert all(isinstance(s, Survey) for s in page.results)


async def test_a_search_longer_than_the_newest_takes_is_cut(api: ApiClient, sandbox: Sandbox) -> None:
    """products/surveys/backend/api/survey.py: the newest service refuses a search over 200 characters (400, attr
    "search"); the client sends the first 200, as older servers read it."""
    page = await api.surveys.list(limit=5, search="z" * 250)
    assert page.results == []
    [sent] = sandbox.requests()
    assert sent["status"] == 200 and sent["query_params"]["search"] == ["z" * 200]


async def test_surveys_iterate_follows_next(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    pages = [page async for page in api.surveys.iterate(page_size=15)]
    count = pages[0].count
    assert count is not None
    ids = [s.id for page in pages for s in page.results]
    assert len(ids) == len(set(ids)) == count
    assert len(pages) == -(-count // 15)
    got = sandbox.requests()
    assert [r["query_params"] for r in got] == [
        {"limit": ["15"], "offset": [str(15 * i)]} for i in range(len(pages))
    ]
    received(sandbox, wire, "GET", "/api/projects/1/surveys/", index=0)


async def test_survey_get(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    listed = await _a_survey(api)
    survey = await api.surveys.get(listed.id)
    received(sandbox, wire, "GET", f"/api/projects/1/surveys/{listed.id}/", query={})
    assert survey.id == listed.id and survey.name == listed.name
    assert survey.created_at is not None


async def test_survey_get_unknown_is_not_found(api: ApiClient, sandbox: Sandbox) -> None:
    with pytest.raises(NotFound) as caught:
        await api.surveys.get("00000000-0000-0000-0000-000000000000")
    assert caught.value.status == 404
    assert len(sandbox.requests()) == 1  # a 404 is not retried


async def test_survey_create(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    survey = await api.surveys.create(NEW_SURVEY)
    received(fresh, wire, "POST", "/api/projects/1/surveys/", body=NEW_SURVEY)
    assert survey.name == NEW_SURVEY["name"]
    assert survey.questions is not None
    kinds = [type(q) for q in survey.questions]
    assert kinds == [ChoiceQuestion, OpenQuestion, RatingQuestion, LinkQuestion]
    first, second = survey.questions[0], survey.questions[1]
    assert isinstance(first.branching, ResponseBasedBranching)
    assert first.branching.responseValues == {"0": 2, "1": "end"}
    assert isinstance(second.branching, SpecificQuestionBranching) and second.branching.index == 3
    assert survey.start_date == NOW - timedelta(days=1, hours=12)
    assert survey.responses_limit == 2147483647


async def test_survey_create_refused_before_sending(api: ApiClient, sandbox: Sandbox) -> None:
    bad = {**NEW_SURVEY, "questions": [*NEW_SURVEY["questions"][:1],
                                       {"type": "open", "question": "x",
                                        "branching": {"type": "response_based", "responseValues": {}}}]}
    with pytest.raises(WriteValidationError) as caught:
        await api.surveys.create(bad)
    assert "questions[1].branching.type" in caught.value.problems
    assert "questions[0].branching.responseValues.0" in caught.value.problems  # 2 is past the last question
    assert sandbox.requests() == []


async def test_survey_update_sends_exactly_the_changes(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    before = await _a_survey(api)
    changes = {"name": "Renamed by the client test", "end_date": None}
    after = await api.surveys.update(before.id, changes)
    got = received(fresh, wire, "PATCH", f"/api/projects/1/surveys/{before.id}/", body=changes)
    assert set(got["body"]) == {"name", "end_date"}
    assert after.id == before.id and after.name == changes["name"] and after.end_date is None
    assert (await api.surveys.get(before.id)).name == changes["name"]


async def test_survey_delete(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    victim = await _a_survey(api)
    assert await api.surveys.delete(victim.id) is None
    received(fresh, wire, "DELETE", f"/api/projects/1/surveys/{victim.id}/")
    with pytest.raises(NotFound):
        await api.surveys.get(victim.id)


async def test_survey_activity_of_one(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    survey = await _a_survey(api)
    await api.surveys.update(survey.id, {"description": "changed for the activity test"})
    fresh.clean()
    entries = await api.surveys.activity(survey.id)
    received(fresh, wire, "GET", f"/api/projects/1/surveys/{survey.id}/activity/", index=0)
    assert entries and all(isinstance(e, ActivityEntry) for e in entries)
    assert entries[0].item_id == survey.id and entries[0].activity == "updated"
    assert entries[0].detail is not None and entries[0].detail.changes
    assert {c.field for c in entries[0].detail.changes} == {"description"}


async def test_surveys_activity_of_all_follows_next(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    entries = await api.surveys.activity()
    got = sandbox.requests()
    received(sandbox, wire, "GET", "/api/projects/1/surveys/activity/", index=0, query={})
    assert len(got) > 1, "the seeded activity spans several pages"
    assert got[1]["query_params"]["page"] == ["2"]
    assert len(entries) == len({e.id for e in entries})
    created = [e.created_at for e in entries if e.created_at]
    assert created == sorted(created, reverse=True)


async def test_summarize_responses(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    survey = await _a_survey(api)
    sandbox.clean()
    summary = await api.surveys.summarize_responses(survey.id, question_index=0)
    received(sandbox, wire, "POST", f"/api/projects/1/surveys/{survey.id}/summarize_responses/", body={},
             query={"question_index": ["0"]})
    assert summary.content


async def test_responses_count(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    counts = await api.surveys.responses_count()
    received(sandbox, wire, "GET", "/api/projects/1/surveys/responses_count/", query={})
    assert counts and all(isinstance(k, str) and isinstance(v, int) and v > 0 for k, v in counts.items())


# --------------------------------------------------------------------------- batch exports


async def test_batch_exports_list(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    page = await api.batch_exports.list()
    received(sandbox, wire, "GET", "/api/environments/1/batch_exports/", query={"limit": ["100"]})
    assert page.results and page.errors == [] and page.count == len(page.results)
    assert {e.model for e in page.results} == {"events", "persons"}
    assert any(e.paused for e in page.results)
    assert all(e.query for e in page.results if e.model == "events")


async def test_batch_export_get(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    listed = await _an_export(api)
    export = await api.batch_exports.get(listed.id)
    received(sandbox, wire, "GET", f"/api/environments/1/batch_exports/{listed.id}/", query={})
    assert export.id == listed.id and export.destination.type
    assert export.interval_seconds is not None
    assert all(isinstance(r, BatchExportRun) for r in export.latest_runs)


async def test_batch_export_update(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    changes = {"name": "Renamed export", "end_at": "2027-01-01T00:00:00+00:00"}
    updated = await api.batch_exports.update(export.id, changes)
    received(fresh, wire, "PATCH", f"/api/environments/1/batch_exports/{export.id}/", body=changes)
    assert updated.name == "Renamed export" and updated.end_at is not None and updated.end_at.year == 2027
    assert updated.destination.type == export.destination.type  # the rest is untouched


async def test_batch_export_update_refused_before_sending(api: ApiClient, sandbox: Sandbox) -> None:
    with pytest.raises(WriteValidationError) as caught:
        await api.batch_exports.update(uid("any"), {"interval": "fortnightly"})
    assert caught.value.first_path == "interval"
    assert sandbox.requests() == []


async def test_batch_export_delete(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    assert await api.batch_exports.delete(export.id) is None
    received(fresh, wire, "DELETE", f"/api/environments/1/batch_exports/{export.id}/")
    with pytest.raises(NotFound):
        await api.batch_exports.get(export.id)


async def test_runs_with_window_and_cursor(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    sandbox.clean()
    after = NOW - timedelta(days=2)
    page = await api.batch_exports.runs(export.id, after=after)
    path = f"/api/environments/1/batch_exports/{export.id}/runs/"
    received(sandbox, wire, "GET", path, query={"after": [after.isoformat()]})
    assert page.results and page.count is None
    assert all(r.batch_export == export.id and r.created_at and r.created_at > after for r in page.results)
    if page.next:
        second = await api.batch_exports.runs(export.id, next_url=page.next)
        got = received(sandbox, wire, "GET", path)
        assert "cursor" in got["query_params"]
        assert not {r.id for r in second.results} & {r.id for r in page.results}


async def test_backfill_spec_path(older: Sandbox, wire: Wire) -> None:
    """An older server still has the spec's ``backfill/``: one request, datetimes, its workflow-id backfill id."""
    async with ApiClient(older.base_url, older.api_key, older.project_id, transport=wire) as api:
        export = await _an_export(api)
        older.clean()
        start, end = NOW - timedelta(hours=3), NOW - timedelta(hours=1)
        result = await api.batch_exports.backfill(export.id, start, end)
    received(older, wire, "POST", f"/api/environments/1/batch_exports/{export.id}/backfill/",
             body={"start_at": start.isoformat(), "end_at": end.isoformat()})
    assert result.backfill_id == f"{export.id}-Backfill-{start.isoformat()}-{end.isoformat()}"
    assert len(older.requests()) == 1


async def _daily_export(api: ApiClient) -> BatchExport:
    page = await api.batch_exports.list()
    return next(e for e in page.results if e.interval == "day" and not e.paused and e.end_at is None)


async def test_backfill_of_a_daily_export_sends_dates_to_the_newest(api: ApiClient, sandbox: Sandbox) -> None:
    """Newest: ``backfill/`` is gone (404) and ``backfills/`` takes a day export's bounds as dates (201)."""
    export = await _daily_export(api)
    sandbox.clean()
    result = await api.batch_exports.backfill(export.id, date(2026, 2, 10), date(2026, 2, 12))
    base = f"/api/environments/1/batch_exports/{export.id}/"
    assert [(r["path"], r["status"]) for r in sandbox.requests()] == [(base + "backfill/", 404),
                                                                     (base + "backfills/", 201)]
    assert sandbox.requests()[-1]["body"] == {"start_at": "2026-02-10", "end_at": "2026-02-12"}
    assert result.backfill_id and len(result.backfill_id) == 36


async def test_backfill_of_a_daily_export_sends_datetimes_to_an_older_server(older: Sandbox) -> None:
    """Older: ``backfill/`` wants datetimes with an offset for every interval; a bare date is "naive"."""
    async with ApiClient(older.base_url, older.api_key, older.project_id) as api:
        export = await _daily_export(api)
        older.clean()
        result = await api.batch_exports.backfill(export.id, date(2026, 2, 10), date(2026, 2, 12))
    sent = older.requests()
    assert [(r["path"].rsplit("/", 2)[-2], r["status"]) for r in sent] == [("backfill", 200)]
    assert sent[0]["body"] == {"start_at": "2026-02-10T00:00:00+00:00", "end_at": "2026-02-12T00:00:00+00:00"}
    assert result.backfill_id == f"{export.id}-Backfill-2026-02-10T00:00:00+00:00-2026-02-12T00:00:00+00:00"


async def test_backfill_dates_fall_back_to_datetimes_where_backfills_calls_them_naive(older: Sandbox) -> None:
    """An older server whose ``backfill/`` is refused: its ``backfills/`` says a date is naive, so datetimes."""
    async with ApiClient(older.base_url, older.api_key, older.project_id) as api:
        export = await _daily_export(api)
        older.clean()
        older.fault(kind="status", status=404, path=r"/backfill/$")
        first = await api.batch_exports.backfill(export.id, date(2026, 2, 10), date(2026, 2, 12))
        second = await api.batch_exports.backfill(export.id, date(2026, 2, 12), date(2026, 2, 14))
    got = [(r["path"].rsplit("/", 2)[-2], r["status"], r["body"]["start_at"]) for r in older.requests()]
    assert got == [("backfill", 404, "2026-02-10T00:00:00+00:00"), ("backfills", 400, "2026-02-10"),
                   ("backfills", 200, "2026-02-10T00:00:00+00:00"), ("backfills", 200, "2026-02-12T00:00:00+00:00")]
    assert first.backfill_id and second.backfill_id


@pytest.mark.parametrize("status", [404, 405])
async def test_backfill_falls_back_to_plural_and_remembers(api: ApiClient, fresh: Sandbox, wire: Wire,
                                                           status: int) -> None:
    """A server without the spec's ``backfill/`` (the newest real one): ``backfills/``, remembered for the server."""
    export = await _an_export(api)
    fresh.clean()
    fresh.fault(kind="status", status=status, path=r"/backfill/$")
    start = NOW - timedelta(hours=2)
    body = {"start_at": start.isoformat(), "end_at": (start + timedelta(hours=1)).isoformat()}
    first = await api.batch_exports.backfill(export.id, start, start + timedelta(hours=1))
    second = await api.batch_exports.backfill(export.id, start, start + timedelta(hours=1))
    base = f"/api/environments/1/batch_exports/{export.id}/"
    assert [(r["method"], r["path"]) for r in fresh.requests()] == [
        ("POST", base + "backfill/"), ("POST", base + "backfills/"), ("POST", base + "backfills/")]
    received(fresh, wire, "POST", base + "backfills/", body=body)
    assert first.backfill_id and second.backfill_id
    # another client of the same server (the dashboard's client of another project) knows it already
    async with ApiClient(fresh.base_url, fresh.api_key, fresh.project_id, routes=api.routes) as other:
        await other.batch_exports.backfill(export.id, start, start + timedelta(hours=1))
    assert [r["path"] for r in fresh.requests()[3:]] == [base + "backfills/"]


async def test_backfill_route_is_learned_once_per_server(fresh: Sandbox, older: Sandbox) -> None:
    """The route a server has is learned by the first backfill to it, whichever client sends it, and only for that
    server: two clients (two projects) of the newest server cost one 404 between them; an older server, whose
    ``backfill/`` answers, is asked there."""
    routes = RouteMemory()
    start = NOW - timedelta(hours=2)
    for project in ("1", "2"):
        async with ApiClient(fresh.base_url, fresh.api_key, project, routes=routes) as client:
            export = await _an_export(client)
            fresh.clean()
            await client.batch_exports.backfill(export.id, start, start + timedelta(hours=1))
            sent = [(r["path"].rsplit("/", 2)[-2], r["status"]) for r in fresh.requests()]
            assert sent == ([("backfill", 404), ("backfills", 201)] if project == "1" else [("backfills", 201)])
    async with ApiClient(older.base_url, older.api_key, older.project_id, routes=routes) as client:
        export = await _an_export(client)
        older.clean()
        for hours in (1, 2):  # other bounds: an older server names a backfill by them
            await client.batch_exports.backfill(export.id, start, start + timedelta(hours=hours))
    assert [(r["path"].rsplit("/", 2)[-2], r["status"]) for r in older.requests()] == [("backfill", 200)] * 2
    assert len(routes) == 2


async def test_backfill_route_is_learned_again_when_the_server_changes_generation(older: Sandbox) -> None:
    """A remembered ``backfill/`` that starts answering 404 (the server was upgraded to the newest generation) is
    replaced by ``backfills/`` at the next backfill, and that is what the one after sends."""
    routes = RouteMemory()
    start = NOW - timedelta(hours=2)
    async with ApiClient(older.base_url, older.api_key, older.project_id, routes=routes) as client:
        export = await _an_export(client)
        older.clean()
        await client.batch_exports.backfill(export.id, start, start + timedelta(hours=1))
        older.fault(kind="status", status=404, path=r"/backfill/$")
        for hours in (2, 3):  # other bounds: an older server names a backfill by them
            await client.batch_exports.backfill(export.id, start - timedelta(hours=hours), start)
    assert [(r["path"].rsplit("/", 2)[-2], r["status"]) for r in older.requests()] == [
        ("backfill", 200), ("backfill", 404), ("backfills", 200), ("backfills", 200)]
    assert routes.backfill(older.base_url).path == "backfills/"


async def test_a_missing_export_reports_the_remembered_routes_404(fresh: Sandbox) -> None:
    """Both forms 404 for an export that does not exist; the error is the one of the form the server has, and the
    memory keeps that form."""
    routes = RouteMemory()
    routes.backfill(fresh.base_url).path = "backfills/"
    start = NOW - timedelta(hours=2)
    async with ApiClient(fresh.base_url, fresh.api_key, fresh.project_id, routes=routes) as client:
        with pytest.raises(NotFound) as raised:
            await client.batch_exports.backfill("01930000-0000-0000-0000-000000000000", start,
                                                start + timedelta(hours=1))
    assert str(raised.value.path).endswith("/backfills/")
    assert [r["path"].rsplit("/", 2)[-2] for r in fresh.requests()] == ["backfills", "backfill"]
    assert routes.backfill(fresh.base_url).path == "backfills/"


async def test_pause_and_unpause(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    fresh.clean()
    paused = await api.batch_exports.pause(export.id)
    received(fresh, wire, "POST", f"/api/environments/1/batch_exports/{export.id}/pause/", body={})
    assert paused.paused is True
    after_pause = await api.batch_exports.get(export.id)
    assert after_pause.paused and after_pause.last_paused_at == NOW
    resumed = await api.batch_exports.unpause(export.id)
    received(fresh, wire, "POST", f"/api/environments/1/batch_exports/{export.id}/unpause/", body={})
    assert resumed.paused is False
    assert (await api.batch_exports.get(export.id)).paused is False


async def test_export_logs_with_filters(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    sandbox.clean()
    entries = await api.batch_exports.logs(export.id, level=["WARN", "ERROR"], search="a",
                                           after=NOW - timedelta(days=3), limit=20)
    got = received(sandbox, wire, "GET", f"/api/environments/1/batch_exports/{export.id}/logs/")
    assert got["query_params"] == {"level": ["WARN", "WARNING", "ERROR"], "search": ["a"],
                                   "after": [(NOW - timedelta(days=3)).isoformat()], "limit": ["20"]}
    assert len(entries) <= 20
    assert all(e.level in ("WARN", "WARNING", "ERROR") and "a" in e.message.lower() for e in entries)
    stamps = [e.timestamp for e in entries if e.timestamp]
    assert stamps == sorted(stamps, reverse=True)


async def test_run_logs(api: ApiClient, sandbox: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    run = export.latest_runs[0]
    sandbox.clean()
    entries = await api.batch_exports.run_logs(export.id, run.id, limit=50)
    received(sandbox, wire, "GET", f"/api/environments/1/batch_exports/{export.id}/runs/{run.id}/logs/",
             query={"limit": ["50"]})
    assert all(e.message for e in entries)


async def test_retry_run(api: ApiClient, fresh: Sandbox, wire: Wire) -> None:
    export = await _an_export(api)
    run = export.latest_runs[-1]
    fresh.clean()
    result = await api.batch_exports.retry_run(export.id, run.id)
    received(fresh, wire, "POST", f"/api/environments/1/batch_exports/{export.id}/runs/{run.id}/retry/", body={})
    assert result.backfill_id
    again = await api.batch_exports.get(export.id)
    old = next((r for r in again.latest_runs if r.id == run.id), None)
    assert old is None or old.status == run.status  # a retry never changes the old run
