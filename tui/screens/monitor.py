"""Placeholder until the monitor lands."""

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Header, Static


class MonitorScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("batch-export monitor")
        yield Footer()
