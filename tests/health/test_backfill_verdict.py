"""The verdict with backfill runs among the runs: a backfill of an old interval is the newest thing that happened,
but it neither moves the schedule nor makes old data new."""

from __future__ import annotations

from datetime import timedelta

from tui.state.health import HealthState, judge

from .test_health import HOUR, NOW, export, run

SCHEDULED = [run(1, "Completed", NOW - 4 * HOUR), run(2, "Failed", NOW - 3 * HOUR), run(3, "Failed", NOW - 2 * HOUR),
             run(4, "Failed", NOW - HOUR)]
JUST_NOW = (NOW - timedelta(minutes=5)).isoformat()


def test_without_a_backfill_the_export_is_failing() -> None:
    verdict = judge(export(SCHEDULED), NOW)
    assert (verdict.state, verdict.failure_streak, verdict.lag_seconds) == (HealthState.FAILING, 3, 4 * 3600.0)
    assert verdict.next_due == NOW


def test_a_completed_backfill_of_an_old_interval_leaves_the_data_as_old_and_the_schedule_as_it_was() -> None:
    backfill = run(9, "Completed", NOW - 10 * HOUR, backfill="b1", created_at=JUST_NOW)
    verdict = judge(export([*SCHEDULED, backfill]), NOW)
    assert verdict.latest_run is not None and verdict.latest_run.id == "run-9"
    assert verdict.state is HealthState.OVERDUE and verdict.unhealthy
    assert verdict.lag_seconds == 4 * 3600.0, "the newest completed interval is still four hours old"
    assert verdict.reason == "no completed data for 4h, allowed 2h10m"
    assert verdict.next_due == NOW, "backfills do not move the schedule"


def test_a_running_backfill_says_a_run_is_in_progress_and_keeps_the_streak() -> None:
    backfill = run(9, "Running", NOW - 10 * HOUR, backfill="b1", created_at=JUST_NOW)
    verdict = judge(export([*SCHEDULED, backfill]), NOW)
    assert verdict.state is HealthState.OVERDUE and verdict.failure_streak == 3
    assert verdict.reason == "no completed data for 4h, allowed 2h10m (a run is in progress)"


def test_a_backfill_that_completes_the_newest_interval_makes_the_export_ok() -> None:
    late = run(8, "Completed", NOW - HOUR, backfill="b2", created_at=JUST_NOW)
    verdict = judge(export([*SCHEDULED, late]), NOW)
    assert (verdict.state, verdict.lag_seconds, verdict.failure_streak) == (HealthState.OK, 3600.0, 0)
    assert verdict.next_due == NOW
