"""The list of choices of a single/multiple choice question: edit, add, remove, reorder.

Each row is an Input with small up/down/remove buttons (mouse) and an error line under it. Adding,
removing and moving rebuild the rows (a handful of widgets, never a live table) and put the focus
back where the operator was; the draft renumbers response-based branch rows keyed by choice index,
so a branch follows its choice when choices move.

A question that arrives with more than :data:`TEXT_MODE_ABOVE` choices is edited as text instead,
one choice per line in a TextArea: five widgets per choice made 10,000 choices take 100 s and
1.8 GB to open, while a TextArea draws only the lines on screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static, TextArea
from textual.widgets.button import ButtonVariant

from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.state.survey_draft import SurveyDraft
from tui.widgets.cleaned_note import CleanedNote
from tui.widgets.editor.common import DraftEdited, FieldError
from tui.widgets.text_field import TextBox, TextField

TEXT_MODE_ABOVE = 30  # more choices than this are edited as text, one per line


def _mouse_button(label: str, button_id: str, tooltip: str, variant: ButtonVariant = "default") -> Button:
    """A row's button for the mouse: Tab passes it by (each has a key), so Tab goes from choice to choice."""
    button = Button(label, id=button_id, compact=True, tooltip=tooltip, variant=variant)
    button.can_focus = False
    return button


class ChoicesEditor(Vertical):
    """Edits ``choices`` of one question of ``draft``."""

    KEY_IDS = ("editor.choice_add", "editor.choice_up", "editor.choice_down", "editor.choice_remove")
    BINDINGS: ClassVar[list[BindingType]] = list(bindings(*KEY_IDS))

    def __init__(self, draft: SurveyDraft, key: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="choices-editor")
        self.draft = draft
        self.key = key
        self._focus_after: int | None = None
        # decided once, so adding the 31st choice does not swap the widgets under the operator's cursor
        self.text_mode = len(draft.question(key).choices) > TEXT_MODE_ABOVE

    def compose(self) -> ComposeResult:
        q = self.draft.question(self.key)
        yield Label("Choices", classes="field-label")
        if f"{self.key}.choices" in self.draft.cleaned:
            yield CleanedNote(id="choices-cleaned")
        if self.text_mode:
            yield Static(Text(f"{len(q.choices):,} choices: edited as text, one choice per line.",
                              style=Tone.MUTED.style),
                         id="choices-count", classes="hint")
            yield TextBox("\n".join(q.choices), id="choices-text", soft_wrap=False, show_line_numbers=True,
                           compact=True)
            yield FieldError(id="ce-all")
            return
        for i, text in enumerate(q.choices):
            with Horizontal(classes="choice-row"):
                yield TextField(text, placeholder=f"Choice {i + 1}", id=f"choice-{i}", classes="choice-input",
                                compact=True, select_on_focus=False)
                yield _mouse_button("↑", f"choice-up-{i}", "Move this choice up (ctrl+shift+up)")
                yield _mouse_button("↓", f"choice-down-{i}", "Move this choice down (ctrl+shift+down)")
                yield _mouse_button("✕", f"choice-del-{i}", "Remove this choice (alt+delete)", variant="error")
            yield FieldError(id=f"ce-{i}")
        yield FieldError(id="ce-all")
        yield Button("Add choice (F4)", id="choice-add", compact=True)

    def on_mount(self) -> None:
        self._restore_focus()

    def _restore_focus(self) -> None:
        if self._focus_after is None:
            return
        target = self._focus_after
        self._focus_after = None
        inputs = list(self.query(".choice-input").results(Input))
        if inputs:
            inputs[max(0, min(target, len(inputs) - 1))].focus()
        else:
            self.query_one("#choice-add", Button).focus()

    async def rebuild(self, focus: int | None = None) -> None:
        self._focus_after = focus
        await self.recompose()
        self._restore_focus()

    @on(Input.Changed, ".choice-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        index = int((event.input.id or "choice-0").rsplit("-", 1)[1])
        q = self.draft.question(self.key)
        choices = q.choices
        if index < len(choices) and choices[index] != event.value:
            choices[index] = event.value
            q.set("choices", choices)
            self.post_message(DraftEdited("questions", source="choices"))

    @on(TextArea.Changed, "#choices-text")
    def _typed_text(self, event: TextArea.Changed) -> None:
        event.stop()
        q = self.draft.question(self.key)
        before = q.choices
        choices = event.text_area.text.split("\n")
        if choices != before:
            q.set("choices", choices)
            self.query_one("#choices-count", Static).update(
                Text(f"{len(choices):,} choices: edited as text, one choice per line.", style=Tone.MUTED.style))
            self.post_message(DraftEdited("questions", structural=len(choices) != len(before), source="choices"))

    @on(Button.Pressed)
    async def _pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if not button_id.startswith("choice-"):
            return
        event.stop()
        if button_id == "choice-add":
            await self.add_choice()
            return
        action, index = button_id[len("choice-"):].rsplit("-", 1)
        if action == "del":
            self.draft.remove_choice(self.key, int(index))
            await self.rebuild(focus=int(index))
        elif action in ("up", "down"):
            delta = -1 if action == "up" else 1
            if self.draft.move_choice(self.key, int(index), delta):
                await self.rebuild(focus=int(index) + delta)
        self.post_message(DraftEdited("questions", structural=True, source="choices"))

    async def add_choice(self) -> None:
        self.draft.add_choice(self.key)
        await self.rebuild(focus=len(self.draft.question(self.key).choices) - 1)
        self.post_message(DraftEdited("questions", structural=True, source="choices"))

    async def action_add_choice(self) -> None:
        """The add-choice key: a new empty choice, focused (in text mode a new line does the same)."""
        if self.text_mode:
            area = self.query_one("#choices-text", TextArea)
            area.move_cursor(area.document.end)
            area.insert("\n")
            area.focus()
            return
        await self.add_choice()

    async def action_move_choice(self, delta: int) -> None:
        focused = self.screen.focused
        if not isinstance(focused, Input) or not (focused.id or "").startswith("choice-"):
            return
        index = int((focused.id or "choice-0").rsplit("-", 1)[1])
        if self.draft.move_choice(self.key, index, delta):
            await self.rebuild(focus=index + delta)
            self.post_message(DraftEdited("questions", structural=True, source="choices"))

    async def action_remove_choice(self) -> None:
        focused = self.screen.focused
        if not isinstance(focused, Input) or not (focused.id or "").startswith("choice-"):
            return
        index = int((focused.id or "choice-0").rsplit("-", 1)[1])
        self.draft.remove_choice(self.key, index)
        await self.rebuild(focus=index)
        self.post_message(DraftEdited("questions", structural=True, source="choices"))

    def show_problems(self, problems: dict[str, str]) -> None:
        """``problems`` relative to the question: ``choices`` and ``choices[i]``."""
        if self.text_mode:
            lines = [f"line {int(path[len('choices['):-1]) + 1}: {message}" for path, message in problems.items()
                     if path.startswith("choices[") and path.endswith("]") and path[len("choices["):-1].isdigit()]
            shown = [problems["choices"]] if problems.get("choices") else []
            shown += lines[:3] + ([f"… and {len(lines) - 3} more"] if len(lines) > 3 else [])
            self.query_one("#ce-all", FieldError).show("; ".join(shown) or None)
            return
        self.query_one("#ce-all", FieldError).show(problems.get("choices"))
        for error in self.query(FieldError):
            if error.id and error.id != "ce-all":
                index = error.id.rsplit("-", 1)[1]
                error.show(problems.get(f"choices[{index}]"))
