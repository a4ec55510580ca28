"""A yes/no question answered with one key; focus starts on No.

Destructive actions ask first, and a stray Enter must not confirm them, hence
the focus on "No" (harlequin's order, not posting's default).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from tui.screens.base import WatchdeckModal


class ConfirmScreen(WatchdeckModal[bool]):
    """Dismisses with True on ``y``/Yes and False on ``n``/No/escape."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n", "answer(False)", "No", id="confirm.no"),
        Binding("escape", "answer(False)", "Cancel", show=False),
    ]

    def __init__(self, title: str, question: Text | str, *, yes_label: str = "Yes", danger: bool = False) -> None:
        super().__init__(classes="confirm-modal")
        self._title = title
        self._question = question if isinstance(question, Text) else Text(question)
        self._yes_label = yes_label
        self._danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            yield Static(self._question, id="confirm-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button("No (n)", id="confirm-no", variant="primary")
                yield Button(f"{self._yes_label} (y)", id="confirm-yes", variant="error" if self._danger else "default")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
