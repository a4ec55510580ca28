"""A confirmation that needs the thing's name typed: for deleting what is live or holds data.

A single ``y`` is one stray key away from deleting a running survey; typing
the name is not. Exports and surveys ask alike.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from tui.look.render import plain
from tui.screens.dialog import Dialog
from tui.text.clean import clean
from tui.widgets.text_field import TextField


class TypedNameConfirmScreen(Dialog[bool]):
    """Dismisses with True once the exact name is typed and Enter (or Delete) pressed; escape says no."""

    CONFIRM = "typed-confirm-go"

    def __init__(self, title: str, lead: Text, name: str, *, yes_label: str = "Delete") -> None:
        super().__init__(classes="delete-modal")
        self._title = title
        self._lead = lead
        self.expected = clean(name, limit=200)
        self._yes_label = yes_label

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="typed-confirm-dialog"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            yield Static(Text.assemble(self._lead, "\nType the name to confirm: ", plain(self.expected, "bold")))
            yield TextField(id="typed-confirm-name", placeholder=self.expected, select_on_focus=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="typed-confirm-cancel")
                yield Button(self._yes_label, id="typed-confirm-go", variant="error", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#typed-confirm-name", Input).focus()

    def _matches(self) -> bool:
        return self.query_one("#typed-confirm-name", Input).value.strip() == self.expected

    @on(Input.Changed, "#typed-confirm-name")
    def _typed(self) -> None:
        self.query_one("#typed-confirm-go", Button).disabled = not self._matches()

    @on(Input.Submitted, "#typed-confirm-name")
    def _submitted(self) -> None:
        if self._matches():
            self.dismiss(True)

    @on(Button.Pressed, "#typed-confirm-go")
    def _go(self) -> None:
        if self._matches():
            self.dismiss(True)

    @on(Button.Pressed, "#typed-confirm-cancel")
    def _cancel_button(self) -> None:
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)
