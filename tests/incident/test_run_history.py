"""The run history: the runs seen per export, the spans of the server's runs list read, and its bounds."""

from __future__ import annotations

from datetime import timedelta

from tui.api.models.batch_exports import BatchExportRun
from tui.state.health import judge
from tui.state.run_history import PER_EXPORT, PER_EXPORT_FLOOR, VERDICT_KEEP, RunHistory, merge_spans, subtract

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
    for day in range(10):  # ten days of polls over 40 exports, 24 new runs each a day: past the total from day 3
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


def test_a_watch_of_busy_exports_levels_off_at_the_bound() -> None:
    """Fifty exports each starting a run every 20 s, statuses turning over (the soak benchmark's load, an hour of
    it): the store holds ``PER_EXPORT`` runs per export once the first minutes have gone by, and no more for the
    forty minutes after (the statuses turn over every 8 runs: each export goes through them many times)."""
    history = RunHistory()
    statuses = ["Failed", "Completed", "FailedRetryable", "Completed", "Cancelled", "Failed", "TimedOut", "Running"]
    made: dict[tuple[int, int], BatchExportRun] = {}  # a run's fields depend on its export and number only

    def nth_run(e: int, n: int) -> BatchExportRun:
        if (e, n) not in made:
            made[(e, n)] = run(f"e{e}-{n}", -n, statuses[(n + e) % len(statuses)])
        return made[(e, n)]

    sizes = []
    for tick in range(180):
        now = NOW + timedelta(seconds=20 * tick)
        for e in range(50):
            latest = [nth_run(e, tick - i) for i in range(min(10, tick + 1))]
            history.add_latest(f"e{e}", latest, now)
        sizes.append(len(history))
    assert sizes[-1] == 50 * PER_EXPORT and max(sizes) == 50 * PER_EXPORT
    assert sizes.index(50 * PER_EXPORT) < 60  # reached in the first 20 minutes; flat for the rest


def test_a_failure_streak_longer_than_the_bound_is_kept_back_to_its_last_completed_run() -> None:
    """The verdict's runs stay: 100 failed runs in a row, then the last Completed one (read for the verdict),
    though the export's own bound is 40."""
    latest = [run(f"r{i}", i, "Failed", error="boom") for i in range(1, 11)]
    item = export("e", latest, start_at=NOW - 500 * HOUR)
    history = RunHistory()
    history.add_latest("k", latest, NOW)
    older = [run(f"r{i}", i, "Failed" if i <= 100 else "Completed", error="boom" if i <= 100 else None)
             for i in range(11, 200)]
    history.add_page("k", older, latest[-1].created_at or NOW, after=None, last_page=False)
    assert len(history.runs("k")) == 101 and history.runs("k")[-1].id == "r101"
    read = judge(item, NOW, runs=history.runs("k"), read_since=history.read_since("k"))
    assert read.reason == "latest run Failed, 100 failed runs in a row" and not read.record_short
    assert read.failure_streak == 100 and read.lag_seconds == 101 * 3600
    # Once a run completes, the export is cut back to its bound.
    done = run("r0", 0, "Completed")
    history.add_latest("k", [done, *latest[:9]], NOW)
    assert len(history.runs("k")) == PER_EXPORT


def test_past_the_verdicts_reach_the_last_completed_run_stays_alone_and_the_streak_reads_longer() -> None:
    """A streak longer than one read for a verdict brings: the runs read and the last Completed run (asked
    alone) are kept; the runs between are unread, so the streak is "N+" and the lag still true."""
    history = RunHistory()
    failed = [run(f"r{i}", i, "Failed", error="boom") for i in range(1, VERDICT_KEEP + 51)]
    history.add_page("k", failed, NOW, after=None, last_page=False)
    last_done = run("done", 1000, "Completed")
    history.add("k", [last_done])
    kept = history.runs("k")
    assert len(kept) == VERDICT_KEEP + 1 and kept[-1].id == "done"
    assert history.read_since("k") == kept[-2].created_at  # the lone Completed run is outside what was read
    item = export("e", failed[:10], start_at=NOW - 2000 * HOUR)
    verdict = judge(item, NOW, runs=kept, read_since=history.read_since("k"))
    assert verdict.reason == f"latest run Failed, {VERDICT_KEEP}+ failed runs in a row"
    assert verdict.lag_seconds == 1000 * 3600


def test_an_open_view_holds_the_runs_of_its_window_and_lets_go_when_it_closes() -> None:
    """A view reads 200 hourly runs for its window: they stay while it holds the window (of its exports only),
    and on letting go each export is cut back to its bound, its read spans with it."""
    history = RunHistory()
    runs_a = [run(f"a{i}", i, "Completed") for i in range(1, 201)]
    runs_b = [run(f"b{i}", i, "Completed") for i in range(1, 201)]
    history.hold("view", NOW - 300 * HOUR, ["a"])
    history.add_page("a", runs_a, NOW, after=NOW - 300 * HOUR, last_page=True)
    history.add_page("b", runs_b, NOW, after=NOW - 300 * HOUR, last_page=True)
    assert len(history.runs("a")) == 200 and history.covers("a", NOW - 300 * HOUR, NOW)
    assert len(history.runs("b")) == PER_EXPORT and history.unread("b", NOW - 300 * HOUR, NOW)
    history.hold("view", None)
    kept = history.runs("a")
    assert len(kept) == PER_EXPORT and history.spans("a") == [(kept[-1].created_at, NOW)]
    assert len(history) == 2 * PER_EXPORT
