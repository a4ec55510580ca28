"""One page per export per outage, end to end: the sandbox, ``watchdeck metrics``, a real Prometheus with the
shipped rules and a real Alertmanager with the shipped config, its receivers a tiny HTTP server of the test.

The sandbox runs at ``SPEED`` times the wall clock; the rules' ``for:`` and Alertmanager's grouping times are
divided by it, nothing else is changed. Its 5-minute Postgres export goes through a total outage whose attempts hang
``HANG`` simulated seconds before they fail, so the export's state flips failing -> running -> failing, then (once
its data is twenty minutes old) failing -> overdue -> failing, every interval. Exactly one alert (one fingerprint)
reaches the webhook for it, firing through the flips, and it resolves once, after a run completes.

Prometheus and Alertmanager are the Debian packages ``prometheus`` and ``prometheus-alertmanager`` (``.ci/run``
installs them); without them this module is one SKIP, or a failure where CI requires the real parts.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.metrics.conftest import Exporter, value, wait_for
from tests.metrics.real_prometheus import (
    ALERTMANAGER,
    ALERTMANAGER_CONFIG,
    ALERTMANAGER_MISSING,
    AMTOOL,
    PROMETHEUS,
    PROMETHEUS_MISSING,
    Alertmanager,
    Prometheus,
    Receiver,
    stop_all,
)
from tests.real_parts import missing
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

if PROMETHEUS is None:
    missing(PROMETHEUS_MISSING, module=True)
if ALERTMANAGER is None or AMTOOL is None:
    missing(ALERTMANAGER_MISSING, module=True)

SPEED = 20.0  # simulated seconds per real second: a 5-minute interval lasts 15 s
HANG = 150.0  # simulated seconds each attempt runs before it fails: half of each interval in flight
WAIT = 600.0  # real seconds for any one condition, on a busy two-core machine
ALERT = "WatchdeckExportAlert"


def test_amtool_accepts_the_shipped_alertmanager_config() -> None:
    assert AMTOOL is not None
    checked = subprocess.run([AMTOOL, "check-config", str(ALERTMANAGER_CONFIG)], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS" in checked.stdout and " - 1 inhibit rules" in checked.stdout
    assert " - 2 receivers" in checked.stdout


@pytest.mark.xdist_group("prometheus-alertmanager")
def test_a_poll_failure_holds_the_export_pages_of_its_own_exporter(tmp_path: Path) -> None:
    """The shipped inhibition: while one exporter's polls fail, its export pages are held (they are judged on old
    data); another exporter's page in the same project's group still goes out, and so does the poll failure."""
    receiver = Receiver()
    parts: list[Callable[[], None]] = [receiver.stop]
    try:
        alertmanager = Alertmanager(tmp_path / "alertmanager", receiver, speed=SPEED)
        parts.insert(0, alertmanager.stop)
        common = {"job": "watchdeck", "project": "1"}
        sent = [{"labels": {"alertname": "WatchdeckPollsFailing", "severity": "ticket", "job": "watchdeck",
                            "instance": "a:9185"}},
                {"labels": {**common, "alertname": ALERT, "severity": "page", "instance": "a:9185",
                            "export_id": "held", "export": "held"}},
                {"labels": {**common, "alertname": ALERT, "severity": "page", "instance": "b:9185",
                            "export_id": "paged", "export": "paged"}}]
        posted = alertmanager.http.post("/api/v2/alerts", json=sent)
        assert posted.status_code == 200, posted.text

        def status_of() -> dict[str, dict[str, Any]]:
            answer = alertmanager.http.get("/api/v2/alerts")
            assert answer.status_code == 200
            return {a["labels"].get("export_id", a["labels"]["alertname"]): a["status"] for a in answer.json()}

        wait_for(lambda: len(status_of()) == 3 and status_of()["held"]["state"] == "suppressed",
                 "the held export's page to be inhibited", WAIT)
        statuses = status_of()
        assert statuses["held"]["inhibitedBy"] and statuses["paged"]["state"] == "active"
        assert statuses["WatchdeckPollsFailing"]["state"] == "active"

        def heard() -> set[str]:
            return {a["labels"].get("export_id", a["labels"]["alertname"]) for body in receiver.bodies("/watchdeck")
                    for a in body["alerts"]}

        wait_for(lambda: {"paged", "WatchdeckPollsFailing"} <= heard(), "the webhook to hear the others", WAIT)
        assert "held" not in heard()
        wait_for(lambda: bool(receiver.bodies("/pagerduty")), "PagerDuty to be paged", WAIT)
        summaries = [body["payload"]["summary"] for body in receiver.bodies("/pagerduty")]
        assert summaries[0] == f"{ALERT}: paged ", summaries
    finally:
        stop_all(*parts)


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, speed=SPEED)) as handle:
        yield handle


def only_the_five_minute_postgres_export(handle: SandboxHandle) -> str:
    """Its id; every other export of the sandbox is paused (before any look: a paused export opens no alert), so
    the project's group in Alertmanager holds this export's alert alone."""
    with handle.state.db.transaction() as c:
        rows = c.execute("SELECT id, data FROM exports WHERE deleted = 0 AND paused = 0 AND project_id = 1 "
                         "AND interval = 'every 5 minutes'").fetchall()
        found = [str(r["id"]) for r in rows if json.loads(r["data"])["destination"]["type"] == "Postgres"]
        assert len(found) == 1, "the seed changed: need one 5-minute Postgres export in project 1"
        c.execute("UPDATE exports SET paused = 1 WHERE id != ?", (found[0],))
    return found[0]


class Watch:
    """What the exporter serves for one export, scraped by the test: the states it went through, in order."""

    def __init__(self, exporter: Exporter, export_id: str) -> None:
        self.exporter = exporter
        self.export_id = export_id
        self.states: list[str] = []
        self.alert_open: float | None = None

    def look(self) -> None:
        samples = self.exporter.scrape()
        mine = {name: (dict(labels), number) for (name, labels), number in samples.items()
                if ("export_id", self.export_id) in labels and number == 1.0}
        state = next((labels["state"] for name, (labels, _) in mine.items() if name == "watchdeck_export_state"), None)
        if state is not None and (not self.states or self.states[-1] != state):
            self.states.append(state)
        labels = {"project": "1", "export_id": self.export_id}
        self.alert_open = next((number for (name, found), number in samples.items()
                                if name == "watchdeck_export_alert_open" and labels.items() <= dict(found).items()),
                               None)

    def flipped_back_from_overdue(self) -> bool:
        """Overdue, then failing again after it: the second kind of flip of the outage has happened."""
        return "overdue" in self.states and "failing" in self.states[self.states.index("overdue"):]


def notifications(receiver: Receiver, export_id: str) -> list[tuple[str, str]]:
    """(status, fingerprint) of the export's alert in every webhook notification, in the order they came."""
    return [(alert["status"], alert["fingerprint"]) for body in receiver.bodies("/watchdeck")
            for alert in body["alerts"]
            if alert["labels"].get("alertname") == ALERT and alert["labels"].get("export_id") == export_id]


@pytest.mark.slow
@pytest.mark.xdist_group("prometheus-alertmanager")
def test_a_total_outage_of_a_5_minute_export_pages_once_and_resolves_once(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter], tmp_path: Path) -> None:
    export_id = only_the_five_minute_postgres_export(sandbox)
    receiver = Receiver()
    parts: list[Callable[[], None]] = [receiver.stop]
    try:
        alertmanager = Alertmanager(tmp_path / "alertmanager", receiver, speed=SPEED)
        parts.insert(0, alertmanager.stop)
        exporter = start_exporter(sandbox, "--export", export_id)
        assert exporter.url is not None
        target = exporter.url.removeprefix("http://").removesuffix("/metrics")
        prometheus = Prometheus(tmp_path / "prometheus", target, speed=SPEED, alertmanager=alertmanager.address)
        parts.insert(0, prometheus.stop)
        watch = Watch(exporter, export_id)

        def looked(condition: Callable[[], bool]) -> Callable[[], bool]:
            def check() -> bool:
                watch.look()
                return condition()
            return check

        # The seeded world may hold a failed run of its own: the outage starts on a healthy export.
        wait_for(looked(lambda: watch.alert_open == 0.0), "the export to be healthy before the outage", WAIT)
        started = httpx.post(f"{sandbox.base_url}/_sandbox/outages/",
                             json={"destination": "Postgres", "fails_after": HANG}, timeout=10, verify=False)
        assert started.status_code == 201, started.text
        watch.states.clear()

        wait_for(looked(lambda: bool(notifications(receiver, export_id))), "the export's page at the webhook", WAIT)
        ((status, fingerprint),) = set(notifications(receiver, export_id))
        assert status == "firing"
        mine = [a for a in prometheus.alerts() if a["labels"]["alertname"] == ALERT]
        assert len(mine) == 1, mine
        (alert,) = mine
        assert alert["state"] == "firing" and "state" not in alert["labels"] and "kind" not in alert["labels"]
        active_at = alert["activeAt"]

        def still_one_firing_alert() -> bool:
            now_firing = [a for a in prometheus.alerts() if a["labels"]["alertname"] == ALERT]
            assert [(a["state"], a["activeAt"]) for a in now_firing] == [("firing", active_at)], watch.states
            assert set(notifications(receiver, export_id)) == {("firing", fingerprint)}, watch.states
            return watch.flipped_back_from_overdue()

        wait_for(looked(still_one_firing_alert), "the export to flip overdue and back to failing", WAIT)
        failed_from = watch.states.index("failing")
        assert "running" in watch.states[failed_from:watch.states.index("overdue")], (
            f"no attempt was seen running between failures before the data fell behind: {watch.states}")
        assert watch.alert_open == 1.0

        ended = httpx.delete(f"{sandbox.base_url}/_sandbox/outages/", timeout=10, verify=False)
        assert ended.status_code == 200 and ended.json()["ended"] == 1
        wait_for(looked(lambda: ("resolved", fingerprint) in notifications(receiver, export_id)),
                 "the export's alert to resolve at the webhook", WAIT)
        heard = notifications(receiver, export_id)
        first_resolved = heard.index(("resolved", fingerprint))
        assert set(heard[:first_resolved]) == {("firing", fingerprint)} and heard[first_resolved:] == [
            ("resolved", fingerprint)], heard
        assert watch.alert_open == 0.0 and watch.states[-1] in ("ok", "running"), watch.states
        samples = exporter.scrape()
        assert value(samples, "watchdeck_export_failure_streak", project="1", export_id=export_id,
                     export=alert["labels"]["export"]) == 0.0, "resolved after a run completed"

        # PagerDuty (Events API v2) heard the same episode: triggered, then resolved, under one dedup key.
        wait_for(lambda: any(body["event_action"] == "resolve" for body in receiver.bodies("/pagerduty")),
                 "the PagerDuty incident to resolve", WAIT)
        paged = [(body["event_action"], body["dedup_key"]) for body in receiver.bodies("/pagerduty")]
        assert {key for _, key in paged} == {paged[0][1]}, paged
        assert paged[0][0] == "trigger" and [action for action, _ in paged].count("resolve") == 1, paged
        assert paged[-1][0] == "resolve", paged
        assert all(body["routing_key"] == "REPLACE-WITH-YOUR-PAGERDUTY-INTEGRATION-KEY"
                   for body in receiver.bodies("/pagerduty"))
        assert sandbox.api_key not in json.dumps(receiver.posts)
    finally:
        stop_all(*parts)

