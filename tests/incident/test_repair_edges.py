"""Repair's boundaries: the last interval a gap may hold, a run that ends where an interval starts, the window of
a merged plan, the streak's start when backfill runs stand among the runs, and a stop that comes while the runner
waits for room in the rate budget."""

from __future__ import annotations

from datetime import timedelta

from tui.state.budget import ActionBudget
from tui.state.repair import (
    GAP_GRACE_SECONDS,
    RepairRunner,
    RetryPlan,
    RetryTarget,
    gap_ranges,
    merge_plans,
    plan_export,
    recheck,
    streak_start,
)

from .runs import HOUR, NOW, OTHER, REF, run

GRACE = timedelta(seconds=GAP_GRACE_SECONDS)


def test_an_interval_is_a_gap_once_its_grace_has_passed_to_the_second() -> None:
    start = NOW - 2 * HOUR
    at_grace = gap_ranges(REF, [], 3600, start, NOW + GRACE)
    assert [(g.start, g.end, g.intervals) for g in at_grace] == [(NOW - 2 * HOUR, NOW, 2)]
    short_of_it = gap_ranges(REF, [], 3600, start, NOW + GRACE - timedelta(seconds=1))
    assert [(g.start, g.end, g.intervals) for g in short_of_it] == [(NOW - 2 * HOUR, NOW - HOUR, 1)]


def test_a_run_that_ends_where_an_interval_starts_does_not_cover_it() -> None:
    covered_before = [run("a", 3, "Completed")]  # NOW-4h .. NOW-3h
    gaps = gap_ranges(REF, covered_before, 3600, NOW - 4 * HOUR, NOW + GRACE)
    assert [(g.start, g.end, g.intervals) for g in gaps] == [(NOW - 3 * HOUR, NOW, 3)]
    starts_there = [run("b", 2, "Failed")]  # NOW-3h .. NOW-2h: covers the interval it starts, not the one before
    gaps = gap_ranges(REF, starts_there, 3600, NOW - 4 * HOUR, NOW + GRACE)
    assert [(g.start, g.end) for g in gaps] == [(NOW - 4 * HOUR, NOW - 3 * HOUR), (NOW - 2 * HOUR, NOW)]


def test_a_merged_plan_starts_at_the_earliest_window_of_its_parts() -> None:
    older = plan_export(REF, [run("a1", 5, "Failed"), run("a2", 4, "Failed")])
    newer = plan_export(OTHER, [run("b0", 3, "Completed"), run("b1", 2, "Failed")])
    nothing = RetryPlan()
    merged = merge_plans([newer, nothing, older])
    assert older.since == NOW - 6 * HOUR and newer.since == NOW - 3 * HOUR
    assert merged.since == NOW - 6 * HOUR
    assert [(t.export.key, t.run_id) for t in merged.targets] == [("1:a", "a1"), ("1:a", "a2"), ("1:b", "b1")]
    assert merge_plans([nothing]).since is None


def test_a_backfill_run_among_the_runs_neither_extends_nor_breaks_the_streak_wrongly() -> None:
    """A backfill's runs carry an older interval and a ``backfill_id``: a completed backfill run of an old interval
    is no completion of the newest data, and sorting by interval puts it where it belongs."""
    runs = [run("c", 6, "Completed"), run("f1", 3, "Failed"), run("f2", 2, "Failed"), run("f3", 1, "Failed"),
            run("bf", 8, "Completed", created_after=5, backfill="0190aaaa-0000-7000-8000-000000000001")]
    assert streak_start(runs) == NOW - 4 * HOUR
    plan = plan_export(REF, runs)
    assert [t.run_id for t in plan.targets] == ["f1", "f2", "f3"] and plan.since == NOW - 4 * HOUR
    # A backfill completed the middle interval: the current streak is the newest interval alone, and a window
    # reaching back over the older one retries it too, leaving out the interval the backfill repaired.
    repaired = [*runs, run("bf2", 2, "Completed", created_after=3, backfill="0190aaaa-0000-7000-8000-000000000002")]
    assert streak_start(repaired) == NOW - 2 * HOUR
    assert [t.run_id for t in plan_export(REF, repaired).targets] == ["f3"]
    wider = plan_export(REF, repaired, since=NOW - 4 * HOUR)
    assert [t.run_id for t in wider.targets] == ["f1", "f3"] and wider.left_out == 1


async def test_a_stop_while_waiting_for_the_budget_sends_nothing_more() -> None:
    now = [0.0]
    runner: RepairRunner[int]

    async def sleep(seconds: float) -> None:
        runner.stop()  # the operator stops while the runner waits for room
        now[0] += seconds

    budget = ActionBudget(lambda: now[0], per_minute=1, per_hour=100, sleep=sleep)
    sent: list[int] = []

    async def send(item: int) -> None:
        sent.append(item)

    runner = RepairRunner([0, 1, 2], send, budget, in_flight=1)
    progress = await runner.run()
    assert sent == [0]
    assert progress.stopped and progress.finished
    assert progress.summary() == "1 retried, stopped: 2 not sent"


async def test_the_runner_tells_each_outcome_and_its_progress_and_counts_what_was_in_flight() -> None:
    budget = ActionBudget(lambda: 0.0, per_minute=100, per_hour=100)
    outcomes: list[tuple[int, str]] = []
    seen_progress: list[tuple[int, int]] = []

    async def send(item: int) -> None:
        if item == 2:
            raise RuntimeError("HTTP 500")

    runner = RepairRunner([0, 1, 2, 3], send, budget, skip=lambda i: "already running" if i == 1 else None,
                          on_item=lambda i, outcome: outcomes.append((i, outcome)),
                          on_progress=lambda p: seen_progress.append((p.sent, p.done)),
                          describe_error=lambda err: f"said: {err}", in_flight=1)
    progress = await runner.run()
    assert outcomes == [(0, "sent"), (1, "already running"), (2, "error: said: HTTP 500"), (3, "sent")]
    assert progress.errors == ["said: HTTP 500"] and progress.skipped == {"already running": 1}
    assert seen_progress == [(1, 1), (1, 2), (1, 3), (2, 4), (2, 4)], "after each item, and once more at the end"
    assert runner.most_in_flight == 1
    assert progress.summary("backfilled") == "2 backfilled, 1 already running, 1 failed"


def test_gaps_line_up_with_the_exports_own_runs_and_name_the_export() -> None:
    """An export whose intervals end at half past: the gaps start and end at half past too, not on the hour."""
    half = timedelta(minutes=30)
    runs = [run("a", 6, "Completed")]
    shifted = [r.model_copy(update={"data_interval_start": r.data_interval_start + half,
                                    "data_interval_end": r.data_interval_end + half}) for r in runs]
    gaps = gap_ranges(REF, shifted, 3600, NOW - 8 * HOUR, NOW + GRACE)
    assert [(g.start, g.end, g.intervals) for g in gaps] == [
        (NOW - 8 * HOUR + half, NOW - 7 * HOUR + half, 1), (NOW - 6 * HOUR + half, NOW - HOUR + half, 5)]
    assert {g.export for g in gaps} == {REF}
    assert gaps[0].describe() == "backfill export a 11-22 04:30→11-22 05:30 (1 interval)"
    assert gaps[1].describe() == "backfill export a 11-22 06:30→11-22 11:30 (5 intervals)"


def test_recheck_matches_the_interval_exactly_and_reads_the_planned_runs_own_state() -> None:
    target = RetryTarget(REF, "f", NOW - 2 * HOUR, NOW - HOUR)
    wider = run("w", 1, "Completed", created_after=2).model_copy(update={"data_interval_start": NOW - 3 * HOUR})
    assert recheck(target, [wider, run("f", 1, "Failed")]) is None, "same end, other start: another interval"
    assert recheck(target, [run("x", 3, "Completed"), run("f", 1, "Failed"),
                            run("g", 1, "Running", created_after=1)]) == "already running"
    assert recheck(target, [run("f", 1, "Running")]) is None, "the planned run itself: not someone else's attempt"
    assert recheck(target, [run("f", 1, "Failed"), run("g", 1, "Cancelled", created_after=1)]) is None
    assert recheck(target, []) is None
    assert target.describe() == "retry export a 11-22 10:00→11-22 11:00"
