"""Issue 27, items 9-10: the demo's outage outlasts a newcomer's first ten minutes, and `status` reaches a demo."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from tui.cli.demo import DEMO_SPEED
from tui.cli.main import main
from tui.sandbox.outages import DEMO_LASTS, DEMO_STARTED

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_outage_goes_on_for_ten_minutes_of_the_operators_time() -> None:
    still_going = DEMO_LASTS - DEMO_STARTED  # after the demo opens, in the sandbox's time
    assert still_going / DEMO_SPEED >= timedelta(minutes=10)


def test_status_asks_a_demo_sandbox_whichever_side_of_the_command_demo_is_on(tmp_path: Path) -> None:
    """``status --demo`` as a process (its exit code and output), then ``--demo status`` through the command's own
    function in this process: the second demo loads the world the first kept (the same user folders)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("WATCHDECK_API_KEY", None)
    done = subprocess.run([sys.executable, "-m", "tui", "status", "--demo", "--json"], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # the demo opens on its outage
    _failing_export_in(done.stdout)

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--demo", "status", "--json"], env=env)
    assert code == 1, err.getvalue()
    _failing_export_in(out.getvalue())


def _failing_export_in(stdout: str) -> None:
    """An export of the outage's destination is failing, or overdue after its failed runs while a retry runs: the
    demo's clock runs 60 times faster than the wall's, so a retry starts every few seconds, and the destination's
    exports (every 5 and every 15 minutes) have their retries in progress at the same moments now and then."""
    answer = json.loads(stdout)
    assert answer["exit_code"] == 1
    assert any(export["state"] == "failing" or (export["state"] == "overdue" and export["failure_streak"] > 0)
               for export in answer["exports"]), answer
