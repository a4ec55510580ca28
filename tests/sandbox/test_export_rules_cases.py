"""Batch-export rules of the real service (PostHog), on both generations the sandbox answers as.

Cases come from products/batch_exports/backend/api/batch_export.py (BatchExportSerializer, the newest), its
tests in products/batch_exports/backend/tests/api/ (test_update.py, test_create.py), the model's offset
properties (products/batch_exports/backend/models/batch_export.py) and, for the older generation,
posthog/batch_exports/http.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sandbox.conftest import make_options
from tui.sandbox.runner import start_sandbox

E = "/api/projects/1/batch_exports/"
E2 = "/api/projects/2/batch_exports/"  # a project without sub-hour intervals (the demo project has them)
POSTGRES = {"type": "Postgres", "integration_id": 3, "config": {"database": "analytics", "host": "db.internal"}}


@pytest.fixture(scope="module", params=["newest", "older"])
def gen(request: pytest.FixtureRequest) -> Iterator[tuple[str, httpx.Client]]:
    """(generation, a client of a sandbox answering as it); one sandbox per generation for the module."""
    with start_sandbox(make_options(generation=request.param)) as handle, httpx.Client(
            base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.api_key}"}, timeout=10,
            verify=False) as c:
        yield request.param, c


def _create(c: httpx.Client, path: str = E, **fields: Any) -> httpx.Response:
    body = {"name": f"Export {uuid.uuid4().hex[:8]}", "destination": POSTGRES, "interval": "hour", **fields}
    return c.post(path, json=body)


def _error(r: httpx.Response, status: int = 400) -> tuple[str, str | None, str]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert set(body) == {"type", "code", "detail", "attr"}
    return body["detail"], body["attr"], body["code"]


def test_create_answers_201_with_the_export(gen: tuple[str, httpx.Client]) -> None:
    """BatchExportViewSet.create: 201 and the export; name, destination and interval are required (DRF's
    "This field is required.", code "required"); test_create.py."""
    _, c = gen
    r = _create(c, interval="day", timezone="Europe/Berlin", offset_hour=3)
    assert r.status_code == 201, r.text
    made = r.json()
    assert (made["interval"], made["timezone"], made["offset_day"], made["offset_hour"]) == (
        "day", "Europe/Berlin", None, 3)
    assert made["destination"]["type"] == "Postgres" and made["paused"] is False
    assert c.get(f"{E}{made['id']}/").json()["name"] == made["name"]
    assert made["id"] in {e["id"] for e in c.get(E, params={"limit": 500}).json()["results"]}
    assert _error(c.post(E, json={"destination": POSTGRES, "interval": "hour"})) == (
        "This field is required.", "name", "required")
    assert _error(c.post(E, json={"name": "No interval", "destination": POSTGRES}))[:2] == (
        "This field is required.", "interval")


def test_create_checks_the_destination_as_the_newest_does(gen: tuple[str, httpx.Client]) -> None:
    """validate_destination (newest): the legacy S3 type accepts no writes, S3-family types need an integration,
    a config misses no required field (BatchExportDestinationSerializer.validate). Older servers stored any of
    these."""
    generation, c = gen
    s3 = {"type": "S3", "config": {"bucket_name": "b", "region": "eu-west-1", "prefix": "p/"}}
    aws = {"type": "AwsS3", "config": {"bucket_name": "b", "region": "eu-west-1", "prefix": "p/"}}
    short = {"type": "AwsS3", "integration_id": 4, "config": {"region": "eu-west-1", "prefix": "p/"}}
    if generation == "older":
        assert [_create(c, destination=d).status_code for d in (s3, aws, short)] == [201, 201, 201]
        return
    assert _error(_create(c, destination=s3))[:2] == (
        "The 'S3' destination type is deprecated and can no longer be used. Use 'AwsS3' for AWS S3, or "
        "'S3Compatible' for S3-compatible storage.", "destination")
    assert _error(_create(c, destination=aws))[:2] == ("Integration is required for AwsS3 batch exports",
                                                       "destination")
    assert _error(_create(c, destination=short))[:2] == ("Configuration missing required field: 'bucket_name'",
                                                         "destination")


def test_put_needs_every_required_field(gen: tuple[str, httpx.Client]) -> None:
    """test_update.py::test_can_put_config: a PUT without the destination is 400; with every field it updates,
    and a daily export without offsets reads back offset_hour 0, offset_day null, timezone UTC."""
    _, c = gen
    made = _create(c).json()
    path = f"{E}{made['id']}/"
    assert _error(c.put(path, json={"name": made["name"], "interval": "hour"})) == (
        "This field is required.", "destination", "required")
    config = {"database": "warehouse", "host": "db2.internal"}
    r = c.put(path, json={"name": made["name"], "interval": "day", "start_at": "2022-07-19 00:00:00",
                          "destination": {**POSTGRES, "config": config}})
    assert r.status_code == 200, r.text
    got = c.get(path).json()
    assert (got["interval"], got["timezone"], got["offset_day"], got["offset_hour"]) == ("day", "UTC", None, 0)
    assert got["destination"]["config"]["database"] == "warehouse"
    assert got["start_at"] == "2022-07-19T00:00:00Z"


@pytest.mark.parametrize(("interval", "offsets"), [("week", (0, 0)), ("day", (None, 0))])
def test_patched_interval_without_offsets_reads_utc_midnight(gen: tuple[str, httpx.Client], interval: str,
                                                             offsets: tuple[int | None, int]) -> None:
    """test_update.py::test_can_patch_schedule_configuration "Changing from hourly to weekly (timezone and offset
    are not provided in update)": timezone "UTC", offset_day 0, offset_hour 0 (the model's properties read no
    offset as Sunday at midnight)."""
    _, c = gen
    made = _create(c).json()
    assert (made["offset_day"], made["offset_hour"]) == (None, None)
    got = c.patch(f"{E}{made['id']}/", json={"interval": interval}).json()
    assert (got["interval"], got["timezone"], got["offset_day"], got["offset_hour"]) == (interval, "UTC", *offsets)
    back = c.patch(f"{E}{made['id']}/", json={"interval": "hour"}).json()
    assert (back["offset_day"], back["offset_hour"]) == (None, None)


def test_patched_query_is_stored_normalised_with_its_fields(gen: tuple[str, httpx.Client]) -> None:
    """test_update.py::test_can_patch_hogql_query (PostHog/posthog
    ``products/batch_exports/backend/api/test/test_update.py``): the query is printed back into schema.hogql_query
    (keywords upper case, arithmetic as calls: ``toInt(1 + 1)`` as ``toInt(plus(1, 1))``), and schema.fields names
    each selected item by its alias, string constants as placeholders with their values (``toInt`` runs as
    ``accurateCastOrNull`` with its type as one)."""
    _, c = gen
    made = _create(c).json()
    r = c.patch(f"{E}{made['id']}/", json={"hogql_query": "select toString(uuid) as uuid, 'test' as test, "
                                                          "toInt(1 + 1) as n from events"})
    assert r.status_code == 200, r.text
    schema = c.get(f"{E}{made['id']}/").json()["schema"]
    assert schema == {
        "fields": [{"alias": "uuid", "expression": "toString(events.uuid)"},
                   {"alias": "test", "expression": "%(hogql_val_0)s"},
                   {"alias": "n", "expression": "accurateCastOrNull(plus(1, 1), %(hogql_val_1)s)"}],
        "values": {"hogql_val_0": "test", "hogql_val_1": "Int64"},
        "hogql_query": "SELECT toString(uuid) AS uuid, 'test' AS test, toInt(plus(1, 1)) AS n FROM events",
    }


@pytest.mark.parametrize(("typed", "printed"), [
    ("select 1 + 2 * 3 from events", "SELECT plus(1, multiply(2, 3)) FROM events"),
    ("select (1 + 2) * 3, 1 - 2 - 3 from events", "SELECT multiply(plus(1, 2), 3), minus(minus(1, 2), 3) FROM events"),
    ("select event from events where toInt(properties.n) / 2 > -1 + 1",
     "SELECT event FROM events WHERE divide(toInt(properties.n), 2) > plus(-1, 1)"),
    ("select * from events", "SELECT * FROM events"),
])
def test_arithmetic_is_stored_as_calls(gen: tuple[str, httpx.Client], typed: str, printed: str) -> None:
    """The real printer writes each arithmetic operator as its function, by precedence, left to right."""
    _, c = gen
    made = _create(c).json()
    r = c.patch(f"{E}{made['id']}/", json={"hogql_query": typed})
    assert r.status_code == 200, r.text
    assert c.get(f"{E}{made['id']}/").json()["schema"]["hogql_query"] == printed


def test_sub_hour_intervals_need_the_feature(gen: tuple[str, httpx.Client]) -> None:
    """validate_interval (newest, create and update): 403 "Higher frequency batch exports are not enabled for this
    team." without the high-frequency-batch-exports flag; test_update.py "Cannot update to high frequency batch
    exports without feature flag". Older servers checked on create only, in other words. The sandbox's demo
    project has the feature."""
    generation, c = gen
    detail, attr, code = _error(_create(c, E2, interval="every 5 minutes"), 403)
    assert (attr, code) == (None, "permission_denied")
    assert detail == ("Higher frequency batch exports are not enabled for this team." if generation == "newest"
                      else "Higher frequency exports are not enabled for this team.")
    hourly = _create(c, E2).json()
    r = c.patch(f"{E2}{hourly['id']}/", json={"interval": "every 5 minutes"})
    if generation == "newest":
        assert _error(r, 403)[0] == "Higher frequency batch exports are not enabled for this team."
        assert c.get(f"{E2}{hourly['id']}/").json()["interval"] == "hour"
    else:
        assert r.status_code == 200 and r.json()["interval"] == "every 5 minutes"
    assert _create(c, E, interval="every 5 minutes").status_code == 201


def test_export_logs_in_each_generations_shape(gen: tuple[str, httpx.Client]) -> None:
    """posthog/batch_exports/http.py (older): BatchExportLogViewSet lists BatchExportLogEntry dataclasses (team,
    batch_export_id, run_id) through the limit/offset paginator; the newest LogEntryMixin answers {"results"}
    with log_source_id/instance_id."""
    generation, c = gen
    export = next(e for e in c.get(E).json()["results"] if e["name"] == "Events to S3 data lake")
    body = c.get(f"{E}{export['id']}/logs/", params={"limit": 3}).json()
    entry = body["results"][0]
    if generation == "older":
        assert set(body) == {"count", "next", "previous", "results"} and body["count"] == 3
        assert set(entry) == {"team_id", "batch_export_id", "run_id", "timestamp", "level", "message"}
        assert (entry["batch_export_id"], entry["team_id"]) == (export["id"], 1)
    else:
        assert set(body) == {"results"} and entry["log_source_id"] == export["id"]


def test_the_arithmetic_printer_is_bounded() -> None:
    """Nesting past the printer's bound is kept as typed, and unbalanced brackets never raise."""
    from tui.sandbox.hogql import MAX_ARITHMETIC_DEPTH, normalise

    deep = "(" * 3000 + "1+1" + ")" * 3000
    assert normalise(f"select {deep} from events") == f"SELECT {deep.replace('+', ' + ')} FROM events"
    within = "(" * MAX_ARITHMETIC_DEPTH + "1+1" + ")" * MAX_ARITHMETIC_DEPTH
    printed = "(" * MAX_ARITHMETIC_DEPTH + "plus(1, 1)" + ")" * MAX_ARITHMETIC_DEPTH
    assert normalise(f"select {within} from events") == f"SELECT {printed} FROM events"
    assert normalise("select ((1+2 from events") == "SELECT ((1 + 2 FROM events"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["select", "from", "events", "(", ")", "+", "-", "*", "/", "%", ",", "1", "x",
                                 "toInt", "toFloat", "'s'", ".", "where", ">", "as", "n"]), max_size=40))
def test_the_arithmetic_printer_never_fails_and_keeps_the_words(tokens: list[str]) -> None:
    """Whatever the tokens, the printer answers, and every name and constant typed is still in what it prints."""
    from tui.sandbox.hogql import normalise

    printed = normalise(" ".join(tokens))
    for word in ("events", "x", "'s'", "toInt"):
        assert printed.count(word) >= " ".join(tokens).count(word)
