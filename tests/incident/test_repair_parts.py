"""Repair's smaller parts, pinned exactly: a target without an interval start, the intervals a failure group's
plan leaves out, a merged plan's count of them, gaps on a grid that is neither the hour nor the half hour, the
summary while sending and after a stop that came too late, the runner's limit of requests in flight, and the
preview's window when nothing is failing."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from tui.state.budget import ActionBudget
from tui.state.repair import (
    GAP_GRACE_SECONDS,
    RepairProgress,
    RepairRunner,
    RetryTarget,
    gap_ranges,
    merge_plans,
    plan_export,
    since_default,
)

from .runs import HOUR, NOW, OTHER, REF, run

MINUTE = timedelta(minutes=1)


def test_a_target_without_an_interval_start_says_so_and_keeps_its_start() -> None:
    assert RetryTarget(REF, "r", None, NOW).describe() == "retry export a …→11-22 12:00"
    no_start = run("f", 1, "Failed").model_copy(update={"data_interval_start": None})
    [target] = plan_export(REF, [no_start], since=NOW - 5 * HOUR).targets
    assert target.start is None
    [kept] = plan_export(REF, [run("g", 1, "Failed")]).targets
    assert (kept.start, kept.end) == (NOW - 2 * HOUR, NOW - HOUR)


def test_a_failure_groups_plan_leaves_out_only_the_intervals_of_its_runs_repaired_since() -> None:
    runs = [run("f1", 3, "Failed"), run("c1", 3, "Completed", created_after=1),
            run("f2", 2, "Failed"), run("c2", 2, "Completed", created_after=1), run("f3", 1, "Failed")]
    window = NOW - 4 * HOUR
    assert plan_export(REF, runs, since=window, run_ids={"f1", "c1", "f3"}).left_out == 1
    assert plan_export(REF, runs, since=window, run_ids={"f1"}).left_out == 1, "its failed attempt is the group's"
    assert plan_export(REF, runs, since=window, run_ids={"f3"}).left_out == 0
    assert plan_export(REF, runs, since=window).left_out == 2


def test_a_merged_plan_adds_up_what_its_parts_leave_out() -> None:
    one = plan_export(REF, [run("f", 2, "Failed"), run("c", 2, "Completed", created_after=1), run("g", 1, "Failed")],
                      since=NOW - 5 * HOUR)
    two = plan_export(OTHER, [run("f", 3, "Failed"), run("c", 3, "Completed", created_after=1),
                              run("h", 2, "Failed"), run("d", 2, "Running", created_after=1), run("i", 1, "Failed")],
                      since=NOW - 5 * HOUR)
    assert (one.left_out, two.left_out) == (1, 2)
    assert merge_plans([one, two]).left_out == 3


def test_gaps_fall_on_the_exports_grid_from_a_start_between_its_boundaries() -> None:
    """Intervals ending a quarter past the hour, a window starting ten past: the first gap starts a quarter past."""
    quarter = timedelta(minutes=15)
    shifted = run("a", 2, "Completed").model_copy(update={"data_interval_start": NOW - 3 * HOUR + quarter,
                                                          "data_interval_end": NOW - 2 * HOUR + quarter})
    start = NOW - 5 * HOUR + timedelta(minutes=10)
    gaps = gap_ranges(REF, [shifted], 3600, start, NOW + timedelta(seconds=GAP_GRACE_SECONDS))
    assert [(g.start, g.end, g.intervals) for g in gaps] == [
        (NOW - 5 * HOUR + quarter, NOW - 3 * HOUR + quarter, 2), (NOW - 2 * HOUR + quarter, NOW - HOUR + quarter, 1)]


def test_the_summary_says_stopped_only_when_a_stop_left_something_unsent() -> None:
    assert RepairProgress(total=5, sent=2).summary() == "2 retried", "still sending"
    assert RepairProgress(total=2, sent=2, stopped=True).summary() == "2 retried", "stopped after the last one"
    assert RepairProgress(total=3, sent=1, stopped=True).summary() == "1 retried, stopped: 2 not sent"


async def test_the_runner_keeps_to_its_limit_of_requests_in_flight_and_counts_the_most() -> None:
    budget = ActionBudget(lambda: 0.0, per_minute=100, per_hour=100)
    release = asyncio.Event()
    started: list[int] = []

    async def send(item: int) -> None:
        started.append(item)
        await release.wait()
        await asyncio.sleep(0)  # a request takes a turn of the loop, whatever else runs

    two = RepairRunner([0, 1, 2, 3], send, budget, in_flight=2)
    task = asyncio.ensure_future(two.run())
    while len(started) < 2:
        await asyncio.sleep(0)
    for _ in range(5):
        await asyncio.sleep(0)
    assert started == [0, 1], "two in flight, the others wait"
    release.set()
    progress = await task
    assert (progress.sent, two.most_in_flight) == (4, 2)

    started.clear()
    one = RepairRunner([0, 1, 2], send, budget, in_flight=1)
    assert (await one.run()).sent == 3 and one.most_in_flight == 1
    none_sent = RepairRunner([0, 1], send, budget, skip=lambda _item: "already completed")
    assert (await none_sent.run()).skipped == {"already completed": 2} and none_sent.most_in_flight == 0


def test_the_previews_window_is_the_plans_or_the_last_day() -> None:
    assert since_default(NOW - 3 * HOUR, NOW) == NOW - 3 * HOUR
    assert since_default(None, NOW) == NOW - timedelta(days=1)
