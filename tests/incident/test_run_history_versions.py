"""The run history's version: it moves once for each change a verdict could see (a run new or changed, where the
newest read span begins, a trim), and never for a look that changes nothing, so an idle poll judges nothing again."""

from __future__ import annotations

from datetime import timedelta

from tui.state.run_history import RunHistory

from .runs import HOUR, NOW, run


def test_the_same_runs_again_change_nothing_and_a_changed_run_moves_the_version_by_one() -> None:
    history = RunHistory()
    runs = [run("a", 2, "Completed"), run("b", 1, "Running")]
    assert history.version("k") == 0
    assert history.add("k", runs) is True and history.version("k") == 1
    assert history.add("k", runs) is False and history.version("k") == 1, "the same look: nothing to judge again"
    assert history.add("k", [run("b", 1, "Failed")]) is True and history.version("k") == 2
    assert len(history) == 2, "a changed run replaces itself, it is not counted twice"
    assert history.add("k", []) is False and history.version("k") == 2


def test_a_read_span_moves_the_version_only_where_the_newest_span_begins_elsewhere() -> None:
    history = RunHistory()
    history.add("k", [run("a", 2, "Completed")], (NOW - 3 * HOUR, NOW - HOUR))
    start = history.version("k")
    assert history.add("k", [], (NOW - 2 * HOUR, NOW)) is True, "the span grew"
    assert history.version("k") == start, "it still begins where it began: no verdict changes"
    assert history.add("k", [], (NOW - 5 * HOUR, NOW - 4 * HOUR)) is True
    assert history.version("k") == start, "an older, separate span: the newest one begins where it did"
    assert history.add("k", [], (NOW - 6 * HOUR, NOW - 3 * HOUR)) is True and history.version("k") == start + 1
    assert history.spans("k") == [(NOW - 6 * HOUR, NOW)]
    assert history.add("k", [], (NOW, NOW - HOUR)) is False, "an empty span is no read"
    assert history.add("k", [], (NOW - timedelta(minutes=1), NOW - timedelta(minutes=1))) is False


def test_a_trim_moves_the_version_and_keeps_the_total_under_its_bound() -> None:
    history = RunHistory(per_export=10, total=25)
    history.add("k", [run(f"r{i}", i, "Completed") for i in range(1, 11)])
    before = history.version("k")
    assert history.add("k", [run("r0", 0, "Completed")]) is True
    assert len(history.runs("k")) == 10 and history.version("k") == before + 2, "added, then trimmed"
    shared = RunHistory(per_export=20, total=30)
    for key in "abc":
        shared.add(key, [run(f"{key}{i}", i, "Completed") for i in range(1, 16)])
    assert len(shared) == 30 and all(len(shared.runs(key)) == 10 for key in "abc"), "past the total: a share each"
