"""Batch-export endpoints over HTTP: list, retrieve, PATCH, pause, backfill, retry, runs, logs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle

Factory = Callable[..., SandboxHandle]
Clients = Callable[..., httpx.Client]

E = "/api/environments/1/batch_exports/"


def _exports(client: httpx.Client) -> list[dict[str, Any]]:
    return list(client.get(E).json()["results"])


def _by_name(client: httpx.Client, fragment: str) -> dict[str, Any]:
    return next(e for e in _exports(client) if fragment in e["name"])


def test_list_and_retrieve(client: httpx.Client) -> None:
    body = client.get(E, params={"limit": 5}).json()
    assert body["count"] >= 12 and len(body["results"]) == 5 and "offset=5" in body["next"]
    exports = _exports(client)
    assert {e["model"] for e in exports} == {"events", "persons"}
    assert {e["destination"]["type"] for e in exports} >= {"S3", "Snowflake", "Postgres", "BigQuery", "Redshift",
                                                           "HTTP", "Databricks"}
    assert {e["interval"] for e in exports} >= {"hour", "day", "every 5 minutes", "every 15 minutes"}
    assert sum(e["paused"] for e in exports) == 1
    one = client.get(f"{E}{exports[0]['id']}/").json()
    assert one["native_query"] == one["hogql_query"]
    runs = one["latest_runs"]
    assert 0 < len(runs) <= 10 and [r["created_at"] for r in runs] == sorted((r["created_at"] for r in runs),
                                                                              reverse=True)
    same = client.get(f"/api/projects/1/batch_exports/{one['id']}/").json()
    assert same["id"] == one["id"]


def test_secrets_removed(client: httpx.Client) -> None:
    secret = {"aws_access_key_id", "aws_secret_access_key", "password", "user", "private_key", "token",
              "private_key_id", "client_email"}
    for e in _exports(client):
        assert not secret & set(e["destination"]["config"]), e["destination"]


def test_every_status_in_history(client: httpx.Client) -> None:
    seen: set[str] = set()
    for e in _exports(client):
        url: str | None = f"{E}{e['id']}/runs/"
        while url:
            page = client.get(url).json()
            seen |= {r["status"] for r in page["results"]}
            url = page["next"]
    assert seen >= {"Cancelled", "Completed", "ContinuedAsNew", "Failed", "FailedRetryable", "Terminated",
                    "TimedOut", "Running", "Starting"}


def test_patch_deep_merges_config_and_keeps_secrets(fresh: Factory, authed: Clients) -> None:
    h: SandboxHandle = fresh()
    c = authed(h)
    s3 = _by_name(c, "S3 data lake")
    r = c.patch(f"{E}{s3['id']}/", json={"name": "Renamed", "destination": {"config": {"prefix": "new/"}},
                                          "native_query": "SELECT event FROM events"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["name"] == "Renamed" and body["destination"]["config"]["prefix"] == "new/"
    assert body["destination"]["config"]["bucket_name"] == s3["destination"]["config"]["bucket_name"]
    assert body["hogql_query"] == body["native_query"] == "SELECT event FROM events"
    with h.state.db.read() as conn:
        row = conn.execute("SELECT data FROM exports WHERE id = ?", (s3["id"],)).fetchone()
    assert "aws_secret_access_key" in row["data"]
    bad = [({"model": "sessions"}, "model"), ({"interval": "minute"}, "interval"),
           ({"start_at": "not a date"}, "start_at"),
           ({"start_at": "2025-06-02T00:00:00Z", "end_at": "2025-06-01T00:00:00Z"}, "end_at"),
           ({"destination": {"type": "Snowflake"}}, "destination")]
    for fields, attr in bad:
        r = c.patch(f"{E}{s3['id']}/", json=fields)
        assert r.status_code == 400 and r.json()["attr"] == attr, (fields, r.text)


def test_pause_unpause(fresh: Factory, authed: Clients) -> None:
    h: SandboxHandle = fresh()
    c = authed(h)
    e = _by_name(c, "S3 data lake")
    assert c.post(f"{E}{e['id']}/pause/").json() == {"paused": True}
    got = c.get(f"{E}{e['id']}/").json()
    assert got["paused"] is True and got["last_paused_at"]
    assert c.post(f"{E}{e['id']}/pause/", json={}).json() == {"paused": True}
    assert c.post(f"{E}{e['id']}/unpause/").json() == {"paused": False}
    assert c.get(f"{E}{e['id']}/").json()["paused"] is False


def test_backfill_creates_runs_later(fresh: Factory, authed: Clients, now: datetime) -> None:
    clock = FrozenClock(now)
    h: SandboxHandle = fresh(clock=clock)
    c = authed(h)
    e = _by_name(c, "S3 data lake")
    start = (now - timedelta(days=20)).replace(minute=0, second=0, microsecond=0)
    body = {"start_at": start.isoformat(), "end_at": (start + timedelta(hours=3)).isoformat()}
    r = c.post(f"{E}{e['id']}/backfills/", json=body)
    assert r.status_code == 201 and set(r.json()) == {"backfill_id"}
    assert c.post(f"{E}{e['id']}/backfill/", json=body).status_code == 404  # gone from the newest service
    window = {"after": (start - timedelta(days=1)).isoformat(), "before": (now + timedelta(days=1)).isoformat(),
              "ordering": "data_interval_start", "start": (start - timedelta(hours=1)).isoformat(),
              "end": (start + timedelta(hours=4)).isoformat()}

    def backfilled() -> list[dict[str, Any]]:
        runs = c.get(f"{E}{e['id']}/runs/", params=window).json()["results"]
        return [r for r in runs if r["backfill"] == r_id]

    r_id = r.json()["backfill_id"]
    assert backfilled() == []
    for _ in range(60):
        clock.advance(timedelta(minutes=5))
        h.state.simulator.tick()
    runs = backfilled()
    assert [x["data_interval_start"][:13] for x in runs] == [
        (start + timedelta(hours=k)).isoformat()[:13] for k in range(3)]
    assert all(x["status"] not in ("Running", "Starting") for x in runs)


@pytest.mark.parametrize(("body", "fragment"), [
    ({"start_at": "2025-05-01T00:00:00", "end_at": "2025-05-02T00:00:00+00:00"}, "naive"),
    ({"start_at": "2025-05-02T00:00:00Z", "end_at": "2025-05-01T00:00:00Z"}, "must be before"),
    ({"start_at": "2025-05-02T00:00:00Z", "end_at": "2030-01-01T00:00:00Z"}, "future"),
    ({"start_at": "yesterday", "end_at": "2025-05-01T00:00:00Z"}, "not a valid iso formatted datetime"),
    ({"end_at": "2025-05-01T00:00:00Z"}, "beginning of time"),
])
def test_backfill_validation(client: httpx.Client, body: dict[str, Any], fragment: str) -> None:
    """Raised from the real view, not a serializer field: ``attr`` is null."""
    e = _by_name(client, "S3 data lake")
    r = client.post(f"{E}{e['id']}/backfills/", json=body)
    assert r.status_code == 400
    err = r.json()
    assert err["attr"] is None and fragment in err["detail"].lower() and err["type"] == "validation_error"


def test_retry_makes_a_new_run_and_leaves_the_old_one(fresh: Factory, authed: Clients, now: datetime) -> None:
    clock = FrozenClock(now)
    h: SandboxHandle = fresh(clock=clock)
    c = authed(h)
    e = _by_name(c, "Snowflake warehouse")
    old = next(r for r in c.get(f"{E}{e['id']}/runs/").json()["results"] if r["status"] == "Failed"
               or r["status"] == "FailedRetryable")
    r = c.post(f"{E}{e['id']}/runs/{old['id']}/retry/")
    assert r.status_code == 201 and "backfill_id" in r.json()
    clock.advance(timedelta(minutes=30))
    h.state.simulator.tick()
    runs = c.get(f"{E}{e['id']}/runs/").json()["results"]
    new = [x for x in runs if x["backfill"] == r.json()["backfill_id"]]
    assert len(new) == 1 and new[0]["id"] != old["id"]
    assert new[0]["data_interval_start"] == old["data_interval_start"]
    assert new[0]["data_interval_end"] == old["data_interval_end"]
    assert c.get(f"{E}{e['id']}/runs/{old['id']}/").json() == old


def test_runs_cursor_pagination(client: httpx.Client, now: datetime) -> None:
    e = _by_name(client, "Postgres replica")
    url: str | None = f"{E}{e['id']}/runs/"
    pages = []
    while url:
        page = client.get(url).json()
        assert set(page) == {"next", "previous", "results"} and len(page["results"]) <= 100
        pages.append(page)
        url = page["next"]
    assert len(pages) >= 3 and pages[0]["previous"] is None
    ids = [r["id"] for p in pages for r in p["results"]]
    assert len(ids) == len(set(ids))
    created = [r["created_at"] for p in pages for r in p["results"]]
    assert created == sorted(created, reverse=True)
    back = client.get(pages[1]["previous"]).json()
    assert [r["id"] for r in back["results"]] == [r["id"] for r in pages[0]["results"]]
    asc = client.get(f"{E}{e['id']}/runs/", params={"ordering": "created_at"}).json()["results"]
    assert [r["created_at"] for r in asc] == sorted(r["created_at"] for r in asc)
    assert client.get(f"{E}{e['id']}/runs/", params={"ordering": "name"}).status_code == 400


def test_runs_default_window_is_seven_days(client: httpx.Client, now: datetime) -> None:
    e = _by_name(client, "S3 data lake")  # hourly with 10 days of history
    recent = client.get(f"{E}{e['id']}/runs/", params={"ordering": "created_at"}).json()["results"]
    cutoff = (now - timedelta(days=7)).isoformat()[:19]
    assert all(r["created_at"][:19] >= cutoff for r in recent)
    older = client.get(f"{E}{e['id']}/runs/", params={"after": "-10d", "ordering": "created_at"}).json()
    assert older["results"][0]["created_at"][:19] < cutoff
    failed = client.get(f"{E}{e['id']}/runs/", params=[("status", "Failed"), ("status", "FailedRetryable"),
                                                         ("after", "-10d")]).json()["results"]
    assert all(r["status"] in ("Failed", "FailedRetryable") for r in failed)
    assert client.get(f"{E}{e['id']}/runs/", params={"status": "Nope"}).status_code == 400


def test_logs_filters(client: httpx.Client) -> None:
    e = _by_name(client, "Snowflake warehouse")
    logs = f"{E}{e['id']}/logs/"
    body = client.get(logs).json()
    assert set(body) == {"results"} and len(body["results"]) == 50
    entry = body["results"][0]
    assert set(entry) == {"timestamp", "level", "message", "log_source_id", "instance_id"}
    assert entry["log_source_id"] == e["id"]
    ts = [x["timestamp"] for x in body["results"]]
    assert ts == sorted(ts, reverse=True)
    params: Any
    for params in ({"level": "WARN"}, {"level": "WARNING"}, {"level": "warn,error"},
                   [("level", "WARN"), ("level", "ERROR")]):
        levels = {x["level"] for x in client.get(logs, params=params).json()["results"]}
        assert levels and levels <= {"WARNING", "ERROR"}, params
    errors = client.get(logs, params={"level": "ERROR", "limit": 500}).json()["results"]
    assert errors and all(x["level"] == "ERROR" for x in errors)
    hits = client.get(logs, params={"search": "BATCH EXPORT FAILED"}).json()["results"]
    assert hits and all("batch export failed" in x["message"].lower() for x in hits)
    mid = ts[10]
    after = client.get(logs, params={"after": mid}).json()["results"]
    assert after and all(x["timestamp"] > mid for x in after)
    before = client.get(logs, params={"before": mid, "limit": 5}).json()["results"]
    assert len(before) == 5 and all(x["timestamp"] < mid for x in before)
    for bad in ("0", "501", "x"):
        r = client.get(logs, params={"limit": bad})
        assert r.status_code == 400 and r.json()["attr"] == "limit"
    assert client.get(logs, params={"level": "LOUD"}).status_code == 400


def test_run_logs(client: httpx.Client) -> None:
    e = _by_name(client, "Snowflake warehouse")
    run = client.get(f"{E}{e['id']}/runs/").json()["results"][5]
    lines = client.get(f"{E}{e['id']}/runs/{run['id']}/logs/").json()["results"]
    assert lines and len({x["instance_id"] for x in lines}) == 1
    assert {x["level"] for x in lines} & {"INFO", "DEBUG"}


def test_logs_forbidden_switch(fresh: Factory, authed: Clients) -> None:
    h: SandboxHandle = fresh(logs_forbidden=True)
    c = authed(h)
    e = _exports(c)[0]
    run = e["latest_runs"][0]
    for path in (f"{E}{e['id']}/logs/", f"{E}{e['id']}/runs/{run['id']}/logs/"):
        r = c.get(path)
        assert r.status_code == 403
        assert r.json()["detail"] == "This action does not support personal API key access"


def test_cross_project_and_unknown_404(client: httpx.Client) -> None:
    other = client.get("/api/environments/2/batch_exports/").json()["results"][0]
    run = other["latest_runs"][0]
    for method, path in (("GET", f"{E}{other['id']}/"), ("PATCH", f"{E}{other['id']}/"),
                         ("POST", f"{E}{other['id']}/pause/"), ("GET", f"{E}{other['id']}/logs/"),
                         ("GET", f"{E}{other['id']}/runs/"), ("POST", f"{E}{other['id']}/runs/{run['id']}/retry/"),
                         ("GET", f"{E}00000000-0000-4000-8000-000000000000/")):
        r = client.request(method, path, json={} if method != "GET" else None)
        assert r.status_code == 404 and r.json()["code"] == "not_found", (method, path)


def test_delete_export(fresh: Factory, authed: Clients) -> None:
    h: SandboxHandle = fresh()
    c = authed(h)
    e = _exports(c)[0]
    assert c.delete(f"{E}{e['id']}/").status_code == 204
    assert c.get(f"{E}{e['id']}/").status_code == 404
    assert e["id"] not in {x["id"] for x in _exports(c)}
