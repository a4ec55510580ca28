"""After a bulk repair the verdicts do not get worse because the server's ten newest runs changed shape.

A 5-minute export recovered from 42 failed intervals; a bulk repair retries all of them (``POST …/runs/:id/retry/``,
which the real service runs as a backfill of that one interval). The 42 retries are now the newest runs, so
``latest_runs`` (the ten newest, ``BatchExportSerializer.get_latest_runs`` in PostHog's
``posthog/batch_exports/http.py``) no longer holds the newest Completed run of the schedule, and once the retries
complete, the newest Completed run among the retries ends 10 minutes earlier than the true one. The monitor and the
exporter keep the run they saw; ``status`` sees that the runs it knows do not reach back to the newest Completed
interval and reads the runs list: all three give the true lag.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx
from prometheus_client.exposition import generate_latest
from pydantic import SecretStr

from tests.incident.sandbox_admin import sandbox_admin
from tests.incident.test_group_repair_record import fail_runs, sandbox, two_five_minute_exports
from tests.metrics.conftest import parse_samples, value
from tests.monitor.conftest import FROZEN_AT, make_app
from tests.pilot import settle
from tui.cli.metrics import Exporter
from tui.cli.status import collect, to_json
from tui.clock import FrozenClock
from tui.config import Settings
from tui.look.export_cells import lag_words
from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import parse_iso
from tui.state.health import LATEST_RUNS_SIZE
from tui.state.metric_families import PollMetrics
from tui.state.run_history import PER_EXPORT

__all__ = ["sandbox"]  # the fixture, shared with the group repair tests


def newest_completed_end(handle: SandboxHandle, export_id: str) -> datetime:
    with handle.state.db.read() as c:
        row = c.execute("SELECT max(data_interval_end) AS e FROM runs WHERE export_id = ? AND status = 'Completed'",
                        (export_id,)).fetchone()
    return parse_iso(row["e"])


def retry_all(handle: SandboxHandle, export_id: str, run_ids: set[str]) -> set[str]:
    """Retry every run over the API, let the sandbox start the retries, then complete them; their ids. (The
    scheduled run of the interval that ends meanwhile starts too, and is left running.)"""
    with handle.state.db.read() as c:
        before = {str(r["id"]) for r in c.execute("SELECT id FROM runs WHERE export_id = ?", (export_id,))}
    with httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.api_key}"},
                      timeout=10, verify=False) as client:
        for run_id in sorted(run_ids):
            answer = client.post(f"/api/environments/1/batch_exports/{export_id}/runs/{run_id}/retry/", json={})
            assert answer.status_code == 201, answer.text
    with sandbox_admin(handle) as admin:
        admin.pass_seconds(5)  # the retries are queued a moment ahead: the sandbox creates them now
    with handle.state.db.transaction() as c:
        retries = {str(r["id"]) for r in c.execute("SELECT id FROM runs WHERE export_id = ? AND backfill_id IS NOT "
                                                   "NULL", (export_id,))} - before
        for run_id in retries:
            c.execute("UPDATE runs SET status = 'Completed', active = 0, latest_error = NULL, finished_at = "
                      "created_at WHERE id = ?", (run_id,))
    return retries


async def exporter_poll(exporter: Exporter, metrics: PollMetrics, labels: dict[str, str]) -> tuple[float, float]:
    """One poll of the exporter: its lag and last Completed end for the export."""
    await exporter.poll_once()
    samples = parse_samples(generate_latest(metrics.registry).decode())
    lag = value(samples, "watchdeck_export_lag_seconds", **labels)
    end = value(samples, "watchdeck_export_last_completed_end_timestamp_seconds", **labels)
    assert lag is not None and end is not None
    return lag, end


async def test_a_bulk_repair_never_makes_the_lag_look_worse(sandbox: SandboxHandle) -> None:
    export_id = two_five_minute_exports(sandbox)[0]
    failed = fail_runs(sandbox, export_id, 3, 42)
    true_end = newest_completed_end(sandbox, export_id)
    key = f"{sandbox.project_id}:{export_id}"
    settings = Settings(base_url=sandbox.base_url, api_key=SecretStr(sandbox.api_key), project_ids=["1"])
    metrics = PollMetrics()
    exporter = Exporter(settings, metrics, clock=FrozenClock(FROZEN_AT))
    app = make_app(sandbox)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            screen: Any = app.screen
            before = screen.board.facts(key).verdict
            assert before.last_completed_end == true_end and before.state.value == "ok"
            labels = {"project": "1", "export_id": export_id, "export": screen.board.watched(key).export.name}
            lag, end = await exporter_poll(exporter, metrics, labels)
            assert end == true_end.timestamp()

            retries = retry_all(sandbox, export_id, failed)
            assert len(retries) == 42 > PER_EXPORT
            with sandbox.state.db.read() as c:
                newest = [str(r["id"]) for r in c.execute(
                    "SELECT id FROM runs WHERE export_id = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                    (export_id, LATEST_RUNS_SIZE))]
            # latest_runs: completed retries of old intervals, and the schedule's next run, in progress
            assert len(set(newest) & retries) >= LATEST_RUNS_SIZE - 1
            with sandbox.state.db.read() as c:
                statuses = {str(r["id"]): r["status"] for r in c.execute(
                    "SELECT id, status FROM runs WHERE export_id = ?", (export_id,))}
            assert [statuses[i] for i in newest if i not in retries] in ([], ["Starting"], ["Running"])
            screen.poll_now()
            await settle(pilot)
            after = screen.board.facts(key).verdict
            assert after.last_completed_end == true_end
            assert after.lag_seconds == (after.judged_at - true_end).total_seconds()
            assert after.state.value == "running"  # the schedule's next run; never overdue for the retries
            assert str(screen.cells()[key]["lag"]) == lag_words(after)
            lag_after, end_after = await exporter_poll(exporter, metrics, labels)
            assert end_after == true_end.timestamp() and lag_after >= lag
    finally:
        await exporter.aclose()
    # A generous allowance: the lag of the retries' intervals would not be overdue, so no overdue verdict sends
    # status to the runs list; what the runs known cannot settle does.
    report = await collect(settings.model_copy(update={"lag_alert_intervals": 100.0}), FrozenClock(FROZEN_AT))
    (row,) = [r for r in to_json(report, settings)["exports"] if r["id"] == export_id]
    assert row["last_completed_end"] == true_end.isoformat().replace("+00:00", "Z")
    assert row["state"] == "running" and not row["lag_is_lower_bound"]
