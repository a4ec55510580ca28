"""The survey browser: a lazily paged list, a detail pane, and the survey actions.

Layout: an optional filter line, the list, a status line, and the detail of
the highlighted survey below (``enter`` gives the detail the whole screen).

Paging: the first page is requested on mount; when the cursor or viewport
comes within 40 rows of the last loaded row the next page (100 surveys) is
appended. Appending never clears the table, so the cursor and scroll stay put.

Filters: ``/`` is the server's ``search`` (a new query: the list restarts);
``f`` cycles a status filter that runs on the loaded rows (status is derived
from dates, the server cannot filter it) and keeps loading pages while fewer
rows match than fill the screen.

Sorting (``o`` cycles the column, ``O`` flips the direction, or click a
header) sorts the rows loaded so far and says so in the status line; pages
that arrive later are merged into the order. Loading all 10,000 surveys
before sorting would cost 100 requests and most of a minute on a real
server, for a question ("which is newest/largest among these") the operator
can usually answer with the search first.

Freshness: the first page and the pages of the rows on screen are read again every minute (longer after
failures) and when the operator comes back to the list after a while; an identical answer changes no row.

Rates: each survey on screen but drafts gets one ``surveys/:id/stats/`` read once the list rests (the service has
no per-survey breakdown in one request), kept a minute; ``…`` until read, ``?`` when the read failed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from datetime import datetime
from time import monotonic
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tui.api.cache_context import bypass_cache
from tui.api.errors import ApiError, MethodNotAllowed, NotFound, WriteValidationError
from tui.api.models.surveys import Survey, SurveyStatus
from tui.api.survey_rules import SEARCH_MAX
from tui.api.writes import iso
from tui.config.paths import stylesheets
from tui.key_registry import bindings, writing_actions
from tui.look.palette import Tone
from tui.look.render import plain
from tui.look.status_line import STATUS_POLL, status_line
from tui.screens import debounce
from tui.screens.base import WatchdeckScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.typed_confirm import TypedNameConfirmScreen
from tui.state.budget import ActionBudget
from tui.state.freshness import load_freshness
from tui.state.io.journal import ActionJournal
from tui.state.io.poller import Poller
from tui.state.io.project_names import fetch_project_label
from tui.state.journal_entry import JournalEntry, wall_clock
from tui.state.survey_list import (
    SORT_BY_KEY,
    SORT_COLUMNS,
    STATUS_CYCLE,
    PageResult,
    Refresh,
    ResponsesCounts,
    SurveyPager,
    SurveyRow,
    matches,
)
from tui.state.survey_stats import TOTAL, StatsBook
from tui.text.clean import clean
from tui.text.words import counted, when_text
from tui.widgets.filter_box import FilterBox
from tui.widgets.footer import KeyFooter
from tui.widgets.survey_detail import SurveyDetail
from tui.widgets.survey_table import COLUMNS, SurveyTable, rate_cell, responses_text, survey_row
from tui.widgets.virtual_table import CELL_PADDING, KEY, Row, VirtualTable, cell_text, fit_columns

MUTATING_ACTIONS = writing_actions("surveys")  # what read-only mode hides
NEEDS_SELECTION = frozenset({"edit", "edit_file", "delete", "archive", "unarchive", "launch", "stop", "resume",
                             "duplicate", "summarize",
                             "activity"})
_SELECTION_ACTIONS = tuple(sorted(NEEDS_SELECTION))  # the footer changes only when one of these does
COUNTS_TICK = 15.0
STATS_MAX_AGE = 60.0  # and at most once a minute per survey (a live query on the real service)
RATE_READS = 60  # the most stats totals read for the list's Rate column each time it comes to rest
LIST_REFRESH = 60.0
"""Seconds between two reads of the list's first page and the pages on screen (longer after failures)."""
RESUME_REFRESH = 10.0
"""Back on the list, it is read again when its last read is older than this."""
_JOURNAL_ACTIONS = {"Archived": "archive", "Unarchived": "unarchive", "Launched": "launch", "Stopped": "stop",
                    "Resumed": "resume",
                    "Saved": "edit as file"}


# The columns kept when not all fit, most wanted first; the others are dropped whole. Name takes the width left.
COLUMN_PRIORITY = ("name", "status", "responses", "rate", "questions", "created", "type", "creator")
NAME_GROWS = ("name", 200)


def _named(name: str | None) -> str:
    """A survey's name for a toast: cleaned as every server string is (never a Python repr's escapes), quoted."""
    return f"'{clean(name, limit=200)}'"

def _status_cell(row: Row) -> tuple[str, str]:
    index = next(i for i, column in enumerate(COLUMNS) if column.key == "status")
    return cell_text(row[1][index]), row[2][index]


class SurveyBrowserScreen(WatchdeckScreen[None]):
    """Every survey of the current project, with what an operator does to them."""

    CSS_PATH = stylesheets("surveys.tcss")  # loaded when first shown: not part of the monitor's start

    BINDINGS: ClassVar[list[BindingType]] = [
        binding for binding in bindings("surveys") if binding.id not in SurveyTable.KEY_IDS
    ]

    AUTO_FOCUS = "#survey-table"

    def __init__(self, *, page_size: int = 100, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pager = SurveyPager(page_size=page_size)
        self._journal_file: ActionJournal | None = None
        self.counts: ResponsesCounts | None = None
        self.status_filter: SurveyStatus | None = None
        self.sort_key: str | None = None
        self.sort_reverse = False
        self.error: str | None = None
        self.fetching = False
        self.detail_max = False
        self._shown_id: str | None = None
        self._reloaded_generation = -1  # the query generation a reload started: its pages ask the server
        self._stats = StatsBook(max_age=STATS_MAX_AGE)  # each survey's total and weekly stats, bounded
        self._stats_budget = ActionBudget(monotonic)  # the stats reads take the operator's share of the rate limit
        self._stats_unavailable = False  # the server has no stats endpoint: not asked again
        self._rates_view: tuple[str, ...] = ()  # the rows on screen when the Rate column's reads were last planned
        self._rates_left = 0  # reads still allowed since the list last came to rest
        self._rates_reader: Worker[None] | None = None
        self._refresh_timer: Timer | None = None
        self._refresh_error: str | None = None  # the last refresh failed: the rows shown are older than it says
        self._bindings_state: tuple[Any, ...] | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="survey-header")  # the monitor's header: freshness, project, the data's age
        yield FilterBox("Filter by name (server search) · enter applies · escape clears", apply=self._apply_search,
                        wait=lambda: debounce.DEBOUNCE.search, id="survey-filter")
        with Vertical(id="survey-list-pane"):
            yield SurveyTable(id="survey-table")
            yield Static("", id="survey-empty")
        yield Static("", id="survey-status")
        yield SurveyDetail(id="survey-detail")
        yield KeyFooter()

    @property
    def table(self) -> SurveyTable:
        return self.query_one("#survey-table", SurveyTable)

    @property
    def now(self) -> datetime:
        """The server's time (from its Date headers), as the monitor measures ages."""
        return self.wd.server_clock.now()

    @property
    def read_only(self) -> bool:
        return bool(self.wd.settings.read_only)

    def on_mount(self) -> None:
        self.counts = ResponsesCounts(self.wd.monotonic)
        self._refresher: Poller[Refresh] = Poller(self._read_again, LIST_REFRESH, monotonic=self.wd.monotonic)
        self.sub_title = "surveys"
        # When the list was last read, on the app's elapsed-time clock (the monitor's data age is on it too): under
        # --demo the injected clock runs sixty times faster than the data ages.
        self._loaded_at: float | None = None
        self._project_label = ""
        self._header_shown: tuple[Any, ...] | None = None
        self.set_interval(1.0, self._render_header)
        self._render_header()
        self._load_project_label()
        self.table.focus()
        self._load_page()  # the responses counts are asked for after the first page (see _accept_page)
        self.set_interval(COUNTS_TICK, self._counts_tick)
        self.on_resize()

    def on_resize(self) -> None:
        """Columns that do not all fit are dropped whole, the least wanted first (:data:`COLUMN_PRIORITY`), rather
        than cut; the Name column takes the free width (long names that share a start stay apart)."""
        table = self.table
        available = self.size.width - table.styles.scrollbar_size_vertical
        fitted = fit_columns([(c.key, c.label, c.width) for c in COLUMNS], COLUMN_PRIORITY, available, CELL_PADDING,
                             grow=NAME_GROWS)
        table.show_columns((key, width or 0) for key, _, width in fitted)
        self._rates_soon()

    # ------------------------------------------------------------------ paging

    def _load_page(self) -> None:
        if self.fetching or self.pager.exhausted:
            return
        self.fetching = True
        self._render_status()
        self._fetch_page(self.pager.generation)

    @work(group="survey-pages", exit_on_error=False)
    async def _fetch_page(self, generation: int) -> None:
        try:
            # The pages of a reload ask the server and refresh the shared cache for the other viewers.
            with bypass_cache() if generation == self._reloaded_generation else contextlib.nullcontext():
                result = await self.pager.fetch_next(self.wd.api.surveys)
        except ApiError as err:
            if generation == self.pager.generation:
                self.fetching = False
                self.error = str(err)
                self._render_status()
                self._render_header()
            return
        if generation != self.pager.generation:
            return  # a new search or reload started meanwhile; its own fetch is on the way
        self.fetching = False
        self._accept_page(result)

    def _accept_page(self, result: PageResult) -> None:
        """Append a fetched page to the table (the only work done on the UI thread per page).

        A row is a tuple of plain strings (SurveyTable), so a page costs about a millisecond and
        10,000 loaded rows leave little for the cyclic garbage collector to walk.
        """
        new = self.pager.accept(result)
        if new is None:
            return
        self.error = None
        self._loaded_at = self.wd.monotonic()
        self._render_header()
        table = self.table
        first = table.row_count == 0
        keep = self.selected_id
        table.add_rows(self._table_rows(new))  # merged into the order when sorted
        if self.sort_key is not None and not first:
            self._move_to(keep)
        if first and table.row_count:
            self._show_detail()
        if self.counts is not None and self.counts.fetched_at is None:
            self._refresh_counts()  # after the first page, so the list is not queued behind a costly count
        if first:
            self._arm_refresh(LIST_REFRESH)
        self._render_status()
        self._update_bindings()
        self._maybe_load_more()
        self._rates_soon()

    def _table_rows(self, rows: list[SurveyRow]) -> list[Row]:
        """The table rows of the surveys that pass the status filter."""
        now, counts, status, book = self.now, self._counts_map(), self.status_filter, self._stats
        return [survey_row(row, now, counts, book) for row in rows if matches(row, status, now)]

    def _maybe_load_more(self) -> None:
        """Keep loading while the visible rows do not reach past the screen (a narrow status filter)."""
        if not self.pager.exhausted and not self.fetching and self.error is None and self.table.near_end():
            self._load_page()

    @on(SurveyTable.NearEnd)
    def _near_end(self, event: SurveyTable.NearEnd) -> None:
        event.stop()
        self._maybe_load_more()

    def _restart(self, *, from_server: bool = False) -> None:
        """A new query (search text or reload): forget the pages, cancel the fetch in flight, start over.

        ``from_server`` (a reload): the new query's pages bypass the shared cache.
        """
        self.workers.cancel_group(self, "survey-pages")
        self.pager.reset(self.pager.search)
        if from_server:
            self._reloaded_generation = self.pager.generation
        self.fetching = False
        self.error = None
        self.table.clear()
        self._shown_id = None
        self._load_page()
        self._show_detail()

    def _rebuild(self, keep: str | None = None) -> None:
        """Refill the table from the loaded rows (status filter or a new row changed which rows show)."""
        keep = keep or self.selected_id
        table = self.table
        table.clear()  # so the sort below has no old rows to compute values for
        table.sort(self._sort_function(), reverse=self.sort_reverse)
        table.set_rows(self._table_rows(self.pager.rows))
        self._move_to(keep)
        self._show_detail()
        self._render_status()
        self._update_bindings()
        self._maybe_load_more()
        self._rates_soon(rows_changed=True)

    def _move_to(self, survey_id: str | None) -> None:
        self.table.move_to_key(survey_id)

    def _sort_function(self) -> Callable[[Row], Any] | None:
        """What the table sorts by: the survey's own value of the sort column (not the cell text)."""
        if self.sort_key is None:
            return None
        value = SORT_BY_KEY[self.sort_key].value
        pager, now, counts = self.pager, self.now, self._counts_map() or {}
        return lambda row: value(pager.by_id[row[KEY]], now, counts)

    def _apply_sort(self) -> None:
        keep = self.selected_id
        self.table.sort(self._sort_function(), reverse=self.sort_reverse)
        self._move_to(keep)
        self._rates_soon()

    # ------------------------------------------------------------------ responses counts

    def _counts_map(self) -> dict[str, int] | None:
        if self.counts is None or self.counts.fetched_at is None or (self.counts.error and not self.counts.counts):
            return None
        return self.counts.counts

    def _counts_tick(self) -> None:
        if self.counts is not None and self.counts.due():
            self._refresh_counts()

    @work(exclusive=True, group="survey-counts", exit_on_error=False)
    async def _refresh_counts(self) -> None:
        """At most once a minute: the endpoint is a live query on the real service, with no server cache."""
        counts = self.counts
        if counts is None or not counts.due():
            return
        try:
            fresh = await self.wd.api.surveys.responses_count()
        except ApiError as err:
            counts.failed(str(err))
            self._render_status()
            return
        first = counts.fetched_at is None or bool(counts.error)
        changed = counts.store(fresh)
        table = self.table
        ids = [row.id for row in self.pager.rows] if first else list(changed)
        table.update_cells("responses", [(survey_id, *responses_text(counts.counts.get(survey_id, 0)))
                                         for survey_id in ids])
        limited = [row for survey_id in ids if (row := self.pager.get(survey_id)) is not None and row.responses_limit]
        if limited:  # "limit reached" depends on the count
            now, counted = self.now, self._counts_map()
            table.update_cells("status", [(r.id, *_status_cell(survey_row(r, now, counted))) for r in limited
                                          if r.id in table])
        if self.sort_key == "responses":
            self._apply_sort()
        self._show_detail(force=True)
        self._render_status()

    # ------------------------------------------------------------------ refresh

    def _arm_refresh(self, delay: float) -> None:
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
        self._refresh_timer = self.set_timer(delay, self._refresh_now)

    def _refresh_now(self) -> None:
        """Read the list again (the timer, or back on the screen), unless a read is under way: then later."""
        if self._refresher.in_flight:
            return
        if self.fetching or (self.table.row_count == 0 and not self.pager.exhausted):
            self._arm_refresh(LIST_REFRESH)  # the list is loading: that read is fresh enough
            return
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None
        self._refresh()

    @on(events.ScreenResume)
    def _resumed(self) -> None:
        """Back on the list (from the monitor, the editor, a dialog): read it again when its last read is old."""
        if self._loaded_at is not None and self.wd.monotonic() - self._loaded_at > RESUME_REFRESH:
            self._refresh_now()

    async def _read_again(self) -> Refresh:
        """The first page and those holding the rows on screen, from the server (not another viewer's copy)."""
        offsets = self.pager.refresh_offsets(self.table.visible_keys())
        with bypass_cache():
            return await self.pager.fetch_refresh(self.wd.api.surveys, offsets)

    @work(group="survey-refresh", exit_on_error=False)
    async def _refresh(self) -> None:
        """One refresh, then the next armed: the list's interval, longer after failures (a 429's Retry-After
        honoured). An answer identical to what is shown changes nothing on screen but the data's age."""
        refresher = self._refresher
        outcome = await refresher.run_once()  # never raises but for cancellation (the screen is going)
        self._arm_refresh(refresher.next_delay())
        if outcome.value is not None:
            self._refresh_error = None
            self._merge(outcome.value)
        else:
            self._refresh_error = f"refresh failed: {refresher.reason()}"
        self._render_header()

    def _merge(self, refresh: Refresh) -> None:
        if refresh.generation != self.pager.generation:
            return  # a search or reload started meanwhile: its own pages are current
        changed, added = self.pager.merge(refresh)
        self._loaded_at = self.wd.monotonic()
        if added or any(not matches(row, self.status_filter, self.now) or row.id not in self.table
                        for row in changed):
            self._rebuild()
            return
        if not changed:
            return
        keep = self.selected_id
        now, counts, book = self.now, self._counts_map(), self._stats
        for row in changed:
            self.table.update_row(survey_row(row, now, counts, book))
        if self.sort_key is not None:
            self.table.sort(self._sort_function(), reverse=self.sort_reverse)
            self._move_to(keep)
        if self._shown_id in {row.id for row in changed}:
            self._show_detail(force=True)
        self._update_bindings()
        self._rates_soon(rows_changed=True)

    # ------------------------------------------------------------------ selection and detail

    @property
    def selected_id(self) -> str | None:
        return self.table.cursor_key

    @property
    def selected(self) -> SurveyRow | None:
        survey_id = self.selected_id
        return self.pager.get(survey_id) if survey_id else None

    @on(VirtualTable.RowHighlighted, "#survey-table")
    def _highlighted(self, event: VirtualTable.RowHighlighted) -> None:
        self._show_detail()
        self._update_bindings()

    def _show_detail(self, force: bool = False) -> None:
        row = self.selected
        if row is not None and row.id == self._shown_id and not force:
            return
        self._shown_id = row.id if row else None
        counts = self._counts_map()
        responses = None if row is None or counts is None else counts.get(row.id, 0)
        now = self.now
        stats = self._stats.get(row.id) if row else None
        trend = self._stats.trend(row.id, now) if row else None
        self.query_one(SurveyDetail).show(row.survey() if row else None, now, responses, stats, trend)
        if row is not None and self.detail_max and not self._stats_unavailable and self._stats.due(
                row.id, now, self.wd.monotonic()):
            self._fetch_stats(row.id)  # only for the full-screen detail: a live query on the real service

    @work(exclusive=True, group="survey-stats", exit_on_error=False)
    async def _fetch_stats(self, survey_id: str) -> None:
        """The shown survey's counts and rates, and its responses in each of the last eight weeks, once the cursor
        rests (each a live query upstream): what is due only (a past week is read once), inside the rate budget."""
        await asyncio.sleep(debounce.DEBOUNCE.stats)
        while windows := self._stats.due(survey_id, self.now, self.wd.monotonic()):
            window = windows[0]  # one at a time: the list may read the total meanwhile
            try:
                with self._stats.reading(survey_id, window):
                    await self._stats_budget.acquire()
                    stats = await self.wd.api.surveys.stats(survey_id, date_from=window[0], date_to=window[1])
            except (NotFound, MethodNotAllowed):
                self._stats_unavailable = True  # an older server: the detail simply goes without
                return
            except ApiError:
                return
            self._stats.put(survey_id, window, stats, self.wd.monotonic())
            if window == TOTAL:
                self._show_rate(survey_id)
            if self._shown_id == survey_id:
                self._show_detail(force=True)

    # ------------------------------------------------------------------ the Rate column

    @on(SurveyTable.ViewChanged)
    def _view_moved(self, event: SurveyTable.ViewChanged) -> None:
        event.stop()
        self._rates_soon()

    def _rates_soon(self, *, rows_changed: bool = False) -> None:
        """The rows on screen changed: once the list rests, read the rates of those not read in the last minute.

        Moving the cursor among the same rows asks nothing; each move to other rows starts the wait again, so a held
        key or a burst of pages asks only for the rows it stops on. ``rows_changed``: the same rows, but a survey
        among them changed (a draft launched has a rate to read now).
        """
        if not self.is_mounted or self._stats_unavailable:
            return
        view = tuple(self.table.visible_keys())
        if view == self._rates_view and not rows_changed:
            return
        self._rates_view = view
        self._rates_wait()

    @work(exclusive=True, group="survey-rates-wait", exit_on_error=False)
    async def _rates_wait(self) -> None:
        await asyncio.sleep(debounce.DEBOUNCE.rates)
        self._rates_left = RATE_READS
        if self._rates_reader is None or self._rates_reader.is_finished:
            self._rates_reader = self._read_rates()

    def _next_rate(self) -> str | None:
        """The first row on screen whose rate is due (a draft's is never: nobody was shown it)."""
        now, pager = self.now, self.pager
        shown = (key for key in self.table.visible_keys()
                 if (row := pager.get(key)) is not None and row.status_at(now) is not SurveyStatus.DRAFT)
        return next(self._stats.due_totals(shown, now, self.wd.monotonic()), None)

    @work(group="survey-rates", exit_on_error=False)
    async def _read_rates(self) -> None:
        """One stats read per row on screen that is due, at most :data:`RATE_READS` since the list came to rest,
        inside the rate budget; rows scrolled away meanwhile are not read."""
        while self._rates_left > 0 and not self._stats_unavailable and (survey_id := self._next_rate()) is not None:
            self._rates_left -= 1
            with self._stats.reading(survey_id, TOTAL):
                await self._stats_budget.acquire()
                try:
                    stats = await self.wd.api.surveys.stats(survey_id)
                except MethodNotAllowed:
                    self._stats_unavailable = True  # an older server: the column stays without
                    return
                except ApiError:
                    self._stats.fail(survey_id, self.wd.monotonic())  # "?", asked again after a minute
                else:
                    self._stats.put(survey_id, TOTAL, stats, self.wd.monotonic())
            self._show_rate(survey_id)
            if self._shown_id == survey_id:
                self._show_detail(force=True)

    def _show_rate(self, survey_id: str) -> None:
        row = self.pager.get(survey_id)
        if row is not None and survey_id in self.table:
            self.table.update_cells("rate", [(survey_id, *rate_cell(survey_id, row.status_at(self.now),
                                                                    self._stats))])

    @on(VirtualTable.RowSelected, "#survey-table")
    def _selected(self, event: VirtualTable.RowSelected) -> None:
        event.stop()
        self.action_toggle_detail()

    def action_toggle_detail(self) -> None:
        self.detail_max = not self.detail_max
        self.set_class(self.detail_max, "-detail-max")
        if self.detail_max:
            self.query_one(SurveyDetail).focus()
            self._show_detail(force=True)
        else:
            self.table.focus()

    # ------------------------------------------------------------------ header

    @work(group="project-label", exit_on_error=False)
    async def _load_project_label(self) -> None:
        self._project_label, _ = await fetch_project_label(self.wd.api)
        self._render_header()

    def _render_header(self) -> None:
        """The monitor's status line (tui.look.status_line): freshness, the project, the data's age, what went wrong."""
        if not self.is_mounted:
            return
        error = self.error or self._refresh_error
        state = load_freshness(loaded=self._loaded_at is not None, failed=error is not None)
        age = None if self._loaded_at is None else max(0.0, self.wd.monotonic() - self._loaded_at)
        phrases = [(STATUS_POLL, "surveys · ctrl+r reloads", Tone.MUTED.style)]
        if error:
            phrases.append((0, clean(error, limit=120), Tone.ERROR.style))
        line = status_line(state, phrases, max(self.size.width - 2, 20), project=self._project_label or "", age=age,
                           read_only=self.read_only)
        shown = (line.plain, tuple(line.spans), line.style)
        if shown == self._header_shown:
            return  # the timer redraws it every second: an unchanged line costs nothing
        self._header_shown = shown
        # The height is fixed in surveys.tcss: skip the whole-screen layout update() does by default.
        self.query_one("#survey-header", Static).update(line, layout=False)

    # ------------------------------------------------------------------ status line

    def _render_status(self) -> None:
        pager, table = self.pager, self.table
        line = Text(end="")
        total = pager.total
        line.append(f"{table.row_count:,} shown", style="bold")
        line.append(f" · {pager.loaded:,}" + (f" of {total:,}" if total is not None else "") + " loaded")
        if pager.search:
            line.append(" · search ")
            line.append_text(plain(repr(pager.search), "bold", limit=60))
            if len(pager.search) > SEARCH_MAX:
                line.append(f" (its first {SEARCH_MAX} of {len(pager.search)} characters: the service's limit)",
                            style=Tone.NOTE.style)
        if self.status_filter is not None:
            # The server cannot filter by status (draft, running, complete are worked out from the dates),
            # so the filter covers what is loaded, and says how much that is until everything is.
            line.append(f" · status {self.status_filter.value}")
            if not pager.exhausted:
                line.append(f" among the {pager.loaded:,} loaded" + (f" of {total:,}" if total is not None else ""),
                            style=Tone.NOTE.style)
        if self.sort_key is not None:
            arrow = "↓" if self.sort_reverse else "↑"
            partial = "" if pager.exhausted else " (loaded rows only)"
            line.append(f" · sorted by {SORT_BY_KEY[self.sort_key].label} {arrow}{partial}")
        if self.fetching:
            line.append(" · loading…", style="italic")
        if self.counts is not None and self.counts.error:
            line.append(" · responses unavailable", style=Tone.NOTE.style)
        if pager.skipped:
            line.append(f" · {pager.skipped} unreadable skipped", style=Tone.NOTE.style)
        if self.read_only:
            line.append(" · READ-ONLY", style=Tone.WARNING.style)
        if self.error:
            line.append(" · ")
            line.append_text(plain(self.error, Tone.ERROR.style))
        self.query_one("#survey-status", Static).update(line)
        self._render_empty()

    def _render_empty(self) -> None:
        empty = self.query_one("#survey-empty", Static)
        if self.table.row_count:
            empty.display = False
            return
        empty.display = True
        if self.error:
            message = Text.assemble(("Cannot load surveys. ", Tone.ERROR.style), plain(self.error, oneline=False),
                                    ("\nctrl+r tries again.", Tone.MUTED.style))
        elif self.fetching or not self.pager.exhausted:
            message = Text("Loading surveys…", style="italic")
        elif len(self.pager.search) > SEARCH_MAX:
            message = Text.assemble(f"No survey matches the first {SEARCH_MAX} characters of the search (the "
                                    f"service searches at most {SEARCH_MAX}; {len(self.pager.search)} typed): ",
                                    plain(repr(self.pager.search[:SEARCH_MAX]), "bold"),
                                    (".  escape clears the filter.", Tone.MUTED.style))
        elif self.pager.search:
            message = Text.assemble("No survey matches ", plain(repr(self.pager.search), "bold"),
                                    (".  escape clears the filter.", Tone.MUTED.style))
        elif self.status_filter is not None:
            message = Text(f"No {self.status_filter.value} surveys. f changes the status filter.",
                           style=Tone.MUTED.style)
        else:
            message = Text("No surveys in this project yet." + ("" if self.read_only else "  n creates one."),
                           style=Tone.MUTED.style)
        empty.update(message)

    # ------------------------------------------------------------------ bindings

    def _update_bindings(self) -> None:
        """Refresh the footer when the selected row's keys change (archive or unarchive, launch, stop, resume)."""
        state = tuple(self.check_action(action, ()) for action in _SELECTION_ACTIONS)
        if state != self._bindings_state:
            self._bindings_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING_ACTIONS and self.read_only:
            return False
        if action not in NEEDS_SELECTION:
            return True
        row = self.selected
        if row is None:
            # keep one of each pair visible (disabled) so the footer does not jump around
            return None if action not in ("unarchive", "stop", "resume") else False
        status = row.status_at(self.now)
        if action == "archive":
            return not row.archived
        if action == "unarchive":
            return row.archived
        if action == "launch":
            return status is SurveyStatus.DRAFT
        if action == "stop":
            return status is SurveyStatus.RUNNING
        if action == "resume":
            return status is SurveyStatus.COMPLETE
        return True

    # ------------------------------------------------------------------ filter and sort

    def action_filter(self) -> None:
        self.query_one("#survey-filter", FilterBox).open()

    @on(FilterBox.Submitted, "#survey-filter")
    def _filter_submitted(self) -> None:
        self.table.focus()

    def _apply_search(self, text: str) -> None:
        if text == self.pager.search:
            return
        self.pager.search = text
        self._restart()

    def _set_filter_title(self) -> None:
        parts = []
        if self.pager.search:
            parts.append(f"search {clean(self.pager.search, limit=40)!r}")
        if self.status_filter is not None:
            parts.append(self.status_filter.value)
        self.sub_title = "surveys" + (" · " + " · ".join(parts) if parts else "")

    def action_escape(self) -> None:
        box = self.query_one("#survey-filter", FilterBox)
        if box.shown or self.pager.search:
            box.close()  # the search is emptied now
            self.table.focus()
            self._set_filter_title()
        elif self.detail_max:
            self.action_toggle_detail()

    def action_cycle_status(self) -> None:
        index = STATUS_CYCLE.index(self.status_filter)
        self.status_filter = STATUS_CYCLE[(index + 1) % len(STATUS_CYCLE)]
        self._set_filter_title()
        self._rebuild()

    def action_cycle_sort(self) -> None:
        keys = [None, *(c.key for c in SORT_COLUMNS)]
        self.sort_key = keys[(keys.index(self.sort_key) + 1) % len(keys)]
        self.sort_reverse = False
        self._resort()

    def action_reverse_sort(self) -> None:
        if self.sort_key is None:
            self.sort_key = "created"
        self.sort_reverse = not self.sort_reverse
        self._resort()

    @on(VirtualTable.HeaderSelected, "#survey-table")
    def _header(self, event: VirtualTable.HeaderSelected) -> None:
        event.stop()
        key = event.column_key
        if key not in SORT_BY_KEY:
            return  # the Rate column: known for the rows looked at only, so not an order of the list
        if key == self.sort_key:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_key, self.sort_reverse = key, False
        self._resort()

    def _resort(self) -> None:
        """The operator's new order, shown from its top (the first row is what the sort was asked for)."""
        if self.sort_key is None:
            self._rebuild()  # back to the server's order (newest first)
        else:
            self.table.sort(self._sort_function(), reverse=self.sort_reverse)
            self._render_status()
        self.table.move_cursor(0)
        self.table.scroll_to(y=0, animate=False, force=True)
        self._rates_soon()

    # ------------------------------------------------------------------ actions: create and edit

    def _open_editor(self, survey: Survey | None, body: Mapping[str, Any] | None = None) -> None:
        """The editor on ``survey``, or on a new survey (filled from ``body`` when given)."""
        # Imported here: the editor and its forms are loaded when first opened, not at the monitor's start.
        from tui.screens.editor import SurveyEditorScreen
        from tui.state.survey_draft import SurveyDraft

        draft = SurveyDraft.new_from(body) if body is not None else None
        screen = SurveyEditorScreen(survey, on_failure=self._save_failed, draft=draft)
        self.app.push_screen(screen, lambda saved: self._saved(saved, creating=survey is None))

    def action_template(self) -> None:
        from tui.screens.editor_dialogs import TemplatePickerScreen
        from tui.state.survey_templates import template

        def chosen(key: str | None) -> None:
            if key:
                self._open_editor(None, template(key))

        self.app.push_screen(TemplatePickerScreen(), chosen)

    def action_duplicate(self) -> None:
        """A copy of the selected survey in the editor, as a new draft survey (sent only when saved)."""
        from tui.state.survey_file import document
        from tui.state.survey_templates import duplicate_body

        row = self.selected
        if row is not None:
            survey = row.survey()
            self._open_editor(None, duplicate_body(survey, document(survey)))

    def _save_failed(self, action: str, survey_id: str | None, name: str | None, result: str,
                     detail: Mapping[str, Any] | None) -> None:
        """A save the editor tried and that failed: journaled as a save is (the editor stays open)."""
        self._journal(action, survey_id, name, result, detail)

    def _saved(self, saved: Survey | None, *, creating: bool) -> None:
        if saved is None:
            return
        self._journal("create" if creating else "edit", saved.id, saved.name, "ok")
        if creating:
            self.pager.insert_first(saved)
            self._rebuild(keep=saved.id)
            self._notify(f"Created survey {_named(saved.name)}.")
        else:
            self._apply_updated(saved)
            self._notify(f"Saved survey {_named(saved.name)}.")

    def action_new(self) -> None:
        self._open_editor(None)

    def action_edit(self) -> None:
        row = self.selected
        if row is not None:
            self._open_editor(row.survey())

    def action_edit_file(self) -> None:
        row = self.selected
        if row is not None:
            self._edit_as_file(row.survey())

    def _edit_as_file(self, survey: Survey, text: str | None = None, problems: dict[str, str] | None = None) -> None:
        """Open the survey in $VISUAL/$EDITOR; an invalid file opens again with its problems on top."""
        from tui.screens.survey_file_edit import SurveyDiffScreen, edit_text, file_format
        from tui.state.survey_file import SurveyFileError, document, dumps, loads, plan, with_errors

        fmt = file_format()
        shown = text if text is not None else dumps(document(survey), fmt)
        if problems:
            shown = with_errors(shown, problems, fmt)
        edited = edit_text(self.app, shown, "." + fmt)
        if edited is None:
            self._notify("The editor did not finish cleanly ($VISUAL or $EDITOR): nothing was sent.", error=True)
            return
        if not edited.strip():
            self._notify("The file was emptied: nothing was sent.")
            return
        try:
            doc = loads(edited, fmt)
            if doc.get("id") != survey.id:
                raise SurveyFileError({"id": f"must stay {survey.id} (apply a copy with `watchdeck surveys apply`)"})
            todo = plan(doc, survey)
        except SurveyFileError as err:
            self.call_after_refresh(self._edit_as_file, survey, edited, err.problems)
            return
        if todo.empty:
            self._notify("No changes: nothing was sent.")
            return

        def answered(apply: bool | None) -> None:
            if apply:
                self._patch(survey.id, todo.send, "Saved")

        self.app.push_screen(SurveyDiffScreen(survey.name, todo.diff, list(todo.send), todo.note_lines()), answered)

    # ------------------------------------------------------------------ actions: delete, archive, launch, stop

    def action_delete(self) -> None:
        """A draft without responses asks y/n; a running survey, or one with responses, needs its name typed."""
        row = self.selected
        if row is None:
            return
        survey_id = row.id
        responses = (self._counts_map() or {}).get(survey_id, 0)
        live = row.status_at(self.now) is SurveyStatus.RUNNING

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(survey_id)

        if live or responses:
            why = ("It is running" if live else "It has") + (
                f"{' and has' if live else ''} {counted(responses, 'response')}" if responses
                else "")
            lead = Text.assemble("This deletes ", plain(row.name, "bold", limit=200), f". {why}.\n"
                                 "Its targeting flags go with it. This cannot be undone.")
            self.app.push_screen(TypedNameConfirmScreen("Delete survey", lead, row.name), answered)
            return
        question = Text.assemble("Delete the survey ", plain(row.name, "bold", limit=200),
                                 "?\nIts targeting flags go with it. This cannot be undone.")
        self.app.push_screen(ConfirmScreen("Delete survey", question, yes_label="Delete", danger=True), answered)

    @work(group="survey-actions", exit_on_error=False)
    async def _delete(self, survey_id: str) -> None:
        row = self.pager.get(survey_id)
        name = row.name if row else survey_id
        try:
            await self.wd.api.surveys.delete(survey_id)
        except ApiError as err:
            self._journal("delete", survey_id, name, f"failed: {err}")
            self._notify(f"Delete failed: {err}", error=True)
            return
        self._journal("delete", survey_id, name, "ok")
        self.pager.remove(survey_id)
        if survey_id in self.table:
            self.table.remove_row(survey_id)
        self._show_detail()
        self._render_status()
        self._update_bindings()
        self._notify(f"Deleted survey {_named(name)}.")
        self._maybe_load_more()
        self._rates_soon()

    def action_archive(self) -> None:
        """Asks first, as every action that takes a survey out of sight does (``a`` brings it back)."""
        row = self.selected
        if row is None:
            return
        question = Text.assemble("Archive ", plain(row.name, "bold", limit=200),
                                 "?\nIt leaves the usual lists; a on it in the archived list brings it back.")
        self._confirm_patch(ConfirmScreen("Archive survey", question, yes_label="Archive"), row.id,
                            {"archived": True}, "Archived")

    def action_unarchive(self) -> None:
        row = self.selected
        if row is not None:
            self._patch(row.id, {"archived": False}, "Unarchived")

    def action_launch(self) -> None:
        row = self.selected
        if row is None:
            return
        when = iso(self.now)
        question = Text.assemble("Launch ", plain(row.name, "bold", limit=200),
                                 f" now?\nIt starts {when_text(self.now, self.now)}: respondents start seeing it.")
        survey_id = row.id
        self._confirm_patch(ConfirmScreen("Launch survey", question, yes_label="Launch"), survey_id,
                            {"start_date": when}, "Launched")

    def action_stop(self) -> None:
        row = self.selected
        if row is None:
            return
        when = iso(self.now)
        question = Text.assemble("Stop ", plain(row.name, "bold", limit=200),
                                 f" now?\nIt ends {when_text(self.now, self.now)}: no more responses are collected.")
        survey_id = row.id
        self._confirm_patch(ConfirmScreen("Stop survey", question, yes_label="Stop", danger=True), survey_id,
                            {"end_date": when}, "Stopped")

    def action_resume(self) -> None:
        """A stopped survey shows again once its end date is cleared (the real UI's resume does the same)."""
        row = self.selected
        if row is None:
            return
        question = Text.assemble("Resume ", plain(row.name, "bold", limit=200),
                                 "?\nIts end date is cleared: respondents see it again now.")
        self._confirm_patch(ConfirmScreen("Resume survey", question, yes_label="Resume"), row.id,
                            {"end_date": None}, "Resumed")

    def _confirm_patch(self, confirm: ConfirmScreen, survey_id: str, changes: dict[str, Any], done: str) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._patch(survey_id, changes, done)

        self.app.push_screen(confirm, answered)

    @work(group="survey-actions", exit_on_error=False)
    async def _patch(self, survey_id: str, changes: dict[str, Any], done: str) -> None:
        """PATCH exactly ``changes`` and show the server's version of the survey."""
        action = _JOURNAL_ACTIONS.get(done, done.lower())
        row = self.pager.get(survey_id)
        try:
            saved = await self.wd.api.surveys.update(survey_id, changes)
        except (ApiError, WriteValidationError) as err:
            self._journal(action, survey_id, row.name if row else None, f"failed: {err}", changes)
            self._notify(f"{done} failed: {err}", error=True)
            return
        self._journal(action, survey_id, saved.name, "ok", changes)
        self._apply_updated(saved)
        self._notify(f"{done} survey {_named(saved.name)}.")

    def _apply_updated(self, survey: Survey) -> None:
        row = self.pager.replace(survey)
        if row is None:
            row = self.pager.insert_first(survey)
        table = self.table
        now = self.now
        if not matches(row, self.status_filter, now) or row.id not in table:
            self._rebuild()
            return
        keep = self.selected_id
        table.update_row(survey_row(row, now, self._counts_map(), self._stats))
        if self.sort_key is not None:
            # Sort again with the time of now: the table's sort function holds the time it was made at, and a
            # survey launched since then would still sort as a draft.
            self.table.sort(self._sort_function(), reverse=self.sort_reverse)
        self._move_to(keep)
        self._show_detail(force=True)
        self._update_bindings()
        self._rates_soon(rows_changed=True)

    # ------------------------------------------------------------------ actions: summary, activity, reload, modes

    def action_summarize(self) -> None:
        row = self.selected
        if row is not None:
            from tui.screens.survey_modals import SummaryScreen

            questions = [q.question if isinstance(q.question, str) else "" for q in row.survey().questions or []]
            self.app.push_screen(SummaryScreen(row.id, row.name, questions))

    def action_activity(self) -> None:
        row = self.selected
        if row is not None:
            from tui.screens.survey_modals import ActivityScreen

            self.app.push_screen(ActivityScreen(row.id, f"Activity of {clean(row.name, limit=80)}"))

    def action_activity_all(self) -> None:
        from tui.screens.survey_modals import ActivityScreen

        self.app.push_screen(ActivityScreen(None, "Activity of all surveys"))

    def action_reload(self) -> None:
        """ctrl+r: start over from the server itself, not from a shared-cache answer another viewer stored."""
        self._restart(from_server=True)
        self._refresh_error = None
        if self.counts is not None and self.counts.due():
            self._refresh_counts()

    def action_monitor(self) -> None:
        self.app.switch_mode("monitor")

    # ------------------------------------------------------------------ plumbing

    @property
    def journal(self) -> ActionJournal:
        if self._journal_file is None:
            self._journal_file = ActionJournal.for_session(demo=bool(self.wd.settings.demo))
        return self._journal_file

    def _journal(self, action: str, survey_id: str | None, name: str | None, result: str,
                 detail: Mapping[str, Any] | None = None) -> None:
        settings = self.wd.settings
        self.journal.append(JournalEntry(
            time=wall_clock(), action=f"survey {action}", result=clean(result, limit=300), profile=settings.profile,
            project=self.wd.project_id, survey=survey_id, name=name, detail=detail,
            server_time=self.now,
        ))

    def _notify(self, message: str, *, error: bool = False) -> None:
        self.app.notify(clean(message, limit=300), severity="error" if error else "information", markup=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A page load that failed unexpectedly leaves the list in a clear state (the app logs and toasts it)."""
        if event.state is WorkerState.ERROR and event.worker.error is not None and event.worker.group == "survey-pages":
            self.fetching = False
            self.error = clean(str(event.worker.error), limit=300)
            self._render_status()

