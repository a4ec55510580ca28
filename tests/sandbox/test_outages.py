"""The outage scenario: one destination type fails for every export that uses it between two times."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle

Factory = Callable[..., SandboxHandle]
Clients = Callable[..., httpx.Client]
E = "/api/projects/1/batch_exports/"


def _exports(c: httpx.Client, dest: str) -> list[dict[str, Any]]:
    return [e for e in c.get(E).json()["results"] if e["destination"]["type"] == dest and not e["paused"]
            and e["end_at"] is None]


def _runs_since(c: httpx.Client, eid: str, since: datetime) -> list[dict[str, Any]]:
    return c.get(f"{E}{eid}/runs/", params={"after": since.isoformat()}).json()["results"]


def test_outage_fails_every_export_of_the_destination_then_ends(fresh: Factory, authed: Clients,
                                                                now: datetime) -> None:
    clock = FrozenClock(now)
    h = fresh(clock=clock)
    c = authed(h)
    admin = httpx.Client(base_url=h.base_url, timeout=10, verify=False)
    started = admin.post("/_sandbox/outages/", json={"destination": "Postgres"})
    assert started.status_code == 201 and started.json()["end_at"] is None
    for _ in range(12):
        clock.advance(timedelta(minutes=5))
        h.state.simulator.tick()
    pg = _exports(c, "Postgres")
    assert len(pg) >= 2
    for e in pg:
        runs = [r for r in _runs_since(c, e["id"], now) if r["status"] not in ("Running", "Starting")]
        assert runs and all(r["status"] == "Failed" for r in runs), (e["name"], runs)
        assert all('"analytics-db.internal", port 5432 failed: Connection refused' in r["latest_error"] for r in runs)
    s3 = _exports(c, "S3")[0]
    assert all(r["status"] != "Failed" or "Access Denied" not in (r["latest_error"] or "")
               for r in _runs_since(c, s3["id"], now)), "another destination is untouched"
    # ended: runs created from now on (retries too) succeed again
    assert admin.delete("/_sandbox/outages/").json() == {"ended": 1}
    ended_at = clock.now()
    failed = next(r for r in _runs_since(c, pg[0]["id"], now) if r["status"] == "Failed")
    retry = c.post(f"{E}{pg[0]['id']}/runs/{failed['id']}/retry/")
    assert retry.status_code == 201
    for _ in range(12):
        clock.advance(timedelta(minutes=5))
        h.state.simulator.tick()
    later = [r for r in c.get(f"{E}{pg[0]['id']}/runs/", params={"after": ended_at.isoformat()}).json()["results"]
             if r["status"] not in ("Running", "Starting")]
    assert later and not any("Connection refused" in (r["latest_error"] or "") for r in later)
    assert any(r["backfill"] == retry.json()["backfill_id"] for r in later)
    admin.close()


def test_outage_names_the_bucket_and_refuses_an_unknown_destination(fresh: Factory, authed: Clients,
                                                                    now: datetime) -> None:
    clock = FrozenClock(now)
    h = fresh(clock=clock)
    c = authed(h)
    with httpx.Client(base_url=h.base_url, timeout=10, verify=False) as admin:
        bad = admin.post("/_sandbox/outages/", json={"destination": "Carrier pigeon"})
        assert bad.status_code == 400 and "destination must be one of" in bad.json()["detail"]
        assert admin.post("/_sandbox/outages/", json={"destination": "S3", "minutes": 180}).status_code == 201
        assert admin.get("/_sandbox/outages/").json()["results"][0]["destination"] == "S3"
    for _ in range(24):
        clock.advance(timedelta(minutes=10))
        h.state.simulator.tick()
    lake = next(e for e in _exports(c, "S3") if e["interval"] == "hour")
    failed = [r for r in _runs_since(c, lake["id"], now) if r["status"] == "Failed"]
    bucket = lake["destination"]["config"]["bucket_name"]
    assert failed and all("(AccessDenied)" in r["latest_error"] and f"bucket '{bucket}'" in r["latest_error"]
                          for r in failed)


def test_outage_scenario_seeds_a_recent_outage_across_several_exports(fresh: Factory, authed: Clients,
                                                                      now: datetime) -> None:
    """``watchdeck sandbox --scenario outage`` (and the demo): failures already there at start."""
    h = fresh(scenario="outage")
    c = authed(h)
    failing = [e["name"] for e in _exports(c, "Postgres")
               if any(r["status"] == "Failed" and "Connection refused" in (r["latest_error"] or "")
                      for r in _runs_since(c, e["id"], now - timedelta(hours=1)))]
    assert len(failing) >= 2, failing


def test_cli_names_the_generation_and_scenario() -> None:
    import argparse

    from tui.sandbox import cli

    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    options = cli.options_from_args(parser.parse_args(["--generation", "older", "--scenario", "outage"]))
    assert (options.generation, options.scenario) == ("older", "outage")
    defaults = cli.options_from_args(parser.parse_args([]))
    assert (defaults.generation, defaults.scenario) == ("newest", None)


def test_an_outage_whose_attempts_hang_keeps_each_attempt_running_until_it_fails(
        fresh: Factory, authed: Clients, now: datetime) -> None:
    """``fails_after``: each attempt of a 5-minute export runs that long (simulated seconds) before it fails, so the
    export's newest attempt is running for half of every interval, failed for the rest."""
    clock = FrozenClock(now)
    h = fresh(clock=clock)
    c = authed(h)
    admin = httpx.Client(base_url=h.base_url, timeout=10, verify=False)
    for bad in (0, -1, "x", True, 1e9):
        refused = admin.post("/_sandbox/outages/", json={"destination": "Postgres", "fails_after": bad})
        assert refused.status_code == 400 and "fails_after" in refused.text, bad
    started = admin.post("/_sandbox/outages/", json={"destination": "Postgres", "fails_after": 150})
    assert started.status_code == 201 and started.json()["fails_after"] == 150.0
    assert admin.get("/_sandbox/outages/").json()["results"][-1]["fails_after"] == 150.0
    (export,) = [e for e in _exports(c, "Postgres") if e["interval"] == "every 5 minutes"]
    for _ in range(36):
        clock.advance(timedelta(seconds=30))
        h.state.simulator.tick()
    runs = _runs_since(c, export["id"], now)
    finished = [r for r in runs if r["status"] == "Failed"]
    assert len(finished) >= 2
    for r in finished:
        ran = datetime.fromisoformat(r["finished_at"]) - datetime.fromisoformat(r["created_at"])
        assert timedelta(seconds=150) < ran <= timedelta(seconds=165), ran  # its start delay, then 150 s
