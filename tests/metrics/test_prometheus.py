"""The shipped scrape config and alert rules in a real Prometheus, scraping ``watchdeck metrics`` against the
sandbox's outage scenario: the export's alert fires, and is gone once the outage ends and a run completes; and
``watchdeck status --format prometheus`` passes ``promtool check metrics``.

Prometheus is the Debian package ``prometheus`` (``.ci/run`` installs it); without it this module is one SKIP,
or a failure where CI requires the real parts.
The test's copy of the rules has its ``for:`` divided by the sandbox's clock speed, and Prometheus scrapes and
evaluates every 250 ms.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.metrics.conftest import ROOT, Exporter, make_world, value, wait_for, watchdeck_env
from tests.metrics.real_prometheus import (
    PROMETHEUS,
    PROMETHEUS_MISSING,
    PROMTOOL,
    RULES,
    SCRAPE_CONFIG,
    Prometheus,
)
from tests.real_parts import missing
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

if PROMETHEUS is None or PROMTOOL is None:
    missing(PROMETHEUS_MISSING, module=True)  # a failure where CI installed it (WATCHDECK_REQUIRE_REAL_PARTS=1)


OUTAGE_DESTINATION = "Postgres"
SPEED = 240.0


def test_promtool_accepts_the_shipped_rules_and_scrape_config() -> None:
    assert PROMTOOL is not None
    rules = subprocess.run([PROMTOOL, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert rules.returncode == 0, rules.stdout + rules.stderr
    assert "SUCCESS: 3 rules found" in rules.stdout
    config = subprocess.run([PROMTOOL, "check", "config", str(SCRAPE_CONFIG)],
                            capture_output=True, text=True, timeout=60)
    assert config.returncode == 0, config.stdout + config.stderr


def test_status_format_prometheus_passes_promtool_check_metrics(sandbox: SandboxHandle) -> None:
    """The text format (0.0.4) node_exporter's textfile collector reads: promtool finds nothing to say about it,
    where the OpenMetrics text fails its check (exit 3: ``no help text`` for every ``_created`` series)."""
    assert PROMTOOL is not None
    make_world(sandbox)
    done = subprocess.run([sys.executable, "-m", "tui", "status", "--format", "prometheus"], cwd=ROOT,
                          env=watchdeck_env(sandbox), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "")  # a failing and an overdue export
    assert "# EOF" not in done.stdout and "watchdeck_export_alert_open{" in done.stdout
    checked = subprocess.run([PROMTOOL, "check", "metrics"], input=done.stdout, capture_output=True, text=True,
                             timeout=60)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")


@pytest.fixture
def outage_sandbox() -> Iterator[SandboxHandle]:
    """The outage scenario, simulated at 240x (so a run comes soon after the outage ends); an open-ended outage of
    its destination on top, ended by the test."""
    with start_sandbox(SandboxOptions(seed=7, scenario="outage", speed=SPEED)) as handle:
        answer = httpx.post(f"{handle.base_url}/_sandbox/outages/", json={"destination": OUTAGE_DESTINATION},
                            timeout=10, verify=False)
        assert answer.status_code == 201, answer.text
        yield handle


def completed_end(exporter: Exporter, export_id: str) -> float:
    """The export's newest Completed data end as the exporter serves it (0 where it has none)."""
    ends = [v for (name, labels), v in exporter.scrape().items()
            if name == "watchdeck_export_last_completed_end_timestamp_seconds" and ("export_id", export_id) in labels]
    return ends[0] if ends else 0.0


def firing(prometheus: Prometheus, name: str) -> list[dict[str, Any]]:
    return [a for a in prometheus.alerts() if a["labels"]["alertname"] == name and a["state"] == "firing"]


@pytest.mark.slow
@pytest.mark.xdist_group("prometheus-alertmanager")  # one worker waits on the real Prometheus tests in turn
def test_the_export_alert_fires_in_prometheus_and_is_gone_after_the_outage(
        outage_sandbox: SandboxHandle, start_exporter: Callable[..., Exporter], tmp_path: Path) -> None:
    exporter = start_exporter(outage_sandbox)
    assert exporter.url is not None
    target = exporter.url.removeprefix("http://").removesuffix("/metrics")
    prometheus = Prometheus(tmp_path / "prometheus", target, speed=SPEED)
    try:
        def outage_alerts() -> list[dict[str, Any]]:
            """The alerts of the exports whose destination is out (at 240x, another export of the simulated
            world may fail on its own meanwhile and fire too)."""
            return [a for a in firing(prometheus, "WatchdeckExportAlert") if "Postgres" in a["labels"]["export"]]

        wait_for(outage_alerts, "the alert of an export under the outage to fire")
        alert = outage_alerts()[0]
        assert alert["labels"]["project"] == "1" and alert["labels"]["severity"] == "page"
        assert set(alert["labels"]) == {"alertname", "severity", "instance", "job", "project", "export_id", "export"}
        assert alert["annotations"]["summary"] == f"Batch export {alert['labels']['export']} needs attention"
        description = alert["annotations"]["description"]
        assert (" is failing since " in description or " is overdue since " in description), description
        assert outage_sandbox.api_key not in str(prometheus.alerts())
        assert not firing(prometheus, "WatchdeckPollsFailing") and not firing(prometheus, "WatchdeckNeverPolled")
        export_id = alert["labels"]["export_id"]
        done_before = completed_end(exporter, export_id)
        ended = httpx.delete(f"{outage_sandbox.base_url}/_sandbox/outages/", timeout=10, verify=False)
        assert ended.status_code == 200 and ended.json()["ended"] >= 1
        wait_for(lambda: completed_end(exporter, export_id) > done_before, "a run of the export to complete")
        wait_for(lambda: not [a for a in prometheus.alerts() if a["labels"]["alertname"] == "WatchdeckExportAlert"
                              and a["labels"]["export_id"] == export_id],
                 "the alert to be gone after the outage ended and a run completed")
        samples = exporter.scrape()
        labels = {"project": "1", "export_id": export_id, "export": alert["labels"]["export"]}
        assert value(samples, "watchdeck_export_alert_open", **labels) == 0.0
        assert value(samples, "watchdeck_export_healthy", **labels) == 1.0
    finally:
        prometheus.stop()
