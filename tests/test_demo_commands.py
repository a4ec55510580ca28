"""Issue 27, items 9-10: the demo's outage outlasts a newcomer's first ten minutes, and `status` reaches a demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tui.cli.demo import DEMO_SPEED
from tui.sandbox.outages import DEMO_LASTS, DEMO_STARTED

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_outage_goes_on_for_ten_minutes_of_the_operators_time() -> None:
    still_going = DEMO_LASTS - DEMO_STARTED  # after the demo opens, in the sandbox's time
    assert still_going / DEMO_SPEED >= timedelta(minutes=10)


@pytest.mark.parametrize("argv", [["status", "--demo", "--json"], ["--demo", "status", "--json"]])
def test_status_asks_a_demo_sandbox(argv: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WATCHDECK_CONFIG_DIR": str(tmp_path / "config"),
           "WATCHDECK_STATE_DIR": str(tmp_path / "state"), "WATCHDECK_DATA_DIR": str(tmp_path / "data"),
           "WATCHDECK_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("WATCHDECK_API_KEY", None)
    done = subprocess.run([sys.executable, "-m", "tui", *argv], capture_output=True, text=True, env=env,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the demo opens on its outage: an export is failing
    answer = json.loads(done.stdout)
    assert answer["exit_code"] == 1
    assert any(export["state"] == "failing" for export in answer["exports"]), answer
