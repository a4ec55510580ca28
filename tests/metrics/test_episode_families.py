"""The exporter and ``status`` serve the dashboard's own alert episode: one decision (the alert book's), read by all.

Failed runs in a row whose next attempt is running are an open episode everywhere: the verdict reads
``running``, the exporter's ``healthy`` 0, ``status`` exits 1, and the episode began where the streak began.
"""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import generate_latest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from pydantic import SecretStr

from tests.incident.runs import HOUR, NOW, export, run
from tests.metrics.conftest import parse_samples, value
from tui.api.models.batch_exports import BatchExport
from tui.cli.status import EXIT_OK, EXIT_PROBLEM, ExportStatus, Report, exposition, find_alerts, format_table, to_json
from tui.config import Settings
from tui.state.export_feed import AlertFeed
from tui.state.exports import WatchedExport
from tui.state.health import Verdict, judge
from tui.state.metric_families import KINDS, EpisodeReading, ExportReading, PollMetrics, Reading

LABELS = {"project": "1", "export_id": "e1", "export": "export e1"}
ALLOWED = 2 * 3600 + 600  # two hourly intervals plus ten minutes' grace
TARGET = 5 * 3600.0  # a freshness target under which four hours without completed data is not overdue


def three_failed_then_running() -> BatchExport:
    """Completed up to four hours ago, then three failed hours, and the newest hour's attempt running."""
    return export("e1", [run("r0", 0, "Running"), run("r1", 1, "Failed"), run("r2", 2, "Failed"),
                         run("r3", 3, "Failed"), run("r4", 4, "Completed")])


def judged(late: BatchExport) -> Verdict:
    return judge(late, NOW, target_seconds=TARGET)


def served(feed: AlertFeed, watched: WatchedExport) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    verdict = judged(watched.export)
    metrics = PollMetrics()
    metrics.show(Reading(exports=[ExportReading("1", watched.export.id, watched.export.name, verdict,
                                                EpisodeReading.of(feed.episode(watched.key)))]))
    return parse_samples(generate_latest(metrics.registry).decode())


def test_failed_runs_in_a_row_behind_a_running_attempt_are_an_open_episode_not_healthy() -> None:
    watched = WatchedExport("1", three_failed_then_running())
    verdict = judged(watched.export)
    assert (str(verdict.state), verdict.failure_streak) == ("running", 3)
    feed = AlertFeed()
    feed.observe([watched], {watched.key: verdict}, NOW)  # a first look, as the exporter's first poll and status
    episode = feed.episode(watched.key)
    assert episode is not None and str(episode.kind) == "failing" and not episode.new
    assert episode.since == NOW - 4 * HOUR, "the start of the streak's first interval, from the server's record"
    assert episode.detail == "3 failed runs in a row; latest run Running"
    samples = served(feed, watched)
    assert value(samples, "watchdeck_export_healthy", **LABELS) == 0.0
    assert value(samples, "watchdeck_export_alert_open", **LABELS) == 1.0
    assert {kind: value(samples, "watchdeck_export_alert_kind", **LABELS, kind=kind) for kind in KINDS} == {
        "failing": 1.0, "overdue": 0.0, "auto-paused": 0.0}
    assert value(samples, "watchdeck_export_alert_since_timestamp_seconds", **LABELS) == (NOW - 4 * HOUR).timestamp()
    assert value(samples, "watchdeck_export_state", **LABELS, state="running") == 1.0  # the verdict's own state
    assert value(samples, "watchdeck_export_freshness_target_seconds", **LABELS) == TARGET

    # The attempt completes: the episode ends, and every family says so at once.
    done = export("e1", [run("r0", 0, "Completed"), *three_failed_then_running().latest_runs[1:]])
    watched = WatchedExport("1", done)
    feed.observe([watched], {watched.key: judged(done)}, NOW)
    assert feed.episode(watched.key) is None
    samples = served(feed, watched)
    assert value(samples, "watchdeck_export_healthy", **LABELS) == 1.0
    assert value(samples, "watchdeck_export_alert_open", **LABELS) == 0.0
    assert [value(samples, "watchdeck_export_alert_kind", **LABELS, kind=kind) for kind in KINDS] == [0.0] * 3
    assert value(samples, "watchdeck_export_alert_since_timestamp_seconds", **LABELS) is None


def test_an_overdue_episode_began_when_the_data_fell_behind() -> None:
    """Five hours without completed data and no failure: the episode began at the newest completed end plus the
    lag allowed, not at the poll that first saw it."""
    late = export("e1", [run("r0", 0, "Running"), run("r5", 5, "Completed")])
    watched = WatchedExport("1", late)
    verdict = judge(late, NOW)
    assert str(verdict.state) == "overdue"
    feed = AlertFeed()
    feed.observe([watched], {watched.key: verdict}, NOW)
    episode = feed.episode(watched.key)
    assert episode is not None and str(episode.kind) == "overdue"
    assert episode.since == NOW - 5 * HOUR + timedelta(seconds=ALLOWED)


def test_status_exits_1_and_names_the_episode_where_the_verdict_reads_running() -> None:
    settings = Settings(base_url="http://127.0.0.1:1", api_key=SecretStr("phx_" + "k" * 40), project_ids=["1"])
    healthy = export("e2", [run("s0", 0, "Completed")], name="fine")
    report = Report(checked_at=NOW, exports=[ExportStatus("1", three_failed_then_running(),
                                                          judged(three_failed_then_running())),
                                             ExportStatus("1", healthy, judge(healthy, NOW))])
    find_alerts(report)
    assert report.exit_code == EXIT_PROBLEM
    data = to_json(report, settings)
    first, second = data["exports"]
    assert (first["state"], first["healthy"], second["healthy"], data["healthy"]) == ("running", False, True, False)
    assert first["alert"] == {"kind": "failing", "detail": "3 failed runs in a row; latest run Running",
                              "since": "2026-11-22T08:00:00Z", "episode_id": "watchdeck:1:e1:20261122T080000Z"}
    assert second["alert"] is None
    assert "export e1: failing alert open: 3 failed runs in a row; latest run Running" in format_table(
        report, colour=False)
    # The same verdicts once a run completed: nothing open, exit 0.
    done = export("e1", [run("r0", 0, "Completed"), *three_failed_then_running().latest_runs[1:]])
    report = Report(checked_at=NOW, exports=[ExportStatus("1", done, judged(done))])
    find_alerts(report)
    assert report.exit_code == EXIT_OK and to_json(report, settings)["exports"][0]["alert"] is None


def test_status_prints_both_text_formats_with_the_episode() -> None:
    report = Report(checked_at=NOW, exports=[ExportStatus("1", three_failed_then_running(),
                                                          judged(three_failed_then_running()))])
    find_alerts(report)
    text = exposition(report, PollMetrics(), NOW.timestamp(), "prometheus")
    assert "# EOF" not in text and "# TYPE watchdeck_requests_total counter" in text
    assert value(parse_samples(text), "watchdeck_export_alert_open", **LABELS) == 1.0
    open_text = exposition(report, PollMetrics(), NOW.timestamp(), "openmetrics")
    assert open_text.endswith("# EOF\n")
    samples = {(s.name, frozenset(s.labels.items())): s.value
               for family in openmetrics_families(open_text) for s in family.samples}
    assert samples[("watchdeck_export_healthy", frozenset(LABELS.items()))] == 0.0
    assert samples[("watchdeck_export_alert_open", frozenset(LABELS.items()))] == 1.0
