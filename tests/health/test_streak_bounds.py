"""The verdict where the runs known stop inside the record: the streak and the lag as bounds ("10+", "at least"),
the reasons that say how far the runs read reach, the record that is far enough back, and a lag that is settled
only where the runs known reach back to the newest completed interval."""

from __future__ import annotations

from datetime import timedelta

from tui.api.models.batch_exports import BatchExportRun
from tui.state.health import RECORD_WINDOW, HealthState, judge, runs_newest_first, streak_record

from .test_health import HOUR, NOW, export, run

TEN_FAILED = [run(i, "Failed", NOW - i * HOUR) for i in range(1, 11)]
NO_RUNS_LIST = "; the server offers no runs list to read further"


def test_ten_failures_in_latest_runs_are_a_lower_bound_and_say_why_without_a_runs_list() -> None:
    verdict = judge(export(TEN_FAILED), NOW, runs_list=False)
    assert verdict.state is HealthState.FAILING
    assert verdict.reason == "latest run Failed, 10+ failed runs in a row" + NO_RUNS_LIST
    assert (verdict.failure_streak, verdict.failure_streak_is_lower_bound) == (10, True)
    assert (verdict.lag_seconds, verdict.lag_is_lower_bound) == (11 * 3600.0, True), "the oldest run's interval start"
    assert verdict.streak_start == NOW - 11 * HOUR and verdict.record_short
    with_list = judge(export(TEN_FAILED), NOW)
    assert with_list.reason == "latest run Failed, 10+ failed runs in a row", "a runs list can still be read"


def test_nine_failures_are_the_whole_record_and_no_bound() -> None:
    verdict = judge(export(TEN_FAILED[:9]), NOW, runs_list=False)
    assert verdict.reason == "latest run Failed, 9 failed runs in a row"
    assert (verdict.failure_streak, verdict.failure_streak_is_lower_bound, verdict.lag_is_lower_bound) == (9, False,
                                                                                                          False)
    assert verdict.lag_seconds is None and not verdict.record_short
    assert verdict.streak_start == NOW - 10 * HOUR
    one = judge(export(TEN_FAILED[:1]), NOW)
    assert one.reason == "latest run Failed" and one.failure_streak == 1, "one failure is no streak to count"


def test_overdue_reasons_say_how_far_the_runs_known_reach() -> None:
    waiting = [run(i, "Running" if i == 1 else "Cancelled", NOW - i * HOUR) for i in range(1, 11)]
    latest = judge(export(waiting), NOW)
    assert latest.state is HealthState.OVERDUE
    assert latest.reason == ("no completed run among the 10 latest runs: 11h at least, allowed 2h10m"
                             " (a run is in progress)")
    read = judge(export(waiting), NOW, runs=[], read_since=NOW - 20 * HOUR)
    assert read.reason == "no completed run in the 20h of runs read, allowed 2h10m (a run is in progress)"
    assert read.lag_seconds == 20 * 3600.0 and read.lag_is_lower_bound and read.record_short
    unlisted = judge(export(waiting), NOW, read_since=NOW - 20 * HOUR, runs_list=False)
    assert unlisted.reason.startswith("no completed run among the 10 latest runs: 20h at least")
    assert unlisted.reason.endswith(NO_RUNS_LIST)


def test_a_record_read_back_almost_the_whole_window_is_far_enough() -> None:
    waiting = [run(i, "Running" if i == 1 else "Cancelled", NOW - i * HOUR) for i in range(1, 11)]
    far = NOW - (RECORD_WINDOW - HOUR)
    assert not judge(export(waiting), NOW, read_since=far).record_short
    assert judge(export(waiting), NOW, read_since=far + timedelta(seconds=1)).record_short


def test_the_lag_is_settled_only_where_the_runs_known_reach_the_newest_completed_interval() -> None:
    """A bulk repair's retries fill latest_runs with runs created now: the newest completed run may be beyond."""
    retries = [run(20 + i, "Running", NOW - (i + 5) * HOUR, created_at=(NOW - timedelta(minutes=i)).isoformat())
               for i in range(10)]
    done = BatchExportRun.model_validate(run(1, "Completed", NOW - 2 * HOUR))  # known from the run store
    beyond = judge(export(retries), NOW, runs=[done])
    assert beyond.lag_seconds == 2 * 3600.0 and beyond.record_short, "latest_runs made after it: one may be newer"
    settled = judge(export(retries), NOW, runs=[done], read_since=NOW - 2 * HOUR - timedelta(minutes=59))
    assert not settled.record_short, "the runs list reaches back to within one interval of it"
    unsettled = judge(export(retries), NOW, runs=[done], read_since=NOW - HOUR)
    assert unsettled.record_short
    inside = judge(export([*retries[:9], run(1, "Completed", NOW - 2 * HOUR)]), NOW)
    assert not inside.record_short, "the completed run is among latest_runs: nothing newer is missing"


def test_the_streak_record_reads_its_start_its_end_and_its_bound() -> None:
    runs = runs_newest_first(BatchExportRun.model_validate(r) for r in (
        *(run(i, "Failed", NOW - i * HOUR) for i in (1, 2, 4)), run(3, "Cancelled", NOW - 3 * HOUR),
        run(5, "Completed", NOW - 5 * HOUR)))
    record = streak_record(runs, whole_record=False, read_since=None)
    assert (record.count, record.start, record.whole, record.behind_since) == (3, NOW - 5 * HOUR, True, None)
    assert record.ender_created == NOW - 5 * HOUR + timedelta(seconds=30)
    read_after = streak_record(runs, whole_record=False, read_since=NOW - 4 * HOUR)
    assert not read_after.whole and read_after.count_is_lower_bound, "the run that ended it predates the read"
    failing_only = runs_newest_first(BatchExportRun.model_validate(run(i, "Failed", NOW - i * HOUR)) for i in (1, 2))
    bound = streak_record(failing_only, whole_record=False, read_since=NOW - 10 * HOUR)
    assert (bound.count, bound.whole, bound.behind_since) == (2, False, NOW - 10 * HOUR)
    assert streak_record(failing_only, whole_record=True, read_since=None).behind_since is None
    nothing = streak_record([], whole_record=False, read_since=None)
    assert (nothing.count, nothing.start, nothing.behind_since, nothing.count_is_lower_bound) == (0, None, None, False)


def test_the_ends_of_the_schedule_are_exact() -> None:
    done = [run(1, "Completed", NOW - 20 * 60 * timedelta(seconds=1))]
    assert judge(export(done, end_at=NOW.isoformat()), NOW).state is HealthState.ENDED
    assert judge(export(done, end_at=(NOW + timedelta(seconds=1)).isoformat()), NOW).state is HealthState.OK
    starting = judge(export([], start_at=NOW.isoformat()), NOW)
    assert (starting.state, starting.reason) == (HealthState.NO_RUNS, "no runs yet"), "it starts now: not later"
    assert judge(export([], start_at=(NOW + HOUR).isoformat()), NOW).reason == "no runs yet: starts in 1h"
    at_limit = [run(1, "Completed", NOW - timedelta(hours=2, minutes=10))]
    assert judge(export(at_limit), NOW).state is HealthState.OK, "exactly the allowed lag is not over it"
    over = [run(1, "Completed", NOW - timedelta(hours=2, minutes=10, seconds=1))]
    assert judge(export(over), NOW).state is HealthState.OVERDUE
