"""Cases derived from the real service (PostHog): its published API, its own tests and its source.

Each case names where it comes from: a repository path in PostHog/posthog and, where there is one,
the test of the real service it mirrors. Status, message and fields are asserted as the real
service answers them. The sandbox answers as the newest generation unless a case asks for
``generation="older"``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle

Factory = Callable[..., SandboxHandle]
Clients = Callable[..., httpx.Client]
E = "/api/projects/1/batch_exports/"
S = "/api/projects/1/surveys/"

DAILY = "BigQuery analytics (daily)"  # interval day, offset_hour 0, UTC
WEEKLY = "BigQuery weekly rollup"  # interval week, offset_day 0 (Sunday)
HOURLY = "Events to S3 data lake"


def _export(c: httpx.Client, name: str) -> dict[str, Any]:
    return next(e for e in c.get(E).json()["results"] if e["name"] == name)


def _backfill(c: httpx.Client, export: dict[str, Any], start: Any, end: Any, form: str = "backfills") -> httpx.Response:
    return c.post(f"{E}{export['id']}/{form}/", json={"start_at": start, "end_at": end})


def _error(r: httpx.Response, status: int = 400) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"type", "code", "detail", "attr"}
    return body


def _survey(c: httpx.Client, **fields: Any) -> httpx.Response:
    return c.post(S, json={"name": f"Case {uuid.uuid4().hex[:10]}", "type": "popover", **fields})


# =============================================================================================
# Backfills: newest rules on backfills/, older rules on backfill/
# products/batch_exports/backend/api/batch_export.py validate_date_input / create_backfill
# =============================================================================================
def test_daily_export_backfills_by_dates(client: httpx.Client) -> None:
    """products/batch_exports/backend/tests/api/backfills/test_create.py::test_batch_export_backfill_for_daily_schedule"""
    r = _backfill(client, _export(client, DAILY), "2025-05-01", "2025-05-03")
    assert r.status_code == 201 and set(r.json()) == {"backfill_id"}
    uuid.UUID(r.json()["backfill_id"])  # the newest ids are BatchExportBackfill UUIDs


def test_daily_export_refuses_a_datetime(client: httpx.Client) -> None:
    """test_create.py::test_batch_export_backfill_for_daily_schedule_with_datetime_strings_fails"""
    err = _error(_backfill(client, _export(client, DAILY), "2021-01-01T00:00:00+00:00", "2021-01-01T01:00:00+00:00"))
    assert err["detail"] == (
        "Input '2021-01-01T00:00:00+00:00' is not a valid ISO formatted date. "
        "Daily or weekly batch export backfills expect only the date component, but a time was included.")
    assert err["attr"] is None and err["code"] == "invalid_input"


def test_weekly_export_backfills_by_dates_on_its_weekday(client: httpx.Client) -> None:
    """test_create.py::test_batch_export_backfill_for_weekly_schedule (offset_day 0: Sundays)"""
    r = _backfill(client, _export(client, WEEKLY), "2025-05-04", "2025-05-11")  # both Sundays
    assert r.status_code == 201 and "backfill_id" in r.json()


def test_weekly_export_refuses_another_weekday(client: httpx.Client) -> None:
    """test_create.py::test_batch_export_backfill_for_weekly_schedule_fails_if_day_of_week_is_incorrect"""
    err = _error(_backfill(client, _export(client, WEEKLY), "2025-05-05", "2025-05-12"))  # Mondays
    assert err["detail"] == ("Input 2025-05-05 is not on the correct day of the week for this batch export. "
                             "2025-05-05 is a Monday but this batch export is configured to run weekly on Sunday.")


def test_weekly_export_refuses_a_datetime(client: httpx.Client) -> None:
    """test_create.py::test_batch_export_backfill_for_weekly_schedule_with_datetime_strings_fails"""
    err = _error(_backfill(client, _export(client, WEEKLY), "2025-05-04T00:00:00+00:00", "2025-05-11T00:00:00+00:00"))
    assert "expect only the date component, but a time was included." in err["detail"]


@pytest.mark.parametrize(("start", "end", "detail"), [
    # test_create.py::test_batch_export_backfill_with_non_isoformatted_dates
    ("not a date", "2025-05-01T01:00:00+00:00", "Input not a date is not a valid ISO formatted datetime."),
    # test_create.py::test_batch_export_backfill_with_naive_bounds
    ("2025-05-01T01:00:00", "2025-05-01T02:00:00+00:00", "Input 2025-05-01T01:00:00 is naive."),
    # test_create.py::test_batch_export_backfill_with_start_at_after_end_at
    ("2025-05-01T01:00:00+00:00", "2025-05-01T01:00:00+00:00",
     "The initial backfill datetime 'start_at' must be before 'end_at'"),
    # test_create.py::test_batch_export_backfill_with_end_at_in_the_future
    ("2025-06-01T11:00:00+00:00", "2025-06-01T13:00:00+00:00",
     "The provided 'end_at' (2025-06-01T13:00:00+00:00) is in the future"),
    # test_create.py::test_batch_export_earliest_backfill_rejected_without_feature_flag
    (None, "2025-05-01T01:00:00+00:00", "Backfilling from the beginning of time is not enabled for this team."),
])
def test_backfill_bounds_of_an_hourly_export(client: httpx.Client, start: Any, end: str, detail: str) -> None:
    err = _error(_backfill(client, _export(client, HOURLY), start, end))
    assert err["detail"] == detail and err["attr"] is None


def test_singular_backfill_is_gone_from_the_newest(client: httpx.Client) -> None:
    """products/batch_exports/backend/api/batch_export.py: BatchExportViewSet has no ``backfill`` action any more
    (posthog/batch_exports/http.py had it, "deprecated. Please use POST /batch_exports/<id>/backfills/")."""
    r = _backfill(client, _export(client, HOURLY), "2025-05-01T00:00:00+00:00", "2025-05-01T02:00:00+00:00", "backfill")
    assert _error(r, 404)["code"] == "not_found"


def test_older_generation_keeps_backfill_and_datetime_bounds(fresh: Factory, authed: Clients) -> None:
    """posthog/batch_exports/http.py BatchExportViewSet.backfill and validate_date_input (datetimes for every
    interval, 200); the id is the Temporal workflow id of posthog/batch_exports/models.py
    BatchExportBackfill.workflow_id: ``<export>-Backfill-<start isoformat>-<end isoformat>``."""
    c = authed(fresh(generation="older"))
    daily = _export(c, DAILY)
    r = _backfill(c, daily, "2025-05-01T00:00:00+00:00", "2025-05-03T00:00:00+00:00", "backfill")
    assert r.status_code == 200
    assert r.json() == {"backfill_id": f"{daily['id']}-Backfill-2025-05-01T00:00:00+00:00-2025-05-03T00:00:00+00:00"}
    assert _error(_backfill(c, daily, "2025-05-01", "2025-05-03", "backfill"))["detail"] == "Input 2025-05-01 is naive."
    bad = _backfill(c, daily, "2025-05-03T00:00:00+00:00", "2025-05-01T00:00:00+00:00", "backfills")
    assert _error(bad)["detail"] == "The initial backfill datetime 'start_at' happens after 'end_at'"
    assert _backfill(c, daily, "2025-05-04T00:00:00+00:00", "2025-05-05T00:00:00+00:00", "backfills").status_code == 200


def test_backfills_list_get_progress_and_cancel(fresh: Factory, authed: Clients, now: datetime) -> None:
    """products/batch_exports/backend/tests/api/backfills/test_list.py, test_get.py, test_cancel.py;
    BatchExportBackfillSerializer.get_progress: {total_runs, finished_runs, progress} while Running/Starting
    (rounded to 0.1), 1.0 when Completed, null otherwise; cancel only Running/Starting."""
    clock = FrozenClock(now)
    h = fresh(clock=clock)
    c = authed(h)
    export = _export(c, HOURLY)
    start = (now - timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
    first = _backfill(c, export, start.isoformat(), (start + timedelta(hours=4)).isoformat()).json()["backfill_id"]
    clock.advance(timedelta(seconds=1))  # listed newest first (-created_at)
    second = _backfill(c, export, (start + timedelta(hours=5)).isoformat(),
                       (start + timedelta(hours=6)).isoformat()).json()["backfill_id"]
    base = f"{E}{export['id']}/backfills/"
    listed = c.get(base).json()
    assert set(listed) == {"next", "previous", "results"} and [b["id"] for b in listed["results"][:2]] == [second,
                                                                                                          first]
    got = c.get(f"{base}{first}/").json()
    assert {"id", "batch_export", "team", "start_at", "end_at", "status", "created_at", "finished_at",
            "last_updated_at", "progress", "adjusted_start_at", "total_records_count"} <= set(got)
    assert got["status"] == "Starting" and got["progress"] == {"total_runs": 4, "finished_runs": 0, "progress": 0.0}
    assert c.post(f"{base}{second}/cancel/").json() == {"cancelled": True}
    cancelled = c.get(f"{base}{second}/").json()
    assert cancelled["status"] == "Cancelled" and cancelled["progress"] is None
    again = _error(c.post(f"{base}{second}/cancel/"))
    assert again["detail"] == "Cannot cancel a backfill that is in 'Cancelled' status"
    for _ in range(40):
        clock.advance(timedelta(minutes=15))
        h.state.simulator.tick()
    done = c.get(f"{base}{first}/").json()
    if done["status"] == "Completed":
        assert done["progress"] == {"total_runs": 4, "finished_runs": 4, "progress": 1.0}
        assert done["finished_at"] is not None
    else:
        assert done["status"] == "Failed" and done["progress"] is None
    assert _error(c.post(f"{base}{first}/cancel/"))["detail"].startswith("Cannot cancel a backfill that is in '")
    assert _error(c.get(f"{base}{uuid.uuid4()}/"), 404)["code"] == "not_found"


def test_run_retrieve_and_cancel(fresh: Factory, authed: Clients, now: datetime) -> None:
    """products/batch_exports/backend/api/batch_export.py BatchExportRunViewSet.cancel: only Running or Starting,
    else 400 "Cannot cancel a run that is in '<status>' status"; retry answers 201 with the backfill id."""
    c = authed(fresh(clock=FrozenClock(now)))
    in_flight = completed = None
    for export in c.get(E).json()["results"]:
        for run in c.get(f"{E}{export['id']}/runs/").json()["results"]:
            if run["status"] in ("Running", "Starting") and in_flight is None:
                in_flight = (export, run)
            if run["status"] == "Completed" and completed is None:
                completed = (export, run)
    assert in_flight and completed
    export, run = in_flight
    got = c.get(f"{E}{export['id']}/runs/{run['id']}/").json()
    assert got["id"] == run["id"] and got["batch_export"] == export["id"]
    assert c.post(f"{E}{export['id']}/runs/{run['id']}/cancel/").json() == {"cancelled": True}
    assert c.get(f"{E}{export['id']}/runs/{run['id']}/").json()["status"] == "Cancelled"
    export, run = completed
    err = _error(c.post(f"{E}{export['id']}/runs/{run['id']}/cancel/"))
    assert err["detail"] == "Cannot cancel a run that is in 'Completed' status" and err["attr"] is None
    retried = c.post(f"{E}{export['id']}/runs/{run['id']}/retry/")
    assert retried.status_code == 201 and set(retried.json()) == {"backfill_id"}


def test_logs_in_both_shapes(fresh: Factory, authed: Clients) -> None:
    """posthog/api/log_entries.py LogEntryMixin: newest answers {"results": [...]}; older went through the default
    limit/offset paginator ({"count", "next", "previous", "results"})."""
    newest = authed(fresh())
    export = _export(newest, HOURLY)
    body = newest.get(f"{E}{export['id']}/logs/", params={"limit": 5}).json()
    assert set(body) == {"results"} and len(body["results"]) == 5
    assert set(body["results"][0]) == {"timestamp", "level", "message", "log_source_id", "instance_id"}
    older = authed(fresh(generation="older"))
    body = older.get(f"{E}{_export(older, HOURLY)['id']}/logs/", params={"limit": 5}).json()
    assert set(body) == {"count", "next", "previous", "results"} and body["count"] == 5 and body["next"] is None


# =============================================================================================
# Batch exports
# =============================================================================================
def test_pausing_a_paused_export_changes_nothing(fresh: Factory, authed: Clients, now: datetime) -> None:
    """products/batch_exports/backend/service.py pause_batch_export: ``if batch_export.paused is True: return False``
    (nothing saved, so last_updated_at stays); test_pause.py for the answers."""
    clock = FrozenClock(now)
    c = authed(fresh(clock=clock))
    export = _export(c, HOURLY)
    assert c.post(f"{E}{export['id']}/pause/").json() == {"paused": True}
    paused = c.get(f"{E}{export['id']}/").json()
    clock.advance(timedelta(minutes=5))
    assert c.post(f"{E}{export['id']}/pause/").json() == {"paused": True}
    again = c.get(f"{E}{export['id']}/").json()
    assert again["last_updated_at"] == paused["last_updated_at"] and again["last_paused_at"] == paused["last_paused_at"]
    assert c.post(f"{E}{export['id']}/unpause/").json() == {"paused": False}
    unpaused = c.get(f"{E}{export['id']}/").json()
    clock.advance(timedelta(minutes=5))
    c.post(f"{E}{export['id']}/unpause/")
    assert c.get(f"{E}{export['id']}/").json()["last_updated_at"] == unpaused["last_updated_at"]


def test_interval_may_not_be_null(client: httpx.Client) -> None:
    """BatchExportSerializer.interval is a ChoiceField without allow_null: DRF's "This field may not be null."."""
    err = _error(client.patch(f"{E}{_export(client, HOURLY)['id']}/", json={"interval": None}))
    assert (err["detail"], err["attr"], err["code"]) == ("This field may not be null.", "interval", "null")


def test_destination_type_cannot_change(client: httpx.Client) -> None:
    """BatchExportSerializer.validate_destination; products/batch_exports/backend/tests/api/test_update.py"""
    err = _error(client.patch(f"{E}{_export(client, HOURLY)['id']}/",
                              json={"destination": {"type": "Snowflake", "config": {}}}))
    assert err["detail"] == ("Cannot change destination type from 'S3' to 'Snowflake'. Delete this batch export and "
                             "create a new one with the new destination type.")
    assert err["attr"] == "destination"


@pytest.mark.parametrize(("query", "detail"), [
    ("SELECT nosuchfunction(event) FROM events",
     "Invalid HogQL query: Unsupported function call 'nosuchfunction(...)'"),
    ("SELECT event FROM events UNION ALL SELECT event FROM events", "UNIONs are not supported"),
    ("SELECT e.event FROM events e JOIN persons p ON p.id = e.person_id", "JOINs are not supported"),
    ("SELECT event FROM sessions", "Query must only SELECT FROM events"),
])
def test_unsupported_queries_are_refused(client: httpx.Client, query: str, detail: str) -> None:
    """BatchExportSerializer.validate_hogql_query and HogQLSelectQueryField (the HogQL printer's message)."""
    err = _error(client.patch(f"{E}{_export(client, HOURLY)['id']}/", json={"hogql_query": query}))
    assert err["detail"] == detail and err["attr"] == "hogql_query"


def test_timezone_and_offsets_stored_validated_and_reset(fresh: Factory, authed: Clients) -> None:
    """BatchExportSerializer: timezone (IANA choice, null means UTC), offset_day 0-6 (weekly only), offset_hour 0-23
    (daily and weekly), kept as interval_offset and reset when the interval changes to one without offsets."""
    c = authed(fresh())
    daily = _export(c, DAILY)
    path = f"{E}{daily['id']}/"
    got = c.patch(path, json={"timezone": "Europe/Berlin", "offset_hour": 5}).json()
    assert (got["timezone"], got["offset_day"], got["offset_hour"]) == ("Europe/Berlin", None, 5)
    assert _error(c.patch(path, json={"offset_hour": 24}))["detail"] == "Ensure this value is less than or equal to 23."
    err = _error(c.patch(path, json={"offset_day": 3}))
    assert (err["detail"], err["attr"]) == ("offset_day is not applicable for non-weekly intervals", "offset_day")
    assert _error(c.patch(path, json={"timezone": "Mars/Olympus"}))["detail"] == '"Mars/Olympus" is not a valid choice.'
    weekly = c.patch(path, json={"interval": "week", "offset_day": 3, "offset_hour": 6}).json()
    assert (weekly["offset_day"], weekly["offset_hour"]) == (3, 6)
    assert _error(c.patch(path, json={"offset_day": 7}))["detail"] == "Ensure this value is less than or equal to 6."
    hourly = c.patch(path, json={"interval": "hour"}).json()
    assert (hourly["offset_day"], hourly["offset_hour"], hourly["timezone"]) == (None, None, "Europe/Berlin")
    assert c.patch(path, json={"timezone": None}).json()["timezone"] == "UTC"


# =============================================================================================
# Surveys: products/surveys/backend/api/survey.py SurveySerializerCreateUpdateOnly
# =============================================================================================
@pytest.mark.parametrize("questions", [
    # validate_questions does not check branching: response_based on an open question is stored
    [{"type": "open", "question": "Why?", "branching": {"type": "response_based", "responseValues": {"0": 1}}},
     {"type": "open", "question": "Anything else?"}],
    # ... nor a specific_question index past the end
    [{"type": "open", "question": "Q", "branching": {"type": "specific_question", "index": 9}}],
    # "if choices:" - a single choice question without choices is accepted
    [{"type": "single_choice", "question": "Pick one"}],
    [{"type": "single_choice", "question": "Pick one", "choices": []}],
])
def test_structures_the_real_service_accepts(client: httpx.Client, questions: list[dict[str, Any]]) -> None:
    r = _survey(client, questions=questions)
    assert r.status_code == 201, r.text
    assert [q["question"] for q in r.json()["questions"]] == [q["question"] for q in questions]


@pytest.mark.parametrize(("link", "detail"), [
    ("https://#.com", "Invalid HTTPS URL. Please enter a valid HTTPS link."),
    ("mailto:not-an-address",
     "Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com)."),
    ("http://example.com", "Link must be a URL with one of these schemes: [https, mailto]"),
])
def test_link_messages(client: httpx.Client, link: str, detail: str) -> None:
    """_validate_and_sanitize_link; products/surveys/backend/api/test/test_survey.py link validation cases"""
    err = _error(_survey(client, questions=[{"type": "link", "question": "Read", "link": link}]))
    assert (err["detail"], err["attr"]) == (detail, "questions")


SHUFFLE_MESSAGE = ("Question shuffling and question branching cannot be used together. "
                   "Please disable one of these features.")
BRANCHED = [{"type": "single_choice", "question": "Pick", "choices": ["a", "b"],
             "branching": {"type": "end"}}, {"type": "open", "question": "Why?"}]


def test_shuffle_with_branching_is_refused_in_either_order(client: httpx.Client) -> None:
    """SurveySerializerCreateUpdateOnly.validate: the effective appearance and questions are checked together."""
    err = _error(_survey(client, questions=BRANCHED, appearance={"shuffleQuestions": True}))
    assert (err["detail"], err["attr"]) == (SHUFFLE_MESSAGE, None)
    branched = _survey(client, questions=BRANCHED).json()
    err = _error(client.patch(f"{S}{branched['id']}/", json={"appearance": {"shuffleQuestions": True}}))
    assert err["detail"] == SHUFFLE_MESSAGE
    shuffled = _survey(client, questions=BRANCHED[1:], appearance={"shuffleQuestions": True}).json()
    assert _error(client.patch(f"{S}{shuffled['id']}/", json={"questions": BRANCHED}))["detail"] == SHUFFLE_MESSAGE


def test_targeting_that_reaches_everyone_in_any_group_is_refused(client: httpx.Client) -> None:
    """validate(): ``full_rollout = any(...)`` over the groups; products/surveys/backend/api/test/test_survey.py"""
    filters = {"groups": [{"properties": [{"key": "email", "value": "@acme.io", "operator": "icontains",
                                           "type": "person"}], "rollout_percentage": 50},
                          {"properties": [], "rollout_percentage": 100}]}
    err = _error(_survey(client, targeting_flag_filters=filters))
    assert err["detail"] == ("Invalid operation: User targeting rolls out to everyone. If you want to roll out to "
                             "everyone, delete this targeting")
    assert err["attr"] is None


def test_foreign_flags_and_duplicate_names_carry_no_attr(client: httpx.Client) -> None:
    """validate(): flag ids are looked up within the team; the name is checked there too (code "unique")."""
    err = _error(_survey(client, targeting_flag_id=987654))
    assert (err["detail"], err["attr"]) == ("Targeting Feature Flag with this ID does not exist", None)
    err = _error(_survey(client, linked_flag_id=987654))
    assert (err["detail"], err["attr"]) == ("Feature Flag with this ID does not exist", None)
    first = _survey(client).json()
    err = _error(client.post(S, json={"name": first["name"], "type": "popover"}))
    assert (err["detail"], err["attr"], err["code"]) == ("There is already a survey with this name.", None, "unique")


def test_recurrence_cannot_drop_below_the_current_iteration(client: httpx.Client, now: datetime) -> None:
    """SurveySerializerCreateUpdateOnly.update: "Cannot change survey recurrence to 1, should be at least 2"."""
    s = _survey(client, schedule="recurring", iteration_count=4, iteration_frequency_days=7,
                start_date=(now - timedelta(days=10)).isoformat()).json()
    client.patch(f"{S}{s['id']}/", json={"current_iteration": 2})
    err = _error(client.patch(f"{S}{s['id']}/", json={"iteration_count": 1, "iteration_frequency_days": 7}))
    assert (err["detail"], err["attr"]) == ("Cannot change survey recurrence to 1, should be at least 2", None)


def test_html_is_cleaned(client: httpx.Client) -> None:
    """validate_questions / validate_appearance: nh3_clean_with_allow_list where nh3.is_html."""
    s = _survey(client, questions=[{"type": "open", "question": "Q", "description": "<script>alert(1)</script>check?",
                                    "descriptionContentType": "html"}],
                appearance={"thankYouMessageHeader": "<b>Thanks</b><script>x()</script>"}).json()
    assert s["questions"][0]["description"] == "check?"
    assert s["appearance"]["thankYouMessageHeader"] == "<b>Thanks</b>"


def test_internal_targeting_flag_exists_from_create(client: httpx.Client) -> None:
    """create() -> _add_user_survey_interacted_filters: the internal flag is made at once, active only when
    launched (_should_survey_flags_be_active: start_date and no end_date and not archived)."""
    s = _survey(client).json()
    flag = s["internal_targeting_flag"]
    assert flag is not None and flag["active"] is False and flag["key"].endswith("-custom")
    launched = client.patch(f"{S}{s['id']}/", json={"start_date": "2025-06-01T10:00:00Z"}).json()
    assert launched["internal_targeting_flag"]["id"] == flag["id"] and launched["internal_targeting_flag"]["active"]


def test_launching_a_recurring_survey_fills_its_iterations(client: httpx.Client) -> None:
    """posthog/models/surveys/survey.py update_survey_iterations (pre_save): null dates before launch, then one
    start per iteration and current_iteration 1; DRF datetimes leave out zero microseconds."""
    s = _survey(client, schedule="recurring", iteration_count=3, iteration_frequency_days=14).json()
    assert s["iteration_start_dates"] is None and s["current_iteration"] is None
    launched = client.patch(f"{S}{s['id']}/", json={"start_date": "2025-06-01T10:00:00Z"}).json()
    assert launched["iteration_start_dates"] == ["2025-06-01T10:00:00Z", "2025-06-15T10:00:00Z",
                                                 "2025-06-29T10:00:00Z"]
    assert launched["current_iteration"] == 1 and launched["current_iteration_start_date"] == "2025-06-01T10:00:00Z"
    assert launched["start_date"] == "2025-06-01T10:00:00Z"


def test_a_one_time_survey_has_no_iterations(client: httpx.Client) -> None:
    """posthog/models/surveys/survey.py update_survey_iterations (pre_save): without iteration_count and
    iteration_frequency_days the dates are an empty list (not null) and current_iteration null, launched or not."""
    s = _survey(client).json()
    assert (s["iteration_start_dates"], s["current_iteration"], s["current_iteration_start_date"]) == ([], None, None)
    launched = client.patch(f"{S}{s['id']}/", json={"start_date": "2025-06-01T10:00:00Z"}).json()
    assert (launched["iteration_start_dates"], launched["current_iteration"]) == ([], None)
    read = client.get(f"{S}{s['id']}/").json()
    assert read["iteration_start_dates"] == []


def test_surveys_carry_their_base_language(client: httpx.Client) -> None:
    """The newest service's Survey model has base_language (default "en"), and its SurveySerializer returns it:
    on create, on retrieve and in the list. The published OpenAPI predates it; older servers leave it out."""
    s = _survey(client).json()
    assert s["base_language"] == "en"
    assert client.get(f"{S}{s['id']}/").json()["base_language"] == "en"
    listed = client.get(S, params={"ids": s["id"]}).json()["results"]
    assert [row["base_language"] for row in listed] == ["en"]


def test_list_search_covers_descriptions_and_filters(client: httpx.Client) -> None:
    """SurveyViewSet: SearchFilter over ["name", "description"]; ``ids`` and ``type`` filters; the model's
    response_sampling_interval_type defaults to "week" (posthog/models/surveys/survey.py)."""
    marker = uuid.uuid4().hex[:12]
    api_survey = _survey(client, type="api", description=f"described {marker}").json()
    widget = _survey(client, type="widget").json()
    found = client.get(S, params={"search": marker}).json()["results"]
    assert [s["id"] for s in found] == [api_survey["id"]]
    by_ids = client.get(S, params={"ids": f"{api_survey['id']},{widget['id']}"}).json()["results"]
    assert {s["id"] for s in by_ids} == {api_survey["id"], widget["id"]}
    assert {s["type"] for s in client.get(S, params={"type": "api", "limit": 500}).json()["results"]} == {"api"}
    assert api_survey["response_sampling_interval_type"] == "week"


def test_survey_stats_shapes(client: httpx.Client) -> None:
    """SurveyViewSet.stats / _get_survey_stats: {"stats": {"survey shown"|"survey dismissed"|"survey sent": {...}},
    "rates": {...}}; a bad date is 400 with the real message."""
    body = client.get(f"{S}stats/").json()
    assert set(body["stats"]) == {"survey shown", "survey dismissed", "survey sent"}
    assert set(body["stats"]["survey sent"]) == {"total_count", "unique_persons", "first_seen", "last_seen",
                                                 "unique_persons_only_seen", "total_count_only_seen"}
    assert set(body["rates"]) == {"response_rate", "dismissal_rate", "unique_users_response_rate",
                                  "unique_users_dismissal_rate"}
    counts = client.get(f"{S}responses_count/").json()
    sid = max(counts, key=lambda k: counts[k])
    one = client.get(f"{S}{sid}/stats/").json()
    assert one["stats"]["survey sent"]["total_count"] == counts[sid] and one["rates"]["response_rate"] > 0
    err = _error(client.get(f"{S}stats/", params={"date_from": "yesterday"}))
    assert err["detail"].startswith("Invalid date format. Please use ISO 8601 format with timezone info")


# =============================================================================================
# Endpoints real clients call first
# =============================================================================================
def test_current_key_and_user(sandbox: SandboxHandle, authed: Clients) -> None:
    """posthog/api/personal_api_key.py PersonalAPIKeyViewSet.get_object ("@current" is the key in use; scopes
    ["*"] when unscoped; value never returned) and posthog/api/user.py ("@me", scope user:read)."""
    full = authed(sandbox)
    key = full.get("/api/personal_api_keys/@current/").json()
    assert key["scopes"] == ["*"] and key["value"] is None and sandbox.api_key not in str(key)
    assert {"id", "label", "mask_value", "created_at", "last_used_at", "user_id", "scoped_teams",
            "scoped_organizations"} <= set(key)
    me = full.get("/api/users/@me/").json()
    assert me["email"] == "ada.okafor@acme.io" and me["team"]["id"] == 1 and me["organization"]["name"]
    limited = authed(sandbox, "ro-key")
    assert limited.get("/api/personal_api_keys/@current/").json()["scopes"] == [
        "activity_log:read", "batch_export:read", "survey:read"]
    err = _error(limited.get("/api/users/@me/"), 403)
    assert err["detail"] == "API key missing required scope 'user:read'"
