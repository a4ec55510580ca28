"""Repair planning (failed intervals minus newer attempts, gaps merged) and sending inside the budget."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from tui.state.budget import ActionBudget
from tui.state.repair import (
    RepairRunner,
    RetryTarget,
    gap_ranges,
    merge_plans,
    plan_export,
    recheck,
    streak_start,
)

from .runs import HOUR, NOW, REF, run


def test_streak_start_is_the_oldest_failed_interval_after_the_last_completed_one() -> None:
    runs = [run("1", 6, "Failed"), run("2", 5, "Completed"), run("3", 4, "Failed"), run("4", 3, "Cancelled"),
            run("5", 2, "Failed"), run("6", 1, "Running")]
    assert streak_start(runs) == NOW - 5 * HOUR  # the start of run 3's interval
    assert streak_start([run("1", 1, "Completed")]) is None


def test_plan_takes_latest_failed_attempts_and_leaves_out_newer_completed_or_running() -> None:
    runs = [
        run("old", 8, "Failed"),  # before the streak: not in the default window
        run("ok", 7, "Completed"),
        run("f1", 6, "Failed"), run("f1r", 6, "Completed", created_after=2),  # retried and completed
        run("f2", 5, "Failed"), run("f2r", 5, "Running", created_after=2),  # a retry is running
        run("f3", 4, "Failed"), run("f3r", 4, "Failed", created_after=2),  # retried and failed again: the retry
        run("f4", 3, "FailedRetryable"),
        run("t5", 2, "TimedOut"),  # filed with the cancelled runs, as the service does: not retried
        run("f6", 1, "FailedBilling"),
    ]
    plan = plan_export(REF, runs)
    assert [t.run_id for t in plan.targets] == ["f3r", "f4", "f6"]
    # the streak began with f3's interval: f2's has a retry running, f1's was repaired (both before it)
    assert plan.since == NOW - 5 * HOUR and plan.left_out == 0
    assert plan.first is not None and plan.first.end == NOW - 4 * HOUR
    wider = plan_export(REF, runs, since=NOW - 10 * HOUR)
    assert [t.run_id for t in wider.targets] == ["old", "f3r", "f4", "f6"] and wider.left_out == 2
    only = plan_export(REF, runs, run_ids={"f4"})
    assert [t.run_id for t in only.targets] == ["f4"] and only.left_out == 0


def test_typed_count_above_twenty() -> None:
    runs = [run(str(i), i, "Failed") for i in range(1, 22)]
    plan = merge_plans([plan_export(REF, runs[:10]), plan_export(REF, runs[10:])])
    assert plan.count == 21 and plan.needs_typed_count
    assert not plan_export(REF, runs[:20]).needs_typed_count


def test_recheck_sees_a_newer_attempt() -> None:
    target = RetryTarget(REF, "f", NOW - 2 * HOUR, NOW - HOUR)
    assert recheck(target, [run("f", 1, "Failed")]) is None
    assert recheck(target, [run("f", 1, "Failed"), run("g", 1, "Starting", created_after=1)]) == "already running"
    assert recheck(target, [run("f", 1, "Failed"), run("g", 1, "Completed", created_after=1)]) == "already completed"


def test_gaps_are_intervals_without_any_run_merged_into_ranges() -> None:
    runs = [run("a", 10, "Completed"), run("b", 9, "Failed"), run("c", 5, "Completed"), run("d", 1, "Running")]
    gaps = gap_ranges(REF, runs, 3600, NOW - 12 * HOUR, NOW)
    assert [(g.start, g.end, g.intervals) for g in gaps] == [
        (NOW - 12 * HOUR, NOW - 11 * HOUR, 1),
        (NOW - 9 * HOUR, NOW - 6 * HOUR, 3),
        (NOW - 5 * HOUR, NOW - 2 * HOUR, 3),
    ]
    # the interval that just ended is not a gap yet (its run starts after its end); a start inside an interval
    # rounds up to the next one
    later = NOW + timedelta(minutes=30)
    assert [(g.start, g.end) for g in gap_ranges(REF, [], 3600, NOW - timedelta(minutes=90), later)] == \
        [(NOW - HOUR, NOW)]
    assert gap_ranges(REF, runs, None, NOW - 12 * HOUR, NOW) == []


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


async def test_runner_keeps_two_in_flight_and_skips_what_is_already_running() -> None:
    clock = FakeClock()
    budget = ActionBudget(clock, per_minute=1000, per_hour=1000, sleep=clock.sleep)
    in_flight = 0
    most = 0
    sent: list[int] = []

    async def send(item: int) -> None:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.001)
        in_flight -= 1
        if item == 7:
            raise RuntimeError("server said no")
        sent.append(item)

    outcomes: list[tuple[int, str]] = []
    runner = RepairRunner(list(range(10)), send, budget, skip=lambda i: "already running" if i in (3, 4) else None,
                          on_item=lambda i, outcome: outcomes.append((i, outcome)))
    progress = await runner.run()
    assert most == 2
    assert sorted(sent) == [0, 1, 2, 5, 6, 8, 9]
    assert progress.summary() == "7 retried, 2 already running, 1 failed"
    assert (7, "error: server said no") in outcomes and len(outcomes) == 10


async def test_runner_waits_for_the_budget_and_stop_keeps_what_was_sent() -> None:
    clock = FakeClock()
    budget = ActionBudget(clock, per_minute=3, per_hour=100, sleep=clock.sleep)
    times: list[float] = []

    async def send(item: int) -> None:
        times.append(clock.now)

    runner: RepairRunner[int] = RepairRunner(list(range(7)), send, budget, in_flight=1)
    await runner.run()
    assert times == [0.0, 0.0, 0.0, 60.0, 60.0, 60.0, 120.0]

    stopper: RepairRunner[int] = RepairRunner(list(range(7)), send, ActionBudget(clock), in_flight=1,
                                              on_progress=lambda p: stopper.stop() if p.sent == 2 else None)
    progress = await stopper.run()
    assert progress.sent == 2 and progress.stopped
    assert progress.summary() == "2 retried, stopped: 5 not sent"
