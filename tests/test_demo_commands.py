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


def test_the_demo_prints_a_status_command_that_works_as_pasted(tmp_path: Path) -> None:
    """The hint's command, run as a shell would run it pasted (its key in the environment), against a demo sandbox:
    it reads the demo's exports (exit 0 or 1), where the hint of before (no project, no key) exited 2."""
    import shlex

    from tui.cli.demo import open_demo_server
    from tui.cli.main import demo_hint

    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("WATCHDECK_API_KEY", None)
    with open_demo_server() as server:
        server.wait_until_serving()
        hint = demo_hint(server.base_url, server.api_key, [server.project_id], "watchdeck")
        assert "60 times faster" in hint
        words = shlex.split(hint.split("From another terminal: ", 1)[1])
        assignment, program, *arguments = words
        name, _, value = assignment.partition("=")
        assert (name, program) == ("WATCHDECK_API_KEY", "watchdeck")
        done = subprocess.run([sys.executable, "-m", "tui", *arguments, "--json"], capture_output=True, text=True,
                              env={**env, name: value}, timeout=120, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["project_ids"] == [server.project_id]
