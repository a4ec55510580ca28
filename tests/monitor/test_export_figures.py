"""Lag, due time, failure streaks and alerts, computed from exports as the server sends them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tui.api.models import BatchExport
from tui.state.alerts import AlertKind, AlertTracker
from tui.state.exports import ExportsSnapshot, WatchedExport, latest_run
from tui.state.health import HealthState, judge

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def run(i: int, status: str, end: datetime, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"run-{i}", "status": status, "data_interval_start": (end - timedelta(hours=1)).isoformat(),
        "data_interval_end": end.isoformat(), "created_at": (end + timedelta(seconds=30)).isoformat(), **extra,
    }


def export(runs: list[dict[str, Any]], **extra: Any) -> BatchExport:
    return BatchExport.model_validate({
        "id": "e1", "name": "Events to S3", "interval": "hour", "paused": False,
        "destination": {"type": "S3", "config": {}}, "latest_runs": runs, **extra,
    })


def test_lag_is_now_minus_newest_completed_interval_end() -> None:
    e = export([run(1, "Completed", NOW - timedelta(hours=3)), run(2, "Failed", NOW - timedelta(hours=1))])
    verdict = judge(e, NOW)
    assert verdict.lag_seconds == 3 * 3600
    assert verdict.state is HealthState.FAILING
    assert judge(export([run(1, "Completed", NOW - timedelta(hours=3))]), NOW).state is HealthState.OVERDUE
    assert judge(export([run(1, "Completed", NOW - timedelta(hours=3))]), NOW, lag_intervals=4).state \
        is HealthState.OK


def test_paused_exports_are_not_flagged_as_overdue() -> None:
    verdict = judge(export([run(1, "Completed", NOW - timedelta(hours=5))], paused=True), NOW)
    assert verdict.state is HealthState.PAUSED
    assert verdict.next_due is None


def test_no_completed_run_means_unknown_lag() -> None:
    assert judge(export([run(1, "Failed", NOW - timedelta(hours=1))]), NOW).lag_seconds is None


def test_next_run_due_after_newest_interval() -> None:
    verdict = judge(export([run(1, "Completed", NOW - timedelta(minutes=30))]), NOW)
    assert verdict.next_due == NOW + timedelta(minutes=30)


def test_latest_run_is_newest_by_creation_whatever_the_order() -> None:
    e = export([run(2, "Running", NOW), run(1, "Completed", NOW - timedelta(hours=1))])
    latest = latest_run(e)
    assert latest is not None and latest.id == "run-2"


def test_unknown_status_is_kept_raw() -> None:
    e = export([run(1, "FailedBilling", NOW), run(2, "SomethingNew", NOW + timedelta(hours=1))])
    assert latest_run(e).status == "SomethingNew"  # type: ignore[union-attr]


def test_failure_streak() -> None:
    e = export([
        run(1, "Completed", NOW - timedelta(hours=4)), run(2, "Failed", NOW - timedelta(hours=3)),
        run(3, "FailedRetryable", NOW - timedelta(hours=2)), run(4, "FailedBilling", NOW - timedelta(hours=1)),
    ])
    assert judge(e, NOW).failure_streak == 3


def snap(*exports: BatchExport) -> ExportsSnapshot:
    return ExportsSnapshot(exports=[WatchedExport("1", e) for e in exports])


def test_alerts_only_on_transitions_not_history() -> None:
    tracker = AlertTracker()
    history = export([run(1, "Failed", NOW - timedelta(hours=1))])
    assert tracker.observe(snap(history), NOW) == [], "a failure seen at start-up does not ring"
    newer = export([run(1, "Failed", NOW - timedelta(hours=1)), run(2, "FailedRetryable", NOW)])
    alerts = tracker.observe(snap(newer), NOW)
    assert [a.kind for a in alerts] == [AlertKind.RUN_FAILED]
    assert tracker.is_marked("1:e1")
    assert tracker.acknowledge("1:e1") == 1
    assert not tracker.is_marked("1:e1")
    assert tracker.observe(snap(newer), NOW) == [], "the same failed run alerts once"


def test_pause_without_operator_alerts_but_operator_pause_does_not() -> None:
    tracker = AlertTracker()
    fine = [run(1, "Completed", NOW)]
    tracker.observe(snap(export(fine)), NOW)
    alerts = tracker.observe(snap(export(fine, paused=True)), NOW)
    assert [a.kind for a in alerts] == [AlertKind.PAUSED_BY_SYSTEM]
    tracker.expect_pause_change("1:e1", False)
    assert tracker.observe(snap(export(fine, paused=False)), NOW) == []


def test_lag_crossing_threshold_alerts_once() -> None:
    tracker = AlertTracker(lag_threshold_intervals=2.0)
    e = export([run(1, "Completed", NOW - timedelta(hours=1))])
    tracker.observe(snap(e), NOW)
    later = NOW + timedelta(hours=3)
    assert [a.kind for a in tracker.observe(snap(e), later)] == [AlertKind.OVERDUE]
    assert tracker.observe(snap(e), later + timedelta(minutes=5)) == []


def test_times_that_happened_never_read_as_future_under_skew() -> None:
    """Stamps a few minutes ahead of the server-time estimate (a skew it has not caught yet) read "just now"."""
    from tui.widgets.export_cells import run_cells
    from tui.widgets.export_details import export_details_text

    ahead = (NOW + timedelta(minutes=3)).isoformat()
    e = export([run(1, "Completed", NOW - timedelta(hours=1), finished_at=ahead)], created_at=ahead,
               last_updated_at=ahead, last_paused_at=ahead, end_at=(NOW + timedelta(days=2)).isoformat())
    cells = run_cells(e.latest_runs[0], NOW)
    assert str(cells["finished"]) == "just now"
    details = export_details_text(WatchedExport("1", e), judge(e, NOW)).plain
    lines = {line[:16].strip(): line[16:] for line in details.splitlines() if len(line) > 16}
    for label in ("Created", "Updated", "Last paused"):
        assert "(just now)" in lines[label], lines[label]
    assert "(in 2 days)" in lines["End at"], "a time ahead by nature still says so"
