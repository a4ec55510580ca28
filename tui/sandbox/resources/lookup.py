"""Row lookups shared by the export, backfill and run handlers (404 when absent or deleted)."""

from __future__ import annotations

from typing import Any

from tui.sandbox import shapes
from tui.sandbox.db import loads
from tui.sandbox.errors import not_found


def export_row(c: Any, pid: int, eid: str) -> Any:
    row = c.execute("SELECT * FROM exports WHERE id = ? AND project_id = ? AND deleted = 0", (eid, pid)).fetchone()
    if row is None:
        raise not_found()
    return row


def export_doc(row: Any) -> dict[str, Any]:
    doc = loads(row["data"])
    doc["id"] = row["id"]
    doc["interval"] = row["interval"]
    return dict(doc)


def run_row(c: Any, pid: int, eid: str, rid: str) -> Any:
    export_row(c, pid, eid)
    row = c.execute(f"SELECT {shapes.RUN_COLUMNS} FROM runs WHERE id = ? AND export_id = ?", (rid, eid)).fetchone()
    if row is None:
        raise not_found()
    return row
