"""The silence dialog: how long and why, for one export or every export of a project.

It confirms as every dialog does (``y`` outside a field, Enter on the Silence
button or in a field, Escape cancels). Bad input gets its message under its
field and nothing is silenced.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from tui.look.render import plain
from tui.screens.dialog import Dialog
from tui.state.alert_marks import REASON_LIMIT, check_reason, parse_duration
from tui.widgets.text_field import TextField

DEFAULT_DURATION = "2h"


@dataclass(frozen=True)
class SilenceRequest:
    seconds: float
    reason: str


class SilenceScreen(Dialog[SilenceRequest | None]):
    """Asks for a silence's length and reason; dismissed with them, or None."""

    CONFIRM = "silence-go"

    def __init__(self, what: str, note: str = "") -> None:
        super().__init__(classes="silence-modal")
        self.what = what  # "Snowflake warehouse (hourly)", "every export of project 1"
        self.note = note  # a silence already running there

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="silence-dialog"):
            yield Static(Text.assemble(("Silence ", "bold"), plain(self.what, "bold", limit=120)),
                         classes="dialog-title")
            yield Static(Text("Its verdict and alert stay on screen; the bell, toasts and on_alert hook events wait "
                              "until the silence ends. Every screen of this server and key sees it."))
            if self.note:
                yield Static(plain(self.note, limit=300))
            yield Label("For (30m, 2h, 1d, 1w)")
            yield TextField(DEFAULT_DURATION, id="silence-duration")
            yield Static("", id="silence-duration-error", classes="field-error")
            yield Label("Why")
            yield TextField("", id="silence-reason", max_length=REASON_LIMIT, placeholder="warehouse maintenance")
            yield Static("", id="silence-reason-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="silence-cancel")
                yield Button("Silence (y)", id="silence-go", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#silence-reason", Input).focus()

    def _request(self) -> SilenceRequest | None:
        """The silence asked for, or None with each field's problem said under it."""
        seconds, duration_error = parse_duration(self.query_one("#silence-duration", Input).value)
        reason = self.query_one("#silence-reason", Input).value
        reason_error = check_reason(reason)
        self.query_one("#silence-duration-error", Static).update(Text(duration_error))
        self.query_one("#silence-reason-error", Static).update(Text(reason_error))
        if seconds is None or reason_error:
            return None
        return SilenceRequest(seconds, reason.strip())

    @on(Input.Submitted)
    @on(Button.Pressed, "#silence-go")
    def _go(self) -> None:
        request = self._request()
        if request is not None:
            self.dismiss(request)

    @on(Button.Pressed, "#silence-cancel")
    def _cancel_button(self) -> None:
        self.dismiss(None)
