"""``watchdeck metrics`` against the sandbox: the families, their values, a failed poll and a clean stop.

The verdicts are the health model's (the same words as the table and ``status``); the alert counts are the
dashboard's alert book's, where an export already failing or overdue at the first look is an open alert.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from tests.metrics.conftest import ROOT, Exporter, Samples, World, make_world, value, watchdeck_env
from tui.cli.metrics import Listen, exposure_warning, parse_listen
from tui.sandbox.runner import SandboxHandle, listening_socket
from tui.sandbox.timeutil import iso
from tui.state.metric_families import STATES


def export_labels(world: World, export_id: str) -> dict[str, str]:
    return {"project": "1", "export_id": export_id, "export": world.names[export_id]}


def state_of(samples: Samples, world: World, export_id: str) -> list[str]:
    labels = export_labels(world, export_id)
    return [s for s in STATES if value(samples, "watchdeck_export_state", **labels, state=s) == 1.0]


def polled(samples: Samples) -> bool:
    return value(samples, "watchdeck_last_successful_poll_timestamp_seconds") is not None


@pytest.mark.slow
def test_families_and_values_of_four_exports_then_a_failed_poll_keeps_the_last_good_verdicts(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    """One exporter: the families and values of a failing, an overdue, a paused and a healthy export at its first
    poll; then a poll answered 503 keeps the last good verdicts and counts the errors, until a good poll after
    the fault; then a clean stop, with nothing on stderr but the address (no traceback, no warning, the failed polls
    counted, not printed)."""
    world = make_world(sandbox)
    before = time.time()
    exporter = start_exporter(sandbox)
    samples = exporter.scrape_when(polled, "a first successful poll")
    after = time.time()
    expected = {world.healthy: ("ok", 1.0, 0.0), world.failing: ("failing", 0.0, 2.0),
                world.overdue: ("overdue", 0.0, 0.0), world.paused: ("paused", 1.0, 0.0)}
    for export_id, (state, healthy, streak) in expected.items():
        labels = export_labels(world, export_id)
        assert state_of(samples, world, export_id) == [state], world.names[export_id]
        for other in STATES:  # every state has its series, 0 for all but the current one
            assert value(samples, "watchdeck_export_state", **labels, state=other) in (0.0, 1.0)
        assert value(samples, "watchdeck_export_healthy", **labels) == healthy
        assert value(samples, "watchdeck_export_failure_streak", **labels) == streak
    for export_id, end in world.last_completed_end.items():
        labels = export_labels(world, export_id)
        assert value(samples, "watchdeck_export_last_completed_end_timestamp_seconds", **labels) == end.timestamp()
        lag = value(samples, "watchdeck_export_lag_seconds", **labels)
        assert lag is not None and before - end.timestamp() - 1 <= lag <= after - end.timestamp() + 1
    # only the failing and the overdue export are unhealthy in the whole project
    unhealthy = {k for k, v in samples.items() if k[0] == "watchdeck_export_healthy" and v == 0.0}
    assert {dict(labels)["export_id"] for _, labels in unhealthy} == {world.failing, world.overdue}
    assert value(samples, "watchdeck_alerts_open", kind="failing") == 1.0
    assert value(samples, "watchdeck_alerts_open", kind="overdue") == 1.0
    assert value(samples, "watchdeck_alerts_open", kind="auto-paused") == 0.0
    # one list request per poll of one project, each answered: as many as polls
    polls = value(samples, "watchdeck_poll_duration_seconds_count")
    assert polls is not None and polls >= 1
    assert value(samples, "watchdeck_requests_total", outcome="ok") == polls
    assert value(samples, "watchdeck_requests_total", outcome="server_error") == 0.0
    assert value(samples, "watchdeck_server_clock_skew_seconds") == 0.0
    stamp = value(samples, "watchdeck_last_successful_poll_timestamp_seconds")
    assert stamp is not None and before <= stamp <= after
    text = exporter.text()
    assert sandbox.api_key not in text

    last_good = stamp
    admin = httpx.Client(base_url=sandbox.base_url, timeout=10, verify=False)
    assert admin.post("/_sandbox/faults/", json={"kind": "status", "status": 503}).status_code == 201
    # the next poll starts an interval after the first one, well after the fault: it is answered 503 (its
    # retries too) and fails; a poll that succeeded instead would have moved the last successful poll's time
    failed = exporter.scrape_when(lambda s: (value(s, "watchdeck_requests_total", outcome="server_error") or 0) > 0
                                  and (value(s, "watchdeck_poll_duration_seconds_count") or 0) > polls,
                                  "a poll answered 503 to be over")
    assert value(failed, "watchdeck_last_successful_poll_timestamp_seconds") == last_good
    assert state_of(failed, world, world.failing) == ["failing"]  # the last good data, judged again
    assert value(failed, "watchdeck_export_healthy", **export_labels(world, world.healthy)) == 1.0
    assert admin.delete("/_sandbox/faults/").status_code == 204
    healed = exporter.scrape_when(
        lambda s: (value(s, "watchdeck_last_successful_poll_timestamp_seconds") or 0) > (last_good or 0),
        "a successful poll after the fault")
    assert state_of(healed, world, world.overdue) == ["overdue"]
    admin.close()
    assert exporter.stop() == 0
    assert exporter.stderr() == f"watchdeck: serving {exporter.url}\n"  # no traceback, no warning


def test_an_unreachable_server_serves_no_exports_and_the_network_errors(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    with listening_socket() as closed:  # a loopback port that refuses connections once the socket is closed
        port = closed.getsockname()[1]
    exporter = start_exporter(sandbox, base_url=f"http://127.0.0.1:{port}")
    samples = exporter.scrape_when(lambda s: (value(s, "watchdeck_requests_total", outcome="network_error") or 0) > 0,
                                   "a refused request")
    assert not polled(samples)
    assert not [k for k in samples if k[0].startswith("watchdeck_export_")]
    assert value(samples, "watchdeck_server_clock_skew_seconds") is None
    assert value(samples, "watchdeck_alerts_open", kind="failing") == 0.0
    assert exporter.stop() == 0


def test_listen_is_loopback_by_default_and_another_address_names_the_risk() -> None:
    assert parse_listen("127.0.0.1:9185") == Listen("127.0.0.1", 9185)
    assert parse_listen("[::1]:0") == Listen("::1", 0)
    assert exposure_warning(parse_listen("127.0.0.1:9185")) is None
    assert exposure_warning(parse_listen("localhost:9185")) is None
    assert exposure_warning(parse_listen("[::1]:9185")) is None
    warning = exposure_warning(parse_listen("0.0.0.0:9185"))
    assert warning is not None and "anyone who can reach port 9185" in warning and "without authentication" in warning
    for bad in ("9185", "host:", "host:port", "127.0.0.1:70000"):
        try:
            parse_listen(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


def openmetrics_samples(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def test_status_format_openmetrics_prints_the_exporters_families_once(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    world = make_world(sandbox)
    done = subprocess.run([sys.executable, "-m", "tui", "status", "--format", "openmetrics"], cwd=ROOT,
                          env=watchdeck_env(sandbox), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "")  # a failing and an overdue export: exit 1, as the table's
    assert done.stdout.endswith("# EOF\n") and sandbox.api_key not in done.stdout
    once = openmetrics_samples(done.stdout)
    exporter_samples = start_exporter(sandbox).scrape_when(polled, "a first successful poll")
    names = {name for name, _ in once if not name.endswith("_created")}
    served = {name for name, _ in exporter_samples if not name.endswith("_created")}
    assert names == served - {"watchdeck_export_silenced"}  # the silences are the exporter's: status reads none
    for export_id, state in ((world.healthy, "ok"), (world.failing, "failing"), (world.overdue, "overdue"),
                             (world.paused, "paused")):
        assert state_of(once, world, export_id) == [state]
    for key, number in exporter_samples.items():
        if key[0] in ("watchdeck_export_healthy", "watchdeck_export_state", "watchdeck_export_failure_streak",
                      "watchdeck_export_last_completed_end_timestamp_seconds", "watchdeck_alerts_open"):
            assert once[key] == number, key
    # one poll: the list, the runs of the overdue export (a second look before calling it overdue), and the
    # key's scopes (its own record, then the user's)
    assert once[("watchdeck_poll_duration_seconds_count", frozenset())] == 1.0
    assert once[("watchdeck_requests_total", frozenset({("outcome", "ok")}))] == 4.0
    assert [r["path"] for r in sandbox.requests()][:4] == [
        "/api/environments/1/batch_exports/", f"/api/environments/1/batch_exports/{world.overdue}/runs/",
        "/api/personal_api_keys/@current/", "/api/users/@me/"]


def test_freshness_targets_of_the_profile_judge_the_exporters_verdicts(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    world = make_world(sandbox)
    with sandbox.state.db.transaction() as c:  # in the first minutes of an hour its newest run ended at the hour
        c.execute("DELETE FROM runs WHERE export_id = ? AND data_interval_end > ?",
                  (world.healthy, iso(sandbox.clock.now() - timedelta(minutes=2))))
    config_dir = Path(os.environ["WATCHDECK_CONFIG_DIR"])
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.toml").write_text(
        f'[profiles.sb.freshness]\n"{world.names[world.healthy]}" = "1m"\n"{world.overdue}" = "1d"\n'
        '"Evnets" = "2h"\n')
    exporter = start_exporter(sandbox)
    samples = exporter.scrape_when(polled, "a first successful poll")
    assert state_of(samples, world, world.healthy) == ["overdue"]  # its data is older than a minute
    assert state_of(samples, world, world.overdue) == ["ok"]  # five hours behind, inside a day
    assert value(samples, "watchdeck_alerts_open", kind="overdue") == 1.0
    exporter.scrape_when(lambda s: (value(s, "watchdeck_poll_duration_seconds_count") or 0) >= 2, "a second poll")
    assert exporter.stop() == 0
    assert exporter.stderr().splitlines()[1:] == [
        "watchdeck: warning: freshness target for 'Evnets' names no watched export (by id or name): "
        "check the profile's [freshness] table"]


def test_two_exporters_share_answers_through_the_cache_and_another_address_warns(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    """The dashboards' shared answer cache (on by default): the answer one exporter fetched serves the other's
    first poll, so the server is asked once for both (a minute's interval: no second poll meanwhile)."""
    make_world(sandbox)
    first = start_exporter(sandbox, "--poll", "60", cache=True)
    first.scrape_when(polled, "the first exporter's first poll")
    second = start_exporter(sandbox, "--poll", "60", cache=True, listen="0.0.0.0:0")
    port = (second.url or "").rsplit(":", 1)[1].split("/")[0]
    assert second.stderr().splitlines()[0] == (
        f"watchdeck: warning: serving metrics on 0.0.0.0, not loopback: anyone who can reach port {port} reads "
        "every watched export's name and health, without authentication (the API key is never served). "
        "Use 127.0.0.1 with a local Prometheus, or a firewall or an authenticating proxy.")
    shared = second.scrape_when(polled, "the second exporter's first poll")
    mine = first.scrape()
    assert value(mine, "watchdeck_requests_total", outcome="ok") == 1.0
    assert value(shared, "watchdeck_requests_total", outcome="ok") == 0.0
    assert value(shared, "watchdeck_requests_total", outcome="cached") == 1.0
    assert [r["path"] for r in sandbox.requests()] == ["/api/environments/1/batch_exports/"]
    assert first.stop() == 0 and second.stop() == 0
