"""The runs pane's state: the window of runs asked of the server, the older pages read by scrolling, the
project labels shown above the exports; what a poll or a key changes, kept out of the screen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from tui.api.models.batch_exports import BatchExportRun
from tui.state.health import run_created
from tui.state.run_history import Span, page_span
from tui.state.run_list import RunPages

RUNS_WINDOW = timedelta(days=7)
PAGES_EXPORTS_KEPT = 4  # exports whose older pages (at most run_list.OLDER_RUNS_KEPT runs each) are kept


def runs_window_start(now: datetime) -> datetime:
    """Where the selected export's run history starts: seven days back, on a whole hour (every viewer then asks
    the same URL, which the shared cache can answer once for all)."""
    return (now - RUNS_WINDOW).replace(minute=0, second=0, microsecond=0)


class RunsPane:
    """Per export, the older pages of runs read past the window; and whether the next read skips the cache."""

    def __init__(self) -> None:
        self._pages: dict[str, RunPages] = {}
        self.bypass_next = False  # ctrl+r: the next runs load asks the server, not the shared cache

    def pages(self, key: str) -> RunPages | None:
        return self._pages.get(key)

    def pages_after_window(self, key: str, next_url: str | None) -> RunPages:
        """The export's pages; the first time, where the window's page said the older runs go on. The pages of
        the last ``PAGES_EXPORTS_KEPT`` exports read are kept."""
        pages = self._pages.pop(key, None) or RunPages()
        self._pages[key] = pages
        for old in list(self._pages)[:-PAGES_EXPORTS_KEPT]:
            del self._pages[old]
        if not pages.runs:
            pages.first_page([], next_url)
        return pages

    def take_older(self, key: str) -> RunPages | None:
        """The export's pages when an older page may be read now (none is being read, more are left): marked as
        being read; None otherwise."""
        pages = self._pages.get(key)
        if pages is None or not pages.can_load_more:
            return None
        pages.loading = True
        return pages

    def take_bypass(self) -> bool:
        """Whether this load skips the shared cache (once, after ctrl+r)."""
        bypass, self.bypass_next = self.bypass_next, False
        return bypass

    def shown(self, key: str, runs: Sequence[BatchExportRun]) -> list[BatchExportRun]:
        """The board's runs of the export, then the older pages loaded by scrolling past the last one."""
        pages = self._pages.get(key)
        if pages is None or not pages.runs:
            return list(runs)
        known = {run.id for run in runs}
        return [*runs, *(run for run in pages.runs if run.id not in known)]


def older_page_span(known: Sequence[BatchExportRun], page: Sequence[BatchExportRun]) -> Span | None:
    """The creation times an older page covers: it goes on from the oldest run ``known`` before it (the runs
    shown when it was asked), so from there back to its own oldest run every run is read."""
    stamps = [c for c in (run_created(run) for run in known) if c]
    return page_span(page, min(stamps), after=None, last_page=False) if stamps else None


class ProjectLabels:
    """``Acme · production`` per watched project, asked once, after the first poll's frame."""

    def __init__(self) -> None:
        self._labels: dict[str, str] = {}
        self.asked = False

    def know(self, project_id: str, label: str) -> None:
        self._labels[project_id] = label

    def title(self, project_ids: Iterable[str]) -> str:
        """The labels of the watched projects known so far, joined by `` | ``."""
        return " | ".join(self._labels[p] for p in project_ids if p in self._labels)

    def section(self, project_id: str) -> str:
        """The name of a project's section row: its label, or its id until the label is known."""
        return self._labels.get(project_id) or f"project {project_id}"
