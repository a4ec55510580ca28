"""The survey browser's modals: activity and response summary.

Both close as every dialog confirms (:mod:`tui.screens.dialog`): ``y`` or Enter on Close, or Escape.

Each modal does its own request in a worker (``exit_on_error=False``) and shows
failures inside itself, so the browser behind it never loses its place. All
server text is shown through :func:`tui.look.render.plain`.
"""

from __future__ import annotations

import contextlib
import json
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, LoadingIndicator, Select, Static

from tui.api.client import ApiClient
from tui.api.errors import ApiError
from tui.api.models.surveys import ActivityEntry, ResponseSummary
from tui.api.writes import parse_datetime
from tui.config.paths import stylesheets
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.base import app_handle
from tui.screens.dialog import Dialog
from tui.text.clean import clean
from tui.text.words import ago, date_text
from tui.widgets.lists import RowTable
from tui.widgets.survey_detail import pretty_json


def _app_api(screen: ModalScreen[Any]) -> ApiClient:
    return app_handle(screen.app).api


def _now(screen: ModalScreen[Any]) -> datetime:
    """The server's time (its Date headers): the ages of what the server recorded are on its clock, not ours."""
    return app_handle(screen.app).server_clock.now()


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


def _full(value: Any) -> Text:
    return plain(value if isinstance(value, str) else pretty_json(value), oneline=False, limit=4000).copy()


def _question_texts(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(q.get("question") or "") if isinstance(q, dict) else "" for q in value]


def _diff_text(before: str, after: str) -> Text:
    from tui.state.word_diff import word_diff

    text = Text(end="")
    for op, piece in word_diff(before, after):
        style = {"-": f"{Tone.REMOVED.style} strike", "+": Tone.ADDED.style}.get(op, "")
        text.append_text(plain(piece, style, oneline=False, limit=2000))
    return text


def change_detail(entry: ActivityEntry) -> Text:
    """The whole of every change of one entry: questions reworded as a word diff, other values in full."""
    changes = entry.detail.changes if entry.detail and entry.detail.changes else []
    text = Text(end="")
    for change in changes[:50]:
        text.append_text(plain(change.field or change.action or "?", "bold underline", limit=60))
        text.append("\n")
        if change.field == "questions" and isinstance(change.after, list):
            old, new = _question_texts(change.before), _question_texts(change.after)
            for index in range(max(len(old), len(new))):
                was = old[index] if index < len(old) else ""
                now = new[index] if index < len(new) else ""
                if was == now:
                    continue
                text.append(f"  Q{index + 1}: ", style="bold")
                text.append_text(_diff_text(was, now))
                text.append("\n")
            if old == new:
                text.append("  question texts unchanged (other question settings changed)\n", style=Tone.MUTED.style)
            continue
        for label, value, style in (("  before: ", change.before, Tone.REMOVED.style),
                                    ("\n  after:  ", change.after, Tone.ADDED.style)):
            text.append(label, style=Tone.MUTED.style)
            shown = _full(value) if value is not None else Text("none", style=Tone.MUTED.style)
            if value is not None:
                shown.stylize(style)
            text.append_text(shown)
        text.append("\n")
    if not changes:
        text.append("No changes recorded in this entry.", style=Tone.MUTED.style)
    return text


class ActivityScreen(Dialog[None]):
    """Who did what to one survey (``survey_id``) or to every survey of the project (None)."""

    CSS_PATH = stylesheets("surveys.tcss")  # loaded when first shown: not part of the monitor's start

    CONFIRM = "activity-close"

    def __init__(self, survey_id: str | None, title: str) -> None:
        super().__init__(classes="survey-modal")
        self.survey_id = survey_id
        self._title = title
        self.entries: list[ActivityEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="activity-dialog", classes="dialog"):
            yield Static(plain(self._title, "bold"), classes="dialog-title")
            yield LoadingIndicator(id="activity-loading")
            table: DataTable[Any] = RowTable(id="activity-table", cursor_type="row")
            # The dialog takes the screen's width; a wide screen gives the names room, the changes the rest.
            wide = self.app.size.width >= 140
            table.add_column(Text("When"), key="when", width=16)
            table.add_column(Text("Who"), key="who", width=26 if wide else 18)
            table.add_column(Text("Activity"), key="activity", width=10)
            if self.survey_id is None:
                table.add_column(Text("Survey"), key="survey", width=36 if wide else 20)
            table.add_column(Text("Changes (before → after; enter shows the whole change)"), key="changes")
            yield table
            with VerticalScroll(id="activity-detail-pane"):
                yield Static("", id="activity-detail")
            yield Static("", id="activity-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (y)", id="activity-close", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#activity-table").display = False
        self.query_one("#activity-detail-pane").display = False
        self._load()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row: the whole change below the table (a question's rewording as a word diff)."""
        event.stop()
        if 0 <= event.cursor_row < len(self.entries):
            self.query_one("#activity-detail", Static).update(change_detail(self.entries[event.cursor_row]))
            self.query_one("#activity-detail-pane").display = True

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


class SummaryScreen(Dialog[None]):
    """Asks the server to summarize a survey's responses; a spinner while it works (it can take a while)."""

    CSS_PATH = stylesheets("surveys.tcss")  # loaded when first shown: not part of the monitor's start

    CONFIRM = "summary-close"

    def __init__(self, survey_id: str, name: str, questions: list[str] | None = None) -> None:
        """``questions``: the survey's question texts, each of which can be summarized on its own."""
        super().__init__(classes="survey-modal")
        self.survey_id = survey_id
        self.survey_name = name
        self.questions = list(questions or [])
        self.question_index: int | None = None  # None: the whole survey
        self.summary: ResponseSummary | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="summary-dialog", classes="dialog"):
            yield Static(Text.assemble(("Responses of ", "bold"), plain(self.survey_name, "bold")),
                         classes="dialog-title")
            if self.questions:
                options: list[tuple[Text, int]] = [(Text("The whole survey"), -1)]
                options += [(Text.assemble(f"Q{i + 1} ", plain(text or "(untitled)", limit=70)), i)
                            for i, text in enumerate(self.questions)]
                yield Select(options, value=-1, allow_blank=False, id="summary-question", compact=True)
            yield LoadingIndicator(id="summary-loading")
            with VerticalScroll(id="summary-scroll"):
                yield Static("", id="summary-text")
            yield Static("", id="summary-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (y)", id="summary-close", variant="primary", compact=True)

    def on_mount(self) -> None:
        self._load()

    @on(Select.Changed, "#summary-question")
    def _question_chosen(self, event: Select.Changed) -> None:
        """Another question (or the whole survey): its summary is asked for."""
        event.stop()
        index = event.value if isinstance(event.value, int) and event.value >= 0 else None
        if index == self.question_index:
            return
        self.question_index = index
        self.query_one("#summary-loading").display = True
        self.query_one("#summary-text", Static).update("")
        self.query_one("#summary-error", Static).update("")
        self._load()

    @work(exclusive=True, group="survey-summary", exit_on_error=False)
    async def _load(self) -> None:
        try:
            summary = await _app_api(self).surveys.summarize_responses(self.survey_id, self.question_index)
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
