"""The survey browser's modals: activity, response summary, and the survey's own fields form.

Each modal does its own request in a worker (``exit_on_error=False``) and shows
failures inside itself, so the browser behind it never loses its place. All
server text is shown through :func:`tui.render.plain`.
"""

from __future__ import annotations

import contextlib
import json
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, DataTable, Input, Label, LoadingIndicator, Select, Static

from tui.api.client import ApiClient
from tui.api.errors import ApiError, UnreadableAnswer, ValidationFailed, WriteValidationError
from tui.api.models import ActivityEntry, ResponseSummary, Survey, SurveyType
from tui.api.writes import check_survey_write, iso, parse_datetime
from tui.palette import Tone
from tui.paths import stylesheets
from tui.render import ago, clean, date_text, editable, plain
from tui.screens.base import WatchdeckModal, app_handle
from tui.state.journal import SurveyWriteFailed
from tui.widgets.cleaned_note import CleanedNote
from tui.widgets.survey_detail import pretty_json


def _app_api(screen: ModalScreen[Any]) -> ApiClient:
    return app_handle(screen.app).api


def _now(screen: ModalScreen[Any]) -> datetime:
    return app_handle(screen.app).clock.now()


# --------------------------------------------------------------------------- activity


def _short(value: Any) -> str:
    """A before/after value in one short line, as a person reads it: dates as dates, nothing as "none"."""
    if value is None:
        return "none"
    if isinstance(value, str) and len(value) >= 16 and value[4:5] == "-" and value[10:11] == "T":
        with contextlib.suppress(ValueError):
            return date_text(datetime.fromisoformat(value))
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return clean(text, limit=60)


def change_lines(entry: ActivityEntry) -> Text:
    """``field: before → after`` per change, one per line."""
    changes = entry.detail.changes if entry.detail and entry.detail.changes else []
    if not changes:
        return Text("—", style=Tone.MUTED.style, end="")
    lines = Text(end="")
    for index, change in enumerate(changes[:12]):
        if index:
            lines.append("\n")
        lines.append_text(plain(change.field or change.action or "?", "bold", limit=40))
        lines.append(": ")
        lines.append_text(plain(_short(change.before), Tone.REMOVED.style))
        lines.append(" → ")
        lines.append_text(plain(_short(change.after), Tone.ADDED.style))
    if len(changes) > 12:
        lines.append(f"\n… {len(changes) - 12} more", style=Tone.MUTED.style)
    return lines


class ActivityScreen(WatchdeckModal[None]):
    """Who did what to one survey (``survey_id``) or to every survey of the project (None)."""

    CSS_PATH = stylesheets("surveys.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="surveys.activity.close"),
    ]

    def __init__(self, survey_id: str | None, title: str) -> None:
        super().__init__(classes="survey-modal")
        self.survey_id = survey_id
        self._title = title
        self.entries: list[ActivityEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="activity-dialog", classes="dialog"):
            yield Static(plain(self._title, "bold"), classes="dialog-title")
            yield LoadingIndicator(id="activity-loading")
            table: DataTable[Any] = DataTable(id="activity-table", cursor_type="row")
            # The dialog takes the screen's width; a wide screen gives the names room, the changes the rest.
            wide = self.app.size.width >= 140
            table.add_column(Text("When"), key="when", width=16)
            table.add_column(Text("Who"), key="who", width=26 if wide else 18)
            table.add_column(Text("Activity"), key="activity", width=10)
            if self.survey_id is None:
                table.add_column(Text("Survey"), key="survey", width=36 if wide else 20)
            table.add_column(Text("Changes (before → after)"), key="changes")
            yield table
            yield Static("", id="activity-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="activity-close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#activity-table").display = False
        self._load()

    @work(exclusive=True, group="survey-activity", exit_on_error=False)
    async def _load(self) -> None:
        try:
            entries = await _app_api(self).surveys.activity(self.survey_id, limit=100, max_items=300)
        except ApiError as err:
            self.query_one("#activity-loading").display = False
            self.query_one("#activity-error", Static).update(plain(str(err)))
            return
        self.entries = entries
        self.query_one("#activity-loading").display = False
        table = self.query_one("#activity-table", DataTable)
        now = _now(self)
        for entry in entries:
            who = entry.user.display_name if entry.user else "—"
            cells: list[Any] = [plain(ago(entry.created_at, now)), plain(who), plain(entry.activity or "—")]
            if self.survey_id is None:
                name = entry.detail.name if entry.detail and entry.detail.name else entry.item_id
                cells.append(plain(name or "—"))
            cells.append(change_lines(entry))
            table.add_row(*cells, height=None)
        if not entries:
            self.query_one("#activity-error", Static).update(Text("No activity recorded.", style=Tone.MUTED.style))
        table.display = True
        table.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


# --------------------------------------------------------------------------- summary


_DETAIL_NAMES = {"question_index": "Question", "cached": "From the cache", "generated_at": "Written",
                 "response_count": "Responses in total", "responses_sampled": "Responses read"}


def _detail_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "question_index" and isinstance(value, int):
        return f"Q{value + 1}"
    if isinstance(value, int):
        return f"{value:,}"
    when = parse_datetime(value) if isinstance(value, str) and key.endswith("_at") else None
    if when is not None:
        return date_text(when)
    return value if isinstance(value, str) else pretty_json(value)


def summary_text(summary: ResponseSummary) -> Text:
    """What the summary says first, then its details as "Name: value" lines; empty (null) details left out.

    The server's extra fields (``question_index: null``, ``cached: false``) are
    not the point of a summary: they come after, named for a person.
    """
    text = Text(end="")
    if summary.content:
        text.append_text(plain(summary.content, oneline=False, limit=20000))
    extras = {key: value for key, value in summary.extra_fields.items() if value is not None and value != ""}
    if extras:
        if summary.content:
            text.append("\n\n")
        text.append("Details\n", style="bold")
        for key, value in extras.items():
            name = _DETAIL_NAMES.get(key) or key.replace("_", " ").capitalize()
            text.append_text(plain(name, limit=60))
            text.append(": ")
            text.append_text(plain(_detail_value(key, value), oneline=False, limit=5000))
            text.append("\n")
    if not text.plain.strip():
        text.append("The server returned an empty summary.", style=Tone.MUTED.style)
    return text


class SummaryScreen(WatchdeckModal[None]):
    """Asks the server to summarize a survey's responses; a spinner while it works (it can take a while)."""

    CSS_PATH = stylesheets("surveys.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="surveys.summary.close"),
    ]

    def __init__(self, survey_id: str, name: str) -> None:
        super().__init__(classes="survey-modal")
        self.survey_id = survey_id
        self._name = name
        self.summary: ResponseSummary | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="summary-dialog", classes="dialog"):
            yield Static(Text.assemble(("Responses of ", "bold"), plain(self._name, "bold")), classes="dialog-title")
            yield LoadingIndicator(id="summary-loading")
            with VerticalScroll(id="summary-scroll"):
                yield Static("", id="summary-text")
            yield Static("", id="summary-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="summary-close", variant="primary")

    def on_mount(self) -> None:
        self._load()

    @work(exclusive=True, group="survey-summary", exit_on_error=False)
    async def _load(self) -> None:
        try:
            summary = await _app_api(self).surveys.summarize_responses(self.survey_id)
        except ApiError as err:
            self.query_one("#summary-loading").display = False
            self.query_one("#summary-error", Static).update(plain(str(err), oneline=False))
            return
        self.summary = summary
        self.query_one("#summary-loading").display = False
        self.query_one("#summary-text", Static).update(summary_text(summary))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


# --------------------------------------------------------------------------- the survey's own fields

FORM_FIELDS = ("name", "description", "type", "start_date", "end_date", "responses_limit", "archived")
_TEXT_FIELDS = ("name", "description", "start_date", "end_date", "responses_limit")


def _date_text(value: datetime | None) -> str:
    return iso(value) if value else ""


class SurveyFormScreen(WatchdeckModal[Survey | None]):
    """Create a survey, or edit its own fields (not its questions: that is the question editor's job).

    An edit PATCHes only the fields whose widget differs from what it first
    showed. Bad input is refused here with a message under the field; a 400
    from the server shows the server's message under the field it names. The
    form stays open with everything typed, whatever fails.
    """

    CSS_PATH = stylesheets("surveys.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="surveys.form.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="surveys.form.cancel"),
    ]

    def __init__(self, survey: Survey | None = None, *, on_failure: SurveyWriteFailed | None = None) -> None:
        super().__init__(classes="survey-modal")
        self.survey = survey
        self.on_failure = on_failure  # told of every failed save, so the journal holds failures too
        self.sent: dict[str, Any] | None = None  # the last body sent, for tests and the status line
        self._initial: dict[str, Any] = {}
        self._cleaned: dict[str, str] = {}  # field -> the server's value, for fields shown cleaned

    # ------------------------------------------------------------------ layout

    def _initial_values(self) -> dict[str, Any]:
        s = self.survey
        known = [t.value for t in SurveyType]
        kind = (s.type if s and s.type else SurveyType.POPOVER.value)
        if kind not in known:
            known.append(kind)
        name, description = editable(s.name if s else ""), editable((s.description or "") if s else "")
        self._cleaned = {field: original for field, safe, original in (
            ("name", name, s.name if s else ""), ("description", description, (s.description or "") if s else ""))
            if safe.cleaned}
        return {
            "name": name.text,
            "description": description.text,
            "type": kind,
            "types": known,
            "start_date": _date_text(s.start_date) if s else "",
            "end_date": _date_text(s.end_date) if s else "",
            "responses_limit": str(s.responses_limit) if s and s.responses_limit is not None else "",
            "archived": bool(s.archived) if s else False,
        }

    def compose(self) -> ComposeResult:
        values = self._initial_values()
        title = "New survey" if self.survey is None else "Edit survey"
        with Vertical(id="survey-form", classes="dialog"):
            if self.survey is None:
                yield Static(Text(title, style="bold"), classes="dialog-title")
            else:
                yield Static(Text.assemble((title + ": ", "bold"), plain(self.survey.name, "bold")),
                             classes="dialog-title")
            with VerticalScroll(id="survey-form-fields"):
                yield Label("Name")
                yield Input(values["name"], id="field-name", max_length=max(400, len(values["name"])),
                            select_on_focus=False)
                if "name" in self._cleaned:
                    yield CleanedNote(id="cleaned-name")
                yield Static("", id="error-name", classes="field-error")
                yield Label("Description")
                yield Input(values["description"], id="field-description", select_on_focus=False)
                if "description" in self._cleaned:
                    yield CleanedNote(id="cleaned-description")
                yield Static("", id="error-description", classes="field-error")
                yield Label("Type")
                yield Select([(plain(t, limit=40), t) for t in values["types"]], value=values["type"],
                             allow_blank=False, id="field-type")
                yield Static("", id="error-type", classes="field-error")
                yield Label("Start (ISO 8601, empty = draft)")
                yield Input(values["start_date"], id="field-start_date", placeholder="2026-01-31T12:00:00+00:00")
                yield Static("", id="error-start_date", classes="field-error")
                yield Label("End (ISO 8601, empty = no end)")
                yield Input(values["end_date"], id="field-end_date", placeholder="2026-02-28T12:00:00+00:00")
                yield Static("", id="error-end_date", classes="field-error")
                yield Label("Responses limit (empty = none)")
                yield Input(values["responses_limit"], id="field-responses_limit", type="integer")
                yield Static("", id="error-responses_limit", classes="field-error")
                yield Checkbox("Archived", values["archived"], id="field-archived")
                yield Static("", id="error-archived", classes="field-error")
            yield Static("", id="form-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="form-cancel")
                yield Button("Save (ctrl+s)", id="form-save", variant="primary")

    def on_mount(self) -> None:
        self._initial = self._read()
        self._initial.update(self._cleaned)  # a cleaned field differs from the server's: saving sends it
        self.query_one("#field-name", Input).focus()

    # ------------------------------------------------------------------ reading

    def _read(self) -> dict[str, Any]:
        values: dict[str, Any] = {name: self.query_one(f"#field-{name}", Input).value for name in _TEXT_FIELDS}
        values["type"] = self.query_one("#field-type", Select).value
        values["archived"] = self.query_one("#field-archived", Checkbox).value
        return values

    def _clear_errors(self) -> None:
        for name in FORM_FIELDS:
            self.query_one(f"#error-{name}", Static).update("")
        self.query_one("#form-error", Static).update("")

    def show_error(self, field: str | None, message: str) -> None:
        """A message under the field it is about, or under the form when no field matches."""
        target = f"#error-{field}" if field in FORM_FIELDS else "#form-error"
        prefix = "" if field in FORM_FIELDS or not field else f"{field}: "
        self.query_one(target, Static).update(plain(prefix + message, oneline=False, limit=500))

    def build_payload(self) -> dict[str, Any] | None:
        """The body to send: every filled field when creating, only the changed ones when editing.

        Returns None (with messages shown) when the input is not valid.
        """
        values = self._read()
        creating = self.survey is None
        problems: dict[str, str] = {}
        payload: dict[str, Any] = {}
        for name in FORM_FIELDS:
            raw = values[name]
            if not creating and raw == self._initial.get(name):
                continue
            if name in ("start_date", "end_date"):
                text = raw.strip()
                parsed = parse_datetime(text) if text else None
                if text and parsed is None:
                    problems[name] = "must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z"
                    continue
                if creating and parsed is None:
                    continue
                payload[name] = iso(parsed) if parsed else None
            elif name == "responses_limit":
                text = raw.strip()
                if not text:
                    if not creating:
                        payload[name] = None
                    continue
                try:
                    payload[name] = int(text)
                except ValueError:
                    problems[name] = "must be a whole number"
            elif name == "description":
                if raw or not creating:
                    payload[name] = raw
            elif name == "archived":
                if raw or not creating:
                    payload[name] = bool(raw)
            else:
                payload[name] = raw.strip() if isinstance(raw, str) and name == "name" else raw
        try:
            check_survey_write(payload, creating=creating)
        except WriteValidationError as err:
            problems.update(err.problems)
        if problems:
            for field, message in problems.items():
                self.show_error(field, message)
            return None
        return payload

    # ------------------------------------------------------------------ saving

    def action_save(self) -> None:
        self._clear_errors()
        payload = self.build_payload()
        if payload is None:
            return
        if not payload and self.survey is not None:
            self.query_one("#form-error", Static).update(Text("Nothing changed.", style=Tone.MUTED.style))
            return
        self.sent = payload
        self.query_one("#form-save", Button).disabled = True
        self._send(payload)

    @work(exclusive=True, group="survey-form", exit_on_error=False)
    async def _send(self, payload: dict[str, Any]) -> None:
        api = _app_api(self)
        try:
            if self.survey is None:
                saved = await api.surveys.create(payload)
            else:
                saved = await api.surveys.update(self.survey.id, payload)
        except ValidationFailed as err:
            field = (err.field or "").split("__")[0] or None
            self.show_error(field, err.detail or str(err))
            self._failed(payload, f"failed: {err}")
        except WriteValidationError as err:
            for field, message in err.problems.items():
                self.show_error(field, message)
            self._failed(payload, f"refused before sending: {err}")
        except ApiError as err:
            self.show_error(None, str(err))
            self._failed(payload, f"{'unclear' if isinstance(err, UnreadableAnswer) else 'failed'}: {err}")
        else:
            self.dismiss(saved)
            return
        finally:
            if self.is_attached:
                self.query_one("#form-save", Button).disabled = False

    def _failed(self, payload: dict[str, Any], result: str) -> None:
        if self.on_failure is None:
            return
        name = payload.get("name") if isinstance(payload.get("name"), str) else None
        if name is None and self.survey is not None:
            name = self.survey.name
        self.on_failure("create" if self.survey is None else "edit", self.survey.id if self.survey else None,
                        name, result, {"fields": sorted(payload)})

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "form-save":
            self.action_save()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
