"""The timeline's model: buckets, worst status per cell, latest attempt per interval, diff of rows."""

from __future__ import annotations

from datetime import timedelta

from tui.state.timeline import ZOOMS, Axis, TimelineModel, covers, severity

from .runs import HOUR, NOW, run


def test_axis_ends_with_the_bucket_holding_now() -> None:
    axis = Axis.ending_at(ZOOMS[1], NOW + timedelta(minutes=7))
    assert axis.count == 48 and axis.bucket == 1800
    assert axis.bucket_start(47) == NOW
    assert axis.start == NOW - timedelta(hours=23, minutes=30)
    # an hourly interval covers exactly two half-hour buckets, not the neighbours it touches
    assert list(axis.span_of((NOW - HOUR).timestamp(), NOW.timestamp())) == [45, 46]


def test_worst_status_wins_and_a_repaired_interval_is_drawn_completed() -> None:
    model = TimelineModel(zoom_index=0)  # 6 h of 15 min buckets
    runs = {
        "a": [run("a1", 2, "Completed"), run("a2", 1, "Failed"),
              run("a3", 1, "Completed", created_after=0.5)],  # a2's interval retried and completed
        "b": [run("b1", 1, "Failed"), run("b2", 0, "Running")],
    }
    changed = model.update(["a", "b"], runs, NOW)
    assert changed == {"a", "b"}
    row_a, row_b = model.rows["a"], model.rows["b"]
    # the last bucket holds now (12:00-12:15); 09:00-11:00 are buckets -13..-6
    assert row_a.statuses[-13:-5] == ("Completed",) * 8
    assert row_b.statuses[-9:-5] == ("Failed",) * 4
    assert row_b.statuses[-5:-1] == ("Running",) * 4
    assert row_b.statuses[-1] is None and row_b.statuses[0] is None
    assert [r.id for r in model.runs_at(1, 24 - 8)] == ["b1"]
    assert severity("Failed") > severity("FailedRetryable") > severity("TimedOut") > severity("Running")
    assert severity("Running") > severity("Cancelled") > severity("Completed")
    assert severity("SomethingNew") > severity("Running")


def test_only_rows_whose_runs_changed_are_reported() -> None:
    model = TimelineModel()
    runs = {k: [run(f"{k}1", 2, "Completed"), run(f"{k}2", 1, "Running")] for k in "abc"}
    model.update(list("abc"), runs, NOW)
    assert model.update(list("abc"), runs, NOW) == set()
    runs["b"] = [runs["b"][0], runs["b"][1].model_copy(update={"status": "Failed"})]
    assert model.update(list("abc"), runs, NOW) == {"b"}
    # the axis moves when a new bucket starts: every row is drawn again
    assert model.update(list("abc"), runs, NOW + timedelta(minutes=30)) == {"a", "b", "c"}


def test_an_outage_is_a_column() -> None:
    model = TimelineModel()
    runs = {k: [run(f"{k}1", 3, "Completed"), run(f"{k}2", 2, "Failed"), run(f"{k}3", 1, "Completed")]
            for k in "abcd"}
    model.update(list("abcd"), runs, NOW)
    counts = model.failed_columns
    assert max(counts) == 4 and counts.count(4) == 2
    runs["a"] = [run("a1", 3, "Completed"), run("a2", 2, "Failed"), run("a2r", 2, "Completed", created_after=1),
                 run("a3", 1, "Completed")]
    assert model.update(list("abcd"), runs, NOW) == {"a"}
    assert max(model.failed_columns) == 3  # the repaired row left the column


def test_covers_tells_when_older_runs_are_needed() -> None:
    runs = [run("a1", 3, "Completed"), run("a2", 2, "Completed")]
    assert covers(runs, NOW - 4 * HOUR)
    assert not covers(runs, NOW - 5 * HOUR)
    assert not covers([], NOW)
