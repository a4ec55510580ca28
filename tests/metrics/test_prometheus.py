"""The shipped scrape config and alert rules in a real Prometheus, scraping ``watchdeck metrics`` against the
sandbox's outage scenario: the failing alert fires, and is gone once the outage ends and a run completes.

Prometheus is the Debian package ``prometheus`` (``.ci/run`` installs it); without it this module is one SKIP,
or a failure where CI requires the real parts.
The test's copy of the rules has short ``for:`` durations, and Prometheus scrapes and evaluates every 250 ms.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.metrics.conftest import ROOT, Exporter, wait_for
from tests.real_parts import missing
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox

PROMETHEUS = shutil.which("prometheus") or ("/usr/bin/prometheus" if Path("/usr/bin/prometheus").exists() else None)
PROMTOOL = shutil.which("promtool") or ("/usr/bin/promtool" if Path("/usr/bin/promtool").exists() else None)
MISSING = "SKIP: prometheus is not installed (Debian package prometheus, /usr/bin/prometheus; .ci/run installs it)"

if PROMETHEUS is None or PROMTOOL is None:
    missing(MISSING, module=True)  # a failure where CI installed it (WATCHDECK_REQUIRE_REAL_PARTS=1)


EXAMPLES = ROOT / "examples" / "prometheus"
OUTAGE_DESTINATION = "Postgres"


def test_promtool_accepts_the_shipped_rules_and_scrape_config() -> None:
    assert PROMTOOL is not None
    rules = subprocess.run([PROMTOOL, "check", "rules", str(EXAMPLES / "watchdeck-rules.yml")],
                           capture_output=True, text=True, timeout=60)
    assert rules.returncode == 0, rules.stdout + rules.stderr
    assert "SUCCESS: 4 rules found" in rules.stdout
    config = subprocess.run([PROMTOOL, "check", "config", str(EXAMPLES / "prometheus.yml")],
                            capture_output=True, text=True, timeout=60)
    assert config.returncode == 0, config.stdout + config.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Prometheus:
    """A throwaway Prometheus on a free loopback port with the example rules (short ``for:``)."""

    def __init__(self, folder: Path, target: str) -> None:
        assert PROMETHEUS is not None
        folder.mkdir(parents=True, exist_ok=True)
        rules = (EXAMPLES / "watchdeck-rules.yml").read_text()
        assert rules.count("for: 5m") == 2 and rules.count("for: 1m") == 1
        (folder / "watchdeck-rules.yml").write_text(rules.replace("for: 5m", "for: 1s").replace("for: 1m", "for: 1s"))
        config = (EXAMPLES / "prometheus.yml").read_text()
        config = config.replace("scrape_interval: 30s", "scrape_interval: 250ms")
        config = config.replace("evaluation_interval: 30s", "evaluation_interval: 250ms")
        assert config.count('"127.0.0.1:9185"') == 1
        (folder / "prometheus.yml").write_text(config.replace('"127.0.0.1:9185"', f'"{target}"'))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_file = (folder / "prometheus.log").open("w")
        self.process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={folder / 'prometheus.yml'}", f"--storage.tsdb.path={folder / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log_file, stderr=subprocess.STDOUT)
        self.http = httpx.Client(base_url=self.url, timeout=10)
        wait_for(self.ready, "Prometheus to be ready")

    def ready(self) -> bool:
        assert self.process.poll() is None, "prometheus exited"
        try:
            return self.http.get("/-/ready").status_code == 200
        except httpx.HTTPError:
            return False

    def alerts(self) -> list[dict[str, Any]]:
        answer = self.http.get("/api/v1/alerts")
        assert answer.status_code == 200
        found: list[dict[str, Any]] = answer.json()["data"]["alerts"]
        return found

    def stop(self) -> None:
        self.http.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.log_file.close()


@pytest.fixture
def outage_sandbox() -> Iterator[SandboxHandle]:
    """The outage scenario, simulated at 240x (so a run comes soon after the outage ends); an open-ended outage of
    its destination on top, ended by the test."""
    with start_sandbox(SandboxOptions(seed=7, scenario="outage", speed=240.0)) as handle:
        answer = httpx.post(f"{handle.base_url}/_sandbox/outages/", json={"destination": OUTAGE_DESTINATION},
                            timeout=10)
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
def test_the_failing_alert_fires_in_prometheus_and_is_gone_after_the_outage(
        outage_sandbox: SandboxHandle, start_exporter: Callable[..., Exporter], tmp_path: Path) -> None:
    exporter = start_exporter(outage_sandbox)
    assert exporter.url is not None
    target = exporter.url.removeprefix("http://").removesuffix("/metrics")
    prometheus = Prometheus(tmp_path / "prometheus", target)
    try:
        def outage_alerts() -> list[dict[str, Any]]:
            """The failing alerts of the export whose destination is out (at 240x, another export of the simulated
            world may fail on its own meanwhile and fire too)."""
            return [a for a in firing(prometheus, "WatchdeckExportFailing") if "Postgres" in a["labels"]["export"]]

        wait_for(outage_alerts, "the failing alert of the export under the outage to fire")
        alert = outage_alerts()[0]
        assert alert["labels"]["project"] == "1" and alert["labels"]["severity"] == "page"
        assert alert["annotations"]["summary"] == f"Batch export {alert['labels']['export']} is failing"
        assert outage_sandbox.api_key not in str(prometheus.alerts())
        assert not firing(prometheus, "WatchdeckPollsFailing") and not firing(prometheus, "WatchdeckNeverPolled")
        export_id = alert["labels"]["export_id"]
        done_before = completed_end(exporter, export_id)
        ended = httpx.delete(f"{outage_sandbox.base_url}/_sandbox/outages/", timeout=10)
        assert ended.status_code == 200 and ended.json()["ended"] >= 1
        wait_for(lambda: completed_end(exporter, export_id) > done_before, "a run of the export to complete")
        wait_for(lambda: not [a for a in prometheus.alerts() if a["labels"]["alertname"] == "WatchdeckExportFailing"
                              and a["labels"]["export_id"] == export_id],
                 "the failing alert to be gone after the outage ended and a run completed")
        samples = exporter.scrape()
        failing = [v for (name, labels), v in samples.items() if name == "watchdeck_export_state"
                   and ("export_id", export_id) in labels and ("state", "failing") in labels]
        assert failing == [0.0]
    finally:
        prometheus.stop()
