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
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, ProgressBar, Static

from tui.api.errors import ApiError, MethodNotAllowed, NotFound
from tui.api.models import BatchExportRun
from tui.palette import Tone
from tui.paths import stylesheets
from tui.render import clean, plain
from tui.screens.dialog import Dialog
from tui.screens.export_modals import DATE_FORMAT, parse_operator_time
from tui.screens.incident_base import IncidentContext
from tui.state.failure_groups import FailureGroup
from tui.state.journal import JournalEntry, wall_clock
from tui.state.repair import (
    GapRange,
    RepairProgress,
    RepairRunner,
    RetryPlan,
    RetryTarget,
    gap_ranges,
    recheck,
    streak_start,
)

GAPS_SHOWN = 4
HISTORY_ROUNDS = 3
HISTORY_PAGES = 5
MAX_HISTORY = timedelta(days=7)
Planner = Callable[[datetime | None], RetryPlan]
GapPlanner = Callable[[datetime], list[GapRange]]


def _span(start: datetime | None, end: datetime) -> str:
    return f"{start:%m-%d %H:%M}→{end:%H:%M}" if start is not None else f"…→{end:%m-%d %H:%M}"


class RepairScreen(Dialog[RepairProgress | None]):
    CSS_PATH = stylesheets("incident.tcss")  # loaded when first shown: not part of the monitor\'s start
    CONFIRM = "repair-go"  # y, Enter on it, or ctrl+s sends; escape cancels, or stops what is being sent
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "go", "Send", id="repair.go")]

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
                yield Input(self._default_text, id="repair-since", compact=True)
            yield Static("", id="repair-since-error", classes="field-error hidden")
            yield Static(id="repair-preview")
            yield Checkbox("", id="repair-gaps", compact=True)
            yield Static(id="repair-gaps-list")
            yield Input(placeholder="type the number of retries to confirm", id="repair-typed", classes="hidden",
                        compact=True)
            yield Static("", id="repair-typed-error", classes="field-error hidden")
            yield ProgressBar(id="repair-bar", show_eta=False, classes="hidden")
            yield Static(id="repair-status")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="repair-cancel", compact=True)
                yield Button("Retry", id="repair-go", variant="warning", compact=True)

    def on_mount(self) -> None:
        self._replan()
        if self.reading_history:
            self._load_history()

    # ------------------------------------------------------------------ run history

    @work(group="repair-history", exclusive=True, exit_on_error=False)
    async def _load_history(self) -> None:
        """Runs as far back as the failure streak goes: ``latest_runs`` holds only the newest ten.

        One request per export (and page) inside the operator's budget; twice as far back while every run
        found still failed, up to a week. Then the plan is made again from what the server said.
        """
        try:
            for key in self.keys:
                await self._load_export_history(key)
        finally:
            self.reading_history = False
        edited = self.query_one("#repair-since", Input).value != self._default_text
        if not edited:
            self.plan = self.planner(None)
            self.since = self.plan.since or self.since
            self._default_text = f"{self.since:{DATE_FORMAT}}"
            self.query_one("#repair-since", Input).value = self._default_text
        self._replan(None if not edited else self.since)

    async def _load_export_history(self, key: str) -> None:
        desk = self.context.desk
        item = desk.exports.get(key)
        if item is None or ("runs", item.watched.project_id) in self.context.unsupported:
            return
        now = self.context.now()
        api = self.context.client_for(item.watched.project_id).batch_exports
        for _round in range(HISTORY_ROUNDS):
            begun = streak_start(desk.exports[key].runs)
            target = min(begun, self.since) if begun is not None else self.since
            # Enough once a run older than the window's start is known (what came before the streak) or the
            # server was already asked from there.
            if not desk.needs_history(key, target - timedelta(seconds=1)) or now - target > MAX_HISTORY:
                return
            lower = target - max(now - target, timedelta(hours=1))
            runs: list[BatchExportRun] = []
            next_url: str | None = None
            try:
                for _page in range(HISTORY_PAGES):
                    await self.context.budget.acquire()
                    page = await (api.runs(item.watched.export.id, next_url=next_url) if next_url
                                  else api.runs(item.watched.export.id, after=lower))
                    runs.extend(page.results)
                    next_url = page.next
                    if next_url is None:
                        break
            except (NotFound, MethodNotAllowed):
                self.context.unsupported.add(("runs", item.watched.project_id))
                return
            except ApiError as err:
                self.query_one("#repair-status", Static).update(plain(f"Run history not read: {err}", Tone.NOTE.style))
                return
            desk.add_runs(key, runs, covered_since=lower if next_url is None else None)

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

    def _replan(self, since: datetime | None = None) -> None:
        self.plan = self.planner(since)
        self.gaps = self.gap_planner(self.since)
        plan = self.plan
        preview = Text()
        if self.reading_history:
            preview.append(f"Reading the run history of {len(self.keys)} export{'s' if len(self.keys) != 1 else ''}"
                           "…\n", "italic")
        if plan.count:
            first, last = plan.first, plan.last
            assert first is not None and last is not None
            preview.append(f"{plan.count} failed interval{'s' if plan.count != 1 else ''}", "bold")
            preview.append(f" in {plan.exports} export{'s' if plan.exports != 1 else ''} will be retried, "
                           f"at most 2 at a time.\n")
            preview.append(f"First {_span(first.start, first.end)} ({clean(first.export.name, limit=60)}), "
                           f"last {_span(last.start, last.end)} ({clean(last.export.name, limit=60)}).")
        else:
            preview.append("No interval in this window has a failed latest attempt.", Tone.MUTED.style)
        if plan.left_out:
            preview.append(f"\nLeft out: {plan.left_out} failed interval{'s' if plan.left_out != 1 else ''} "
                           "with a newer attempt that completed or is running.", Tone.MUTED.style)
        self.query_one("#repair-preview", Static).update(preview)
        intervals = sum(g.intervals for g in self.gaps)
        label = (f"Also backfill the gaps: {len(self.gaps)} range{'s' if len(self.gaps) != 1 else ''} "
                 f"({intervals} interval{'s' if intervals != 1 else ''} with no run at all)"
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
        button.label = " + ".join(parts) if parts else "Nothing to send"
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
    desk = context.desk
    now = context.now()
    found: list[GapRange] = []
    for key in keys:
        item = desk.exports.get(key)
        if item is None:
            continue
        found.extend(gap_ranges(item.ref, item.runs, item.watched.export.interval_seconds, since, now))
    return found
