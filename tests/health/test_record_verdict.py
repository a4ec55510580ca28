"""Verdicts from the server's record: fourteen failed runs in a row, ten of them in ``latest_runs``.

The real service's ``latest_runs`` is the ten newest runs (``BatchExportSerializer.get_latest_runs`` in
PostHog's ``posthog/batch_exports/http.py`` slices ``[:10]``), so the lag and the streak of a long outage are
only in the runs list (``RunsCursorPagination``, 100 a page, newest first by ``created_at``).
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from tests.health.test_status_subprocess import healthy_hourly, status
from tests.incident.long_outage import fail_newest
from tui.sandbox.runner import SandboxHandle


def test_status_json_has_the_true_lag_and_streak_of_14_failed_runs(sandbox: SandboxHandle) -> None:
    export = healthy_hourly(sandbox)
    last_done = fail_newest(sandbox, export.id, 14)
    code, out, err = status(sandbox, "--json", "--export", export.id)
    data = json.loads(out)
    (row,) = data["exports"]
    assert (code, err) == (1, "")
    assert row["state"] == "failing"
    assert row["failure_streak"] == 14
    assert row["reason"] == "latest run Failed, 14 failed runs in a row"
    assert row["last_completed_end"] == last_done.isoformat().replace("+00:00", "Z")
    checked = datetime.fromisoformat(data["checked_at"].replace("Z", "+00:00"))
    assert row["lag_seconds"] == pytest.approx((checked - last_done).total_seconds(), abs=2)
    assert row["lag_seconds"] > 14 * 3600

    code, out, _ = status(sandbox, "--export", export.id)
    assert code == 1
    lines = out.splitlines()
    assert any(line.startswith(export.id) or export.id in line for line in lines)
    assert f"{export.name}: latest run Failed, 14 failed runs in a row: OperationalError" in out
    assert "—" not in next(line for line in lines if export.id in line)  # the LAG column has a value
