"""The runs pane's rows for one export: every run, or one row per data interval with its attempts, filtered.

``i`` switches between the two views (the real service's own runs page groups
by interval the same way), ``f`` cycles the status filter. Pure functions of
(runs, view, now): the screen hands the rows to its table.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from rich.text import Text

from tui.api.models.batch_exports import BatchExportRun
from tui.look.export_cells import run_cells
from tui.look.palette import Tone
from tui.state.run_list import STATUS_FILTERS, by_interval_newest_first, filtered


@dataclass(frozen=True)
class RunsView:
    """How the runs pane shows an export's runs."""

    by_interval: bool = False
    filter_index: int = 0

    @property
    def label(self) -> str:
        """``by interval · failed``: what the pane's title says it shows."""
        parts = ["by interval" if self.by_interval else "all attempts"]
        status = STATUS_FILTERS[self.filter_index]
        if status.statuses is not None:
            parts.append(status.label)
        return " · ".join(parts)


def run_rows(runs: Sequence[BatchExportRun], view: RunsView, now: datetime) -> list[tuple[str, dict[str, Text]]]:
    """(row key, cells) newest first; in the interval view the status cell adds ``×3`` for three attempts."""
    status_filter = STATUS_FILTERS[view.filter_index]
    if not view.by_interval:
        return [(run.id, run_cells(run, now)) for run in filtered(runs, status_filter)]
    rows: list[tuple[str, dict[str, Text]]] = []
    for row in by_interval_newest_first(runs, status_filter):
        cells = run_cells(row.latest, now)
        if row.attempts > 1:
            cells["status"] = Text.assemble(cells["status"], (f" ×{row.attempts}", "bold"))
        rows.append((row.key, cells))
    return rows



def marked_cancelling(rows: list[tuple[str, dict[str, Text]]], cancelling: Collection[str],
                      ) -> list[tuple[str, dict[str, Text]]]:
    """The rows with the status of each run being cancelled shown as ``cancelling…``."""
    if not cancelling:
        return rows
    return [(key, {**cells, "status": Text("cancelling…", style=Tone.NOTE.style)}) if key in cancelling
            else (key, cells) for key, cells in rows]
