"""The survey's own fields: name, type, schedule, display, targeting, responses, languages.

Values are kept in the draft as the operator typed them (text), so a half-typed date or a JSON
object with a missing brace is shown with its error (line:col for JSON) instead of being lost;
the draft parses them when it builds the payload. The settings survey owners set most (URL
targeting, wait period, popup delay, position, thank-you texts, colours) have fields of their own;
the other keys of ``appearance`` and ``conditions`` stay in their JSON fields.

The form is taller than most terminals: the editor's pane scrolls, and a field brought into focus
is scrolled into view.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Checkbox, Input, Label, Select, Static, TextArea

from tui.api.writes import SAMPLING_INTERVAL_TYPES, SURVEY_POSITIONS, SURVEY_SCHEDULES, URL_MATCH_TYPES
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.look.render import plain
from tui.state.survey_draft import SURVEY_TYPES, SurveyDraft
from tui.widgets.cleaned_note import CleanedNote
from tui.widgets.compact import FormSelect
from tui.widgets.editor.common import NOTE_PREFIX, DraftEdited, FieldError, joined
from tui.widgets.text_field import TextBox, TextField

LABELS: dict[str, str] = {
    "name": "Name",
    "description": "Description",
    "type": "Type",
    "schedule": "Schedule (once; recurring: every N days, N times; always)",
    "iteration_count": "Iteration count (recurring: how many times)",
    "iteration_frequency_days": "Iteration frequency (recurring: every N days)",
    "start_date": "Start date (ISO 8601; empty = draft; any start date shows it now)",
    "end_date": "End date (ISO 8601; any end date hides it now)",
    "responses_limit": "Responses limit",
    "appearance.position": "Position",
    "appearance.surveyPopupDelaySeconds": "Popup delay (seconds)",
    "appearance.thankYouMessageHeader": "Thank-you header",
    "appearance.thankYouMessageDescription": "Thank-you description",
    "appearance.backgroundColor": "Background colour (#rrggbb, rgb(), a CSS name)",
    "appearance.borderColor": "Border colour",
    "appearance.textColor": "Text colour",
    "appearance.submitButtonColor": "Submit button colour",
    "appearance.submitButtonTextColor": "Submit button text colour",
    "appearance.ratingButtonColor": "Rating button colour",
    "appearance.ratingButtonActiveColor": "Rating button colour when picked",
    "conditions.url": "Show on URL",
    "conditions.urlMatchType": "URL match type",
    "conditions.seenSurveyWaitPeriodInDays": "Wait period (days since the last survey seen)",
    "linked_flag_id": "Linked flag id",
    "targeting_flag_id": "Targeting flag id",
    "targeting_flag_filters": "Targeting flag filters (JSON object; the targeting flag's filters)",
    "remove_targeting_flag": "Remove the targeting flag",
    "appearance": "Other appearance keys (JSON object)",
    "conditions": "Other condition keys (JSON)",
    "enable_partial_responses": "Keep partial responses",
    "response_sampling_start_date": "Sampling start date (ISO 8601)",
    "response_sampling_interval_type": "Sampling interval unit",
    "response_sampling_interval": "Sampling interval (units)",
    "response_sampling_limit": "Responses per sampling interval",
    "response_sampling_daily_limits": "Sampling daily limits (JSON)",
    "base_language": "Base language (e.g. en)",
    "translations": "Translations (JSON object: language code -> texts)",
    "linked_insight_id": "Linked insight id",
    "enable_iframe_embedding": "Allow embedding in an iframe",
    "archived": "Archived",
}
CHOICES: dict[str, tuple[str, ...]] = {
    "type": SURVEY_TYPES,
    "schedule": SURVEY_SCHEDULES,
    "response_sampling_interval_type": SAMPLING_INTERVAL_TYPES,
    "appearance.position": SURVEY_POSITIONS,
    "conditions.urlMatchType": URL_MATCH_TYPES,
}
TEXT_AREAS = ("targeting_flag_filters", "appearance", "conditions", "response_sampling_daily_limits", "translations")
CHECKBOXES = ("remove_targeting_flag", "enable_partial_responses", "enable_iframe_embedding", "archived")
# The form, section by section: (heading, fields in order).
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("", ("name", "description", "type")),
    ("Schedule", ("schedule", "iteration_count", "iteration_frequency_days", "start_date", "end_date",
                  "responses_limit")),
    ("Display", ("appearance.position", "appearance.surveyPopupDelaySeconds", "appearance.thankYouMessageHeader",
                 "appearance.thankYouMessageDescription", "appearance.backgroundColor", "appearance.borderColor",
                 "appearance.textColor", "appearance.submitButtonColor", "appearance.submitButtonTextColor",
                 "appearance.ratingButtonColor", "appearance.ratingButtonActiveColor", "appearance")),
    ("Targeting", ("conditions.url", "conditions.urlMatchType", "conditions.seenSurveyWaitPeriodInDays",
                   "conditions", "linked_flag_id", "targeting_flag_id", "targeting_flag_filters",
                   "remove_targeting_flag")),
    ("Responses", ("enable_partial_responses", "response_sampling_start_date", "response_sampling_interval_type",
                   "response_sampling_interval", "response_sampling_limit", "response_sampling_daily_limits")),
    ("Languages", ("base_language", "translations")),
    ("Other", ("linked_insight_id", "enable_iframe_embedding", "archived")),
)
FORM_FIELDS: tuple[str, ...] = tuple(name for _, names in SECTIONS for name in names)


def widget_id(name: str) -> str:
    """``appearance.position`` -> ``appearance--position`` (widget ids take no dots)."""
    return name.replace(".", "--")


def field_name(widget: str) -> str:
    return widget.replace("--", ".")


class JsonArea(TextBox):
    """A JSON field whose keys behave as in every other field: Escape leaves (and F6 switches panes, Tab moves on,
    as the editor's priority keys in tui.key_registry have it everywhere)."""

    KEY_IDS = ("editor.json_leave",)
    BINDINGS: ClassVar[list[BindingType]] = list(bindings(*KEY_IDS))


class SurveyFieldsForm(Vertical):
    """Edits ``draft.form``."""

    def __init__(self, draft: SurveyDraft) -> None:
        super().__init__(id="survey-settings-form", classes="editor-form")
        self.draft = draft

    def _notes(self, name: str) -> ComposeResult:
        if name in self.draft.cleaned:
            yield CleanedNote(id=f"fc-{widget_id(name)}")
        yield FieldError(id=f"fe-{widget_id(name)}")

    def _field(self, name: str) -> ComposeResult:
        form = self.draft.form
        if name in CHECKBOXES:
            yield Checkbox(LABELS[name], bool(form.get(name)), id=f"f-{name}")
            yield FieldError(id=f"fe-{name}")
            return
        yield Label(LABELS[name], classes="field-label")
        if name in CHOICES:
            current = form.get(name)
            allowed = CHOICES[name]
            options: list[tuple[Any, str]] = [(Text(value), value) for value in allowed]
            if isinstance(current, str) and current and current not in allowed:
                options.append((plain(f"{current} (unknown, kept)"), current))
            yield FormSelect(options, value=current if isinstance(current, str) and current else Select.NULL,
                         prompt="(not set)", id=f"f-{widget_id(name)}", compact=True)
        elif name in TEXT_AREAS:
            yield JsonArea(str(form.get(name) or ""), id=f"f-{name}", classes="json-area", soft_wrap=False,
                           show_line_numbers=False, tab_behavior="focus", compact=True)
        else:
            yield TextField(str(form.get(name) or ""), id=f"f-{widget_id(name)}", compact=True, select_on_focus=False)
        yield from self._notes(name)

    def compose(self) -> ComposeResult:
        title = "New survey" if self.draft.creating else "Survey settings"
        yield Static(Text(title, style="bold"), classes="form-title")
        for heading, names in SECTIONS:
            if heading:
                yield Static(Text(heading, style=f"bold underline {Tone.ACCENT.style}"), classes="form-section")
            for name in names:
                yield from self._field(name)
        yield FieldError(id="fe-other")

    def _set(self, name: str, value: Any) -> None:
        if name not in self.draft.form or self.draft.form[name] == value:
            return
        self.draft.form[name] = value
        self.post_message(DraftEdited(name.partition(".")[0], structural=name == "name"))

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._set(field_name((event.input.id or "").removeprefix("f-")), event.value)

    @on(TextArea.Changed)
    def _area(self, event: TextArea.Changed) -> None:
        event.stop()
        self._set((event.text_area.id or "").removeprefix("f-"), event.text_area.text)

    @on(Checkbox.Changed)
    def _checked(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._set((event.checkbox.id or "").removeprefix("f-"), event.value)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        event.stop()
        name = field_name((event.select.id or "").removeprefix("f-"))
        blank = None if name in ("type", "schedule", "response_sampling_interval_type") else ""
        self._set(name, blank if event.value is Select.NULL else event.value)

    def show_problems(self, problems: dict[str, str]) -> None:
        """Survey-level problems and notes, keyed by field path (``name``, ``end_date``, ``appearance.position``).

        A path inside a JSON field (``appearance.fontFamily2``) is shown under that field, with its key named.
        """
        errors = {field_name((error.id or "").removeprefix("fe-")): error for error in self.query(FieldError)}
        shown: dict[str, list[str]] = {}
        rest = []
        for path, message in problems.items():
            if path in errors and path != "other":
                shown.setdefault(path, []).append(message)
            elif path.partition(".")[0] in errors and path.partition(".")[0] in TEXT_AREAS:
                key = path.partition(".")[2]
                note = message.startswith(NOTE_PREFIX)
                text = message.removeprefix(NOTE_PREFIX)
                shown.setdefault(path.partition(".")[0], []).append((NOTE_PREFIX if note else "") + f"{key}: {text}")
            else:
                note = message.startswith(NOTE_PREFIX)
                rest.append((NOTE_PREFIX if note else "") + f"{path}: {message.removeprefix(NOTE_PREFIX)}")
        for name, error in errors.items():
            if name != "other":
                error.show(joined(shown.get(name, [])))
        self.query_one("#fe-other", FieldError).show(joined(rest))

