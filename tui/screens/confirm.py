"""A yes/no question answered with one key, confirmed as every dialog is (:mod:`tui.screens.dialog`).

``y``, or Enter on the confirming button (focused first, and named after the action); ``n`` or Escape says no.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from tui.screens.dialog import Dialog


class ConfirmScreen(Dialog[bool]):
    """Dismisses with True on ``y``/Yes and False on ``n``/No/escape."""

    CONFIRM = "confirm-yes"
    BINDINGS = [Binding("n", "answer(False)", "No", id="confirm.no")]

    def __init__(self, title: str, question: Text | str, *, yes_label: str = "Yes", no_label: str = "No",
                 danger: bool = False) -> None:
        super().__init__(classes="confirm-modal")
        self._title = title
        self._question = question if isinstance(question, Text) else Text(question)
        self._yes_label = yes_label
        self._no_label = no_label
        self._danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            yield Static(self._question, id="confirm-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self._no_label} (n)", id="confirm-no")
                yield Button(f"{self._yes_label} (y)", id="confirm-yes", variant="error" if self._danger else "primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(False)
