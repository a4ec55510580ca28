"""A long outage in the sandbox's own database: the newest runs of an export all failed.

``latest_runs`` holds the ten newest runs, so after fourteen failures the
last Completed run and the start of the streak are only in the runs list.
"""

from __future__ import annotations

from datetime import datetime

from tui.sandbox.runner import SandboxHandle
from tui.sandbox.timeutil import parse_iso

ERROR = "OperationalError: connection refused"


def fail_newest(handle: SandboxHandle, export_id: str, count: int) -> datetime:
    """Every run of the export completed but its ``count`` newest (by creation), which failed.

    Returns the end of the last Completed interval: what the lag is measured from.
    """
    with handle.state.db.transaction() as c:
        c.execute("UPDATE runs SET status = 'Completed', latest_error = NULL WHERE export_id = ?", (export_id,))
        rows = c.execute("SELECT id, data_interval_end FROM runs WHERE export_id = ? "
                         "ORDER BY created_at DESC, id DESC", (export_id,)).fetchall()
        assert len(rows) > count, "the seed changed: need more runs for this export"
        for row in rows[:count]:
            c.execute("UPDATE runs SET status = 'Failed', latest_error = ? WHERE id = ?", (ERROR, row["id"]))
        return parse_iso(rows[count]["data_interval_end"])
