"""Placeholder until the survey browser lands."""

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Header, Static


class SurveyBrowserScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("survey browser")
        yield Footer()
