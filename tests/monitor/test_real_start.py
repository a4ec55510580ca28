"""The real command, started as an operator starts it (``python -m tui``, headless), reaches its first data.

The same start path as ``make bench``'s first-data measurement, run once: the early poll, the paused
collector and the app's first frames meet in a fresh interpreter, as Pilot's in-process apps do not
(a start whose timing Pilot never reproduces).
"""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.test_startup_bench import WATCHDECK_SCRIPT, command_env, first_data
from tui.sandbox.runner import SandboxHandle


def test_the_command_starts_to_its_first_data(sandbox: SandboxHandle, tmp_path: Path) -> None:
    exports = sandbox.state.db.conn.execute(
        "SELECT COUNT(*) FROM exports WHERE project_id = ? AND deleted = 0", (sandbox.project_id,)).fetchone()[0]
    args = ["--base-url", sandbox.base_url, "--project", sandbox.project_id, "--poll", "300"]
    assert first_data(WATCHDECK_SCRIPT, str(exports), "", *args,
                      env=command_env(tmp_path, sandbox.api_key)) > 0
