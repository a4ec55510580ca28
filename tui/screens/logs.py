"""Logs of a run or of an export: level colours, level filter, search, follow.

Uses Textual's ``Log`` fed with ``write_lines`` in batches: plain text (no
markup is ever parsed) and cheap per line, where per-line
``write_line`` leaks a worker per call and ``RichLog`` renders every line as
it arrives. Colour comes from a highlighter applied only to visible lines.
Memory is bounded to the newest :data:`MAX_LINES` lines.

Follow mode asks only for entries newer than the newest one shown. Where the
server has no usable per-run logs (older servers filter by export only) the run's view falls back
to the export's logs inside the run's time window; where logs are refused to
personal API keys the pane says so once and stops asking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import ClassVar

from rich.highlighter import Highlighter
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Log, Static

from tui.api.errors import ApiError, LogsUnavailable, MethodNotAllowed, NotFound, ServerError
from tui.api.models.batch_exports import BatchExportRun, LogEntry
from tui.key_registry import bindings
from tui.look.palette import Tone
from tui.look.render import plain
from tui.screens import debounce
from tui.screens.base import WatchdeckScreen
from tui.state.exports import WatchedExport
from tui.text.clean import clean
from tui.text.words import counted
from tui.widgets.filter_box import FilterBox
from tui.widgets.footer import KeyFooter

MAX_LINES = 5000
PAGE = 500
FOLLOW_SECONDS = 3.0
LEVELS = ("ALL", "DEBUG", "INFO", "WARNING", "ERROR")


class LevelHighlighter(Highlighter):
    """Colours the level word of each line (and nothing from the message itself)."""

    _LEVEL = re.compile(r"^\S+ \S+ (DEBUG|INFO|LOG|WARN(?:ING)?|ERROR)\b")
    # Asked of the palette at each line, not fixed at import: NO_COLOR is known only once the app starts, and
    # there an ERROR in red would be a faint grey (reversed instead) and a WARN in yellow an unremarkable one.
    _TONES: ClassVar[dict[str, Tone]] = {
        "INFO": Tone.STARTING, "LOG": Tone.STARTING, "WARN": Tone.WARNING, "WARNING": Tone.WARNING,
        "ERROR": Tone.FAILURE,
    }

    needle = ""
    """The search being shown: every match of it is highlighted (case-insensitive, as the server matches)."""

    def highlight(self, text: Text) -> None:
        match = self._LEVEL.match(text.plain)
        if match:
            text.stylize(Tone.MUTED.style, 0, match.start(1))
            tone = self._TONES.get(match.group(1))
            text.stylize(tone.style if tone is not None else Tone.MUTED.style, match.start(1), match.end(1))
        if self.needle:
            text.highlight_regex(re.compile(re.escape(self.needle), re.IGNORECASE), "bold reverse")


def format_entry(entry: LogEntry) -> str:
    when = entry.timestamp.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] if entry.timestamp else "-"
    level = clean(entry.level or "-", limit=8).upper() or "-"
    return f"{when} {level:<7} {clean(entry.message, limit=4000)}"


def kept_summary(total: int, kept: int) -> str:
    """``1,234 lines``, or ``last 5,000 of 100,000`` once the view keeps fewer than it was given."""
    return f"last {kept:,} of {total:,}" if total > kept else counted(total, "line")


def level_filter(level: str) -> list[str] | None:
    """The levels to ask for: a floor, so WARNING also shows ERROR."""
    if level == "ALL":
        return None
    order = ["DEBUG", "INFO", "WARNING", "ERROR"]
    return order[order.index(level):]


class LogsScreen(WatchdeckScreen[None]):
    """Full-screen log view; escape goes back to the monitor."""

    BINDINGS: ClassVar[list[BindingType]] = list(bindings("logs"))

    follow: reactive[bool] = reactive(True)
    level: reactive[str] = reactive("ALL")

    def __init__(self, watched: WatchedExport, run: BatchExportRun | None) -> None:
        super().__init__(classes="logs-screen")
        self.watched = watched
        self.run = run
        self._newest: datetime | None = None
        self._search = ""
        self._unavailable = False
        self._use_window = False  # per-run logs unusable: export logs in the run's window
        self._timer: Timer | None = None
        self.lines_written = 0
        self.ignores_paging = False  # the server answered more than asked: following would re-read everything

    def compose(self) -> ComposeResult:
        yield Static(id="logs-title")
        yield FilterBox("search as you type (esc clears)", apply=self._apply_search,
                        wait=lambda: debounce.DEBOUNCE.search, id="logs-search")
        log = Log(max_lines=MAX_LINES, highlight=True, id="logs", auto_scroll=True)
        log.highlighter = LevelHighlighter()
        yield log
        yield Static(id="logs-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._update_title()
        self.query_one("#logs", Log).focus()
        self.reload()

    def on_unmount(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    def _update_title(self) -> None:
        what = Text.assemble(("Logs · ", "bold"), plain(self.watched.export.name, "bold"))
        if self.run is not None:
            what.append(" · run ")
            what.append(plain(self.run.id[:12], Tone.MUTED.style))
            if self._use_window:
                what.append(" (export logs in the run's time window)", style=Tone.NOTE.style)
        what.append(f"   level {self.level}", style=Tone.ACCENT.style)
        if self._search:
            what.append(" · search ")
            what.append(plain(self._search, Tone.ACCENT.style, limit=40))
        if self.follow:
            what.append("   FOLLOW", style=Tone.LIVE.style)
        else:
            what.append("   PAUSED", style=Tone.WARNING.style)
            what.append(" (end follows again)", style=Tone.MUTED.style)
        self.query_one("#logs-title", Static).update(what)

    def _status(self, message: str, style: str = "") -> None:
        self.query_one("#logs-status", Static).update(Text(message, style=style))

    # ------------------------------------------------------------------ fetching

    def _window(self) -> tuple[datetime | None, datetime | None]:
        if self.run is None:
            return None, None
        start = (self.run.created_at - timedelta(seconds=1)) if self.run.created_at else None
        end = self.run.finished_at or self.run.last_updated_at
        return start, (end + timedelta(seconds=1)) if end and self.run.finished_at else None

    async def _fetch(self, after: datetime | None, before: datetime | None, limit: int) -> list[LogEntry]:
        client = self.wd.api_for(self.watched.project_id)
        export_id = self.watched.export.id
        levels = level_filter(self.level)
        if self.run is not None and not self._use_window:
            try:
                return await client.batch_exports.run_logs(export_id, self.run.id, level=levels,
                                                           search=self._search or None, after=after,
                                                           before=before, limit=limit)
            except (NotFound, MethodNotAllowed, ServerError):
                self._use_window = True
                self._update_title()
        if self.run is not None:
            start, end = self._window()
            after = max(after, start) if after and start else (after or start)
            before = min(before, end) if before and end else (before or end)
        return await client.batch_exports.logs(export_id, level=levels, search=self._search or None,
                                               after=after, before=before, limit=limit)

    def reload(self) -> None:
        self.query_one("#logs", Log).clear()
        self._newest = None
        self.lines_written = 0
        self._load_initial()

    @work(group="logs", exclusive=True, exit_on_error=False)
    async def _load_initial(self) -> None:
        """Newest page first, then older pages backwards until MAX_LINES or the start."""
        if self._unavailable:
            return
        self._status("loading…", Tone.MUTED.style)
        collected: list[LogEntry] = []
        before: datetime | None = None
        try:
            while len(collected) < MAX_LINES:
                page = await self._fetch(None, before, PAGE)
                collected.extend(page)
                if len(page) > PAGE:  # limit ignored: this one answer is everything there is
                    self._server_ignores_paging()
                    break
                oldest = page[-1].timestamp if page else None
                if len(page) < PAGE or oldest is None or (before is not None and oldest >= before):
                    break
                before = oldest
        except LogsUnavailable as err:
            self._unavailable = True
            self._status(f"{err} Logs are shown in the web app; watchdeck stops asking.", Tone.WARNING.style)
            return
        except ApiError as err:
            self._status(clean(str(err), limit=300), Tone.FAILURE.style)
            self._arm()
            return
        self._write(reversed(collected[:MAX_LINES]))  # newest first: the Log would drop the rest anyway
        self._status(kept_summary(len(collected), MAX_LINES) + self._paging_note(), Tone.MUTED.style)
        self._arm()

    def _server_ignores_paging(self) -> None:
        """Following re-reads and re-parses the whole log every few seconds on such a server: stop it."""
        self.ignores_paging = True
        self.follow = False

    def _paging_note(self) -> str:
        return (" · this server ignores after/limit, so following would re-read every line: "
                "follow is off (ctrl+r reloads)") if self.ignores_paging else ""

    def _write(self, entries: Iterable[LogEntry]) -> None:
        lines = []
        for entry in entries:
            lines.append(format_entry(entry))
            if entry.timestamp is not None and (self._newest is None or entry.timestamp > self._newest):
                self._newest = entry.timestamp
        if lines:
            self.query_one("#logs", Log).write_lines(lines, scroll_end=self.follow)
            self.lines_written += len(lines)

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        if self.follow and not self._unavailable and not self.ignores_paging:
            self._timer = self.set_timer(FOLLOW_SECONDS, self._follow_tick)

    def _follow_tick(self) -> None:
        self._load_newer()

    @work(group="logs-follow", exclusive=True, exit_on_error=False)
    async def _load_newer(self) -> None:
        try:
            if self._unavailable:
                return
            if self.run is not None and self._use_window and self.run.finished_at is not None:
                return  # a finished run's window is closed: nothing new can arrive
            entries = await self._fetch(self._newest, None, PAGE)
        except LogsUnavailable as err:
            self._unavailable = True
            self._status(str(err), Tone.WARNING.style)
            return
        except ApiError as err:
            self._status(f"follow: {clean(str(err), limit=200)}", Tone.FAILURE.style)
        else:
            newest = self._newest
            fresh = [e for e in entries if newest is None or (e.timestamp and e.timestamp > newest)]
            # more than asked, or older than asked for (equal is a server reading ``after`` as >=)
            if len(entries) > PAGE or (newest is not None and any(e.timestamp and e.timestamp < newest
                                                                  for e in entries)):
                self._server_ignores_paging()
            self._write(reversed(fresh))
            self._status(kept_summary(self.lines_written, MAX_LINES) + self._paging_note(), Tone.MUTED.style)
        finally:
            self._arm()

    # ------------------------------------------------------------------ keys

    def action_close(self) -> None:
        """With the search bar open, escape clears the search (and shows every line again); else it goes back."""
        box = self.query_one("#logs-search", FilterBox)
        if box.shown:
            box.close()  # every line shows again
            self.query_one("#logs", Log).focus()
            return
        self.dismiss(None)

    def action_read_back(self, step: str) -> None:
        if not isinstance(self.focused, Log):
            return
        self.follow = False
        log = self.query_one("#logs", Log)
        if step == "page":
            log.scroll_page_up(animate=False)
        else:
            log.scroll_up(animate=False)

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow

    def action_follow_on(self) -> None:
        if isinstance(self.focused, Input):
            self.focused.action_end()  # End in the search field keeps its meaning
            return
        self.follow = True
        self.query_one("#logs", Log).scroll_end(animate=False)

    def watch_follow(self, follow: bool) -> None:
        if self.is_mounted:
            self._update_title()
            self._arm()

    def action_cycle_level(self) -> None:
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]

    def watch_level(self) -> None:
        if self.is_mounted:
            self._update_title()
            self.reload()

    def action_search(self) -> None:
        self.query_one("#logs-search", FilterBox).open()

    def _apply_search(self, search: str) -> None:
        """Filter as you type: the server is asked once typing pauses (FilterBox), not at every key."""
        if search == self._search:
            return
        self._search = search
        highlighter = self.query_one("#logs", Log).highlighter
        if isinstance(highlighter, LevelHighlighter):
            highlighter.needle = search
        self._update_title()
        self.reload()

    @on(FilterBox.Submitted, "#logs-search")
    def _search_submitted(self) -> None:
        if not self._search:
            self.query_one("#logs-search", FilterBox).hide()
        self.query_one("#logs", Log).focus()

    def action_reload(self) -> None:
        self.reload()

    def on_mouse_scroll_up(self) -> None:
        """Scrolling up to read turns follow off, as in every good tail."""
        self.follow = False
