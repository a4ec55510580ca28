"""Lag, due time, failure streaks and alerts, computed from exports as the server sends them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tui.api.models.batch_exports import BatchExport
from tui.state.alert_book import AlertBook, AlertChanges, AlertKind
from tui.state.exports import ExportsSnapshot, WatchedExport, latest_run
from tui.state.health import HealthState, judge
from tui.state.incident import IncidentDesk

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


def observe(desk: IncidentDesk, e: BatchExport, now: datetime) -> AlertChanges:
    exports = snap(e).exports
    return desk.observe(exports, {w.key: judge(w.export, now) for w in exports}, now)


def test_alerts_only_on_transitions_not_history() -> None:
    desk = IncidentDesk(AlertBook())
    history = export([run(1, "Failed", NOW - timedelta(hours=1))])
    (first,) = observe(desk, history, NOW).opened
    assert not first.new, "a failure seen at start-up is listed but does not ring"
    assert desk.book.acknowledge_export("1:e1", NOW) == 1
    newer = export([run(1, "Failed", NOW - timedelta(hours=1)), run(2, "FailedRetryable", NOW)])
    changes = observe(desk, newer, NOW)
    assert changes.opened == [] and changes.updated == [], "another failed run is the same episode"
    assert not desk.book.is_marked("1:e1"), "the acknowledgement holds for the episode"
    assert first.detail == "2 failed runs in a row"


def test_pause_without_operator_alerts_but_operator_pause_does_not() -> None:
    desk = IncidentDesk(AlertBook())
    fine = [run(1, "Completed", NOW)]
    observe(desk, export(fine), NOW)
    assert [a.kind for a in observe(desk, export(fine, paused=True), NOW).opened] == [AlertKind.AUTO_PAUSED]
    desk.book.expect_pause_change("1:e1", False)
    assert observe(desk, export(fine, paused=False), NOW).opened == []


def test_lag_crossing_threshold_alerts_once() -> None:
    desk = IncidentDesk(AlertBook())
    e = export([run(1, "Completed", NOW - timedelta(hours=1))])
    observe(desk, e, NOW)
    later = NOW + timedelta(hours=3)
    assert [a.kind for a in observe(desk, e, later).opened] == [AlertKind.OVERDUE]
    assert observe(desk, e, later + timedelta(minutes=5)).opened == []


def test_times_that_happened_never_read_as_future_under_skew() -> None:
    """Stamps a few minutes ahead of the server-time estimate (a skew it has not caught yet) read "just now"."""
    from tui.look.export_cells import run_cells
    from tui.look.export_details import export_details_text

    ahead = (NOW + timedelta(minutes=3)).isoformat()
    e = export([run(1, "Completed", NOW - timedelta(hours=1), finished_at=ahead)], created_at=ahead,
               last_updated_at=ahead, last_paused_at=ahead, end_at=(NOW + timedelta(days=2)).isoformat())
    cells = run_cells(e.latest_runs[0], NOW)
    assert str(cells["finished"]) == "just now"
    details = export_details_text(WatchedExport("1", e), judge(e, NOW)).plain
    lines = {line[:16].strip(): line[16:] for line in details.splitlines() if len(line) > 16}
    for label in ("Created", "Updated", "Last paused"):
        assert "(just now)" in lines[label], lines[label]
    assert "(in 2d)" in lines["End at"], "a time ahead by nature still says so"
