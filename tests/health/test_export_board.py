"""The monitor's state without Textual: rows and their diff, optimistic pauses, pending actions, retries, filter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.state.alert_book import AlertBook, AlertKind
from tui.state.export_board import ExportBoard
from tui.state.exports import ExportsSnapshot, WatchedExport
from tui.state.health import HealthState
from tui.state.incident import IncidentDesk

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def run(i: int, status: str, end: datetime) -> dict[str, Any]:
    return {"id": f"r{i}", "status": status, "data_interval_start": (end - HOUR).isoformat(),
            "data_interval_end": end.isoformat(), "created_at": (end + timedelta(seconds=30)).isoformat()}


def export(export_id: str, runs: list[dict[str, Any]], **extra: Any) -> BatchExport:
    return BatchExport.model_validate({"id": export_id, "name": f"export {export_id}", "interval": "hour",
                                       "paused": False, "latest_runs": runs, **extra})


def snap(*exports: BatchExport) -> ExportsSnapshot:
    return ExportsSnapshot(exports=[WatchedExport("1", e) for e in exports])


def test_a_quiet_poll_changes_no_row_and_a_new_minute_retimes_only() -> None:
    board = ExportBoard()
    a, b = export("a", [run(1, "Completed", NOW - HOUR)]), export("b", [run(1, "Completed", NOW - HOUR)])
    board.apply_snapshot(snap(a, b), NOW)
    first = board.rows(NOW)
    assert first.rebuilt == {"1:a", "1:b"} and not first.retimed
    board.apply_snapshot(snap(a.model_copy(), b.model_copy()), NOW)
    quiet = board.rows(NOW + timedelta(seconds=10))
    assert not quiet.rebuilt and not quiet.retimed
    later = board.rows(NOW + timedelta(minutes=1))
    assert later.retimed == {"1:a", "1:b"} and not later.rebuilt
    changed = export("b", [run(1, "Completed", NOW - HOUR), run(2, "Failed", NOW)])
    board.apply_snapshot(snap(a, changed), NOW + timedelta(minutes=1))
    diff = board.rows(NOW + timedelta(minutes=1))
    assert diff.rebuilt == {"1:b"}
    assert board.facts("1:b").verdict.state is HealthState.FAILING  # type: ignore[union-attr]
    assert board.failing_count == 1


def test_an_operator_pause_shows_at_once_and_settles_when_the_server_agrees() -> None:
    board = ExportBoard()
    e = export("a", [run(1, "Completed", NOW - HOUR)])
    board.apply_snapshot(snap(e), NOW)
    board.rows(NOW)
    board.paused_by_operator("1:a", True)
    diff = board.rows(NOW)
    assert diff.rebuilt == {"1:a"}
    assert board.facts("1:a").verdict.state is HealthState.PAUSED  # type: ignore[union-attr]
    verdicts = board.apply_snapshot(snap(e.model_copy(update={"paused": True})), NOW)
    assert verdicts["1:a"].state is HealthState.PAUSED
    assert board.watched("1:a").export.paused  # type: ignore[union-attr]


def test_pending_actions_refuse_a_second_one() -> None:
    board = ExportBoard()
    assert board.begin("pause", "1:a")
    assert not board.begin("pause", "1:a")
    assert board.is_pending("pause", "1:a")
    board.end("pause", "1:a")
    assert not board.is_pending("pause", "1:a") and board.begin("pause", "1:a")


def test_an_awaited_retry_is_reported_once_when_its_run_appears() -> None:
    board = ExportBoard()
    failed = run(1, "Failed", NOW - HOUR)
    e = export("a", [failed])
    board.apply_snapshot(snap(e), NOW)
    board.await_retry("1:a", BatchExportRun.model_validate(failed))
    assert board.take_started_retries() == []
    retry = {**failed, "id": "r2", "status": "Starting", "created_at": NOW.isoformat()}
    board.apply_snapshot(snap(export("a", [failed, retry])), NOW)
    started = board.take_started_retries()
    assert [(key, r.id) for key, r in started] == [("1:a", "r2")]
    assert board.take_started_retries() == []


def test_filter_by_verdict_state_name_and_paused() -> None:
    board = ExportBoard()
    ok = export("ok", [run(1, "Completed", NOW - timedelta(minutes=10))])
    late = export("late", [run(1, "Completed", NOW - 5 * HOUR)])
    paused = export("zzz", [run(1, "Completed", NOW - 5 * HOUR)], paused=True)
    board.apply_snapshot(snap(ok, late, paused), NOW)
    board.rows(NOW)
    assert board.set_filter("overdue")
    assert [f.key for f in board.rows(NOW).rows] == ["1:late"]
    assert board.set_filter("paused") and [f.key for f in board.rows(NOW).rows] == ["1:zzz"]
    assert board.set_filter("export ok") and [f.key for f in board.rows(NOW).rows] == ["1:ok"]
    assert not board.set_filter("export ok")


def test_overdue_alert_carries_the_verdicts_reason_and_marks_the_row() -> None:
    board, desk = ExportBoard(), IncidentDesk(AlertBook())
    e = export("a", [run(1, "Completed", NOW - HOUR)])
    snapshot = snap(e)
    desk.observe(snapshot.exports, board.apply_snapshot(snapshot, NOW), NOW)
    later = NOW + 2 * HOUR
    opened = desk.observe(snapshot.exports, board.apply_snapshot(snapshot, later), later).opened
    assert [(a.kind, a.detail) for a in opened] == [(AlertKind.OVERDUE, "no completed data for 3h, allowed 2h10m")]
    assert desk.book.is_marked("1:a")
    (row,) = board.rows(later, {a.key for a in desk.book.open_alerts}).rows
    assert row.marked


def test_runs_cache_and_selection() -> None:
    board = ExportBoard()
    e = export("a", [run(1, "Completed", NOW - 2 * HOUR), run(2, "Completed", NOW - HOUR)])
    board.apply_snapshot(snap(e), NOW)
    board.selected_key = "1:a"
    assert [r.id for r in board.selected_runs()] == ["r2", "r1"]
    older = [BatchExportRun.model_validate(run(i, "Completed", NOW - i * HOUR)) for i in range(1, 5)]
    board.store_runs("1:a", older)
    board.selected_run_id = "r3"
    assert board.selected_run().id == "r3"  # type: ignore[union-attr]
    assert board.known_run_ids("1:a") == {"r1", "r2", "r3", "r4"}
    board.deleted("1:a")
    assert board.selected() is None and board.snapshot is not None and board.snapshot.exports == []


def test_a_poll_judges_each_export_once(monkeypatch: Any) -> None:
    """The alerts and the rows of one poll share one verdict per export; an operator's pause not yet on the
    server is judged again on its own."""
    import tui.state.export_board as board_module

    calls: list[str] = []
    real_judge = board_module.judge

    def counting(export: BatchExport, now: datetime, **kwargs: Any) -> Any:
        calls.append(export.id)
        return real_judge(export, now, **kwargs)

    monkeypatch.setattr(board_module, "judge", counting)
    board = ExportBoard()
    exports = [export(name, [run(1, "Completed", NOW - HOUR)]) for name in "abc"]
    board.apply_snapshot(snap(*exports), NOW)
    board.rows(NOW)
    assert sorted(calls) == ["a", "b", "c"], "judged once each, not once for the alerts and again for the rows"
    calls.clear()
    board.paused_by_operator("1:a", True)
    board.rows(NOW)
    assert calls == ["a"] and board.facts("1:a").verdict.state is HealthState.PAUSED  # type: ignore[union-attr]
    calls.clear()
    later = NOW + timedelta(minutes=1)
    board.rows(later)
    assert sorted(calls) == ["a", "b", "c"], "a later time is judged at that time"
