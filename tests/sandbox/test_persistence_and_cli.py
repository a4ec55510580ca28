"""--db restarts keep everything (including the simulation clock); the CLI parses and prints."""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stdout
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from tui.clock import ScaledClock
from tui.sandbox import cli
from tui.sandbox.runner import SandboxOptions, start_sandbox

S = "/api/projects/1/surveys/"


def test_restart_on_same_db_keeps_state_and_clock(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.db")
    opts = SandboxOptions(db_path=db, speed=3600.0, summary_delay=(0, 0))
    with start_sandbox(opts) as h:
        c = httpx.Client(base_url=h.base_url, headers={"Authorization": f"Bearer {h.api_key}"}, verify=False)
        sid = c.post(S, json={"name": "Persistent survey", "type": "popover"}).json()["id"]
        export = c.get("/api/environments/1/batch_exports/").json()["results"][0]
        c.post(f"/api/environments/1/batch_exports/{export['id']}/pause/")
        runs_before = c.get(f"/api/environments/1/batch_exports/{export['id']}/runs/").json()["results"]
        first_clock = h.clock.now()
        c.close()
    stopped_at = datetime.fromisoformat(
        __import__("sqlite3").connect(db).execute("SELECT value FROM meta WHERE key='sim_now'").fetchone()[0]
        .replace("Z", "+00:00"))
    assert stopped_at >= first_clock
    with start_sandbox(SandboxOptions(db_path=db, speed=3600.0)) as h2:
        assert isinstance(h2.clock, ScaledClock)
        assert h2.clock.now() >= stopped_at
        c = httpx.Client(base_url=h2.base_url, headers={"Authorization": f"Bearer {h2.api_key}"}, verify=False)
        assert c.get(f"{S}{sid}/").json()["name"] == "Persistent survey"
        again = c.get(f"/api/environments/1/batch_exports/{export['id']}/").json()
        assert again["paused"] is True
        ids_after = {r["id"] for r in c.get(f"/api/environments/1/batch_exports/{export['id']}/runs/").json()[
            "results"]}
        assert {r["id"] for r in runs_before} <= ids_after
        assert c.get(S).json()["count"] == 41  # not reseeded
        c.close()


def test_cli_arguments_and_bad_specs(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    args = parser.parse_args(["--port", "0", "--seed", "3", "--speed", "120", "--key", "ro:survey:read",
                              "--key", "all", "--faults", "latency:seconds=1", "--logs-forbidden",
                              "--surveys", "50", "--exports", "20", "--db", "x.db"])
    opts = cli.options_from_args(args)
    assert (opts.seed, opts.speed, opts.keys, opts.faults, opts.logs_forbidden, opts.surveys, opts.exports,
            opts.db_path) == (3, 120.0, ["ro:survey:read", "all"], ["latency:seconds=1"], True, 50, 20, "x.db")
    assert parser.parse_args([]).host == "127.0.0.1" and parser.parse_args([]).port == 8010
    bad = parser.parse_args(["--faults", "nope"])
    assert cli.run(bad) == 2
    assert "kind must be one of" in capsys.readouterr().err
    bad = parser.parse_args(["--key", "k:survey:fly"])
    assert cli.run(bad) == 2


def test_cli_run_prints_and_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    args = parser.parse_args(["--port", "0"])

    def interrupt() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_wait_forever", interrupt)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.run(args) == 0
    text = out.getvalue()
    assert "http://127.0.0.1:" in text and "project id: 1" in text and "sandbox-demo-key" in text


def test_a_scaled_seed_serves_every_survey_and_export() -> None:
    """How long it takes is printed by ``make bench`` (tests/benchmarks/test_seed_bench.py)."""
    with start_sandbox(SandboxOptions(surveys=10_000, exports=200, simulate=False)) as h:
        c = httpx.Client(base_url=h.base_url, headers={"Authorization": f"Bearer {h.api_key}"}, verify=False)
        assert c.get(S, params={"limit": 1}).json()["count"] == 10_000
        assert c.get("/api/environments/1/batch_exports/", params={"limit": 1}).json()["count"] == 200
        c.close()
