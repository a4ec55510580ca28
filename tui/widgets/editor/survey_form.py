"""The survey's own fields: name, type, schedule, limits, flags, and the JSON-valued settings.

Values are kept in the draft as the operator typed them (text), so a half-typed date or a JSON
object with a missing brace is shown with its error (line:col for JSON) instead of being lost;
the draft parses them when it builds the payload.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Checkbox, Input, Label, Select, Static, TextArea

from tui.render import plain
from tui.state.survey_draft import SURVEY_TYPES, SurveyDraft
from tui.widgets.cleaned_note import CleanedNote
from tui.widgets.editor.common import DraftEdited, FieldError

LABELS: dict[str, str] = {
    "name": "Name",
    "description": "Description",
    "type": "Type",
    "start_date": "Start date (ISO 8601, empty = draft)",
    "end_date": "End date (ISO 8601, empty = no end)",
    "responses_limit": "Responses limit",
    "iteration_count": "Iteration count",
    "iteration_frequency_days": "Iteration frequency (days)",
    "linked_flag_id": "Linked flag id",
    "targeting_flag_id": "Targeting flag id",
    "targeting_flag_filters": "Targeting flag filters (JSON object)",
    "appearance": "Appearance (JSON object)",
    "conditions": "Conditions (JSON)",
    "remove_targeting_flag": "Remove the targeting flag",
    "archived": "Archived",
}
INPUTS = ("name", "description", "start_date", "end_date", "responses_limit", "iteration_count",
          "iteration_frequency_days", "linked_flag_id", "targeting_flag_id")
TEXT_AREAS = ("targeting_flag_filters", "appearance", "conditions")
CHECKBOXES = ("remove_targeting_flag", "archived")


class SurveyFieldsForm(Vertical):
    """Edits ``draft.form``."""

    def __init__(self, draft: SurveyDraft) -> None:
        super().__init__(id="survey-settings-form", classes="editor-form")
        self.draft = draft

    def _input(self, name: str) -> ComposeResult:
        yield Label(LABELS[name], classes="field-label")
        yield Input(str(self.draft.form.get(name) or ""), id=f"f-{name}", compact=True, select_on_focus=False)
        if name in self.draft.cleaned:
            yield CleanedNote(id=f"fc-{name}")
        yield FieldError(id=f"fe-{name}")

    def compose(self) -> ComposeResult:
        form = self.draft.form
        title = "New survey" if self.draft.creating else "Survey settings"
        yield Static(Text(title, style="bold"), classes="form-title")
        yield from self._input("name")
        yield from self._input("description")
        yield Label(LABELS["type"], classes="field-label")
        current = form.get("type")
        options: list[tuple[Any, str]] = [(Text(t), t) for t in SURVEY_TYPES]
        if isinstance(current, str) and current not in SURVEY_TYPES:
            options.append((plain(f"{current} (unknown, kept)"), current))
        yield Select(options, value=current if isinstance(current, str) else Select.NULL, prompt="(not set)",
                     id="f-type", compact=True)
        yield FieldError(id="fe-type")
        for name in INPUTS[2:]:
            yield from self._input(name)
        for name in TEXT_AREAS:
            yield Label(LABELS[name], classes="field-label")
            yield TextArea(str(form.get(name) or ""), id=f"f-{name}", classes="json-area", soft_wrap=False,
                           show_line_numbers=False, tab_behavior="indent", compact=True)
            if name in self.draft.cleaned:
                yield CleanedNote(id=f"fc-{name}")
            yield FieldError(id=f"fe-{name}")
        for name in CHECKBOXES:
            yield Checkbox(LABELS[name], bool(form.get(name)), id=f"f-{name}")
            yield FieldError(id=f"fe-{name}")
        yield FieldError(id="fe-other")

    def _set(self, name: str, value: Any) -> None:
        if name not in self.draft.form or self.draft.form[name] == value:
            return
        self.draft.form[name] = value
        self.post_message(DraftEdited(name, structural=name == "name"))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._set((event.input.id or "").removeprefix("f-"), event.value)

    @on(TextArea.Changed)
    def _area(self, event: TextArea.Changed) -> None:
        event.stop()
        self._set((event.text_area.id or "").removeprefix("f-"), event.text_area.text)

    @on(Checkbox.Changed)
    def _checked(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._set((event.checkbox.id or "").removeprefix("f-"), event.value)

    @on(Select.Changed, "#f-type")
    def _type(self, event: Select.Changed) -> None:
        event.stop()
        self._set("type", None if event.value is Select.NULL else event.value)

    def show_problems(self, problems: dict[str, str]) -> None:
        """Survey-level problems, keyed by field name (``name``, ``end_date``, ``appearance``)."""
        shown = set()
        for error in self.query(FieldError):
            name = (error.id or "").removeprefix("fe-")
            if name != "other":
                error.show(problems.get(name))
                shown.add(name)
        rest = [f"{path}: {msg}" for path, msg in problems.items() if path not in shown]
        self.query_one("#fe-other", FieldError).show("; ".join(rest) if rest else None)
