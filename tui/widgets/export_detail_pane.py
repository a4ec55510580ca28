"""The monitor's lower half: the selected export's runs (with two charts) and its details, as tabs.

Mounted just after the monitor's first frame, into a slot of its size: the
exports come first. Composing, styling and drawing these widgets would delay
the first frame with data.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Sparkline, Static, TabbedContent, TabPane

from tui.look.export_cells import RUN_COLUMNS
from tui.widgets.virtual_table import Column, VirtualTable


class ExportDetailPane(Vertical):
    """Runs (charts of records and durations above the runs table) and details (the export's settings)."""

    DEFAULT_CSS = """
    ExportDetailPane { height: 1fr; }
    ExportDetailPane > TabbedContent { height: 1fr; }
    """

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
                yield VirtualTable([Column(key, label, width or 0) for key, label, width in RUN_COLUMNS], id="runs")
            with TabPane("Details", id="tab-details"), VerticalScroll():
                yield Static(id="export-details")
