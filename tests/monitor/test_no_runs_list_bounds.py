"""A server without a runs list: what ``latest_runs`` cannot settle is said as a bound, the same everywhere.

The interface's own server has no runs list (404/405 on ``…/runs/``); ``latest_runs`` carries the ten newest
runs. After ten failures in a row the server holds more, and the data is at least as old as the oldest of the
ten runs' interval start: the dashboard shows "10+" and "≥ 10h", ``status --json`` gives the numbers with
``failure_streak_is_lower_bound`` and ``lag_is_lower_bound``, the exporter serves them with a family of its own,
the reason says why, the overdue verdict is judged on the bound, and the alert's episode begins at the start of
the streak the server's record shows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from prometheus_client.exposition import generate_latest
from pydantic import SecretStr

from tests.incident.long_outage import ERROR, fail_newest
from tests.metrics.conftest import parse_samples, value
from tests.monitor.conftest import FROZEN_AT, make_app, requests, sandbox_call
from tests.pilot import settle
from tui.cli.metrics import Exporter
from tui.cli.status import EXIT_PROBLEM, collect, format_table, to_json
from tui.clock import FrozenClock
from tui.config import Settings
from tui.look.export_details import export_details_text
from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import parse_iso
from tui.state.metric_families import PollMetrics
from tui.text.words import coarse_duration, duration

NO_RUNS_LIST = "; the server offers no runs list to read further"


def hourly_exports(handle: SandboxHandle) -> tuple[str, str]:
    with handle.state.db.read() as c:
        rows = c.execute("SELECT id FROM exports WHERE project_id = ? AND interval = 'hour' AND paused = 0 "
                         "AND deleted = 0 AND end_at IS NULL ORDER BY id LIMIT 2", (int(handle.project_id),)).fetchall()
    assert len(rows) == 2, "the seed changed: need two active hourly exports in project 1"
    return str(rows[0]["id"]), str(rows[1]["id"])


def newest_runs(handle: SandboxHandle, export_id: str) -> list[Any]:
    with handle.state.db.read() as c:
        return c.execute("SELECT id, data_interval_start FROM runs WHERE export_id = ? "
                         "ORDER BY created_at DESC, id DESC LIMIT 10", (export_id,)).fetchall()


def set_status(handle: SandboxHandle, run_id: str, status: str) -> None:
    with handle.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = ?, finished_at = NULL, latest_error = NULL WHERE id = ?", (status, run_id))


async def status_json(handle: SandboxHandle) -> dict[str, Any]:
    """What ``watchdeck status --json`` (and its table) says: its own collect, over loopback HTTP."""
    settings = Settings(base_url=handle.base_url, api_key=SecretStr(handle.api_key), project_ids=["1"])
    report = await collect(settings, FrozenClock(FROZEN_AT))
    assert not report.errors, report.errors
    return to_json(report, settings) | {"table": format_table(report, colour=False)}


async def exporter_samples(handle: SandboxHandle) -> dict[Any, float]:
    settings = Settings(base_url=handle.base_url, api_key=SecretStr(handle.api_key), project_ids=["1"])
    metrics = PollMetrics()
    exporter = Exporter(settings, metrics, clock=FrozenClock(FROZEN_AT))
    try:
        await exporter.poll_once()
    finally:
        await exporter.aclose()
    return parse_samples(generate_latest(metrics.registry).decode())


@pytest.mark.parametrize("code", [404, 405])
async def test_ten_failures_without_a_runs_list_are_said_as_bounds_everywhere(sandbox: SandboxHandle,
                                                                              code: int) -> None:
    failing, overdue = hourly_exports(sandbox)
    fail_newest(sandbox, failing, 14)
    fail_newest(sandbox, overdue, 14)
    set_status(sandbox, newest_runs(sandbox, overdue)[0]["id"], "Running")  # an attempt after nine failures
    sandbox_call("POST", f"{sandbox.base_url}/_sandbox/faults",
                 json={"kind": "status", "status": code, "path": r"/runs/?$"}, timeout=10).raise_for_status()
    expected: dict[str, dict[str, Any]] = {}
    for export_id, streak in ((failing, 10), (overdue, 9)):
        oldest_start = parse_iso(newest_runs(sandbox, export_id)[-1]["data_interval_start"])
        lag = (FROZEN_AT - oldest_start).total_seconds()
        expected[export_id] = {"streak": streak, "lag": lag, "since": oldest_start}
    assert 10 * 3600 <= expected[failing]["lag"] < 12 * 3600  # ten hourly intervals and the time since

    app = make_app(sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        assert screen.board.runs_list_missing(sandbox.project_id)
        assert requests(sandbox, "GET", "/runs/")  # asked, answered 404/405
        book = screen.incident.desk.book
        for export_id, want in expected.items():
            key = f"{sandbox.project_id}:{export_id}"
            facts = screen.board.facts(key)
            verdict = facts.verdict
            assert verdict.failure_streak == want["streak"] and verdict.failure_streak_is_lower_bound
            assert verdict.lag_seconds == want["lag"] and verdict.lag_is_lower_bound
            cells = screen.cells()[key]
            assert str(cells["lag"]) == f"≥ {coarse_duration(want['lag'])}"  # the Lag column on screen
            details = str(export_details_text(facts.watched, verdict))
            assert f"Lag             ≥ {coarse_duration(want['lag'])} behind" in details
            alert = book.episode(key)
            assert alert is not None
            assert alert.since == want["since"]  # the streak's start as far as the server shows it
            if export_id == failing:
                assert verdict.state.value == "failing"
                assert verdict.reason == f"latest run Failed, 10+ failed runs in a row{NO_RUNS_LIST}"
                assert alert.detail == "10+ failed runs in a row"
            else:
                # A run in progress: overdue on the bound (the export's creation would say months)
                assert verdict.state.value == "overdue"
                assert verdict.reason == (f"no completed run among the 10 latest runs: {coarse_duration(want['lag'])} "
                                          f"at least, allowed 2h10m (a run is in progress){NO_RUNS_LIST}")

    data = await status_json(sandbox)
    assert data["exit_code"] == EXIT_PROBLEM
    rows = {row["id"]: row for row in data["exports"]}
    table = data["table"]
    for export_id, want in expected.items():
        row = rows[export_id]
        assert (row["failure_streak"], row["failure_streak_is_lower_bound"]) == (want["streak"], True)
        assert (row["lag_seconds"], row["lag_is_lower_bound"]) == (want["lag"], True)
        assert row["reason"].endswith(NO_RUNS_LIST)
        line = next(line for line in table.splitlines() if line.split()[1:2] == [export_id])
        assert f"≥ {duration(want['lag'])}" in line
    assert rows[failing]["state"] == "failing" and rows[overdue]["state"] == "overdue"
    assert rows[failing]["problem"] == f"latest run Failed, 10+ failed runs in a row{NO_RUNS_LIST}: {ERROR}"
    # An export whose latest_runs settle its verdict is no bound.
    healthy = [row for row in data["exports"] if row["state"] == "ok" and row["lag_seconds"] is not None]
    assert healthy and not any(row["lag_is_lower_bound"] or row["failure_streak_is_lower_bound"] for row in healthy)

    samples = await exporter_samples(sandbox)
    names = {row["id"]: row["name"] for row in data["exports"]}
    for export_id, want in expected.items():
        labels = {"project": "1", "export_id": export_id, "export": names[export_id]}
        assert value(samples, "watchdeck_export_failure_streak", **labels) == want["streak"]
        assert value(samples, "watchdeck_export_lag_seconds", **labels) == want["lag"]
        assert value(samples, "watchdeck_export_is_lower_bound", **labels, figure="lag_seconds") == 1.0
        assert value(samples, "watchdeck_export_is_lower_bound", **labels, figure="failure_streak") == 1.0
        assert value(samples, "watchdeck_export_healthy", **labels) == 0.0
        state = rows[export_id]["state"]
        assert value(samples, "watchdeck_export_state", **labels, state=state) == 1.0
    for row in healthy:
        labels = {"project": "1", "export_id": row["id"], "export": row["name"]}
        assert value(samples, "watchdeck_export_is_lower_bound", **labels, figure="lag_seconds") == 0.0


def test_the_bound_starts_at_the_oldest_runs_interval() -> None:
    """The same numbers from the one function, without a server: ten failed hourly runs, no runs list."""
    from tui.api.models.batch_exports import BatchExport
    from tui.state.health import export_streak, judge

    runs = [{"id": f"r{i}", "status": "Failed", "created_at": f"2026-11-22T{11 - i:02d}:01:00Z",
             "data_interval_start": f"2026-11-22T{10 - i:02d}:00:00Z",
             "data_interval_end": f"2026-11-22T{11 - i:02d}:00:00Z"} for i in range(10)]
    export = BatchExport.model_validate({"id": "e", "name": "e", "interval": "hour", "paused": False,
                                         "created_at": "2025-01-01T00:00:00Z", "latest_runs": runs})
    record = export_streak(export)
    assert (record.count, record.whole, record.count_is_lower_bound) == (10, False, True)
    assert record.start == record.behind_since == datetime.fromisoformat("2026-11-22T01:00:00+00:00")
    verdict = judge(export, FROZEN_AT, runs_list=False)
    assert (verdict.failure_streak, verdict.lag_seconds) == (10, 11 * 3600.0)
    assert verdict.reason == f"latest run Failed, 10+ failed runs in a row{NO_RUNS_LIST}"
    assert not judge(export, FROZEN_AT).reason.endswith(NO_RUNS_LIST)  # a runs list to read: no such words
