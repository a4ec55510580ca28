"""The monitor's cells, the alert book and ``watchdeck status`` give the same verdict on the same snapshot."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from tests.ids import uid
from tui.api.models.batch_exports import BatchExport
from tui.cli.status import EXIT_OK, EXIT_PROBLEM, collect, format_table, to_json
from tui.clock import FrozenClock
from tui.config import Settings
from tui.look.export_cells import STATE_LOOKS, time_cells
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.state.alert_book import AlertBook, AlertKind
from tui.state.export_board import ExportBoard
from tui.state.exports import ExportsSnapshot, WatchedExport
from tui.state.health import HealthState, judge
from tui.state.incident import IncidentDesk

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def run(i: int, status: str, end: datetime) -> dict[str, Any]:
    return {"id": uid(f"r{i}"), "status": status, "data_interval_start": (end - HOUR).isoformat(),
            "data_interval_end": end.isoformat(), "created_at": (end + timedelta(seconds=30)).isoformat()}


def export(word: str, runs: list[dict[str, Any]], *, export_id: str | None = None, **extra: Any) -> BatchExport:
    return BatchExport.model_validate({
        "id": export_id or uid(word), "name": f"export {word}", "interval": "hour", "paused": False,
        "destination": {"type": "S3", "config": {}}, "created_at": (NOW - timedelta(days=9)).isoformat(),
        "latest_runs": runs, **extra,
    })


# One export per state, as the server would send it.
CASES: dict[HealthState, BatchExport] = {
    HealthState.OK: export("ok", [run(1, "Completed", NOW - timedelta(minutes=20))]),
    HealthState.RUNNING: export("running", [run(1, "Completed", NOW - HOUR), run(2, "Running", NOW)]),
    HealthState.FAILING: export("failing", [run(1, "Completed", NOW - 2 * HOUR),
                                            run(2, "FailedRetryable", NOW - HOUR)]),
    HealthState.OVERDUE: export("overdue", [run(1, "Completed", NOW - 3 * HOUR)]),
    HealthState.PAUSED: export("paused", [run(1, "Completed", NOW - 3 * 24 * HOUR)], paused=True),
    HealthState.ENDED: export("ended", [run(1, "Completed", NOW - 48 * HOUR)],
                              end_at=(NOW - 48 * HOUR).isoformat()),
    HealthState.NO_RUNS: export("new", [], created_at=(NOW - timedelta(minutes=5)).isoformat()),
    HealthState.UNKNOWN_STATUS: export("odd", [run(1, "Completed", NOW - HOUR), run(2, "Rebooting", NOW)]),
}


def snapshot(exports: list[BatchExport]) -> ExportsSnapshot:
    return ExportsSnapshot(exports=[WatchedExport("1", e) for e in exports])


def monitor_states(exports: list[BatchExport], now: datetime) -> dict[str, str]:
    """What the monitor's State column shows for each export: the board's rows, drawn by the cells."""
    board = ExportBoard()
    board.apply_snapshot(snapshot(exports), now)
    return {facts.watched.export.id: time_cells(facts.verdict)["state"].plain for facts in board.rows(now).rows}


@pytest.fixture(scope="module")
def server() -> Iterator[SandboxHandle]:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(NOW))) as handle:
        yield handle


def status_json(server: SandboxHandle, exports: list[BatchExport], now: datetime) -> dict[str, Any]:
    """What ``watchdeck status --json`` says when the server answers with these exports, its clock at ``now``.

    Through ``status_cmd.collect()`` over loopback HTTP: the sandbox answers the list with exactly these exports
    and has no runs list (404), so status judges them from ``latest_runs`` on its own estimate of server time.
    """
    admin = f"{server.base_url}/_sandbox"
    assert httpx.delete(f"{admin}/faults", timeout=10, verify=False).status_code == 204
    assert httpx.post(f"{admin}/clock", json={"now": now.isoformat()}, timeout=10, verify=False).status_code == 200
    page = {"count": len(exports), "next": None, "previous": None,
            "results": [e.model_dump(mode="json", exclude_unset=True) for e in exports]}
    for fault in ({"kind": "body", "path": r"/batch_exports/$", "body": json.dumps(page)},
                  {"kind": "status", "status": 404, "path": r"/runs/$"}):
        assert httpx.post(f"{admin}/faults", json=fault, timeout=10, verify=False).status_code == 201
    settings = Settings(base_url=server.base_url, api_key=SecretStr(server.api_key), project_ids=["1"])
    report = asyncio.run(collect(settings, FrozenClock(NOW)))
    assert not report.errors, report.errors
    return to_json(report, settings) | {"table": format_table(report, colour=False)}


@pytest.mark.parametrize("state", list(HealthState))
def test_every_surface_gives_the_same_verdict(server: SandboxHandle, state: HealthState) -> None:
    e = CASES[state]
    assert judge(e, NOW).state is state, "the case is built for this state"

    shown = monitor_states([e], NOW)[e.id]
    assert shown == STATE_LOOKS[state][0]

    data = status_json(server, [e], NOW)
    (row,) = data["exports"]
    assert row["state"] == state.value
    assert row["healthy"] is (state not in (HealthState.FAILING, HealthState.OVERDUE))
    assert data["exit_code"] == (EXIT_OK if row["healthy"] else EXIT_PROBLEM)
    assert data["table"].splitlines()[1].rstrip().endswith(state.value.upper())

    board, desk = ExportBoard(), IncidentDesk(AlertBook())
    quiet = snapshot([export(e.name.removeprefix("export "), [run(9, "Completed", NOW - timedelta(minutes=50))])])
    # primes the book (history does not ring); judged apart, as its run is none of the case's (a server's runs
    # never vanish, and the board's run history keeps every run it saw)
    desk.observe(quiet.exports, ExportBoard().apply_snapshot(quiet, NOW), NOW)
    now = snapshot([e])
    kinds = {a.kind for a in desk.observe(now.exports, board.apply_snapshot(now, NOW), NOW).opened}
    assert (AlertKind.OVERDUE in kinds) is (state is HealthState.OVERDUE)
    assert (AlertKind.FAILING in kinds) is (state is HealthState.FAILING)
    assert board.failing_count == (1 if state is HealthState.FAILING else 0)


def test_all_states_at_once_agree_row_by_row(server: SandboxHandle) -> None:
    exports = list(CASES.values())
    shown = monitor_states(exports, NOW)
    data = status_json(server, exports, NOW)
    by_word = {label: state for state, (label, _) in STATE_LOOKS.items()}
    for row in data["exports"]:
        assert by_word[shown[row["id"]]].value == row["state"]
    board = ExportBoard()
    board.apply_snapshot(snapshot(exports), NOW)
    assert board.failing_count == sum(1 for r in data["exports"] if r["state"] == "failing")
    assert data["exit_code"] == EXIT_PROBLEM


def test_skewed_server_same_verdict_everywhere(server: SandboxHandle) -> None:
    """Judged at the server's now (3 hours ahead of ours), every surface says overdue, none says ok."""
    e = export("fresh-by-our-clock", [run(1, "Completed", NOW)])
    server_now = NOW + 3 * HOUR
    assert monitor_states([e], server_now)[e.id] == STATE_LOOKS[HealthState.OVERDUE][0]
    assert status_json(server, [e], server_now)["exports"][0]["state"] == "overdue"
    assert status_json(server, [e], server_now)["exports"][0]["lag_seconds"] == 3 * 3600
