"""The verdict on one export: every state, and the edges between them (ended, paused, skew, no runs, unknown)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tui.api.models.batch_exports import BatchExport, RunStatus
from tui.state.health import (
    CANCELLED_GROUP,
    FAILED_GROUP,
    HealthState,
    incomplete_reason,
    judge,
    latest_run,
    missing_fields,
    runs_newest_first,
    span,
    status_group,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def run(i: int, status: str, end: datetime, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"run-{i}", "status": status, "data_interval_start": (end - HOUR).isoformat(),
        "data_interval_end": end.isoformat(), "created_at": (end + timedelta(seconds=30)).isoformat(), **extra,
    }


def export(runs: list[dict[str, Any]], **extra: Any) -> BatchExport:
    return BatchExport.model_validate({
        "id": "e1", "name": "Events to S3", "interval": "hour", "paused": False,
        "destination": {"type": "S3", "config": {}}, "created_at": (NOW - timedelta(days=30)).isoformat(),
        "latest_runs": runs, **extra,
    })


# --------------------------------------------------------------------------- every state


def test_ok_when_the_newest_interval_completed() -> None:
    v = judge(export([run(1, "Completed", NOW - timedelta(minutes=20))]), NOW)
    assert v.state is HealthState.OK
    assert not v.unhealthy
    assert v.lag_seconds == 20 * 60
    assert v.reason == "data 20m behind"
    assert v.next_due == NOW + timedelta(minutes=40)


def test_running_when_the_latest_run_is_in_progress() -> None:
    e = export([run(1, "Completed", NOW - HOUR), run(2, "Running", NOW)])
    v = judge(e, NOW)
    assert v.state is HealthState.RUNNING
    assert v.latest_run is not None and v.latest_run.id == "run-2"
    assert v.reason == "latest run Running"


@pytest.mark.parametrize("status", ["Failed", "FailedRetryable", "FailedBilling"])
def test_failed_group_follows_the_service(status: str) -> None:
    v = judge(export([run(1, "Completed", NOW - 2 * HOUR), run(2, status, NOW - HOUR)]), NOW)
    assert v.state is HealthState.FAILING
    assert v.unhealthy
    assert v.reason == f"latest run {status}"
    assert status_group(status) == "failed"


@pytest.mark.parametrize("status", ["TimedOut", "Terminated", "Cancelled"])
def test_timed_out_and_terminated_go_with_cancelled_not_failed(status: str) -> None:
    v = judge(export([run(1, "Completed", NOW - 2 * HOUR), run(2, status, NOW - HOUR)]), NOW)
    assert v.state is HealthState.OK
    assert "counted as cancelled" in v.reason
    assert status_group(status) == "cancelled"


def test_runs_that_keep_timing_out_end_up_overdue() -> None:
    runs = [run(1, "Completed", NOW - 4 * HOUR)] + [run(i, "TimedOut", NOW - i * HOUR) for i in (3, 2, 1)]
    v = judge(export(runs), NOW)
    assert v.state is HealthState.OVERDUE
    assert v.reason == "no completed data for 4h, allowed 2h10m"


def test_overdue_reason_in_words_and_numbers() -> None:
    e = export([run(1, "Completed", NOW - timedelta(hours=2, minutes=54))])
    v = judge(e, NOW)
    assert v.state is HealthState.OVERDUE
    assert v.reason == "no completed data for 2h54m, allowed 2h10m"
    assert v.allowed_lag_seconds == 2 * 3600 + 600


@pytest.mark.parametrize(("behind", "target", "reason"), [
    (timedelta(seconds=655), 600.0, "no completed data for 11m, target 10m"),
    (timedelta(minutes=10, seconds=1), 600.0, "no completed data for 11m, target 10m"),
    (timedelta(hours=2, minutes=10, seconds=30), None, "no completed data for 2h11m, allowed 2h10m"),
    (timedelta(days=1, minutes=20), 86400.0, "no completed data for 1d01h, target 1d"),
    (timedelta(seconds=45), 30.0, "no completed data for 1m, target 30s"),
])
def test_a_breach_never_reads_as_the_limit(behind: timedelta, target: float | None, reason: str) -> None:
    """At minute resolution (the hour past a day) a breach rounds up: 655 s over a 10-minute target is 11m."""
    v = judge(export([run(1, "Completed", NOW - behind)]), NOW, target_seconds=target)
    assert v.state is HealthState.OVERDUE
    assert v.reason == reason


def test_grace_is_part_of_the_allowance() -> None:
    e = export([run(1, "Completed", NOW - timedelta(hours=2, minutes=5))])
    assert judge(e, NOW).state is HealthState.OK
    assert judge(e, NOW, grace_seconds=0).state is HealthState.OVERDUE
    assert judge(e, NOW, lag_intervals=3, grace_seconds=0).state is HealthState.OK


def test_overdue_beats_a_run_in_progress() -> None:
    e = export([run(1, "Completed", NOW - 5 * HOUR), run(2, "Running", NOW)])
    v = judge(e, NOW)
    assert v.state is HealthState.OVERDUE
    assert v.reason.endswith("(a run is in progress)")


def test_paused_is_never_overdue() -> None:
    e = export([run(1, "Completed", NOW - timedelta(days=3))], paused=True,
               last_paused_at=(NOW - timedelta(days=3)).isoformat())
    v = judge(e, NOW)
    assert v.state is HealthState.PAUSED
    assert v.reason == "paused for 3d: no runs are scheduled"
    assert v.next_due is None
    assert not v.unhealthy


def test_paused_export_whose_last_run_failed_is_paused_and_says_so() -> None:
    """Pausing is how an operator quiets an export: paused wins, and the reason keeps the failure in view."""
    e = export([run(i, "Failed", NOW - i * HOUR) for i in (3, 2, 1)], paused=True)
    v = judge(e, NOW)
    assert v.state is HealthState.PAUSED and not v.unhealthy
    assert v.failure_streak == 3
    assert v.reason == "paused: no runs are scheduled; the last run failed 59m ago (Failed, 3 failed runs in a row)"


def test_ended_is_never_overdue() -> None:
    e = export([run(1, "Completed", NOW - timedelta(days=2))], end_at=(NOW - timedelta(days=2)).isoformat())
    v = judge(e, NOW)
    assert v.state is HealthState.ENDED
    assert v.reason == "ended 2d ago: no runs are scheduled"
    assert v.next_due is None
    assert not v.unhealthy


def test_end_at_in_the_future_is_not_ended() -> None:
    e = export([run(1, "Completed", NOW - timedelta(days=2))], end_at=(NOW + HOUR).isoformat())
    assert judge(e, NOW).state is HealthState.OVERDUE


def test_no_runs_on_a_new_export() -> None:
    e = export([], created_at=(NOW - timedelta(minutes=30)).isoformat())
    v = judge(e, NOW)
    assert v.state is HealthState.NO_RUNS
    assert v.latest_run is None
    assert v.lag_seconds is None
    assert v.reason == "no runs yet"


def test_no_runs_for_days_is_overdue() -> None:
    e = export([], created_at=(NOW - timedelta(days=3)).isoformat())
    v = judge(e, NOW)
    assert v.state is HealthState.OVERDUE
    assert v.reason == "no completed run 3d after it started, allowed 2h10m"


def test_not_started_yet_is_never_overdue() -> None:
    e = export([], created_at=(NOW - timedelta(days=3)).isoformat(), start_at=(NOW + 2 * HOUR).isoformat())
    v = judge(e, NOW)
    assert v.state is HealthState.NO_RUNS
    assert v.reason == "no runs yet: starts in 2h"


def test_unknown_status_is_named_not_hidden() -> None:
    e = export([run(1, "Completed", NOW - 2 * HOUR), run(2, "SomethingNew", NOW - HOUR)])
    v = judge(e, NOW)
    assert v.state is HealthState.UNKNOWN_STATUS
    assert v.reason == "latest run SomethingNew, a status this version does not know"
    assert status_group("SomethingNew") == "unknown"


def test_unknown_status_long_behind_is_overdue() -> None:
    e = export([run(1, "Completed", NOW - 9 * HOUR), run(2, "SomethingNew", NOW - HOUR)])
    assert judge(e, NOW).state is HealthState.OVERDUE


def test_unknown_interval_is_never_overdue() -> None:
    e = export([run(1, "Completed", NOW - timedelta(days=9))], interval="every fortnight")
    v = judge(e, NOW)
    assert v.state is HealthState.OK
    assert v.allowed_lag_seconds is None
    assert v.next_due is None


# --------------------------------------------------------------------------- server time and skew


def test_server_ahead_of_us_never_gives_a_negative_lag_or_age() -> None:
    """Our clock 15 minutes behind the server's: the run finished "in the future" by ours."""
    e = export([run(1, "Completed", NOW, finished_at=(NOW + timedelta(minutes=5)).isoformat())])
    ours = NOW - timedelta(minutes=15)
    v = judge(e, ours)
    assert v.lag_seconds == 0.0
    assert v.latest_age_seconds == 0.0
    assert v.state is HealthState.OK


def test_judged_on_server_time_an_outage_is_not_hidden_by_skew() -> None:
    """A server 3 hours ahead of us: on our clock the export looks fresh; on the server's it is overdue."""
    server_now = NOW + 3 * HOUR
    e = export([run(1, "Completed", NOW)])
    assert judge(e, NOW).state is HealthState.OK
    v = judge(e, server_now)
    assert v.state is HealthState.OVERDUE
    assert v.lag_seconds == 3 * 3600


def test_server_behind_us_does_not_make_a_fresh_export_overdue() -> None:
    server_now = NOW - 3 * HOUR
    e = export([run(1, "Completed", server_now - timedelta(minutes=10))])
    assert judge(e, NOW).state is HealthState.OVERDUE  # what our own clock would wrongly say
    assert judge(e, server_now).state is HealthState.OK


# --------------------------------------------------------------------------- the latest run and streaks


def test_one_ordering_creation_first() -> None:
    """A retry of an old interval, created last, is the latest run."""
    old = run(1, "Running", NOW - 5 * HOUR, created_at=(NOW - timedelta(minutes=1)).isoformat())
    newer_interval = run(2, "Completed", NOW - HOUR)
    e = export([newer_interval, old])
    latest = latest_run(e.latest_runs)
    assert latest is not None and latest.id == "run-1"


def test_runs_without_created_at_fall_back_to_other_times() -> None:
    a = run(1, "Completed", NOW - 2 * HOUR, created_at=None, last_updated_at=(NOW - 2 * HOUR).isoformat())
    b = run(2, "Failed", NOW - HOUR, created_at=None)
    ordered = runs_newest_first(export([a, b]).latest_runs)
    assert [r.id for r in ordered] == ["run-2", "run-1"]


def test_extra_runs_merge_by_id() -> None:
    e = export([run(1, "Completed", NOW - 5 * HOUR)])
    extra = BatchExport.model_validate({"id": "x", "latest_runs": [
        run(1, "Completed", NOW - 5 * HOUR), run(2, "Completed", NOW - timedelta(minutes=10))]}).latest_runs
    v = judge(e, NOW, runs=extra)
    assert v.state is HealthState.OK
    assert v.lag_seconds == 600


def test_failure_streak_skips_running_and_cancelled_and_stops_at_completed() -> None:
    runs = [run(1, "Completed", NOW - 6 * HOUR), run(2, "Failed", NOW - 5 * HOUR), run(3, "TimedOut", NOW - 4 * HOUR),
            run(4, "FailedRetryable", NOW - 3 * HOUR), run(5, "FailedBilling", NOW - 2 * HOUR),
            run(6, "Failed", NOW - HOUR)]
    assert judge(export(runs), NOW).failure_streak == 4


def test_groups_cover_every_known_status() -> None:
    grouped = {status_group(s) for s in RunStatus}
    assert "unknown" not in grouped
    assert FAILED_GROUP.isdisjoint(CANCELLED_GROUP)


def test_span_words() -> None:
    assert [span(s) for s in (5, 300, 10440, 3 * 86400 + 4 * 3600, -5)] == ["<1m", "5m", "2h54m", "3d04h", "<1m"]


# --------------------------------------------------------------------------- incomplete answers


def test_an_export_with_only_an_id_is_incomplete() -> None:
    bare = BatchExport.model_validate({"id": "e9"})
    assert missing_fields(bare) == ["name", "interval", "paused"]
    assert incomplete_reason(bare) == "export e9: missing name, interval, paused"


def test_a_run_without_status_makes_its_export_incomplete() -> None:
    e = export([{"id": "r1", "data_interval_end": NOW.isoformat()}])
    assert incomplete_reason(e) == "export e1: run r1 missing status"


def test_a_complete_export_is_complete() -> None:
    assert incomplete_reason(export([run(1, "Completed", NOW)])) is None


def test_every_view_uses_the_one_failed_group_and_the_one_ordering() -> None:
    """The incident views, the run list and the monitor's run cache order and group runs as the verdicts do."""
    import tui.api.models as models
    from tui.state import intervals, run_list, timeline
    from tui.state.export_board import ExportBoard
    from tui.state.exports import ExportsSnapshot, WatchedExport

    assert run_list.FAILED_GROUP is FAILED_GROUP and timeline.FAILED_GROUP is FAILED_GROUP
    assert "FAILED_GROUP" not in vars(intervals) and not hasattr(models, "FAILED_STATUSES")
    # Two attempts of one interval, the retry without created_at: its other times make it the newer one.
    first = run(1, "Failed", NOW - HOUR)
    retry = run(2, "Completed", NOW - HOUR, created_at=None, last_updated_at=(NOW - timedelta(minutes=5)).isoformat())
    runs = export([first, retry]).latest_runs
    assert latest_run(runs) is not None and latest_run(runs).id == "run-2"  # type: ignore[union-attr]
    assert [a.latest.id for a in intervals.by_interval(runs)] == ["run-2"]
    board = ExportBoard()
    watched = WatchedExport("1", export([]))
    board.apply_snapshot(ExportsSnapshot(exports=[watched]), NOW)
    board.store_runs(watched.key, list(runs))
    assert [r.id for r in board.runs_for(watched.key)] == [r.id for r in runs_newest_first(runs)] == ["run-2", "run-1"]
