"""``watchdeck status`` as cron runs it: on this machine's real clock, against the sandbox.

The sandbox's clock runs at real speed over a frozen world (no simulator) and
stamps its answers' ``Date`` with it, so moving it (its clock admin endpoint)
is how time passes on the server, or how its clock is skewed from ours.

One sandbox serves these tests, its world put back as seeded before each (tests/health/conftest.py).

A healthy run (exit 0), a wrong project (exit 2) and a closed pipe run the command as a subprocess, as cron
does; the other cases call the command's own function (``tui.cli.main.main``, what ``python -m tui`` runs) in this
process, with the same environment and arguments, and read what it printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.health.conftest import PROJECT_ONE_KEY
from tui.api.client import ApiClient
from tui.api.models.batch_exports import BatchExport
from tui.cli.main import main
from tui.sandbox.runner import SandboxHandle

ROOT = Path(__file__).resolve().parents[2]


def status(handle: SandboxHandle, *args: str, project: str = "1", key: str | None = None,
           subprocess_: bool = False) -> tuple[int, str, str]:
    """``watchdeck status ARGS``: exit code, stdout, stderr; in a subprocess when ``subprocess_``, else in this one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHDECK_")}
    env |= {"WATCHDECK_BASE_URL": handle.base_url, "WATCHDECK_API_KEY": key or handle.api_key,
            "WATCHDECK_PROJECT_ID": project, "NO_COLOR": "1"}
    if subprocess_:
        done = subprocess.run([sys.executable, "-m", "tui", "status", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        return done.returncode, done.stdout, done.stderr
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["status", *args], env=env)
    return code, out.getvalue(), err.getvalue()


def move_server_clock(handle: SandboxHandle, **body: Any) -> None:
    answer = httpx.post(f"{handle.base_url}/_sandbox/clock", json=body, timeout=10, verify=False)
    assert answer.status_code == 200, answer.text


def exports(handle: SandboxHandle) -> list[BatchExport]:
    async def fetch() -> list[BatchExport]:
        async with ApiClient(handle.base_url, handle.api_key, "1") as client:
            return (await client.batch_exports.list()).results

    return asyncio.run(fetch())


def all_runs_completed(handle: SandboxHandle, export_id: str) -> None:
    """The seed's newest run statuses depend on the hour: make every run of this export completed."""
    with handle.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'Completed', latest_error = NULL WHERE export_id = ?", (export_id,))


def healthy_hourly(handle: SandboxHandle) -> BatchExport:
    """An hourly export whose recent runs all completed."""
    found = [e for e in exports(handle) if not e.paused and e.end_at is None and e.interval == "hour"
             and e.latest_runs]
    assert found, "the seed changed: need an hourly export in project 1"
    all_runs_completed(handle, found[0].id)
    return next(e for e in exports(handle) if e.id == found[0].id)


def test_healthy_exit_0_with_json_fields(sandbox: SandboxHandle) -> None:
    export = healthy_hourly(sandbox)
    code, out, err = status(sandbox, "--json", "--export", export.id, subprocess_=True)
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["exit_code"] == 0 and data["healthy"] is True
    assert data["clock_skew_seconds"] == 0.0
    (row,) = data["exports"]
    assert row["state"] == "ok" and row["reason"].startswith("data ")
    assert {"reason", "failure_streak", "next_due", "lag_seconds", "problem"} <= set(row)
    assert row["lag_seconds"] >= 0 and row["latest_run"]["age_seconds"] >= 0


def test_failing_exit_1(sandbox: SandboxHandle) -> None:
    export = healthy_hourly(sandbox)
    newest = max(export.latest_runs, key=lambda r: r.created_at or datetime.min.replace(tzinfo=UTC))
    with sandbox.state.db.transaction() as c:  # the seed's statuses depend on the hour: make one fail for sure
        c.execute("UPDATE runs SET status = 'FailedBilling', latest_error = 'quota' WHERE id = ?", (newest.id,))
    code, out, _ = status(sandbox, "--json")
    data = json.loads(out)
    rows = {e["id"]: e for e in data["exports"]}
    assert code == 1 == data["exit_code"]
    assert rows[export.id]["state"] == "failing" and not rows[export.id]["healthy"]
    assert rows[export.id]["latest_run"]["status"] == "FailedBilling"
    assert rows[export.id]["problem"] == "latest run FailedBilling: quota"


def test_overdue_exit_1_after_a_day_of_server_time_ended_and_paused_excluded(sandbox: SandboxHandle) -> None:
    export = healthy_hourly(sandbox)
    ended = [e for e in exports(sandbox) if e.end_at is not None]
    paused = [e for e in exports(sandbox) if e.paused]
    assert ended and paused, "the seed changed: need an ended and a paused export"
    all_runs_completed(sandbox, ended[0].id)  # an ended export whose last run failed is failing, not ended
    move_server_clock(sandbox, advance_seconds=86400)
    code, out, _ = status(sandbox, "--json", "--export", export.id, "--export", ended[0].id,
                          "--export", paused[0].id)
    data = json.loads(out)
    rows = {e["id"]: e for e in data["exports"]}
    assert code == 1
    assert rows[export.id]["state"] == "overdue"
    assert rows[export.id]["problem"].startswith("no completed data for 1d")
    assert rows[ended[0].id]["state"] == "ended" and rows[ended[0].id]["healthy"]
    assert rows[paused[0].id]["state"] in ("paused", "failing")
    # the server says a day passed; our clock did not: that is a skew, and it is reported
    assert data["clock_skew_seconds"] == pytest.approx(86400, abs=5)
    code, _, _ = status(sandbox, "--export", ended[0].id)
    assert code == 0


def test_server_clock_ahead_is_reported_and_ages_are_never_negative(sandbox: SandboxHandle) -> None:
    export = healthy_hourly(sandbox)
    # The server's clock 15 minutes ahead and its data stamped by it: on our clock, the last run is "in the future".
    move_server_clock(sandbox, advance_seconds=15 * 60)
    code, out, _ = status(sandbox, "--json", "--export", export.id)
    data = json.loads(out)
    assert code == 0
    assert data["clock_skew_seconds"] == pytest.approx(900, abs=5)
    row = data["exports"][0]
    assert row["lag_seconds"] >= 0 and row["latest_run"]["age_seconds"] >= 0
    code, out, _ = status(sandbox, "--export", export.id)
    assert code == 0 and "server clock 15m ahead" in out


def test_server_clock_behind_is_reported(sandbox: SandboxHandle) -> None:
    export = healthy_hourly(sandbox)
    now = datetime.now(UTC)
    move_server_clock(sandbox, now=(now - timedelta(minutes=10)).isoformat())
    code, out, _ = status(sandbox, "--export", export.id)
    assert code == 0 and "server clock 10m behind" in out
    data = json.loads(status(sandbox, "--json", "--export", export.id)[1])
    assert data["clock_skew_seconds"] == pytest.approx(-600, abs=5)
    assert all(e["lag_seconds"] is None or e["lag_seconds"] >= 0 for e in data["exports"])


def test_wrong_project_exit_2_named(sandbox: SandboxHandle) -> None:
    code, out, err = status(sandbox, project="99", subprocess_=True)
    assert code == 2
    assert out == ""
    assert err.strip() == "watchdeck: project 99 not found"
    code, out, _ = status(sandbox, "--json", project="99")
    data = json.loads(out)
    assert code == 2 and data["errors"] == ["project 99 not found"] and data["exports"] == []


def test_a_project_the_key_may_not_see_exit_2_named_like_a_missing_one(sandbox: SandboxHandle) -> None:
    """A key limited to project 1 asking for project 2: the real service answers 403 "does not have access to the
    requested project", which is the same mistake as a wrong id, not a scope to add."""
    # the key works on its own project: the same verdict as a key for every project (the world was seeded on the
    # real clock, so which verdict that is depends on the minute)
    assert status(sandbox, project="1", key=PROJECT_ONE_KEY)[0] == status(sandbox, project="1")[0]
    code, out, err = status(sandbox, project="2", key=PROJECT_ONE_KEY)
    assert (code, out) == (2, "")
    assert err.strip() == "watchdeck: project 2 not found or not visible to this key"
    code, out, _ = status(sandbox, "--json", project="2", key=PROJECT_ONE_KEY)
    data = json.loads(out)
    assert code == 2 and data["exports"] == []
    assert data["errors"] == ["project 2 not found or not visible to this key"]


def test_no_runs_list_judges_from_latest_runs(sandbox: SandboxHandle) -> None:
    """The interface's server has no runs list: 404 there is not a connection error; latest_runs decide."""
    export = healthy_hourly(sandbox)
    fault = {"kind": "status", "status": 404, "path": r"/runs/?$"}
    assert httpx.post(f"{sandbox.base_url}/_sandbox/faults", json=fault, timeout=10, verify=False).status_code == 201
    move_server_clock(sandbox, advance_seconds=3 * 86400)
    code, out, err = status(sandbox, "--json", "--export", export.id)
    assert err == ""
    data = json.loads(out)
    assert code == 1 and data["errors"] == []
    assert data["exports"][0]["state"] == "overdue"
    assert any(r["path"].endswith("/runs/") and r["fault"] for r in sandbox.requests())


def test_unknown_export_exit_2(sandbox: SandboxHandle) -> None:
    code, _, err = status(sandbox, "--export", "no-such-export")
    assert code == 2 and "export no-such-export not found in project 1" in err


def test_status_into_a_pipe_closed_early_exits_quietly(sandbox: SandboxHandle, tmp_path: Path) -> None:
    """``watchdeck status | head -1``: the reader leaves; no "unexpected error", nothing in errors.log."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHDECK_")}
    env |= {"WATCHDECK_BASE_URL": sandbox.base_url, "WATCHDECK_API_KEY": sandbox.api_key,
            "WATCHDECK_PROJECT_ID": "1", "NO_COLOR": "1", "WATCHDECK_STATE_DIR": str(tmp_path / "state")}
    reader, writer = os.pipe()
    os.close(reader)  # gone before the first line is written, as `head -1` is after the first
    try:
        done = subprocess.run([sys.executable, "-m", "tui", "status"], cwd=ROOT, env=env, stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(writer)
    assert done.stderr == ""
    assert done.returncode == 141
    assert not (tmp_path / "state" / "errors.log").exists()
