"""The one way every dialog confirms and cancels, and shows its own keys.

``y`` confirms (outside a text field, where it is a letter), as does Enter on the confirming button,
which names the action and, where there is one, the count ("Backfill 24 runs"). Escape cancels, and so does
``q`` outside a text field.
The focus starts on the confirming button unless the dialog starts in a field it needs filled. The
dialog's footer shows its own keys, not those of the screen underneath.

Keys that reach the app before the dialog's buttons are mounted wait for them (``y`` sent in the same write as
the key that opened the dialog would otherwise find no button to press): see :class:`HoldsKeys`.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import Button

from tui.key_registry import bindings
from tui.screens.base import WatchdeckModal
from tui.widgets.footer import KeyFooter

ResultT = TypeVar("ResultT")


class Dialog(WatchdeckModal[ResultT]):
    """A dialog with a confirming button (``CONFIRM``: its id) and :meth:`action_cancel`."""

    CONFIRM: ClassVar[str] = ""
    AUTO_FOCUS = ""  # not the first focusable widget (a No or Cancel button): see on_mount
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Confirm", id="dialog.confirm"),
        Binding("escape,q", "cancel", "Cancel", id="dialog.cancel"),  # q is a letter in a text field
        *bindings("form"),  # Tab moves on when typed, before the keys typed behind it
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hold_keys()

    def on_mount(self) -> None:
        """After the dialog's own ``on_mount``: its footer, the focus on the confirming button if none is set, and
        the keys held meanwhile (after the focus a field's ``focus()`` asks for: both wait in the app's queue)."""
        self.mount(KeyFooter())
        button = self.confirm_button
        if self.focused is None and button is not None and not button.disabled:
            self.set_focus(button)  # at once: a field the dialog's own on_mount focuses still wins (focus() waits)
        self.take_keys()

    @property
    def confirm_button(self) -> Button | None:
        found = self.query(f"#{self.CONFIRM}").results(Button) if self.CONFIRM else iter(())
        return next(iter(found), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "confirm":
            button = self.confirm_button
            return None if button is None or button.disabled else True
        return True

    def action_confirm(self) -> None:
        button = self.confirm_button
        if button is not None and not button.disabled:
            button.press()

    def action_cancel(self) -> None:
        self.dismiss(None)
