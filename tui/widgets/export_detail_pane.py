"""The monitor's lower half: the selected export's runs (with two charts) and its details, as tabs.

Mounted just after the monitor's first frame, into a slot of its size: the
exports come first. Composing, styling and drawing these widgets would delay
the first frame with data.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Sparkline, Static, TabbedContent, TabPane

from tui.api.models.batch_exports import BatchExportRun
from tui.look.export_cells import RUN_COLUMNS, RUN_GROW, RUN_PRIORITY, duration_series, records_series
from tui.look.palette import Tone
from tui.widgets.virtual_table import Column, VirtualTable


class ExportDetailPane(Vertical):
    """Runs (charts of records and durations above the runs table) and details (the export's settings)."""

    DEFAULT_CSS = """
    ExportDetailPane { height: 1fr; }
    ExportDetailPane > TabbedContent { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.runs = VirtualTable([Column(key, label, width or 0) for key, label, width in RUN_COLUMNS], id="runs")
        self.owner: str | None = None  # the export whose runs the table shows
        self._details_text: Text | None = None

    def compose(self) -> ComposeResult:
        with TabbedContent(id="export-tabs"):
            with TabPane("Runs", id="tab-runs"):
                with Horizontal(id="run-charts"):
                    with Vertical(classes="chart"):
                        yield Static("records per run", classes="chart-label")
                        yield Sparkline([], id="records-spark")
                    with Vertical(classes="chart"):
                        yield Static("run duration", classes="chart-label")
                        yield Sparkline([], id="duration-spark")
                yield self.runs
            with TabPane("Details", id="tab-details"), VerticalScroll():
                yield Static(id="export-details")

    def show_nothing(self) -> None:
        self.runs.clear()
        self._details_text = None
        self.query_one("#export-details", Static).update(Text("No export selected.", style=Tone.MUTED.style))

    def show(self, key: str, rows: Sequence[tuple[str, Mapping[str, Text]]], runs: Sequence[BatchExportRun],
             details: Text) -> None:
        """The export's run rows, the charts of its ``runs`` (newest first) and its details."""
        table = self.runs
        keys = [row_key for row_key, _ in rows]
        old_keys = table.keys()
        if keys != old_keys:
            # New runs arrived or another export was selected: rebuild (at most 100 rows), keep the cursor's run.
            current = table.cursor_key if old_keys and key == self.owner else None
            table.clear()
            table.apply(rows)
            if current is not None and current in keys:
                table.move_cursor(keys.index(current))
        else:
            table.apply(rows)
        self.owner = key
        oldest_first = list(reversed(runs))
        # Assign only what changed: each assignment repaints, and the details' update lays out the screen.
        for spark_id, series in (("#records-spark", records_series(oldest_first) or [0.0]),
                                 ("#duration-spark", duration_series(oldest_first) or [0.0])):
            spark = self.query_one(spark_id, Sparkline)
            if spark.data != series:
                spark.data = series
        if details != self._details_text:
            self._details_text = details
            self.query_one("#export-details", Static).update(details)

    def show_view(self, label: str) -> None:
        """The runs are shown another way (``label``): drawn afresh, the tab says how."""
        self.runs.clear()
        with contextlib.suppress(NoMatches):  # the tabs, while they are being mounted
            self.query_one(TabbedContent).get_tab("tab-runs").label = Text(f"Runs · {label}")

    def toggle_tab(self) -> None:
        """The runs, or the details (the tabs, from the keyboard)."""
        tabs = self.query_one(TabbedContent)
        tabs.active = "tab-runs" if tabs.active == "tab-details" else "tab-details"

    def fit(self, width: int) -> None:
        self.runs.fit_to(width, RUN_COLUMNS, RUN_PRIORITY, RUN_GROW)
