"""The editor's small modal questions: which kind of question to add, what to do with unsaved edits, whose value
a field takes that the operator and the server both changed, and where a response's branch leads.

Both confirm as every dialog does (:mod:`tui.screens.dialog`): ``y`` or Enter on the confirming button, Escape cancels.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.geometry import Region
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from tui.config.paths import stylesheets
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.base import WatchdeckModal
from tui.screens.dialog import Dialog
from tui.state.survey_draft import QUESTION_KINDS
from tui.state.survey_merge import Conflict
from tui.widgets.footer import KeyFooter
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


PICK_LIST_WIDTH = 32  # cells the list of values takes at least (a narrow form's field leaves fewer)
PICK_LIST_ROWS = 10  # values the list shows at once (it scrolls to the others)


class PickListScreen(WatchdeckModal[int | None]):
    """A field's values (a question's format or scale, where a branch leads), dropped over the form under
    ``region`` (the field's value, on the screen; above it where the screen ends first), the current one
    (``index``) highlighted. Enter picks (dismissed with the index picked); Escape or ``q`` leave the field as it was
    (None). Keys sent with the one that opened it wait for the list (:meth:`hold_keys`)."""

    CSS_PATH = stylesheets("editor.tcss")

    BINDINGS = [Binding("escape,q", "cancel", "Cancel", id="editor.pick_cancel")]

    def __init__(self, prompts: Sequence[Text], index: int | None, region: Region) -> None:
        super().__init__()
        self.prompts = tuple(prompts)
        self.index = index
        self.field_region = region
        self.hold_keys()

    def compose(self) -> ComposeResult:
        yield ItemList(*[Option(prompt) for prompt in self.prompts], id="pick-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        values = self.query_one("#pick-list", OptionList)
        field = self.field_region
        values.styles.width = max(field.width, PICK_LIST_WIDTH)
        height = min(len(self.prompts), PICK_LIST_ROWS) + 2  # and its border
        below = field.bottom + height <= self.app.size.height - 1  # above the footer
        values.styles.offset = (field.x, field.bottom if below else max(0, field.y - height))
        values.highlighted = self.index if self.index is not None else 0
        self.set_focus(values)
        self.take_keys()

    @on(OptionList.OptionSelected, "#pick-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

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


CONFLICTS_SHOWN = 6  # fields listed at most (the rest are counted)
VALUE_LIMIT = 240  # characters of a value shown


def shown_value(value: Any) -> Text:
    """A field's value as one plain line: a text as it is, anything else as JSON; cut at :data:`VALUE_LIMIT`."""
    if value is None or value == "":
        return Text("(empty)", style=Tone.MUTED.style)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return plain(text, limit=VALUE_LIMIT)


class ConflictScreen(Dialog[str | None]):
    """Fields the operator edited that the server changed too since the editor read the survey: both values of each,
    then ``mine`` (keep the operator's values: the confirming button), ``theirs`` (take the server's) or None
    (Escape: nothing is sent, the draft stays)."""

    CSS_PATH = stylesheets("editor.tcss")
    CONFIRM = "conflict-mine"

    BINDINGS = [Binding("t", "answer('theirs')", "Take theirs", id="editor.conflict_theirs")]

    def __init__(self, conflicts: Sequence[Conflict], label: Callable[[str], str]) -> None:
        super().__init__()
        self.conflicts = tuple(conflicts)
        self.label = label

    def compose(self) -> ComposeResult:
        fields = len(self.conflicts)
        with Vertical(id="conflict-dialog", classes="dialog"):
            yield Static(Text("Changed on the server meanwhile", style="bold"), classes="dialog-title")
            yield Static(Text(f"{'This field' if fields == 1 else f'These {fields} fields'} you edited changed on the "
                              "server since the editor read the survey. Keep your values, or take the server's? "
                              "(Your other edits are saved either way; fields you did not edit keep the server's "
                              "values.)"), id="conflict-question")
            for conflict in self.conflicts[:CONFLICTS_SHOWN]:
                yield Static(Text.assemble((self.label(conflict.field), "bold"),
                                           "\n  yours:  ", shown_value(conflict.mine),
                                           "\n  server: ", shown_value(conflict.theirs)), classes="conflict-field")
            if fields > CONFLICTS_SHOWN:
                yield Static(Text(f"… and {fields - CONFLICTS_SHOWN} more", style=Tone.MUTED.style))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="conflict-cancel")
                yield Button("Take theirs (t)", id="conflict-theirs")
                yield Button("Keep mine (y)", id="conflict-mine", variant="primary")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answer = (event.button.id or "conflict-cancel").removeprefix("conflict-")
        self.dismiss(None if answer == "cancel" else answer)

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
