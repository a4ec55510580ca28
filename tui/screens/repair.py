"""Repair in bulk (``R``): preview the failed intervals (and, if asked, the gaps), confirm once, send, summarise.

The preview counts what would be sent and names the first and last interval;
above twenty retries the count must be typed. Sending keeps at most two
requests in flight inside the operator's share of the rate budget, re-checks
each interval just before (a poll may have shown a newer attempt), journals
each request, and ``esc`` stops it: what was sent stays sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Button, Checkbox, Input, Label, ProgressBar, Static

from tui.api.errors import ApiError, MethodNotAllowed, NotFound
from tui.config.paths import stylesheets
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens.dialog import Dialog
from tui.screens.export_modals import DATE_FORMAT, parse_operator_time
from tui.screens.incident_base import IncidentContext
from tui.state.failure_groups import FailureGroup
from tui.state.io.record_reads import read_span
from tui.state.journal_entry import JournalEntry, wall_clock
from tui.state.repair import (
    GapRange,
    RepairProgress,
    RepairRunner,
    RetryPlan,
    RetryTarget,
    gap_ranges,
    recheck,
)
from tui.text.words import counted
from tui.widgets.text_field import TextField

GAPS_SHOWN = 4
EXPANDED_LIMIT = 500  # intervals listed per export when expanded
HISTORY_PAGES = 10  # per span read for the repair window: a week of hourly runs is two pages
MAX_HISTORY = timedelta(days=7)
HOLDER = "repair"  # what the run history knows this dialog's hold by
Planner = Callable[[datetime | None], RetryPlan]
GapPlanner = Callable[[datetime], list[GapRange]]


def _span(start: datetime | None, end: datetime) -> str:
    """``11-22 07:00→08:00``: an interval as the preview names it."""
    return f"{start:%m-%d %H:%M}→{end:%H:%M}" if start is not None else f"…→{end:%m-%d %H:%M}"


class RepairScreen(Dialog[RepairProgress | None]):
    CSS_PATH = stylesheets("incident.tcss")  # loaded when first shown: not part of the monitor\'s start
    CONFIRM = "repair-go"  # y, Enter on it, or ctrl+s sends; escape cancels, or stops what is being sent
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "go", "Send", show=False, id="repair.go"),
        Binding("e", "expand", "Every interval", id="repair.expand"),
    ]

    def __init__(self, context: IncidentContext, title: str, planner: Planner, gap_planner: GapPlanner,
                 keys: Sequence[str] = ()) -> None:
        super().__init__(id="repair-screen", classes="repair-modal")
        self.context = context
        self.keys = list(keys)
        self.reading_history = bool(self.keys)
        self.title_text = title
        self.planner = planner
        self.gap_planner = gap_planner
        self.plan = planner(None)
        now = context.now()
        self.since = self.plan.since or now - timedelta(days=1)
        self.gaps: list[GapRange] = []
        self.runner: RepairRunner[RetryTarget | GapRange] | None = None
        self.progress: RepairProgress | None = None
        self._since_ok = True
        self._default_text = f"{self.since:{DATE_FORMAT}}"
        self.expanded = False
        self.reading: tuple[datetime, datetime] | None = None  # the span being read, said in the preview
        self._unsubscribe: Callable[[], None] | None = None

    # ------------------------------------------------------------------ building

    @classmethod
    def for_export(cls, context: IncidentContext, key: str) -> RepairScreen:
        desk = context.desk

        def plan(since: datetime | None) -> RetryPlan:
            return desk.plan_for_export(key, since)

        return cls(context, f"Repair {desk.name_of(key)}", plan, lambda since: _gaps(context, [key], since), [key])

    @classmethod
    def for_group(cls, context: IncidentContext, group: FailureGroup) -> RepairScreen:
        desk = context.desk

        def plan(since: datetime | None) -> RetryPlan:
            return desk.plan_for_group(group, since)

        keys = list(group.export_keys)
        title = f"Repair group: {group.signature}"
        return cls(context, title, plan, lambda since: _gaps(context, keys, since), keys)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="repair-dialog"):
            yield Static(plain(self.title_text, "bold", limit=76), classes="dialog-title")
            with Horizontal(id="repair-since-row"):
                yield Label("Failed since (UTC) ")
                yield TextField(self._default_text, id="repair-since", compact=True)
            yield Static("", id="repair-since-error", classes="field-error hidden")
            with VerticalScroll(id="repair-preview-box"):
                yield Static(id="repair-preview")
            yield Checkbox("", id="repair-gaps", compact=True)
            yield Static(id="repair-gaps-list")
            yield TextField(placeholder="type the number of retries to confirm", id="repair-typed", classes="hidden",
                        compact=True)
            yield Static("", id="repair-typed-error", classes="field-error hidden")
            yield ProgressBar(id="repair-bar", show_eta=False, classes="hidden")
            yield Static(id="repair-status")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="repair-cancel", compact=True)
                yield Button("Retry", id="repair-go", variant="warning", compact=True)

    def on_mount(self) -> None:
        self._replan()
        self._focus_go()
        self._unsubscribe = self.context.desk.subscribe(self._desk_changed)
        if self.reading_history:
            self._load_history()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.context.desk.history.hold(HOLDER, None)

    def _focus_go(self) -> None:
        """The typed count's field has the focus while it asks for one (Enter there sends once it is right); else
        the confirming button whenever it can send (Enter presses it); else Cancel."""
        typed = self.query_one("#repair-typed", Input)
        go = self.query_one("#repair-go", Button)
        if self.plan.needs_typed_count and not typed.has_class("hidden") and not typed.disabled:
            typed.focus()
        else:
            (go if not go.disabled else self.query_one("#repair-cancel", Button)).focus()

    def _desk_changed(self) -> None:
        """A poll or a read changed the runs: the preview follows the server while nothing is being sent."""
        if self.is_attached and self.runner is None and not self.reading_history:
            edited = self.query_one("#repair-since", Input).value != self._default_text
            self._replan(self.since if edited else None)

    def action_expand(self) -> None:
        self.expanded = not self.expanded
        if self.runner is None:
            edited = self.query_one("#repair-since", Input).value != self._default_text
            self._replan(self.since if edited else None)

    # ------------------------------------------------------------------ run history

    @work(group="repair-history", exclusive=True, exit_on_error=False)
    async def _load_history(self) -> None:
        """The runs list over the repair window, read for each export just before the preview.

        ``latest_runs`` holds only the newest ten runs: the plan and the gaps are made from the server's record of
        the window, read where the run history has not read it (inside the operator's budget, waiting for room),
        then the plan is made again.
        """
        try:
            for key in self.keys:
                await self._load_export_history(key)
        finally:
            self.reading_history = False
            self.reading = None
        if not self.is_attached:
            return
        edited = self.query_one("#repair-since", Input).value != self._default_text
        if not edited:
            self.plan = self.planner(None)
            self.since = self.plan.since or self.since
            self._default_text = f"{self.since:{DATE_FORMAT}}"
            self.query_one("#repair-since", Input).value = self._default_text
        self._replan(None if not edited else self.since)
        self._focus_go()

    async def _load_export_history(self, key: str) -> None:
        desk = self.context.desk
        item = desk.exports.get(key)
        if item is None or ("runs", item.watched.project_id) in self.context.unsupported:
            return
        now = self.context.now()
        api = self.context.client_for(item.watched.project_id).batch_exports
        since = max(self.since, now - MAX_HISTORY)
        if not self._edited():  # the default window: back to where the export's streak began, where not read yet
            back = desk.streak_reach(key, now - MAX_HISTORY)
            since = min(since, back) if back is not None else since
        desk.history.hold(HOLDER, since, self.keys)  # the plan is made from these runs while the dialog is open
        for lo, hi in desk.unread(key, since, now):
            self.reading = (lo, hi)
            self._replan_keeping_input()
            try:
                await read_span(api, item.watched.export.id, key, desk.history, lo, hi, pages=HISTORY_PAGES,
                                acquire=self.context.budget.acquire)
            except (NotFound, MethodNotAllowed):
                self.context.unsupported.add(("runs", item.watched.project_id))
                return
            except ApiError as err:
                self.query_one("#repair-status", Static).update(plain(f"Run history not read: {err}", Tone.NOTE.style))
                return
            desk.runs_changed(key)

    def _edited(self) -> bool:
        """The operator changed the window's start (the default is kept otherwise)."""
        try:
            return self.query_one("#repair-since", Input).value != self._default_text
        except NoMatches:
            return False

    def _replan_keeping_input(self) -> None:
        if self.is_attached:
            edited = self.query_one("#repair-since", Input).value != self._default_text
            self._replan(self.since if edited else None)

    # ------------------------------------------------------------------ preview

    @on(Input.Changed, "#repair-since")
    def _since_changed(self, event: Input.Changed) -> None:
        parsed = parse_operator_time(event.value)
        error = self.query_one("#repair-since-error", Static)
        problem = ("not a date-time: use YYYY-MM-DD HH:MM" if parsed is None
                   else "must be in the past" if parsed >= self.context.now() else "")
        _say(error, problem)
        self._since_ok = not problem
        if parsed is None or problem:
            self._update_go()
            return
        self.since = parsed
        edited = event.value != self._default_text
        if edited and not self.reading_history and any(self.context.desk.needs_history(k, parsed) for k in self.keys):
            self.reading_history = True  # an earlier start than the runs known: read back to it first
            self._load_history()
        # The default window is each export's own streak; a typed time is one window for all of them.
        self._replan(parsed if edited else None)

    @on(Input.Changed, "#repair-typed")
    @on(Checkbox.Changed, "#repair-gaps")
    def _confirm_changed(self) -> None:
        self._update_go()

    @on(Input.Submitted, "#repair-typed")
    def _typed_entered(self, event: Input.Submitted) -> None:
        """Enter in the typed count sends, once the count is right (the button says what is sent)."""
        event.stop()
        self._update_go()
        self.action_go()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "confirm" and self.runner is not None:
            return False  # sending or sent: nothing left to confirm
        return super().check_action(action, parameters)

    def _replan(self, since: datetime | None = None) -> None:
        self.plan = self.planner(since)
        self.gaps = self.gap_planner(self.since)
        plan = self.plan
        preview = Text()
        if self.reading_history:
            exports = counted(len(self.keys), "export")
            span = f" {self.reading[0]:%H:%M}–{self.reading[1]:%H:%M}" if self.reading is not None else ""
            preview.append(f"Reading runs{span} of {exports}…\n", "italic")
        if plan.count:
            preview.append(counted(plan.count, "failed interval"), "bold")
            preview.append(f" in {counted(plan.exports, 'export')} to retry, 2 at a time")
            preview.append(" (e: fewer)" if self.expanded else " (e: each)", Tone.MUTED.style)
            preview.append_text(per_export_lines(plan.targets, expanded=self.expanded))
        else:
            preview.append("No interval in this window has a failed latest attempt.", Tone.MUTED.style)
        if plan.left_out:
            preview.append(f"\nLeft out: {counted(plan.left_out, 'failed interval')} "
                           "with a newer attempt that completed or is running.", Tone.MUTED.style)
        self.query_one("#repair-preview", Static).update(preview)
        intervals = sum(g.intervals for g in self.gaps)
        label = (f"Also backfill the gaps: {counted(len(self.gaps), 'range')} "
                 f"({counted(intervals, 'interval')} with no run at all)"
                 if self.gaps else "No gaps: every interval in the window has a run.")
        box = self.query_one("#repair-gaps", Checkbox)
        box.label = label
        box.disabled = not self.gaps
        if not self.gaps:
            box.value = False
        shown = Text(style=Tone.MUTED.style)
        for gap in self.gaps[:GAPS_SHOWN]:
            shown.append("  ")
            shown.append_text(plain(gap.export.name, limit=30))
            shown.append(f" {_span(gap.start, gap.end)} ({gap.intervals})\n")
        if len(self.gaps) > GAPS_SHOWN:
            shown.append(f"  and {len(self.gaps) - GAPS_SHOWN} more ranges\n")
        self.query_one("#repair-gaps-list", Static).update(shown)
        self.query_one("#repair-typed", Input).set_class(not plan.needs_typed_count, "hidden")
        self._update_go()

    def _items(self) -> list[RetryTarget | GapRange]:
        items: list[RetryTarget | GapRange] = list(self.plan.targets)
        if self.query_one("#repair-gaps", Checkbox).value:
            items.extend(self.gaps)
        return items

    def _update_go(self) -> None:
        button = self.query_one("#repair-go", Button)
        if self.runner is not None:
            return
        retries = self.plan.count
        gaps = len(self.gaps) if self.query_one("#repair-gaps", Checkbox).value else 0
        parts = [f"Retry {retries}"] if retries else []
        if gaps:
            parts.append(f"backfill {gaps}")
        button.label = (" + ".join(parts) + " (y)") if parts else "Nothing to send"
        typed_ok = True
        error = ""
        if self.plan.needs_typed_count:
            typed = self.query_one("#repair-typed", Input).value.strip()
            typed_ok = typed == str(retries)
            if typed and not typed_ok:
                error = f"type {retries} to confirm"
        _say(self.query_one("#repair-typed-error", Static), error)
        button.disabled = (retries + gaps == 0 or not typed_ok or self.context.read_only or not self._since_ok
                           or self.reading_history)

    # ------------------------------------------------------------------ sending

    @on(Button.Pressed, "#repair-go")
    def _go_pressed(self) -> None:
        self.action_go()

    @on(Button.Pressed, "#repair-cancel")
    def _cancel_pressed(self) -> None:
        self.action_stop_or_close()

    def action_go(self) -> None:
        if self.runner is not None or self.query_one("#repair-go", Button).disabled:
            return
        items = self._items()
        self.runner = RepairRunner(items, self._send, self.context.budget, skip=self._skip, on_item=self._journal,
                                   on_progress=self._show_progress, describe_error=_describe)
        for widget_id in ("#repair-since", "#repair-gaps", "#repair-typed", "#repair-go"):
            self.query_one(widget_id).disabled = True
        bar = self.query_one("#repair-bar", ProgressBar)
        bar.remove_class("hidden")
        bar.update(total=len(items), progress=0)
        self.query_one("#repair-cancel", Button).label = "Stop (esc)"
        self._send_all()

    @work(group="repair", exclusive=True, exit_on_error=False)
    async def _send_all(self) -> None:
        assert self.runner is not None
        self.progress = await self.runner.run()

    async def _send(self, item: RetryTarget | GapRange) -> None:
        api = self.context.client_for(item.export.project_id).batch_exports
        if isinstance(item, RetryTarget):
            await api.retry_run(item.export.export_id, item.run_id)
        else:
            await api.backfill(item.export.export_id, item.start, item.end)

    def _skip(self, item: RetryTarget | GapRange) -> str | None:
        if isinstance(item, GapRange):
            return None
        known = self.context.desk.exports.get(item.export.key)
        return recheck(item, known.runs) if known is not None else None

    def _journal(self, item: RetryTarget | GapRange, outcome: str) -> None:
        retry = isinstance(item, RetryTarget)
        self.context.journal.append(JournalEntry(
            time=wall_clock(), server_time=self.context.clock.now(), action="bulk retry" if retry else "backfill gap",
            result=outcome, profile=self.context.profile, project=item.export.project_id,
            export=item.export.export_id, name=item.export.name,
            run=item.run_id if isinstance(item, RetryTarget) else None,
            detail={"start": item.start.isoformat() if item.start else None, "end": item.end.isoformat()}))

    def _show_progress(self, progress: RepairProgress) -> None:
        bar = self.query_one("#repair-bar", ProgressBar)
        bar.update(progress=progress.done)
        status = self.query_one("#repair-status", Static)
        if progress.finished:
            status.update(Text.assemble(("Done: ", "bold"), self._summary(progress)))
            self.query_one("#repair-cancel", Button).label = "Close (esc)"
            self.query_one("#repair-cancel", Button).focus()
            self.notify(self._summary(progress), title="Repair", markup=False, timeout=10)
        elif progress.stopped:
            status.update(f"Stopping after the requests in flight… {progress.done} of {progress.total} done")
        else:
            status.update(f"{progress.done} of {progress.total} done · {self._summary(progress)}")

    def _summary(self, progress: RepairProgress) -> str:
        gaps = sum(1 for item in (self.runner.items if self.runner else []) if isinstance(item, GapRange))
        return progress.summary("sent" if gaps else "retried")

    def action_cancel(self) -> None:
        self.action_stop_or_close()

    def action_stop_or_close(self) -> None:
        if self.runner is not None and not self.runner.progress.finished:
            self.runner.stop()
            self._show_progress(self.runner.progress)
            return
        self.dismiss(self.progress)


def _say(box: Static, message: str) -> None:
    """A field's error line: shown only when there is something to say (the dialog must fit 24 lines)."""
    box.update(message)
    box.set_class(not message, "hidden")


def _describe(error: Exception) -> str:
    return str(error) if isinstance(error, ApiError) else repr(error)


def _gaps(context: IncidentContext, keys: Sequence[str], since: datetime) -> list[GapRange]:
    """Intervals with no run at all, only where the server's runs list was read: a run created for an interval
    comes after its end, so an interval ending inside the newest read span that has no run among those read has
    none on the server."""
    desk = context.desk
    now = context.now()
    found: list[GapRange] = []
    for key in keys:
        item = desk.exports.get(key)
        read_since = desk.history.read_since(key)
        if item is None or read_since is None:
            continue
        step = item.watched.export.interval_seconds
        start = max(since, read_since - timedelta(seconds=step or 0))
        found.extend(gap_ranges(item.ref, item.runs, step, start, now))
    return found


def per_export_lines(targets: Sequence[RetryTarget], *, expanded: bool) -> Text:
    """Per export: how many intervals, the first and the last; with ``expanded``, every interval."""
    by_export: dict[str, list[RetryTarget]] = {}
    for target in targets:
        by_export.setdefault(target.export.key, []).append(target)
    text = Text()
    for items in by_export.values():
        items.sort(key=lambda t: t.end)
        first, last = items[0], items[-1]
        text.append("\n  ")
        text.append_text(plain(first.export.name, "bold", limit=28))
        text.append(f": {len(items)}, {_span(first.start, first.end)}")
        if len(items) > 1:
            text.append(f" … {_span(last.start, last.end)}")
        if expanded:
            for target in items[:EXPANDED_LIMIT]:
                text.append(f"\n    {_span(target.start, target.end)}", Tone.MUTED.style)
            if len(items) > EXPANDED_LIMIT:
                text.append(f"\n    and {len(items) - EXPANDED_LIMIT} more", Tone.MUTED.style)
    return text
