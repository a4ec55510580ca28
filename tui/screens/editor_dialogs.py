"""The editor's two small modal questions: which kind of question to add, and what to do with unsaved edits."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from tui.palette import Tone
from tui.paths import stylesheets
from tui.screens.base import WatchdeckModal
from tui.state.survey_draft import QUESTION_KINDS


class KindPickerScreen(WatchdeckModal[str | None]):
    """Dismisses with a question kind (``open``, ``rating`` ...) or None."""

    CSS_PATH = stylesheets("editor.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="editor.kind_cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(id="kind-dialog", classes="dialog"):
            yield Static(Text("Add a question", style="bold"), classes="dialog-title")
            yield OptionList(*[Option(Text(label), id=kind) for kind, label in QUESTION_KINDS.items()], id="kind-list")
            yield Static(Text("enter: add · escape: cancel", style=Tone.MUTED.style))

    def on_mount(self) -> None:
        self.query_one("#kind-list", OptionList).focus()

    @on(OptionList.OptionSelected, "#kind-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TemplatePickerScreen(WatchdeckModal[str | None]):
    """Dismisses with a survey template's key (``nps``, ``csat`` ...) or None."""

    CSS_PATH = stylesheets("editor.tcss")

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="surveys.template_cancel")]

    def compose(self) -> ComposeResult:
        from tui.state.survey_templates import TEMPLATE_LABELS

        with Vertical(id="kind-dialog", classes="dialog"):
            yield Static(Text("New survey from a template", style="bold"), classes="dialog-title")
            yield OptionList(*[Option(Text(label), id=key) for key, label in TEMPLATE_LABELS.items()],
                             id="template-list")
            yield Static(Text("enter: open it in the editor · escape: cancel", style=Tone.MUTED.style))

    def on_mount(self) -> None:
        self.query_one("#template-list", OptionList).focus()

    @on(OptionList.OptionSelected, "#template-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LeaveScreen(WatchdeckModal[str]):
    """Unsaved edits on leaving: ``keep`` (as a draft), ``discard``, or ``cancel`` (stay)."""

    CSS_PATH = stylesheets("editor.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS = [
        Binding("k", "answer('keep')", "Keep draft", id="editor.leave_keep"),
        Binding("d", "answer('discard')", "Discard", id="editor.leave_discard"),
        Binding("escape,c", "answer('cancel')", "Cancel", id="editor.leave_cancel"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-dialog", classes="dialog"):
            yield Static(Text("Unsaved changes", style="bold"), classes="dialog-title")
            yield Static(Text("Keep them as a draft (offered back next time), discard them, or stay and keep editing?"))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep draft (k)", id="leave-keep", variant="primary")
                yield Button("Discard (d)", id="leave-discard", variant="error")
                yield Button("Cancel (c)", id="leave-cancel")

    def on_mount(self) -> None:
        self.query_one("#leave-keep", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "leave-cancel").removeprefix("leave-"))

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
