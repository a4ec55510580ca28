"""Building runs and exports for the incident tests: hourly intervals ending at a fixed instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tui.api.models.batch_exports import BatchExport, BatchExportRun
from tui.state.repair import ExportRef

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
#: The exports the repair tests plan for.
REF = ExportRef("1:a", "1", "a", "export a")
OTHER = ExportRef("1:b", "1", "b", "export b")


def run(run_id: str, hours_ago: int, status: str, *, error: str | None = None, created_after: float = 0.1,
        **extra: Any) -> BatchExportRun:
    """The run of the hour that ended ``hours_ago`` hours before NOW, created ``created_after`` hours after its end."""
    end = NOW - hours_ago * HOUR
    created = end + created_after * HOUR
    return BatchExportRun(id=run_id, status=status, data_interval_start=end - HOUR, data_interval_end=end,
                          created_at=created, finished_at=created + timedelta(minutes=5), latest_error=error,
                          **extra)


def export(export_id: str, runs: list[BatchExportRun], *, name: str | None = None, dest: str = "S3",
           **extra: Any) -> BatchExport:
    return BatchExport(id=export_id, name=name or f"export {export_id}", interval="hour", paused=False,
                       destination={"type": dest}, latest_runs=runs, **extra)
