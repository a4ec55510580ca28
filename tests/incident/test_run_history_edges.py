"""The run history's edges: spans that touch or lie outside a range, read spans of no length or backwards,
the lag's run and the streak's end kept apart when they differ, a hold's first second, the total as a bound
(not a trigger), holds on every export or on one, and asking about an export never seen."""

from __future__ import annotations

from tui.state.run_history import RunHistory, newest_completed, page_span, subtract

from .runs import HOUR, NOW, run


def test_subtract_passes_spans_before_the_range_and_stops_at_spans_after_it() -> None:
    lo, hi = NOW - 4 * HOUR, NOW - HOUR
    before, inside, after = (NOW - 6 * HOUR, NOW - 5 * HOUR), (NOW - 3 * HOUR, NOW - 2 * HOUR), (NOW, NOW + HOUR)
    assert subtract(lo, hi, [before, inside]) == [(lo, inside[0]), (inside[1], hi)]
    assert subtract(lo, hi, [after]) == [(lo, hi)]
    assert subtract(lo, hi, [inside, after]) == [(lo, inside[0]), (inside[1], hi)]


def test_a_page_span_runs_from_after_on_the_last_page_else_from_the_oldest_run_and_never_backwards() -> None:
    runs = [run("a", 1, "Failed"), run("b", 3, "Failed")]
    oldest = runs[1].created_at
    assert page_span(runs, NOW, after=NOW - 10 * HOUR, last_page=True) == (NOW - 10 * HOUR, NOW)
    assert page_span(runs, NOW, after=NOW - 10 * HOUR, last_page=False) == (oldest, NOW)
    assert page_span([], NOW, after=None, last_page=False) is None, "an empty page that is not the last: nothing"
    assert page_span([], NOW, after=NOW, last_page=True) == (NOW, NOW), "asked after the moment it was asked"
    assert page_span([], NOW, after=NOW + HOUR, last_page=True) is None


def test_the_lags_run_is_the_completed_one_with_the_newest_interval_end() -> None:
    retry_of_old = run("old", 10, "Completed", created_after=9.5)  # created half an hour ago
    newer_interval = run("new", 3, "Completed")
    failed = run("f", 1, "Failed")
    no_interval = run("x", 1, "Completed").model_copy(update={"data_interval_end": None})
    assert newest_completed([retry_of_old, newer_interval, failed, no_interval]) is newer_interval
    assert newest_completed([failed, no_interval]) is None
    assert newest_completed([]) is None


def test_a_read_span_of_no_length_is_read_and_a_backwards_one_is_not() -> None:
    history = RunHistory()
    assert not history.add("k", [], (NOW, NOW - HOUR)) and history.spans("k") == []
    assert history.add("k", [], (NOW, NOW)) and history.spans("k") == [(NOW, NOW)]


def test_the_streaks_end_and_the_lags_run_both_stay_when_they_are_different_runs() -> None:
    """Past the verdict's reach: the newest Completed run by creation ends the streak, and the Completed run
    with the newest interval end (created earlier) carries the lag; both stay, alone."""
    history = RunHistory()
    failed = [run(f"r{i}", i, "Failed") for i in range(1, 321)]
    ender = run("ender", 1000, "Completed", created_after=1000 - 320.5)  # an old interval's retry, created later
    lag_run = run("lag", 321, "Completed", created_after=-0.7)  # a newer interval, created earlier
    history.add("k", [*failed, ender, lag_run])
    kept = [r.id for r in history.runs("k")]
    assert len(kept) == 310 + 2 and kept[-2:] == ["ender", "lag"]
    assert len(history) == 312


def test_a_view_holds_runs_created_from_the_very_second_of_its_start() -> None:
    history = RunHistory(per_export=10)
    runs = [run(f"r{i}", i, "Completed") for i in range(1, 31)]
    since = runs[20].created_at  # the 21st newest
    assert since is not None
    history.hold("view", since, ["k"])
    history.add("k", runs)
    assert [r.id for r in history.runs("k")] == [f"r{i}" for i in range(1, 22)]


def test_a_hold_without_exports_named_holds_every_export() -> None:
    history = RunHistory(per_export=10)
    history.hold("view", NOW - 100 * HOUR)
    history.add("a", [run(f"a{i}", i, "Completed") for i in range(1, 31)])
    history.add("b", [run(f"b{i}", i, "Completed") for i in range(1, 31)])
    assert len(history.runs("a")) == len(history.runs("b")) == 30
    history.hold("nobody", None)  # letting go of what was never held changes nothing
    assert len(history) == 60


def test_letting_go_of_one_view_keeps_what_another_holds() -> None:
    history = RunHistory(per_export=10)
    history.hold("timeline", NOW - 100 * HOUR, ["a"])
    history.hold("groups", NOW - 100 * HOUR, ["a"])
    history.add("a", [run(f"a{i}", i, "Completed") for i in range(1, 31)])
    history.hold("timeline", None)
    assert len(history.runs("a")) == 30
    history.hold("groups", None)
    assert len(history.runs("a")) == 10


def test_the_total_is_a_bound_not_a_trigger_and_one_export_may_fill_it() -> None:
    history = RunHistory(per_export=100, total=20)
    history.add("a", [run(f"a{i}", i, "Completed") for i in range(1, 16)])
    history.add("b", [run(f"b{i}", i, "Completed") for i in range(1, 6)])
    assert (len(history), len(history.runs("a"))) == (20, 15), "at the total exactly: nothing dropped"
    alone = RunHistory(per_export=100, total=20)
    alone.add("a", [run(f"a{i}", i, "Completed") for i in range(1, 26)])
    assert len(alone) == 20 and len(alone.runs("a")) == 20, "one export's share is the whole total"


def test_past_the_total_a_view_still_holds_its_exports_runs() -> None:
    history = RunHistory(per_export=100, total=30)
    history.hold("view", NOW - 100 * HOUR, ["a"])
    history.add("a", [run(f"a{i}", i, "Completed") for i in range(1, 26)])
    history.add("b", [run(f"b{i}", i, "Completed") for i in range(1, 26)])
    assert len(history.runs("a")) == 25 and len(history.runs("b")) == 15


def test_a_hold_released_at_the_total_drops_nothing_more() -> None:
    history = RunHistory(per_export=100, total=20)
    history.hold("view", NOW - 100 * HOUR)
    history.add("a", [run(f"a{i}", i, "Completed") for i in range(1, 16)])
    history.add("b", [run(f"b{i}", i, "Completed") for i in range(1, 6)])
    history.hold("view", None)
    assert (len(history.runs("a")), len(history.runs("b"))) == (15, 5)


def test_forgetting_exports_counts_what_stays() -> None:
    history = RunHistory()
    for key in "abc":
        history.add(key, [run(f"{key}{i}", i, "Completed") for i in range(1, 6)])
    history.keep_only(["a", "b"])
    assert len(history) == 10
    history.clear()
    assert len(history) == 0 and history.runs("a") == []


def test_an_export_never_seen_has_nothing_read() -> None:
    history = RunHistory()
    assert history.spans("x") == [] and history.read_since("x") is None and history.version("x") == 0
    assert history.unread("x", NOW - HOUR, NOW) == [(NOW - HOUR, NOW)]
    assert not history.covers("x", NOW - HOUR, NOW)
    assert history.runs("x") == []

