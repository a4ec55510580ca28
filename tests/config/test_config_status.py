"""`watchdeck status` against the real sandbox: every exit code, the table, the JSON shape, quiet success."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.config.conftest import READ_ONLY_KEY
from tui.api.client import ApiClient
from tui.api.models.batch_exports import BatchExport
from tui.cli.main import main
from tui.cli.status import FAILED
from tui.clock import FrozenClock
from tui.sandbox.runner import SandboxHandle


def _exports(h: SandboxHandle, project: str = "1") -> list[BatchExport]:
    async def fetch() -> list[BatchExport]:
        async with ApiClient(h.base_url, h.api_key, project) as client:
            return (await client.batch_exports.list()).results

    return asyncio.run(fetch())


def _healthy_ids(h: SandboxHandle) -> list[str]:
    ids = [e.id for e in _exports(h) if not e.paused and e.latest_runs and e.latest_runs[0].status == "Completed"
           and e.end_at is None and e.interval in ("hour", "every 5 minutes", "every 15 minutes")]
    assert len(ids) >= 2, "the seed changed: need healthy exports in project 1"
    return ids


@pytest.fixture
def failed(sandbox: SandboxHandle) -> Iterator[BatchExport]:
    """An export whose latest run failed (FailedRetryable: the failed group, as the service groups it)."""
    export = next(e for e in _exports(sandbox) if e.latest_runs and e.latest_runs[0].status == "Completed"
                  and e.end_at is None and not e.paused)
    run = export.latest_runs[0]
    with sandbox.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'FailedRetryable', latest_error = 'disk full' WHERE id = ?", (run.id,))
    made = next(e for e in _exports(sandbox) if e.id == export.id)
    assert made.latest_runs[0].status in FAILED
    yield made
    with sandbox.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'Completed', latest_error = NULL WHERE id = ?", (run.id,))


@pytest.fixture
def later(sandbox: SandboxHandle) -> Iterator[Callable[[SandboxHandle, FrozenClock, timedelta], None]]:
    """Let time pass on the server and here alike (health is judged on the server's clock); undone after."""
    moved = timedelta(0)

    def advance(handle: SandboxHandle, clock: FrozenClock, delta: timedelta) -> None:
        nonlocal moved
        assert isinstance(handle.clock, FrozenClock)
        moved += delta
        handle.clock.advance(delta)
        clock.advance(delta)

    yield advance
    assert isinstance(sandbox.clock, FrozenClock)
    sandbox.clock.advance(-moved)


@pytest.fixture
def run_env(env: dict[str, str], sandbox: SandboxHandle) -> dict[str, str]:
    return env | {"WATCHDECK_BASE_URL": sandbox.base_url, "WATCHDECK_API_KEY": sandbox.api_key,
                  "WATCHDECK_PROJECT_ID": "1"}


def test_healthy_exports_exit_0_and_stay_quiet(run_env: dict[str, str], sandbox: SandboxHandle,
                                               clock: FrozenClock, capsys: pytest.CaptureFixture[str]) -> None:
    ids = _healthy_ids(sandbox)
    argv = ["status"] + [a for i in ids for a in ("--export", i)]
    assert main(argv, env=run_env, clock=clock) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["PROJECT", "EXPORT", "NAME", "INTERVAL", "LATEST", "AGE", "LAG", "STATE"]
    assert len(lines) == 1 + len(ids)
    assert all(line.rstrip().endswith("OK") for line in lines[1:])
    assert all(i in out for i in ids)
    assert "\x1b[" not in out  # not a terminal: no colour
    state_col = lines[0].index("STATE")
    assert all(len(line) >= state_col and line[state_col:].strip() == "OK" for line in lines[1:])  # aligned


def test_failed_latest_run_exits_1(run_env: dict[str, str], failed: BatchExport, clock: FrozenClock,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status"], env=run_env, clock=clock) == 1
    out, err = capsys.readouterr()
    assert err == ""
    row = next(line for line in out.splitlines() if failed.id in line)
    assert row.rstrip().endswith("FAILING") and failed.latest_runs[0].status in row
    assert f"{failed.name}: latest run {failed.latest_runs[0].status}" in out
    # the same export alone, the other word order of the flags
    assert main(["--export", failed.id, "status"], env=run_env, clock=clock) == 1


def test_overdue_exits_1_and_paused_is_excluded(run_env: dict[str, str], sandbox: SandboxHandle,
                                                clock: FrozenClock, capsys: pytest.CaptureFixture[str],
                                                later: Callable[..., None]) -> None:
    ids = _healthy_ids(sandbox)
    paused = [e.id for e in _exports(sandbox) if e.paused]
    assert paused, "the seed changed: need a paused export in project 1"
    later(sandbox, clock, timedelta(days=1))  # the frozen sandbox made no runs for a day
    assert main(["status", "--json", "--export", ids[0], "--export", paused[0]], env=run_env, clock=clock) == 1
    data = json.loads(capsys.readouterr().out)
    states = {e["id"]: e for e in data["exports"]}
    assert states[ids[0]]["state"] == "overdue" and not states[ids[0]]["healthy"]
    assert "no completed data for 1d" in states[ids[0]]["problem"]
    assert states[paused[0]]["state"] == "paused" and states[paused[0]]["healthy"]
    # paused alone stays healthy however old
    assert main(["status", "--export", paused[0]], env=run_env, clock=clock) == 0


def test_grace_flag_moves_the_line(run_env: dict[str, str], sandbox: SandboxHandle, clock: FrozenClock,
                                   capsys: pytest.CaptureFixture[str], later: Callable[..., None]) -> None:
    hourly = [e for e in _exports(sandbox) if e.id in _healthy_ids(sandbox) and e.interval == "hour"]
    assert hourly, "the seed changed: need a healthy hourly export"
    later(sandbox, clock, timedelta(hours=3))
    assert main(["status", "--export", hourly[0].id], env=run_env, clock=clock) == 1
    assert main(["status", "--grace", "7200", "--export", hourly[0].id], env=run_env, clock=clock) == 0


def test_json_shape(run_env: dict[str, str], sandbox: SandboxHandle, clock: FrozenClock,
                    capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["status", "--json", "--project", "1", "--project", "2"], env=run_env, clock=clock)
    out, err = capsys.readouterr()
    assert err == ""
    data = json.loads(out)
    assert set(data) == {"checked_at", "base_url", "profile", "project_ids", "exit_code", "healthy", "errors",
                         "exports", "key", "clock_skew_seconds"}
    assert data["clock_skew_seconds"] == 0.0
    # the key's own scopes, from personal_api_keys/@current/ (the demo key has them all)
    assert data["key"]["scopes"] == ["*"] and data["key"]["missing"] == {}
    assert data["exit_code"] == code and data["project_ids"] == ["1", "2"] and data["errors"] == []
    assert data["checked_at"] == "2026-03-02T12:00:00Z"
    assert {e["project_id"] for e in data["exports"]} == {"1", "2"}
    export = data["exports"][0]
    assert set(export) == {"project_id", "id", "name", "interval", "paused", "state", "healthy", "problem",
                           "reason", "failure_streak", "next_due", "latest_run", "last_completed_end",
                           "lag_seconds", "failure_streak_is_lower_bound", "lag_is_lower_bound", "alert"}
    assert export["failure_streak_is_lower_bound"] is False and export["lag_is_lower_bound"] is False
    alerts = [e["alert"] for e in data["exports"] if e["alert"] is not None]
    assert all(set(a) == {"kind", "detail", "since", "episode_id"} for a in alerts)
    assert {e["healthy"] for e in data["exports"] if e["alert"] is not None} <= {False}
    assert set(export["latest_run"]) == {"id", "status", "data_interval_start", "data_interval_end", "finished_at",
                                         "age_seconds", "latest_error"}
    assert sandbox.api_key not in out


def test_wrong_key_exits_2(run_env: dict[str, str], clock: FrozenClock, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status"], env=run_env | {"WATCHDECK_API_KEY": "wrong-key-123"}, clock=clock) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "401" in err and "wrong-key-123" not in err


def test_missing_scope_exits_2_naming_it(run_env: dict[str, str], clock: FrozenClock, limited_key: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--json"], env=run_env | {"WATCHDECK_API_KEY": limited_key}, clock=clock) == 2
    out, err = capsys.readouterr()
    assert "batch_export:read" in err and limited_key not in err + out
    assert json.loads(out)["exit_code"] == 2
    # the key's scopes and what each missing one disables
    key = json.loads(out)["key"]
    assert "batch_export:read" in key["missing"] and "monitor" in key["missing"]["batch_export:read"]
    assert "key: batch_export:write missing: monitor p pause" in err


def test_a_read_only_key_is_named_with_what_it_disables_though_nothing_failed(
        run_env: dict[str, str], clock: FrozenClock, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing fails for want of a write scope here, yet the operator learns which keys of the monitor are off."""
    code = main(["status"], env=run_env | {"WATCHDECK_API_KEY": READ_ONLY_KEY}, clock=clock)
    out, err = capsys.readouterr()
    assert code == 0 and "key:" not in err, err
    assert "key: the key's scopes: batch_export:read, project:read" in out
    assert "key: batch_export:write missing: monitor p pause" in out
    assert "key: survey:read missing: the surveys screen" in out
    assert main(["status"], env=run_env, clock=clock) == 0
    assert "key:" not in capsys.readouterr().out, "a key with every scope needs no note"


def test_stopped_server_exits_2(run_env: dict[str, str], free_port: int, clock: FrozenClock,
                                capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port}"
    assert main(["status", "--base-url", url], env=run_env, clock=clock) == 2
    _, err = capsys.readouterr()
    assert err.strip() == (f"watchdeck: Refused: nothing accepts connections at 127.0.0.1:{free_port}. "
                           "Is the server running, is the port right?")


def test_unknown_export_exits_2(run_env: dict[str, str], clock: FrozenClock,
                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--export", "no-such-export"], env=run_env, clock=clock) == 2
    assert "export no-such-export not found in project 1" in capsys.readouterr().err


def test_config_error_exits_2(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status"], env=env) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("watchdeck: nothing to connect to") and err.count("\n") == 1


def test_status_uses_a_profile(env: dict[str, str], sandbox: SandboxHandle, clock: FrozenClock,
                               write_config: Callable[..., Path], capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    command = json.dumps([sys.executable, "-c", f"print({sandbox.api_key!r})"])
    write_config(f'[profiles.sandbox]\nbase_url = "{sandbox.base_url}"\nprojects = ["2"]\nkey_command = {command}\n')
    code = main(["status", "--json", "--profile", "sandbox"], env=env, clock=clock)
    data = json.loads(capsys.readouterr().out)
    assert code == data["exit_code"] and data["profile"] == "sandbox" and data["project_ids"] == ["2"]
    assert data["exports"] and {e["project_id"] for e in data["exports"]} == {"2"}


def test_list_endpoint_missing_falls_back_to_given_ids(run_env: dict[str, str], sandbox: SandboxHandle,
                                                       clock: FrozenClock, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.api.errors import MethodNotAllowed
    from tui.api.resources.batch_exports import BatchExportsApi

    async def no_list(self: object, *args: object, **kwargs: object) -> object:
        raise MethodNotAllowed("The server does not offer GET (405).", status=405)

    ids = _healthy_ids(sandbox)[:1]
    monkeypatch.setattr(BatchExportsApi, "list", no_list)
    before = len(sandbox.requests())
    assert main(["status", "--export", ids[0]], env=run_env, clock=clock) == 0
    out = capsys.readouterr().out
    assert ids[0] in out and len(out.splitlines()) == 2
    paths = [r["path"] for r in sandbox.requests()[before:]]
    # the project is confirmed to exist before "no list" is decided; then the given id is fetched
    assert paths[0] == "/api/projects/1/" and paths[1].endswith(f"/batch_exports/{ids[0]}/")
    assert not any(p.endswith("/batch_exports/") for p in paths)
