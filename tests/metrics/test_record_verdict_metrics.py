"""The exporter's verdict from the server's record: fourteen failed runs in a row, ten of them in ``latest_runs``.

The real service's ``latest_runs`` is the ten newest runs (``BatchExportSerializer.get_latest_runs`` in
PostHog's ``posthog/batch_exports/http.py`` slices ``[:10]``), so the lag and the streak of a long outage are
only in the runs list. ``watchdeck metrics`` and ``status --format openmetrics`` read it as ``status`` does, and
their lag, streak, last Completed end and state are those of ``status --json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime

import pytest

from tests.health.test_status_subprocess import healthy_hourly, status
from tests.incident.long_outage import fail_newest
from tests.metrics.conftest import Exporter, Samples, value
from tests.metrics.test_metrics_cmd import openmetrics_samples
from tui.sandbox.runner import SandboxHandle
from tui.state.metric_families import STATES


def polled(samples: Samples) -> bool:
    return value(samples, "watchdeck_last_successful_poll_timestamp_seconds") is not None


def state_of(samples: Samples, labels: dict[str, str]) -> list[str]:
    return [s for s in STATES if value(samples, "watchdeck_export_state", **labels, state=s) == 1.0]


@pytest.mark.slow
def test_the_exporter_has_the_lag_and_streak_of_status_json_for_14_failed_runs(
        sandbox: SandboxHandle, start_exporter: Callable[..., Exporter]) -> None:
    export = healthy_hourly(sandbox)
    last_done = fail_newest(sandbox, export.id, 14)
    code, out, err = status(sandbox, "--json", "--export", export.id)
    assert (code, err) == (1, "")
    data = json.loads(out)
    (row,) = data["exports"]
    assert (row["state"], row["failure_streak"]) == ("failing", 14)
    assert row["last_completed_end"] == last_done.isoformat().replace("+00:00", "Z")
    checked = datetime.fromisoformat(data["checked_at"].replace("Z", "+00:00")).timestamp()
    labels = {"project": "1", "export_id": export.id, "export": export.name}

    before = time.time()
    exporter = start_exporter(sandbox, "--export", export.id)
    samples = exporter.scrape_when(polled, "a first successful poll")
    after = time.time()
    assert value(samples, "watchdeck_export_failure_streak", **labels) == row["failure_streak"]
    assert value(samples, "watchdeck_export_last_completed_end_timestamp_seconds", **labels) == last_done.timestamp()
    lag = value(samples, "watchdeck_export_lag_seconds", **labels)
    # the same lag as status's, measured at the exporter's poll instead of status's check
    assert lag is not None
    assert row["lag_seconds"] + (before - checked) - 1 <= lag <= row["lag_seconds"] + (after - checked) + 1
    assert state_of(samples, labels) == ["failing"]
    assert value(samples, "watchdeck_export_healthy", **labels) == 0.0
    # one open alert per export whose episode is failing: this one, and any the seeded world has failing at this hour
    # (its latest run failed, or failed runs wait behind an attempt in progress)
    assert value(samples, "watchdeck_export_alert_kind", **labels, kind="failing") == 1.0
    failing = sum(1 for (name, labelset), v in samples.items()
                  if name == "watchdeck_export_alert_kind" and ("kind", "failing") in labelset and v == 1.0)
    assert failing >= 1
    assert value(samples, "watchdeck_alerts_open", kind="failing") == float(failing)
    # the runs list is read once (its first page holds the last Completed run), not again while latest_runs
    # stays the same, however many polls follow
    mark = len(sandbox.requests())
    later = exporter.scrape_when(lambda s: (value(s, "watchdeck_poll_duration_seconds_count") or 0) >= 3,
                                 "three polls")
    assert value(later, "watchdeck_export_failure_streak", **labels) == 14
    assert exporter.stop() == 0
    runs_path = f"/api/environments/1/batch_exports/{export.id}/runs/"
    runs_reads = [r for r in sandbox.requests() if r["path"] == runs_path]
    assert len(runs_reads) == 2  # status --json's read and the exporter's first poll's
    assert all(r["path"] != runs_path for r in sandbox.requests()[mark:])

    code, out, err = status(sandbox, "--format", "openmetrics", "--export", export.id)
    assert (code, err) == (1, "")
    assert len([r for r in sandbox.requests() if r["path"] == runs_path]) == 3  # its own read
    once = openmetrics_samples(out)
    assert value(once, "watchdeck_export_failure_streak", **labels) == 14
    assert value(once, "watchdeck_export_last_completed_end_timestamp_seconds", **labels) == last_done.timestamp()
    assert value(once, "watchdeck_export_lag_seconds", **labels) == pytest.approx(
        time.time() - last_done.timestamp(), abs=30)
    assert state_of(once, labels) == ["failing"]
