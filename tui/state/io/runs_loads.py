"""The runs pane's reads: the selected export's runs of the last seven days, and older pages as the operator
scrolls past the last run. What they decide (which pages are kept, what a page covers) is
:mod:`tui.state.runs_pane`'s; this module asks the server and hands the answers to the board and the incident desk.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from tui.api.cache_context import bypass_cache
from tui.api.errors import ApiError, MethodNotAllowed, NotFound, ProjectNotFound
from tui.state.export_board import ExportBoard
from tui.state.exports import WatchedExport
from tui.state.health import incomplete_reason_of_run
from tui.state.incident import IncidentDesk
from tui.state.run_history import page_span
from tui.state.run_list import RunPages
from tui.state.runs_pane import RunsPane, older_page_span, runs_window_start

if TYPE_CHECKING:
    from tui.api.client import ApiClient


@dataclass(frozen=True)
class OlderRuns:
    """What an older page added to the runs pane."""

    added: int  # runs not shown before
    last: bool  # the server has no older page


class RunsLoads:
    """Reads the runs the runs pane shows, for one board (a project switch makes new ones with the new board)."""

    def __init__(self, board: ExportBoard, client_for: Callable[[str], ApiClient], desk: IncidentDesk, *,
                 take: Callable[[], bool]) -> None:
        self.board = board
        self.pane = RunsPane()
        self._client_for = client_for
        self._desk = desk
        self._take = take  # a request of the operator's share of the rate budget, False when none is left

    async def load_selected(self, now: Callable[[], datetime]) -> str | None:
        """One request for the selected export's fuller run history (its last seven days); the export's key
        when its runs were stored, None when nothing was read."""
        board = self.board
        watched = board.selected()
        if watched is None or board.runs_list_missing(watched.project_id):
            return None
        asked_at = now()
        after = runs_window_start(asked_at)
        # After ctrl+r the run history is asked of the server too, not only the export list.
        bypass = self.pane.take_bypass()
        try:
            with bypass_cache() if bypass else contextlib.nullcontext():
                page = await self._client_for(watched.project_id).batch_exports.runs(watched.export.id, after=after)
        except ProjectNotFound:
            return None  # the export poll names it; the runs list is not missing for that
        except (NotFound, MethodNotAllowed):
            board.runs_list_not_offered(watched.project_id)
            return None
        except ApiError:
            return None
        # A run without an id or a status cannot be judged or drawn: left out, as `watchdeck status` leaves it out.
        runs = [run for run in page.results if incomplete_reason_of_run(run) is None]
        board.runs_list_read(watched.project_id)
        board.store_runs(watched.key, runs)
        self.pane.pages_after_window(watched.key, page.next)
        self._desk.add_runs(watched.key, runs, page_span(runs, asked_at, after=after, last_page=page.next is None))
        return watched.key

    async def load_older(self, watched: WatchedExport, pages: RunPages) -> OlderRuns | None:
        """The next older page of the export's runs (``pages`` from :meth:`RunsPane.take_older`); None when the
        rate budget has no request left. Raises :class:`ApiError` when the server refuses."""
        try:
            if pages.next_url is None or not self._take():
                return None
            page = await self._client_for(watched.project_id).batch_exports.runs(watched.export.id,
                                                                                next_url=pages.next_url)
        finally:
            pages.loading = False
        span = older_page_span([*self.board.runs_for(watched.key), *pages.runs], page.results)
        added = pages.add_page(page.results, page.next)
        if span is not None:
            self._desk.add_runs(watched.key, page.results, span)
        return OlderRuns(added, last=page.next is None)
