"""The run history: the runs seen per export, the spans of the server's runs list read, and its bounds."""

from __future__ import annotations

from datetime import timedelta

from tui.state.health import judge
from tui.state.run_history import PER_EXPORT_FLOOR, RunHistory, merge_spans, subtract

from .runs import HOUR, NOW, export, run


def test_latest_runs_cover_from_their_oldest_run_to_the_poll_and_pages_join_them() -> None:
    history = RunHistory()
    latest = [run(f"r{i}", i, "Failed") for i in range(1, 11)]
    history.add_latest("k", latest, NOW)
    oldest = latest[-1].created_at
    assert oldest is not None
    assert history.spans("k") == [(oldest, NOW)]
    assert history.read_since("k") == oldest
    assert history.unread("k", NOW - 20 * HOUR, NOW) == [(NOW - 20 * HOUR, oldest)]
    older = [run(f"r{i}", i, "Failed" if i < 15 else "Completed") for i in range(11, 20)]
    history.add_page("k", older, oldest, after=NOW - 20 * HOUR, last_page=True)
    assert history.covers("k", NOW - 20 * HOUR, NOW)
    assert len(history.runs("k")) == 19
    assert [r.id for r in history.runs("k")][:2] == ["r1", "r2"]  # newest first


def test_a_page_that_is_not_the_last_covers_only_back_to_its_oldest_run() -> None:
    history = RunHistory()
    page = [run(f"r{i}", i, "Failed") for i in range(1, 6)]
    history.add_page("k", page, NOW, after=NOW - 48 * HOUR, last_page=False)
    assert history.read_since("k") == page[-1].created_at


def test_each_export_keeps_its_newest_runs_and_the_spans_are_cut_with_them() -> None:
    history = RunHistory(per_export=50, total=10_000)
    runs = [run(f"r{i}", i, "Completed") for i in range(1, 201)]
    history.add_page("k", runs, NOW, after=NOW - 300 * HOUR, last_page=True)
    kept = history.runs("k")
    assert len(kept) == 50 and kept[-1].id == "r50"
    assert history.spans("k") == [(kept[-1].created_at, NOW)]  # no claim over the runs dropped
    assert history.unread("k", NOW - 100 * HOUR, NOW)


def test_the_total_is_bounded_however_many_exports_and_days() -> None:
    history = RunHistory(per_export=600, total=2_000)
    for day in range(30):  # a month of polls over 40 exports, 24 new runs each a day
        now = NOW + timedelta(days=day)
        for e in range(40):
            runs = [run(f"e{e}-d{day}-h{h}", -24 * day + h, "Completed") for h in range(24)]
            history.add_page(f"e{e}", runs, now, after=None, last_page=False)
        assert len(history) <= 2_000 + 24  # past the total, every export is cut to its share
    assert all(len(history.runs(f"e{e}")) <= max(PER_EXPORT_FLOOR, 2_000 // 40) + 24 for e in range(40))
    history.keep_only(["e1"])
    assert len(history) == len(history.runs("e1"))


def test_spans_merge_and_subtract() -> None:
    a, b, c, d = (NOW - timedelta(hours=h) for h in (4, 3, 2, 1))
    assert merge_spans([(c, d), (a, b), (b, c)]) == [(a, d)]
    assert subtract(a, d, [(b, c)]) == [(a, b), (c, d)]
    assert subtract(a, d, []) == [(a, d)]
    assert subtract(b, c, [(a, d)]) == []


def test_the_verdict_says_a_streak_is_longer_until_the_record_is_read() -> None:
    """Ten failed runs in ``latest_runs`` are "10+" until the runs list shows where the streak began."""
    latest = [run(f"r{i}", i, "Failed", error="boom") for i in range(1, 11)]
    item = export("e", latest, start_at=NOW - 100 * HOUR)
    first = judge(item, NOW)
    assert first.reason == "latest run Failed, 10+ failed runs in a row" and first.record_short
    history = RunHistory()
    history.add_latest("k", latest, NOW)
    older = [run(f"r{i}", i, "Failed" if i <= 14 else "Completed") for i in range(11, 40)]
    history.add_page("k", older, latest[-1].created_at or NOW, after=None, last_page=False)
    read = judge(item, NOW, runs=history.runs("k"), read_since=history.read_since("k"))
    assert read.reason == "latest run Failed, 14 failed runs in a row" and not read.record_short
    assert read.failure_streak == 14 and read.lag_seconds == 15 * 3600  # r15, the last completed, ended 15 h ago
