"""The families themselves: names cleaned and cut, escaped by the library; absent values stay absent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from prometheus_client import generate_latest

from tests.metrics.conftest import parse_samples, value
from tui.api.models.batch_exports import BatchExport
from tui.state.export_feed import AlertFeed
from tui.state.exports import WatchedExport
from tui.state.health import judge
from tui.state.metric_families import MAX_LABEL_CHARS, STATES, ExportReading, PollMetrics, Reading

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
HOSTILE = 'Events "to" S3\nwith a \\ and \x1b[31mcolour\x9d52;c;aGk=\x07 \u202eevil'
CLEANED = 'Events "to" S3 with a \\ and colour  evil'  # the OSC goes whole; the override is a space


def test_a_hostile_name_is_a_label_value_cleaned_and_unknown_values_are_absent() -> None:
    export = BatchExport.model_validate({"id": "e1", "name": HOSTILE, "interval": "hour", "paused": False,
                                         "created_at": "2025-06-01T11:00:00Z", "latest_runs": []})
    verdict = judge(export, NOW)
    metrics = PollMetrics()
    metrics.show(Reading(exports=[ExportReading("1", "e1", HOSTILE, verdict)], alerts_open={"failing": 0}))
    samples = parse_samples(generate_latest(metrics.registry).decode())
    labels = {"project": "1", "export_id": "e1", "export": CLEANED}
    assert verdict.state.value == "no runs"
    assert value(samples, "watchdeck_export_state", **labels, state="no_runs") == 1.0
    assert sum(value(samples, "watchdeck_export_state", **labels, state=s) or 0 for s in STATES) == 1.0
    assert value(samples, "watchdeck_export_healthy", **labels) == 1.0
    assert value(samples, "watchdeck_export_failure_streak", **labels) == 0.0
    assert value(samples, "watchdeck_export_lag_seconds", **labels) is None
    assert value(samples, "watchdeck_export_last_completed_end_timestamp_seconds", **labels) is None
    assert value(samples, "watchdeck_last_successful_poll_timestamp_seconds") is None
    assert value(samples, "watchdeck_server_clock_skew_seconds") is None
    assert STATES == ("ok", "running", "failing", "overdue", "paused", "ended", "no_runs", "unknown_status")


def test_label_values_are_cut_so_long_names_cannot_blow_up_a_scrape() -> None:
    """A thousand exports with 10 KB names: each name is served as its first 199 characters and an ellipsis."""
    export = BatchExport.model_validate({"id": "e", "name": "n", "interval": "hour", "paused": False,
                                         "created_at": "2025-06-01T11:00:00Z", "latest_runs": []})
    verdict = judge(export, NOW)
    names = [f"{i:04d}" + "x" * 10_000 for i in range(1000)]
    metrics = PollMetrics()
    metrics.show(Reading(exports=[ExportReading("1", f"e{i}", name, verdict) for i, name in enumerate(names)]))
    page = generate_latest(metrics.registry).decode()
    served = {labels["export"] for (metric, frozen) in parse_samples(page) for labels in [dict(frozen)]
              if metric == "watchdeck_export_healthy"}
    assert served == {name[:MAX_LABEL_CHARS - 1] + "…" for name in names}
    assert MAX_LABEL_CHARS == 200
    assert len(page) < 6_000_000  # about 5 KB an export (its alert families too); 121 MB with the names whole


def test_the_readme_names_every_family_the_exporter_serves() -> None:
    root = Path(__file__).resolve().parents[2]
    readme = root / "README.md"
    section = readme.read_text().split("## Prometheus and Grafana", 1)[1].split("\n## ", 1)[0]
    metrics = PollMetrics()
    metrics.show(Reading(exports=[ExportReading("1", "e1", "x", judge(BatchExport.model_validate(
        {"id": "e1", "name": "x", "interval": "hour", "paused": False, "created_at": "2025-06-01T11:00:00Z",
         "latest_runs": [{"id": "r", "status": "Completed", "data_interval_end": "2025-06-01T11:00:00Z"}]}), NOW))],
        alerts_open={"failing": 0}, last_success_timestamp=1.0, clock_skew_seconds=0.0, silenced=frozenset()))
    served = {family.name for family in metrics.registry.collect()}
    assert len(served) == 16
    for name in served:
        shown = f"{name}_total" if name == "watchdeck_requests" else name
        assert f"`{shown}`" in section, shown
    rules = (root / "examples" / "prometheus" / "watchdeck-rules.yml").read_text()
    for alert in ("WatchdeckExportAlert", "WatchdeckPollsFailing", "WatchdeckNeverPolled"):
        assert f"alert: {alert}" in section and f"alert: {alert}" in rules
    assert rules.count("- alert: ") == 3 and "state=" not in rules
    manager = (root / "examples" / "alertmanager" / "alertmanager.yml").read_text()
    for line in ("group_by: [project]", "source_matchers: ['alertname=\"WatchdeckPollsFailing\"']",
                 "target_matchers: ['alertname=\"WatchdeckExportAlert\"']", "pagerduty_configs:", "webhook_configs:"):
        assert line in section and line in manager, line
    assert "--format prometheus" in section and "textfile collector" in section


def test_the_alert_feed_counts_open_episodes_by_their_current_kind() -> None:
    def export(status: str) -> WatchedExport:
        return WatchedExport("1", BatchExport.model_validate({
            "id": "e1", "name": "x", "interval": "hour", "paused": False, "created_at": "2025-06-01T11:00:00Z",
            "latest_runs": [{"id": f"r-{status}", "status": status, "data_interval_end": "2025-06-01T11:00:00Z",
                             "created_at": "2025-06-01T11:00:00Z"}]}))

    feed = AlertFeed()
    for n in range(5):  # failing, then fixed by a completed run: an episode opened and ended each time
        now = NOW + timedelta(minutes=n)
        watched = export("Failed" if n % 2 == 0 else "Completed")
        feed.observe([watched], {watched.key: judge(watched.export, now)}, now)
    assert feed.open_by_kind() == {"failing": 1, "overdue": 0, "auto-paused": 0}
    assert len(feed.desk.book.history) == 2
