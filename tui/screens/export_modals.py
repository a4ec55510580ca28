"""Modals of the monitor: backfill, edit, delete (type the name), a run's full error.

Each validates as the operator types and sends nothing while anything is
invalid; a server error keeps every field as typed and shows the message at
the field it names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static, Switch, TextArea

from tui.api.errors import ApiError, UnreadableAnswer, ValidationFailed, WriteValidationError
from tui.api.models.batch_exports import BatchExport, BatchExportRun, Interval
from tui.api.writes import check_backfill, check_export_write, count_backfill_runs, iso, parse_datetime
from tui.look.palette import Tone
from tui.look.render import plain
from tui.look.status import status_text
from tui.screens.base import WatchdeckModal
from tui.screens.dialog import Dialog
from tui.state.exports import WatchedExport
from tui.state.io.journal import ActionJournal
from tui.state.journal_entry import JournalEntry, wall_clock
from tui.text.clean import Shown, clean, editable
from tui.text.redaction import is_secret_key
from tui.text.words import counted
from tui.widgets.cleaned_note import CleanedNote
from tui.widgets.footer import KeyFooter
from tui.widgets.text_field import TextBox, TextField

DATE_FORMAT = "%Y-%m-%d %H:%M"
DAY_FORMAT = "%Y-%m-%d"
WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
TYPED_CONFIRM_ABOVE = 1000  # runs: a larger backfill is confirmed by typing its count


def _floor(when: datetime, step: int) -> datetime:
    epoch = when.timestamp()
    return datetime.fromtimestamp(epoch - epoch % step, tz=UTC)


def parse_operator_time(text: str) -> datetime | None:
    """``2026-01-31 12:00`` (UTC) or any ISO 8601 form; None when unreadable."""
    text = text.strip()
    if not text:
        return None
    try:
        return datetime.strptime(text, DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return parse_datetime(text.replace(" ", "T", 1) if "T" not in text else text)


def parse_operator_date(text: str) -> datetime | None:
    """``2026-01-31`` as midnight UTC; None when unreadable or when a time is added."""
    try:
        return datetime.strptime(text.strip(), DAY_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def takes_dates(export: BatchExport) -> bool:
    """Day and week exports are backfilled by whole dates (the newest service refuses a time there)."""
    return export.interval in ("day", "week")


@dataclass(frozen=True)
class BackfillRequest:
    start_at: datetime
    end_at: datetime
    dates: bool = False  # the bounds are dates: send them as dates

    def bounds(self) -> tuple[datetime | date, datetime | date]:
        if self.dates:
            return self.start_at.date(), self.end_at.date()
        return self.start_at, self.end_at


class BackfillScreen(Dialog[BackfillRequest | None]):
    """Start and end (UTC), default the last 24 h, with the number of runs it will create.

    A day or week export takes dates instead (a week export's on its own weekday), the last day or
    week by default.
    """

    CONFIRM = "backfill-go"
    # As every dialog: y on a button, Enter on the confirming button or in the last field. ctrl+s too, from any
    # field, as in the export's edit form (not in the footer: the one rule is what it shows).
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "submit", "Start backfill", show=False)]

    def __init__(self, export: BatchExport, now: datetime, project_created_at: datetime | None = None) -> None:
        super().__init__(classes="backfill-modal")
        self.export = export
        self.now = now
        self._dates = takes_dates(export)
        self.project_created_at: datetime | None = None
        self.know_project_created(project_created_at)
        self._format = DAY_FORMAT if self._dates else DATE_FORMAT
        step = export.interval_seconds or 3600
        if self._dates:
            end = _floor(now, 86400)
            if export.interval == "week":
                end -= timedelta(days=(end.isoweekday() % 7 - (export.offset_day or 0)) % 7)
            self._end_default, self._start_default = end, end - timedelta(seconds=step)
        else:
            self._end_default = _floor(now, step)
            self._start_default = self._end_default - timedelta(hours=24)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="backfill-dialog"):
            yield Static(Text.assemble(("Backfill ", "bold"), plain(self.export.name, "bold")), classes="dialog-title")
            shape = "date, YYYY-MM-DD" if self._dates else "UTC, YYYY-MM-DD HH:MM"
            yield Label(f"Start ({shape})")
            yield TextField(self._start_default.strftime(self._format), id="backfill-start")
            yield Static("", id="backfill-start-error", classes="field-error")
            yield Label(f"End ({shape})")
            yield TextField(self._end_default.strftime(self._format), id="backfill-end")
            yield Static("", id="backfill-end-error", classes="field-error")
            yield Static("", id="backfill-summary")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="backfill-cancel")
                yield Button("Backfill", id="backfill-go", variant="warning")

    def on_mount(self) -> None:
        self._validate()
        self.query_one("#backfill-start", Input).focus()

    def know_project_created(self, created: datetime | None) -> None:
        """A start before the project existed has no data; a day export may start on the creation day itself.

        Told when the server answers (the dialog does not wait for it to open); the fields are checked again.
        """
        self.project_created_at = _floor(created, 86400) if self._dates and created is not None else created
        if self.is_mounted:
            self._validate()

    @on(Input.Changed)
    def _changed(self) -> None:
        self._validate()

    def _validate(self) -> BackfillRequest | None:
        start_text = self.query_one("#backfill-start", Input).value
        end_text = self.query_one("#backfill-end", Input).value
        parse = parse_operator_date if self._dates else parse_operator_time
        start, end = parse(start_text), parse(end_text)
        wrong = "not a date: use YYYY-MM-DD" if self._dates else "not a date-time: use YYYY-MM-DD HH:MM"
        errors = {"start": "" if start else wrong, "end": "" if end else wrong}
        if self.export.interval == "week":
            weekday = WEEKDAYS[(self.export.offset_day or 0) % 7]
            for key, value in (("start", start), ("end", end)):
                if value is not None and WEEKDAYS[value.isoweekday() % 7] != weekday:
                    errors[key] = f"must be a {weekday}: this export runs weekly on {weekday}s"
        request = None
        if start and end and not errors["start"] and not errors["end"]:
            try:
                check_backfill(start, end, now=self.now, export_end_at=self.export.end_at,
                               interval_seconds=self.export.interval_seconds,
                               project_created_at=self.project_created_at)
                request = BackfillRequest(start, end, dates=self._dates)
            except WriteValidationError as err:
                errors["start"] = err.problems.get("start_at", "")
                errors["end"] = err.problems.get("end_at", "" if errors["start"] else str(err))
        self.query_one("#backfill-start-error", Static).update(Text(errors["start"]))
        self.query_one("#backfill-end-error", Static).update(Text(errors["end"]))
        summary = self.query_one("#backfill-summary", Static)
        if request is not None:
            runs = count_backfill_runs(request.start_at, request.end_at, self.export.interval_seconds)
            what = counted(runs, "run") if runs is not None else "an unknown number of runs"
            interval = clean(self.export.interval, limit=60) or "unknown interval"
            summary.update(Text(f"This creates {what} ({interval}).",
                                style="bold"))
        else:
            summary.update("")
            what = ""
        go = self.query_one("#backfill-go", Button)
        go.disabled = request is None
        go.label = (f"Backfill {what}" if what and not what.startswith("an ") else "Backfill") + " (y)"
        return request

    def action_submit(self) -> None:
        request = self._validate()
        if request is None:
            return
        runs = count_backfill_runs(request.start_at, request.end_at, self.export.interval_seconds)
        if runs is None or runs <= TYPED_CONFIRM_ABOVE:
            self.dismiss(request)
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.dismiss(request)

        self.app.push_screen(TypedCountConfirmScreen(runs), confirmed)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#backfill-start")
    def _start_entered(self) -> None:
        self.query_one("#backfill-end", Input).focus()

    @on(Input.Submitted, "#backfill-end")
    def _end_entered(self) -> None:
        """Enter in the last field submits, as in any form."""
        self.action_submit()

    @on(Button.Pressed, "#backfill-go")
    def _go(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#backfill-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


class TypedCountConfirmScreen(Dialog[bool]):
    """A big backfill is confirmed by typing its number of runs: one stray key cannot start 20,000 runs."""

    CONFIRM = "backfill-confirm-go"

    def __init__(self, runs: int) -> None:
        super().__init__(classes="delete-modal")
        self.runs = runs

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="backfill-confirm-dialog"):
            yield Static(Text("Confirm a large backfill", style="bold"), classes="dialog-title")
            yield Static(Text(f"This backfill creates {self.runs:,} runs.\n"
                              f"Type {self.runs} to start it."))
            yield TextField(id="backfill-confirm-count", placeholder=str(self.runs))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="backfill-confirm-cancel")
                yield Button(f"Backfill {self.runs:,} runs", id="backfill-confirm-go", variant="warning", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#backfill-confirm-count", Input).focus()

    def _matches(self, typed: str) -> bool:
        return typed.strip().replace(",", "").replace("_", "") == str(self.runs)

    @on(Input.Changed, "#backfill-confirm-count")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one("#backfill-confirm-go", Button).disabled = not self._matches(event.value)

    @on(Input.Submitted, "#backfill-confirm-count")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._matches(event.value):
            self.dismiss(True)

    @on(Button.Pressed, "#backfill-confirm-go")
    def _go(self, event: Button.Pressed) -> None:
        event.stop()
        if self._matches(self.query_one("#backfill-confirm-count", Input).value):
            self.dismiss(True)

    @on(Button.Pressed, "#backfill-confirm-cancel")
    def _cancel_button(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)


class DeleteExportScreen(Dialog[bool]):
    """Deleting an export cannot be undone: the operator types its name."""

    CONFIRM = "delete-go"

    def __init__(self, export: BatchExport) -> None:
        super().__init__(classes="delete-modal")
        self.export = export
        self._expected = clean(export.name) or export.id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="delete-dialog"):
            yield Static(Text("Delete export", style=Tone.ERROR.style), classes="dialog-title")
            yield Static(Text.assemble("This deletes ", plain(self._expected, "bold"),
                                       " and stops its runs. It cannot be undone.\nType the export's name to confirm."))
            yield TextField(id="delete-name", placeholder=self._expected)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="delete-cancel")
                yield Button("Delete export", id="delete-go", variant="error", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#delete-name", Input).focus()

    @on(Input.Changed, "#delete-name")
    def _typed(self, event: Input.Changed) -> None:
        self.query_one("#delete-go", Button).disabled = event.value.strip() != self._expected

    @on(Input.Submitted, "#delete-name")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() == self._expected:
            self.dismiss(True)

    @on(Button.Pressed, "#delete-go")
    def _go(self) -> None:
        if self.query_one("#delete-name", Input).value.strip() == self._expected:
            self.dismiss(True)

    @on(Button.Pressed, "#delete-cancel")
    def _cancel_button(self) -> None:
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)


class RunErrorScreen(WatchdeckModal[None]):
    """A run's latest_error in full (tables show the first line only)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,q", "close", "Close")]

    def __init__(self, run: BatchExportRun) -> None:
        super().__init__(classes="error-modal")
        self.run = run

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="run-error-dialog"):
            yield Static(Text.assemble(("Run ", "bold"), plain(self.run.id, Tone.MUTED.style), " · ",
                                       status_text(self.run.status)),
                         classes="dialog-title")
            with VerticalScroll(id="run-error-body"):
                yield Static(plain(self.run.latest_error or "(no error)", Tone.ERROR_TEXT.style, oneline=False,
                                   limit=50000))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (esc)", id="run-error-close", variant="primary")
        yield KeyFooter()  # its own keys, not those of the screen underneath

    @on(Button.Pressed, "#run-error-close")
    def action_close(self) -> None:
        self.dismiss(None)


# --------------------------------------------------------------------------- edit


EDIT_FIELDS = ("name", "interval", "paused", "start_at", "end_at", "destination", "native_query")


class EditExportScreen(Dialog[BatchExport | None]):
    """Edit name, interval, paused, start/end, destination config and query; PATCH only what changed.

    Secret config keys are not shown (the server omits them anyway, and the
    PATCH deep-merges ``config``, so leaving them out keeps them).
    """

    CONFIRM = "edit-save"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "save", "Save")]

    def __init__(self, watched: WatchedExport, journal: ActionJournal) -> None:
        super().__init__(classes="edit-modal")
        self.watched = watched
        self.export = watched.export
        self.journal = journal
        self._config = {k: v for k, v in (self.export.destination.config or {}).items() if not is_secret_key(k)}

    def compose(self) -> ComposeResult:
        export = self.export
        intervals: list[tuple[Text, str]] = [(Text(i.value), i.value) for i in Interval]
        if export.interval and export.interval not in {i.value for i in Interval}:
            intervals.append((plain(f"{export.interval} (unknown)", limit=60), export.interval))
        name = editable(export.name)
        query = editable(export.query or "", multiline=True)
        with Vertical(classes="dialog wide", id="edit-dialog"):
            yield Static(Text.assemble(("Edit ", "bold"), plain(export.name, "bold")), classes="dialog-title")
            with VerticalScroll(id="edit-form"):
                yield Label("Name")
                yield TextField(name.text, id="edit-name", select_on_focus=False)
                if name.cleaned:
                    yield CleanedNote(id="edit-name-cleaned")
                yield Static("", id="edit-name-error", classes="field-error")
                yield Label("Interval")
                yield Select(intervals, value=export.interval or Select.BLANK, id="edit-interval", allow_blank=False)
                yield Static("", id="edit-interval-error", classes="field-error")
                with Horizontal(classes="switch-row"):
                    yield Label("Paused ")
                    yield Switch(export.paused, id="edit-paused")
                yield Label("Start at (UTC, YYYY-MM-DD HH:MM; empty for none)")
                yield TextField(export.start_at.strftime(DATE_FORMAT) if export.start_at else "", id="edit-start_at",
                            select_on_focus=False)
                yield Static("", id="edit-start_at-error", classes="field-error")
                yield Label("End at (UTC, YYYY-MM-DD HH:MM; empty for none)")
                yield TextField(export.end_at.strftime(DATE_FORMAT) if export.end_at else "", id="edit-end_at",
                            select_on_focus=False)
                yield Static("", id="edit-end_at-error", classes="field-error")
                yield Label(Text.assemble("Destination config (JSON; secret fields hidden and kept) · ",
                                          plain(export.destination.type)))
                yield TextBox(json.dumps(self._config, indent=2, sort_keys=True), id="edit-destination",
                               language=None, soft_wrap=True, classes="json-area")
                yield Static("", id="edit-destination-error", classes="field-error")
                yield Label("Query")
                yield TextBox(query.text, id="edit-native_query", soft_wrap=True, classes="query-area")
                if query.cleaned:
                    yield CleanedNote(id="edit-native_query-cleaned")
                yield Static("", id="edit-native_query-error", classes="field-error")
            yield Static("", id="edit-summary", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="edit-cancel")
                yield Button("Save (ctrl+s)", id="edit-save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#edit-name", Input).focus()

    def changes(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The PATCH body (changed fields only) and the problems found in the form."""
        export = self.export
        problems: dict[str, str] = {}
        changes: dict[str, Any] = {}
        # A name or query shown cleaned and not edited is the server's own: not a change.
        name = Shown.of(export.name).saved(self.query_one("#edit-name", Input).value)
        if name != export.name:
            changes["name"] = name
        interval = self.query_one("#edit-interval", Select).value
        if isinstance(interval, str) and interval != export.interval:
            changes["interval"] = interval
        paused = self.query_one("#edit-paused", Switch).value
        if paused != export.paused:
            changes["paused"] = paused
        for key in ("start_at", "end_at"):
            text = self.query_one(f"#edit-{key}", Input).value.strip()
            original: datetime | None = getattr(export, key)
            if not text:
                if original is not None:
                    changes[key] = None
                continue
            when = parse_operator_time(text)
            if when is None:
                problems[key] = "not a date-time: use YYYY-MM-DD HH:MM"
            elif original is None or when.replace(second=0, microsecond=0) != original.replace(second=0, microsecond=0):
                changes[key] = iso(when)
        raw_config = self.query_one("#edit-destination", TextArea).text
        try:
            config = json.loads(raw_config or "{}")
        except ValueError as err:
            problems["destination"] = f"not valid JSON: {err}"
        else:
            if not isinstance(config, dict):
                problems["destination"] = "must be a JSON object"
            elif config != self._config:
                changes["destination"] = {"type": export.destination.type, "config": config}
        query = Shown.of(export.query or "", multiline=True).saved(self.query_one("#edit-native_query", TextArea).text)
        if query != (export.query or ""):
            changes["native_query"] = query
        if not problems:
            try:
                check_export_write(changes)
            except WriteValidationError as err:
                problems.update({k.split(".")[0]: v for k, v in err.problems.items()})
        return changes, problems

    def _show(self, problems: dict[str, str], summary: str = "") -> None:
        for key in EDIT_FIELDS:
            for widget in self.query(f"#edit-{key}-error").results(Static):
                widget.update(Text(problems.get(key, "")))  # may quote the server: never markup
        self.query_one("#edit-summary", Static).update(Text(summary))

    def action_save(self) -> None:
        changes, problems = self.changes()
        if problems:
            self._show(problems, f"Not saved: {len(problems)} field(s) need attention.")
            return
        if not changes:
            self.dismiss(None)
            return
        self._show({}, "Saving…")
        self._save(changes)

    @work(group="edit-export", exclusive=True, exit_on_error=False)
    async def _save(self, changes: dict[str, Any]) -> None:
        client = self.wd.api_for(self.watched.project_id)
        try:
            export = await client.batch_exports.update(self.export.id, changes)
        except ValidationFailed as err:
            self._journal_failure(err)
            field = (err.attr or "").split("__")[0]
            self._show({field: clean(err.detail or str(err))} if field else {}, clean(str(err), limit=300))
        except ApiError as err:
            self._journal_failure(err)
            self._show({}, clean(str(err), limit=300))
        except WriteValidationError as err:
            self._show({k.split(".")[0]: v for k, v in err.problems.items()}, str(err))
        else:
            self.dismiss(export)

    def _journal_failure(self, err: ApiError) -> None:
        """A refused or unclear save is journaled too (the monitor journals the saves that worked)."""
        app = self.wd
        verdict = "unclear" if isinstance(err, UnreadableAnswer) else "failed"
        self.journal.append(JournalEntry(time=wall_clock(), action="edit", result=f"{verdict}: {err}",
                                         profile=app.settings.profile, project=self.watched.project_id,
                                         export=self.export.id, name=self.export.name,
                                         server_time=app.clock.now()))

    @on(Button.Pressed, "#edit-save")
    def _save_button(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#edit-cancel")
    def _cancel_button(self) -> None:
        self.action_cancel()

    def action_cancel(self) -> None:
        changes, _ = self.changes()
        if not changes:
            self.dismiss(None)
            return
        from tui.screens.confirm import ConfirmScreen

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard changes", "Close the form and lose your edits?",
                                           yes_label="Discard", danger=True), answered)
