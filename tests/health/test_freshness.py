"""Freshness targets per export ([profiles.NAME.freshness]): one rule for the table, the details pane, the alerts,
``status`` and the exporter, in place of two intervals plus grace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.monitor.conftest import make_app, select_export
from tests.pilot import notifications, settle
from tui.api.models.batch_exports import BatchExport
from tui.clock import FrozenClock
from tui.config import ConfigError
from tui.config.file import load_config
from tui.config.models import parse_duration
from tui.look.palette import Tone
from tui.sandbox.runner import SandboxHandle, SandboxOptions, start_sandbox
from tui.state.health import HealthState, judge, target_for, unmatched_targets_warning
from tui.text.words import duration

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
FROZEN_AT = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]


def hourly(done_end: datetime, name: str = "Events to S3") -> BatchExport:
    return BatchExport.model_validate({
        "id": "e1", "name": name, "interval": "hour", "paused": False, "created_at": "2025-01-01T00:00:00Z",
        "latest_runs": [{"id": "r1", "status": "Completed", "data_interval_start": (done_end - timedelta(hours=1))
                         .isoformat(), "data_interval_end": done_end.isoformat(),
                         "created_at": done_end.isoformat(), "finished_at": done_end.isoformat()}]})


def test_a_target_replaces_intervals_plus_grace_in_the_verdict_and_its_reason() -> None:
    export = hourly(NOW - timedelta(hours=2, minutes=40))
    default = judge(export, NOW)
    assert default.state is HealthState.OVERDUE  # 2h40m > 2 intervals + 10m
    assert default.reason == "no completed data for 2h40m, allowed 2h10m"
    assert default.rule == "2 intervals + 10m grace (2h10m)"
    tight = judge(export, NOW, target_seconds=7200)
    assert tight.state is HealthState.OVERDUE
    assert tight.reason == "no completed data for 2h40m, target 2h"
    assert (tight.rule, tight.allowed_lag_seconds) == ("freshness target 2h", 7200)
    loose = judge(export, NOW, target_seconds=parse_duration("3h"))
    assert loose.state is HealthState.OK and loose.rule == "freshness target 3h"
    fresh = hourly(NOW - timedelta(minutes=40))
    assert judge(fresh, NOW).state is HealthState.OK
    assert judge(fresh, NOW, target_seconds=parse_duration("30m")).reason == \
        "no completed data for 40m, target 30m"


def test_a_target_is_found_by_id_before_name_and_one_naming_nothing_is_one_warning() -> None:
    export = hourly(NOW)
    assert target_for(export, {"Events to S3": 60.0, "e1": 120.0}) == 120.0
    assert target_for(export, {"Events to S3": 60.0}) == 60.0
    assert target_for(export, {"other": 60.0}) is None
    assert target_for(export, {}) is None
    assert unmatched_targets_warning({"Events to S3": 60.0, "e1": 5.0}, [export]) is None
    assert unmatched_targets_warning({"Evnets": 60.0, "e9": 5.0}, [export]) == (
        "freshness targets for 'Evnets', 'e9' name no watched export (by id or name): "
        "check the profile's [freshness] table")


def test_durations_and_the_profile_table(tmp_path: Path) -> None:
    assert [parse_duration(t) for t in ("2h", "30m", "1h30m", "1d", "90s", " 2H ")] == [
        7200, 1800, 5400, 86400, 90, 7200]
    assert [duration(parse_duration(t)) for t in ("2h", "30m", "1h30m", "1d", "90s", "1d2h3m4s")] == [
        "2h", "30m", "1h30m", "1d", "1m30s", "1d02h"]
    for bad in ("", "2", "2 hours", "0m", "-1h", "h"):
        with pytest.raises(ValueError):
            parse_duration(bad)
    path = tmp_path / "config.toml"
    path.write_text('[profiles.eu]\nbase_url = "https://eu.posthog.com"\nproject = "1"\n'
                    '[profiles.eu.freshness]\n"Events to S3" = "2h"\n"0193abc" = "30m"\n')
    config = load_config(path)
    assert config is not None
    assert config.profiles["eu"].freshness_seconds == {"Events to S3": 7200.0, "0193abc": 1800.0}
    path.write_text('[profiles.eu]\nbase_url = "https://eu.posthog.com"\n[profiles.eu.freshness]\n"x" = "soon"\n')
    with pytest.raises(ConfigError, match="freshness of 'x': 'soon' is not a duration"):
        load_config(path)


# --------------------------------------------------------------------------- the monitor


@pytest.fixture
def frozen_sandbox() -> Any:
    with start_sandbox(SandboxOptions(seed=7, simulate=False, clock=FrozenClock(FROZEN_AT))) as handle:
        yield handle


async def test_the_monitor_judges_by_the_target_and_the_details_pane_names_the_rule(
        frozen_sandbox: SandboxHandle) -> None:
    app = make_app(frozen_sandbox, freshness={"Events to S3 data lake": 60.0, "No such export": 3600.0})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        key = select_export(app, "Events to S3 data lake")
        await settle(pilot)
        screen: Any = app.screen
        facts = screen.board.facts(key)
        assert facts.verdict.state is HealthState.OVERDUE
        assert facts.verdict.reason.endswith(", target 1m")
        assert facts.verdict.rule == "freshness target 1m"
        others = [f for f in (screen.board.facts(w.key) for w in screen.board.snapshot.exports)
                  if f.watched.export.name == "Snowflake warehouse (hourly)"]
        assert others[0].verdict.rule == "2 intervals + 10m grace (2h10m)"
        assert screen.cells()[key]["state"].plain == "▲ overdue"
        assert screen.cells()[key]["lag"].style == Tone.FAILURE.style  # the lag cell is coloured as overdue
        opened = [a for a in screen.incident.desk.book.open_alerts if a.key == key]
        assert [str(a.kind) for a in opened] == ["overdue"]
        details = str(app.screen.query_one("#export-details", Static).render())
        assert "Overdue rule    freshness target 1m" in details
        warnings = [str(n.message) for n in notifications(app) if "freshness" in str(n.message)]
        assert warnings == ["freshness target for 'No such export' names no watched export (by id or name): "
                            "check the profile's [freshness] table"]


# --------------------------------------------------------------------------- status, through a profile


def test_status_reads_the_profiles_targets(sandbox: SandboxHandle) -> None:
    # The seeded statuses follow the hour: a finished run that failed would make the export failing, not overdue.
    with sandbox.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'Completed', latest_error = NULL WHERE status NOT IN "
                  "('Completed', 'Starting', 'Running', 'ContinuedAsNew') AND export_id IN "
                  "(SELECT id FROM exports WHERE json_extract(data, '$.name') = ?)",
                  ("Databricks lakehouse events",))
    config_dir = Path(os.environ["WATCHDECK_CONFIG_DIR"])
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.toml").write_text(
        f'[profiles.sb]\nbase_url = "{sandbox.base_url}"\nproject = "1"\n'
        '[profiles.sb.freshness]\n"Databricks lakehouse events" = "1m"\n"Evnets" = "2h"\n')
    env = {k: v for k, v in os.environ.items() if k != "WATCHDECK_PROFILE"} | {
        "WATCHDECK_API_KEY": sandbox.api_key, "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "tui", "status", "--profile", "sb", "--json"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)
    data = json.loads(done.stdout)
    rows = {e["name"]: e for e in data["exports"]}
    row = rows["Databricks lakehouse events"]
    # the seeded world follows the real clock: a run may be in progress, which the reason adds after the target
    assert row["state"] == "overdue" and ", target 1m" in row["reason"], row["reason"]
    assert done.returncode == 1
    assert done.stderr == ("watchdeck: warning: freshness target for 'Evnets' names no watched export "
                           "(by id or name): check the profile's [freshness] table\n")
