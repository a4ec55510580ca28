"""The editor's two small modal questions: which kind of question to add, and what to do with unsaved edits.

Both confirm as every dialog does (:mod:`tui.screens.dialog`): ``y`` or Enter on the confirming button, Escape cancels.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from tui.config.paths import stylesheets
from tui.look.palette import Tone
from tui.screens.base import WatchdeckModal
from tui.screens.dialog import Dialog
from tui.state.survey_draft import QUESTION_KINDS
from tui.widgets.lists import ItemList


def add_label(kind: str | None) -> str:
    """The confirming button's words: the kind it adds."""
    return f"Add {QUESTION_KINDS.get(kind or '', 'question').lower()} question (y)"


class KindPickerScreen(Dialog[str | None]):
    """Dismisses with a question kind (``open``, ``rating`` ...) or None.

    The focus starts in the list; ``y``, Enter on a kind, or the button adds the highlighted kind.
    """

    CSS_PATH = stylesheets("editor.tcss")  # loaded when first shown: not part of the monitor's start
    CONFIRM = "kind-add"

    def compose(self) -> ComposeResult:
        first = next(iter(QUESTION_KINDS))
        with Vertical(id="kind-dialog", classes="dialog"):
            yield Static(Text("Add a question", style="bold"), classes="dialog-title")
            yield ItemList(*[Option(Text(label), id=kind) for kind, label in QUESTION_KINDS.items()], id="kind-list")
            yield Static(Text("enter or y: add · escape: cancel", style=Tone.MUTED.style))
            with Horizontal(classes="dialog-buttons"):
                yield Button(add_label(first), id="kind-add", variant="primary")

    def on_mount(self) -> None:
        options = self.query_one("#kind-list", OptionList)
        options.highlighted = 0
        self.set_focus(options)

    def _highlighted_kind(self) -> str | None:
        options = self.query_one("#kind-list", OptionList)
        if options.highlighted is None:
            return None
        return options.get_option_at_index(options.highlighted).id

    @on(OptionList.OptionHighlighted, "#kind-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        button = self.query_one("#kind-add", Button)
        button.label = add_label(event.option.id)
        button.refresh(layout=True)  # its width follows the kind's name

    @on(OptionList.OptionSelected, "#kind-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    @on(Button.Pressed, "#kind-add")
    def _add(self, event: Button.Pressed) -> None:
        event.stop()
        kind = self._highlighted_kind()
        if kind is not None:
            self.dismiss(kind)


class TemplatePickerScreen(WatchdeckModal[str | None]):
    """Dismisses with a survey template's key (``nps``, ``csat`` ...) or None."""

    CSS_PATH = stylesheets("editor.tcss")

    BINDINGS = [Binding("escape,q", "cancel", "Cancel", id="surveys.template_cancel")]

    def compose(self) -> ComposeResult:
        from tui.state.survey_templates import TEMPLATE_LABELS

        with Vertical(id="kind-dialog", classes="dialog"):
            yield Static(Text("New survey from a template", style="bold"), classes="dialog-title")
            yield ItemList(*[Option(Text(label), id=key) for key, label in TEMPLATE_LABELS.items()],
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


class LeaveScreen(Dialog[str]):
    """Unsaved edits on leaving: ``keep`` (as a draft: the confirming button), ``discard``, or ``cancel`` (stay)."""

    CSS_PATH = stylesheets("editor.tcss")  # loaded when first shown: not part of the monitor's start
    CONFIRM = "leave-keep"

    BINDINGS = [
        Binding("k", "answer('keep')", "Keep draft", show=False, id="editor.leave_keep"),
        Binding("d", "answer('discard')", "Discard", id="editor.leave_discard"),
        Binding("c", "answer('cancel')", "Stay", show=False, id="editor.leave_cancel"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="leave-dialog", classes="dialog"):
            yield Static(Text("Unsaved changes", style="bold"), classes="dialog-title")
            yield Static(Text("Keep them as a draft (offered back next time), discard them, or stay and keep editing?"))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Stay (esc)", id="leave-cancel")
                yield Button("Discard (d)", id="leave-discard", variant="error")
                yield Button("Keep draft (y)", id="leave-keep", variant="primary")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "leave-cancel").removeprefix("leave-"))

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss("cancel")
