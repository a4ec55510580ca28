"""Reading an export's runs list from the server into the run history (this module does the requests).

``latest_runs`` holds the ten newest runs: once ten in a row failed, neither
the last Completed run (the lag) nor the length of the streak is among them.
:func:`read_for_verdict` reads the runs list newest first, page by page, until a
Completed run turns up or the runs read reach back ``RECORD_MARGIN`` allowed
lags (the lag is then over its limit by a clear margin); where no Completed run
was found it asks once more with the newest service's ``status`` filter for
the last Completed run, so the lag is true however long the streak.
:func:`read_span` reads one span of creation times for a view (timeline,
groups, repair). Every request first takes room from ``take`` (the operator's
share of the rate budget); a read that finds no room stops, keeping what it read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Protocol

from tui.api.models.batch_exports import BatchExportRun, RunStatus
from tui.api.models.common import Page
from tui.state.health import RECORD_MARGIN, RECORD_WINDOW, incomplete_reason_of_run, run_created, run_order_key
from tui.state.run_history import RunHistory

RECORD_PAGES = 3  # pages of 100 runs read for one verdict
SPAN_PAGES = 5  # pages read for one span a view needs


class RunsApi(Protocol):
    async def runs(self, export_id: str, *, after: datetime | str | None = None,
                   before: datetime | str | None = None, ordering: str | None = None,
                   status: tuple[str, ...] | list[str] = (), next_url: str | None = None) -> Page[BatchExportRun]: ...


def _usable(page: Page[BatchExportRun]) -> list[BatchExportRun]:
    """A run without an id or a status cannot be judged or drawn: left out, as everywhere else."""
    return [run for run in page.results if incomplete_reason_of_run(run) is None]


def window_start(now: datetime) -> datetime:
    """Seven days back (the runs list's own default window, asked explicitly), on the whole hour: every viewer
    then asks the same URL (one shared answer)."""
    return (now - RECORD_WINDOW).replace(minute=0, second=0, microsecond=0)


async def read_for_verdict(api: RunsApi, export_id: str, key: str, history: RunHistory, now: datetime, *,
                           allowed_seconds: float | None, take: Callable[[], bool] = lambda: True) -> int:
    """Read the export's runs back to its last Completed run (or a clear margin past its allowed lag).

    Returns the number of requests sent. 404/405 (no runs list) and other API errors propagate, after
    what was read is kept.
    """
    after = window_start(now)
    margin = now - timedelta(seconds=RECORD_MARGIN * allowed_seconds) if allowed_seconds else None
    runs: list[BatchExportRun] = []
    next_url: str | None = None
    last_page = False
    sent = 0
    try:
        while sent < RECORD_PAGES and take():
            page = await (api.runs(export_id, next_url=next_url) if next_url else api.runs(export_id, after=after))
            sent += 1
            good = _usable(page)
            runs.extend(good)
            next_url = page.next
            if next_url is None:
                last_page = True
                break
            if any(run.status == RunStatus.COMPLETED for run in good):
                break
            stamps = [c for c in (run_created(run) for run in good) if c is not None]
            if margin is not None and stamps and min(stamps) <= margin:
                break
    finally:
        if sent:
            history.add_page(key, runs, now, after=after, last_page=last_page)
    if sent and not last_page and not any(run.status == RunStatus.COMPLETED for run in runs) and take():
        page = await api.runs(export_id, after=after, status=[RunStatus.COMPLETED.value])
        sent += 1
        done = [run for run in _usable(page) if run.status == RunStatus.COMPLETED]
        if done:
            history.add(key, [max(done, key=run_order_key)])  # the last Completed run; the runs between are unread
    return sent


async def read_span(api: RunsApi, export_id: str, key: str, history: RunHistory, lo: datetime, hi: datetime, *,
                    take: Callable[[], bool] = lambda: True, pages: int = SPAN_PAGES,
                    acquire: Callable[[], Awaitable[None]] | None = None) -> int:
    """Read the runs created between ``lo`` and ``hi`` (newest first, paged); returns the requests sent.

    ``acquire`` (waits for room) replaces ``take`` (room now or stop) where the operator waits for the answer.
    """
    runs: list[BatchExportRun] = []
    next_url: str | None = None
    last_page = False
    sent = 0
    try:
        while sent < pages:
            if acquire is not None:
                await acquire()
            elif not take():
                break
            page = await (api.runs(export_id, next_url=next_url) if next_url
                          else api.runs(export_id, after=lo, before=hi))
            sent += 1
            runs.extend(_usable(page))
            next_url = page.next
            if next_url is None:
                last_page = True
                break
    finally:
        if sent:
            history.add_page(key, runs, hi, after=lo, last_page=last_page)
    return sent
