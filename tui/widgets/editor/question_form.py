"""The form of one question: the fields its kind has, its choices, its branching.

Every widget writes into the shared draft through :meth:`QuestionDraft.set`, which only overlays
the keys the operator really changed (a field merely shown never adds its key), then posts
:class:`DraftEdited`. Server text goes into Input values (plain, never markup) and labels via plain().
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Checkbox, Input, Label, Static, TextArea

from tui.api.models.questions import QuestionType
from tui.api.writes import RATING_DISPLAYS, RATING_SCALES
from tui.look.render import plain
from tui.state.survey_draft import QUESTION_KINDS, SurveyDraft
from tui.widgets.cleaned_note import CleanedNote
from tui.widgets.editor.branching import BranchingForm
from tui.widgets.editor.check_field import CheckField
from tui.widgets.editor.choices import ChoicesEditor
from tui.widgets.editor.common import NOTE_PREFIX, DraftEdited, FieldError, joined
from tui.widgets.editor.pick_field import PickField
from tui.widgets.text_field import TextBox, TextField

CHOICE_KINDS = (QuestionType.SINGLE_CHOICE, QuestionType.MULTIPLE_CHOICE)


def _options(known: tuple[Any, ...], current: Any, label: Any = str) -> list[tuple[Text, Any]]:
    """A field's options for ``known`` values, keeping an unknown current value visible (and selectable)."""
    options = [(Text(label(v)), v) for v in known]
    if current is not None and current not in known:
        options.append((plain(f"{current} (unknown)"), current))
    return options


class QuestionForm(Vertical):
    """Edits one question of ``draft`` (by its stable key)."""

    def __init__(self, draft: SurveyDraft, key: str) -> None:
        super().__init__(id="question-form", classes="editor-form")
        self.draft = draft
        self.key = key

    def compose(self) -> ComposeResult:
        q = self.draft.question(self.key)
        index = self.draft.index_of(self.key)
        kind_label = QUESTION_KINDS.get(q.kind, f"{q.kind} (unknown kind)")
        yield Static(plain(f"Question {index + 1} of {len(self.draft.questions)} · {kind_label}", "bold"),
                     classes="form-title")
        yield Label("Question text", classes="field-label")
        yield TextField(q.text, placeholder="e.g. What do you want to ask?", id="q-question", compact=True,
                    select_on_focus=False)
        yield from self._cleaned_note("question")
        yield FieldError(id="qe-question")
        yield Label("Description", classes="field-label")
        description = q.get("description")
        yield TextBox(description if isinstance(description, str) else "", id="q-description",
                       classes="description", soft_wrap=True, show_line_numbers=False, compact=True)
        yield from self._cleaned_note("description")
        yield FieldError(id="qe-description")
        yield Label("Description format", classes="field-label")
        yield PickField(_options(("text", "html"), q.get("descriptionContentType")), q.get("descriptionContentType"),
                        id="q-descriptionContentType")
        yield FieldError(id="qe-descriptionContentType")
        yield CheckField("Optional (respondents may skip it)", bool(q.get("optional")), id="q-optional")
        yield Label("Button text", classes="field-label")
        yield TextField(str(q.get("buttonText") or ""), placeholder="e.g. Submit (empty: the default)",
                        id="q-buttonText", compact=True, select_on_focus=False)
        yield from self._cleaned_note("buttonText")
        yield FieldError(id="qe-buttonText")
        if q.kind == QuestionType.LINK:
            yield Label("Link URL", classes="field-label")
            yield TextField(str(q.get("link") or ""), placeholder="https://example.com/ or mailto:", id="q-link",
                        compact=True)
            yield from self._cleaned_note("link")
            yield FieldError(id="qe-link")
        elif q.kind == QuestionType.RATING:
            display = q.get("display")
            scale = q.get("scale")
            yield Label("Display", classes="field-label")
            yield PickField(_options(RATING_DISPLAYS, display), display, prompt="Choose", id="q-display")
            yield FieldError(id="qe-display")
            yield Label("Scale (emoji: 3 or 5; number: 3, 5, 7 or 10 = NPS 0-10)", classes="field-label")
            yield PickField(_options(RATING_SCALES, scale), scale, prompt="Choose", id="q-scale")
            yield FieldError(id="qe-scale")
            yield Label("Lower bound label", classes="field-label")
            yield TextField(str(q.get("lowerBoundLabel") or ""), placeholder="e.g. Unlikely (empty: no label)",
                        id="q-lowerBoundLabel", compact=True)
            yield from self._cleaned_note("lowerBoundLabel")
            yield FieldError(id="qe-lowerBoundLabel")
            yield Label("Upper bound label", classes="field-label")
            yield TextField(str(q.get("upperBoundLabel") or ""), placeholder="e.g. Very likely (empty: no label)",
                        id="q-upperBoundLabel", compact=True)
            yield from self._cleaned_note("upperBoundLabel")
            yield FieldError(id="qe-upperBoundLabel")
        elif q.kind in CHOICE_KINDS:
            yield ChoicesEditor(self.draft, self.key, id="choices")
            yield CheckField("Shuffle the choices", bool(q.get("shuffleOptions")), id="q-shuffleOptions")
            yield CheckField("Last choice is open (free text)", bool(q.get("hasOpenChoice")), id="q-hasOpenChoice")
        elif q.kind not in QUESTION_KINDS:
            yield Static(plain(f"Watchdeck does not know the kind {q.kind!r}; its other fields are kept as they are."),
                         classes="hint")
        yield FieldError(id="qe-other")
        yield BranchingForm(self.draft, self.key, id="branching")

    def _cleaned_note(self, name: str) -> ComposeResult:
        if f"{self.key}.{name}" in self.draft.cleaned:
            yield CleanedNote(id=f"qc-{name}")

    # ------------------------------------------------------------------ edits

    def _set(self, name: str, value: Any) -> bool:
        q = self.draft.question(self.key)
        if not q.set(name, value):
            return False
        self.post_message(DraftEdited("questions", structural=name == "question"))
        return True

    @on(Input.Changed, "#question-form > Input")
    def _input(self, event: Input.Changed) -> None:
        event.stop()
        name = (event.input.id or "").removeprefix("q-")
        if name:
            self._set(name, event.value)

    @on(TextArea.Changed, "#q-description")
    def _description(self, event: TextArea.Changed) -> None:
        event.stop()
        self._set("description", event.text_area.text)

    @on(Checkbox.Changed)
    def _checkbox(self, event: Checkbox.Changed) -> None:
        event.stop()
        name = (event.checkbox.id or "").removeprefix("q-")
        if name:
            self._set(name, event.value)

    @on(PickField.Changed, "#q-descriptionContentType, #q-display, #q-scale")
    async def _select(self, event: PickField.Changed) -> None:
        event.stop()
        name = (event.field.id or "").removeprefix("q-")
        if event.value is None:
            # The blank "Choose" clears the field (and the draft says what is missing), rather than leaving
            # the old value in the draft while the form shows none.
            q = self.draft.question(self.key)
            if q.data.pop(name, None) is not None:
                self.post_message(DraftEdited("questions"))
            return
        if self._set(name, event.value) and name in ("display", "scale"):
            q = self.draft.question(self.key)
            q.prune_responses()
            await self.query_one(BranchingForm).rebuild()

    @on(DraftEdited)
    async def _nested(self, event: DraftEdited) -> None:
        """Choices changed: the response rows of a single-choice branch follow them."""
        if event.source != "choices":
            return
        if event.structural and self.draft.question(self.key).kind == QuestionType.SINGLE_CHOICE:
            await self.query_one(BranchingForm).rebuild()
        else:
            self.query_one(BranchingForm).refresh_labels()

    # ------------------------------------------------------------------ problems

    def show_problems(self, problems: dict[str, str]) -> None:
        """``problems`` relative to this question (``question``, ``choices[1]``, ``branching.index``)."""
        shown = set()
        for error in self.query(FieldError):
            error_id = error.id or ""
            if error_id.startswith("qe-") and error_id != "qe-other":
                name = error_id[3:]
                error.show(problems.get(name))
                shown.add(name)
        for choices in self.query(ChoicesEditor):
            choices.show_problems(problems)
        self.query_one(BranchingForm).show_problems(problems)
        rest = [(NOTE_PREFIX if msg.startswith(NOTE_PREFIX) else "") + f"{path}: {msg.removeprefix(NOTE_PREFIX)}"
                for path, msg in problems.items()
                if path and path not in shown and not path.startswith(("choices", "branching"))]
        self.query_one("#qe-other", FieldError).show(joined(rest))
