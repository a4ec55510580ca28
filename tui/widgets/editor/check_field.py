"""A form's checkbox: Space toggles it, Enter moves on (as in every other field), and its state reads without colour.

The stock checkbox toggles on Enter too, so an Enter meant to go to the next field changed a setting
unasked; and its on and off differ only in colour, so under ``NO_COLOR`` both read ``▐X▌``.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Checkbox

CHECKED, UNCHECKED = "x", " "


class CheckField(Checkbox, inherit_bindings=False):
    """``▐x▌`` when checked and ``▐ ▌`` when not; Space toggles, Enter goes to the next field."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", "Toggle", show=False),
        Binding("enter", "app.focus_next", "Next field", show=False),
    ]

    def on_mount(self) -> None:
        self._show_state()

    def watch_value(self) -> None:
        super().watch_value()
        self._show_state()

    def _show_state(self) -> None:
        self.BUTTON_INNER = CHECKED if self.value else UNCHECKED
        self.refresh()
