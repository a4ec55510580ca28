"""The runs pane's filter, grouping by interval and paging."""

from __future__ import annotations

from tui.state.run_list import STATUS_FILTERS, RunPages, by_interval_newest_first, filtered, next_filter

from .runs import run


def test_filter_cycles_through_the_service_groups() -> None:
    labels = []
    index = 0
    for _ in STATUS_FILTERS:
        labels.append(STATUS_FILTERS[index].label)
        index = next_filter(index)
    assert labels == ["all", "failed", "running", "completed", "cancelled"] and index == 0
    runs = [run("a", 1, "FailedRetryable"), run("b", 2, "TimedOut"), run("c", 3, "Completed"),
            run("d", 4, "Starting"), run("e", 5, "FailedBilling")]
    assert [r.id for r in filtered(runs, STATUS_FILTERS[1])] == ["a", "e"]
    assert [r.id for r in filtered(runs, STATUS_FILTERS[2])] == ["d"]
    assert [r.id for r in filtered(runs, STATUS_FILTERS[4])] == ["b"]


def test_grouping_by_interval_counts_attempts_and_filters_the_latest() -> None:
    runs = [run("a", 1, "Failed"), run("a2", 1, "Completed", created_after=1), run("a3", 1, "Failed",
                                                                                    created_after=2),
            run("b", 2, "Completed")]
    rows = by_interval_newest_first(runs, STATUS_FILTERS[0])
    assert [(r.latest.id, r.attempts) for r in rows] == [("a3", 3), ("b", 1)]
    assert [r.latest.id for r in by_interval_newest_first(runs, STATUS_FILTERS[3])] == ["b"]


def test_pages_append_older_runs_once() -> None:
    pages = RunPages()
    pages.first_page([run("a", 1, "Completed"), run("b", 2, "Completed")], "next-1")
    assert pages.can_load_more
    assert pages.add_page([run("b", 2, "Completed"), run("c", 3, "Completed")], None) == 1
    assert [r.id for r in pages.runs] == ["a", "b", "c"] and not pages.can_load_more


def test_run_rows_by_interval_show_the_attempts() -> None:
    from tui.look.run_rows import RunsView, run_rows

    from .runs import NOW

    runs = [run("a3", 1, "Failed", created_after=2), run("a2", 1, "Completed", created_after=1),
            run("a", 1, "Failed"), run("b", 2, "Completed")]
    every = run_rows(runs, RunsView(), NOW)
    assert [key for key, _ in every] == ["a3", "a2", "a", "b"]
    grouped = run_rows(runs, RunsView(by_interval=True), NOW)
    assert [key for key, _ in grouped] == ["a3", "b"]
    assert grouped[0][1]["status"].plain.endswith("×3")
    assert RunsView(by_interval=True, filter_index=1).label == "by interval · failed"
    assert [key for key, _ in run_rows(runs, RunsView(filter_index=1), NOW)] == ["a3", "a"]
