"""How the verdict reads an export's record where the runs carry less than usual: stamps missing, no
``latest_runs`` but a runs list, a runs list read back to the export's beginning, the ender of a streak that is no
Completed run; and the reason's own words (two failures, a paused export's failure without a time, a cancelled
run with and without a lag, a run without a status). Each pins a figure a slip would get plausibly wrong."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tui.api.models.batch_exports import BatchExportRun
from tui.state.health import (
    HealthState,
    _lag_settled,
    due_anchor,
    export_streak,
    failure_streak,
    incomplete_reason_of_run,
    judge,
    latest_run,
    run_activity_time,
    run_created,
    runs_newest_first,
    span,
    streak_record,
    unmatched_targets_warning,
    whole_record,
)

from .test_health import HOUR, NOW, export, run

MINUTE = timedelta(minutes=1)


def bare(run_id: str, status: str = "Failed", **fields: Any) -> BatchExportRun:
    """A run carrying only the stamps (and fields) named."""
    return BatchExportRun(id=run_id, status=status, **fields)


def hourly(count: int, status: str = "Failed", first: int = 1) -> list[dict[str, Any]]:
    return [run(i, status, NOW - i * HOUR) for i in range(first, first + count)]


# --------------------------------------------------------------------------- stamps


def test_a_runs_creation_falls_back_in_order_and_its_activity_is_its_finish_first() -> None:
    assert run_created(bare("a", finished_at=NOW - HOUR, data_interval_end=NOW - 2 * HOUR)) == NOW - HOUR
    assert run_created(bare("b", last_updated_at=NOW - HOUR, finished_at=NOW - 2 * HOUR)) == NOW - HOUR
    assert run_created(bare("c", data_interval_end=NOW - 2 * HOUR)) == NOW - 2 * HOUR
    assert run_created(bare("d")) is None
    both = bare("e", finished_at=NOW - HOUR, last_updated_at=NOW - 2 * HOUR, created_at=NOW - 3 * HOUR)
    assert run_activity_time(both) == NOW - HOUR
    assert run_activity_time(bare("f", last_updated_at=NOW - 2 * HOUR, created_at=NOW - 3 * HOUR)) == NOW - 2 * HOUR


def test_runs_created_together_order_by_interval_end_and_a_run_without_stamps_is_oldest() -> None:
    created = NOW - MINUTE
    early = bare("z-early", data_interval_end=NOW - 2 * HOUR, created_at=created)
    late = bare("a-late", data_interval_end=NOW - HOUR, created_at=created)
    stampless = bare("m")
    assert [r.id for r in runs_newest_first([stampless, early, late])] == ["a-late", "z-early", "m"]
    assert latest_run([]) is None and latest_run([stampless]) is stampless


# --------------------------------------------------------------------------- the streak and the lag as bounds


def test_the_streak_starts_at_its_oldest_interval_and_skips_a_failed_run_without_one() -> None:
    with_interval = bare("a", data_interval_start=NOW - 2 * HOUR, data_interval_end=NOW - HOUR, created_at=NOW)
    without = bare("b", created_at=NOW - 2 * HOUR)
    record = streak_record([with_interval, without], whole_record=True, read_since=None)
    assert (record.count, record.start) == (2, NOW - 2 * HOUR)


def test_behind_since_is_the_oldest_runs_interval_start_else_its_end_else_its_creation() -> None:
    end_only = bare("a", data_interval_end=NOW - 3 * HOUR, created_at=NOW - HOUR)
    assert streak_record([end_only], whole_record=False, read_since=None).behind_since == NOW - 3 * HOUR
    created_only = bare("b", created_at=NOW - 4 * HOUR)
    assert streak_record([created_only], whole_record=False, read_since=None).behind_since == NOW - 4 * HOUR
    assert streak_record([created_only], whole_record=False,
                         read_since=NOW - 5 * HOUR).behind_since == NOW - 5 * HOUR, "read from further back"
    assert streak_record([bare("c")], whole_record=False, read_since=None).behind_since is None


def test_the_record_is_whole_when_the_runs_list_was_read_from_the_exports_start_to_the_second() -> None:
    full = export(hourly(10), start_at=(NOW - 20 * HOUR).isoformat())  # created 30 days ago, started 20 hours ago
    assert whole_record(full, NOW - 20 * HOUR, True)
    assert not whole_record(full, NOW - 20 * HOUR + timedelta(seconds=1), True)
    assert whole_record(full, NOW - 25 * HOUR, True), "from before its start (its creation is older still)"
    assert not whole_record(full, None, True)
    none_latest = export([])
    assert not whole_record(none_latest, None, True), "no latest_runs but a runs list: the server gave none"
    assert whole_record(none_latest, None, False)


def test_a_runs_list_read_back_to_the_exports_creation_makes_the_streak_whole() -> None:
    item = export(hourly(10))
    older = [BatchExportRun.model_validate(r) for r in hourly(3, first=11)]
    verdict = judge(item, NOW, runs=older, read_since=item.created_at)
    assert verdict.reason == "latest run Failed, 13 failed runs in a row"
    assert (verdict.failure_streak, verdict.failure_streak_is_lower_bound) == (13, False)
    short_of_it = judge(item, NOW, runs=older, read_since=NOW - 13 * HOUR)
    assert short_of_it.reason == "latest run Failed, 13+ failed runs in a row"


def test_runs_from_the_list_without_latest_runs_are_no_whole_record() -> None:
    """A server that gives no ``latest_runs``: what the runs list shows stops somewhere, so the streak is a bound."""
    runs = [BatchExportRun.model_validate(r) for r in hourly(3)]
    verdict = judge(export([]), NOW, runs=runs)
    assert verdict.reason == "latest run Failed, 3+ failed runs in a row"
    assert verdict.failure_streak_is_lower_bound


def test_a_completed_run_known_only_from_the_runs_list_settles_the_lag() -> None:
    done = BatchExportRun.model_validate(run(1, "Completed", NOW - 20 * MINUTE))
    verdict = judge(export([]), NOW, runs=[done])
    assert (verdict.state, verdict.reason, verdict.record_short) == (HealthState.OK, "data 20m behind", False)
    assert verdict.last_completed_end == NOW - 20 * MINUTE


def test_a_streak_ended_by_a_run_of_unknown_status_without_completed_data_needs_the_record() -> None:
    runs = [run(1, "Failed", NOW - HOUR), run(2, "SomethingNew", NOW - 2 * HOUR), *hourly(8, first=3)]
    verdict = judge(export(runs), NOW)
    assert verdict.failure_streak == 1 and not verdict.failure_streak_is_lower_bound
    assert verdict.record_short, "no Completed run among the runs known: the lag needs the runs list"


def test_the_lag_is_settled_only_where_the_runs_known_reach_within_one_interval_of_it() -> None:
    done_end = NOW - 5 * HOUR
    item = export([])
    assert _lag_settled(done_end, item, done_end + HOUR - timedelta(seconds=1), 3600)
    assert not _lag_settled(done_end, item, done_end + HOUR, 3600)
    assert _lag_settled(done_end, item, done_end + timedelta(seconds=0.5), None), "no interval: one second"
    assert not _lag_settled(done_end, item, done_end + timedelta(seconds=1), None)
    assert _lag_settled(done_end, item, None, 3600), "nothing says a run is missing"


def test_export_streak_reads_latest_runs_and_the_history_as_the_verdict_does() -> None:
    item = export(hourly(10))
    history = [BatchExportRun.model_validate(r) for r in [*hourly(2, first=11), run(13, "Completed", NOW - 13 * HOUR)]]
    alone = export_streak(item)
    assert (alone.count, alone.whole, alone.start) == (10, False, NOW - 11 * HOUR)
    assert alone.behind_since == NOW - 11 * HOUR
    read = export_streak(item, history, NOW - 14 * HOUR)
    assert (read.count, read.whole, read.start, read.behind_since) == (12, True, NOW - 13 * HOUR, None)
    assert read.ender_created == NOW - 13 * HOUR + timedelta(seconds=30)
    assert export_streak(export(hourly(3))).whole, "fewer than ten latest runs: the whole record"
    assert not export_streak(export([]), history[:2]).whole, "a runs list alone, without latest_runs: not the whole"
    from_creation = export_streak(item, history[:2], item.created_at)
    assert (from_creation.count, from_creation.whole) == (12, True), "read back to the export's creation"
    lone_completed = export_streak(item, history, NOW - 12.5 * HOUR)
    assert (lone_completed.count, lone_completed.whole) == (12, False), (
        "the Completed run was created before the runs read: runs between may be missing")
    assert failure_streak(runs_newest_first(export(hourly(10)).latest_runs)) == 10, "all of them: the streak whole"
    mixed = export([run(1, "Failed", NOW - HOUR), run(2, "Running", NOW - 2 * HOUR), run(3, "Cancelled",
                    NOW - 3 * HOUR), run(4, "Failed", NOW - 4 * HOUR), run(5, "Completed", NOW - 5 * HOUR),
                    run(6, "Failed", NOW - 6 * HOUR)])
    assert failure_streak(runs_newest_first(mixed.latest_runs)) == 2
    assert failure_streak([]) == 0


# --------------------------------------------------------------------------- the schedule


def test_the_schedule_moves_with_scheduled_runs_only() -> None:
    scheduled = bare("s", "Completed", data_interval_end=NOW - HOUR)
    backfill = bare("b", "Completed", data_interval_end=NOW + HOUR, backfill="bf")
    assert due_anchor([scheduled, backfill], 3600) == NOW
    assert due_anchor([bare("x", "Running")], 3600) is None, "a run without an interval anchors nothing"
    assert due_anchor([scheduled], None) is None


# --------------------------------------------------------------------------- the reason's words


def test_two_failures_are_counted_in_the_reason() -> None:
    verdict = judge(export(hourly(2)), NOW)
    assert verdict.reason == "latest run Failed, 2 failed runs in a row"


def test_a_paused_exports_failed_run_without_a_time_says_no_time() -> None:
    failed = {"id": "run-1", "status": "Failed"}
    verdict = judge(export([failed], paused=True), NOW)
    assert verdict.reason == "paused: no runs are scheduled; the last run failed (Failed)"


def test_a_cancelled_latest_run_says_the_lag_where_there_is_one() -> None:
    with_lag = judge(export([run(1, "Completed", NOW - 2 * HOUR), run(2, "Cancelled", NOW - HOUR)]), NOW)
    assert with_lag.reason == (f"latest run Cancelled (counted as cancelled, as the service does); data {span(7200.0)}"
                               " behind")
    young = {"created_at": (NOW - 30 * MINUTE).isoformat()}
    alone = judge(export([run(1, "Cancelled", NOW - 10 * MINUTE)], **young), NOW)
    assert (alone.state, alone.lag_seconds) == (HealthState.OK, None)
    assert alone.reason == "latest run Cancelled (counted as cancelled, as the service does)"


def test_a_completed_run_without_an_interval_says_so_without_a_lag() -> None:
    young = {"created_at": (NOW - 30 * MINUTE).isoformat()}
    verdict = judge(export([{"id": "run-1", "status": "Completed", "created_at": NOW.isoformat()}], **young), NOW)
    assert (verdict.state, verdict.reason, verdict.lag_seconds) == (HealthState.OK, "latest run completed", None)


def test_a_run_without_a_status_is_named_so() -> None:
    verdict = judge(export([{"id": "run-1", "status": "", "created_at": NOW.isoformat()}],
                           created_at=(NOW - 30 * MINUTE).isoformat()), NOW)
    assert verdict.state is HealthState.UNKNOWN_STATUS
    assert verdict.reason == "latest run without a status, a status this version does not know"


def test_the_verdict_carries_its_rule_and_the_newest_completed_end() -> None:
    item = export([run(1, "Completed", NOW - 20 * MINUTE)])
    by_intervals = judge(item, NOW)
    assert by_intervals.rule == "2 intervals + 10m grace (2h10m)"
    assert by_intervals.last_completed_end == NOW - 20 * MINUTE
    assert judge(item, NOW, target_seconds=1800.0).rule == "freshness target 30m"
    unknown = judge(export([run(1, "Completed", NOW - 20 * MINUTE)], interval="sometimes"), NOW)
    assert unknown.rule == "interval unknown: no overdue rule"


# --------------------------------------------------------------------------- what cannot be judged


def test_a_run_without_an_id_or_a_status_is_named_and_left_out() -> None:
    assert incomplete_reason_of_run(BatchExportRun(id="r1", status="Failed")) is None
    assert incomplete_reason_of_run(BatchExportRun(id="r1")) == "run r1 missing status"
    assert incomplete_reason_of_run(BatchExportRun(id="")) == "run ? missing id, status"
    assert incomplete_reason_of_run(BatchExportRun(id="", status="Failed")) == "run ? missing id"


def test_targets_naming_no_watched_export_are_one_warning_in_the_right_number() -> None:
    watched = [export([])]  # id "e1", name "Events to S3"
    assert unmatched_targets_warning(None, watched) is None
    assert unmatched_targets_warning({"e1": 60.0, "Events to S3": 60.0}, watched) is None
    assert unmatched_targets_warning({"e2": 60.0}, watched) == (
        "freshness target for 'e2' names no watched export (by id or name): check the profile's [freshness] table")
    assert unmatched_targets_warning({"e1": 60.0, "x": 1.0, "y": 2.0}, watched) == (
        "freshness targets for 'x', 'y' name no watched export (by id or name): check the profile's [freshness] "
        "table")
    assert unmatched_targets_warning({"e9": 1.0}, []) is not None

