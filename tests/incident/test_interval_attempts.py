"""Runs seen as data intervals (``tui.state.intervals``): which attempt of an interval is the latest whatever
order the runs arrive in, one run that arrives twice counts once, and a later answer's copy of a run wins."""

from __future__ import annotations

from tui.state.intervals import by_interval, latest_attempts, merge_runs

from .runs import HOUR, NOW, run


def test_an_intervals_attempts_are_oldest_first_whatever_order_they_arrive_in() -> None:
    first = run("first", 2, "Failed")
    retry = run("retry", 2, "Completed", created_after=1)
    for arrived in ([retry, first], [first, retry]):
        [group] = by_interval(arrived)
        assert [r.id for r in group.attempts] == ["first", "retry"] and group.latest is retry
        assert (group.start, group.end) == (NOW - 3 * HOUR, NOW - 2 * HOUR)


def test_a_run_seen_twice_is_one_attempt_and_a_run_without_an_interval_is_left_out() -> None:
    seen = run("a", 1, "Failed")
    no_interval = run("b", 1, "Running").model_copy(update={"data_interval_end": None})
    [group] = by_interval([seen, no_interval, seen])
    assert [r.id for r in group.attempts] == ["a"]


def test_intervals_are_oldest_first_and_one_from_the_beginning_before_one_ending_with_it() -> None:
    hourly = run("h", 1, "Completed")
    from_start = run("s", 1, "Completed").model_copy(update={"data_interval_start": None})
    older = run("o", 3, "Failed")
    assert [g.latest.id for g in by_interval([hourly, older, from_start])] == ["o", "s", "h"]
    assert [r.id for r in latest_attempts([run("r", 2, "Completed", created_after=1), run("f", 2, "Failed"),
                                           older])] == ["o", "r"]


def test_merged_answers_hold_each_run_once_and_the_later_answers_copy() -> None:
    running = run("a", 1, "Running")
    done = run("a", 1, "Completed")
    merged = merge_runs([running, run("b", 2, "Failed")], [done])
    assert [(r.id, r.status) for r in merged] == [("a", "Completed"), ("b", "Failed")]
    assert merge_runs() == []
